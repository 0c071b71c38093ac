//! Runs the pipeline over a job's logs under the watchdog: one log on the
//! calling thread, a batch on worker threads with verdicts in input order.
//!
//! The watchdog answers for a scan that has not answered `timeout` plus
//! [`WATCHDOG_GRACE`] after it started: the log gets a `timed_out` verdict at
//! once, and its late answer is dropped. Threads running a scan are never
//! joined, so a stuck one cannot hold the process past its answer.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::classify_window;
use crate::config::{ClassifyConfig, LogSource};
use crate::decide::{self, Subject};
use crate::matcher::CompiledProfile;
use crate::profile::Profile;
use crate::render::Renderer;
use crate::verdict::Verdict;
use crate::window::{self, Window, WindowSpec};

/// How long past its deadline a scan may run before the watchdog answers for it.
pub const WATCHDOG_GRACE: Duration = Duration::from_millis(100);

/// A classification run: the profile (compiled unless nothing needs scanning)
/// and the configuration, shared by the workers.
pub struct Job {
    profile_name: String,
    profile_origin: String,
    compiled: Option<CompiledProfile>,
    /// The configuration.
    pub config: ClassifyConfig,
}

impl Job {
    /// Prepares a run; the profile is compiled only when some log will be scanned.
    pub fn new(profile: Profile, config: ClassifyConfig) -> Result<Self> {
        let profile_name = profile.name.clone();
        let profile_origin = profile.origin.label();
        let skip_all = decide::skip_reason(config.status.as_deref(), config.result_present).is_some();
        let compiled = if skip_all { None } else { Some(CompiledProfile::compile(profile, &profile_origin)?) };
        Ok(Job { profile_name, profile_origin, compiled, config })
    }

    fn subject<'a>(&'a self, log: &'a str) -> Subject<'a> {
        Subject {
            log,
            profile: &self.profile_name,
            profile_origin: &self.profile_origin,
            status: self.config.status.as_deref(),
        }
    }

    /// The verdict the watchdog gives log `i`, whose scan started at `started`.
    fn overdue(&self, i: usize, started: Instant) -> Verdict {
        let label = self.config.logs[i].label();
        let mut v = decide::overdue(self.subject(&label), self.config.timeout);
        v.elapsed_us = micros(started.elapsed());
        v
    }
}

/// Classifies the job's only log on the calling thread, with a watchdog
/// thread beside it, and hands the verdict to `sink`.
///
/// `sink` is shared: whichever of the two threads answers first takes it. When
/// the watchdog does, it calls `on_overdue` with the sink and the `timed_out`
/// verdict (which must end the process), and this thread waits for the end.
/// The watchdog waits on a condition variable and does nothing else unless it
/// answers, so a log that scans in time costs one thread start.
pub fn classify_alone<S: Send + 'static>(job: Arc<Job>, sink: S, on_overdue: fn(S, &Verdict) -> !) -> (S, Verdict) {
    #[derive(Default)]
    struct Scan {
        started: Option<Instant>,
        done: bool,
    }
    struct Shared<S> {
        sink: Mutex<Option<S>>,
        scan: Mutex<Scan>,
        changed: Condvar,
    }
    let shared =
        Arc::new(Shared { sink: Mutex::new(Some(sink)), scan: Mutex::new(Scan::default()), changed: Condvar::new() });
    let limit = job.config.timeout + WATCHDOG_GRACE;
    let watchdog = {
        let (shared, job) = (Arc::clone(&shared), Arc::clone(&job));
        move || {
            let mut scan = shared.scan.lock().unwrap_or_else(PoisonError::into_inner);
            let started = loop {
                match *scan {
                    Scan { done: true, .. } => return,
                    Scan { started: None, .. } => {
                        scan = shared.changed.wait(scan).unwrap_or_else(PoisonError::into_inner)
                    }
                    Scan { started: Some(started), .. } => {
                        let left = (started + limit).saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            break started;
                        }
                        scan = shared.changed.wait_timeout(scan, left).unwrap_or_else(PoisonError::into_inner).0;
                    }
                }
            };
            drop(scan);
            let taken = shared.sink.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(sink) = taken {
                on_overdue(sink, &job.overdue(0, started));
            }
        }
    };
    // The stack is reserved, not committed: 256 KiB leaves rendering and
    // writing the verdict ample room. Should the thread not start, the deadline
    // is still checked between lines; only a single runaway search could then
    // overrun it.
    let _ = std::thread::Builder::new().name("watchdog".into()).stack_size(256 << 10).spawn(watchdog);
    let set = |f: &dyn Fn(&mut Scan)| {
        f(&mut shared.scan.lock().unwrap_or_else(PoisonError::into_inner));
        shared.changed.notify_all();
    };
    let verdict = classify_guarded(&job, 0, &|t| set(&|s| s.started = Some(t)));
    set(&|s| s.done = true);
    let taken = shared.sink.lock().unwrap_or_else(PoisonError::into_inner).take();
    match taken {
        Some(sink) => (sink, verdict),
        // The watchdog answered and is ending the process.
        None => loop {
            std::thread::park();
        },
    }
}

/// What a worker is scanning, and since when: read by the watchdog loop.
type Slot = Mutex<Option<(usize, Instant)>>;

/// A finished log: its verdict and, unless `-q`, its rendered bytes.
type Done = (usize, Box<Verdict>, Vec<u8>);

/// Classifies every log of the job on worker threads and calls `emit` with each
/// verdict, rendered by `renderer` (when given) on the worker, in input order;
/// `emit` returns false to stop early. A scan the watchdog answers for has its
/// worker replaced by a fresh one.
///
/// Workers post what they scan in a slot of their own and send one message per
/// log, so that this thread, which orders and writes, stays a small share of
/// the work.
pub fn classify_logs(
    job: Arc<Job>,
    renderer: Option<Arc<dyn Renderer + Send + Sync>>,
    mut emit: impl FnMut(&Verdict, &[u8]) -> bool,
) {
    let n = job.config.logs.len();
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<Done>();
    let mut slots: Vec<Arc<Slot>> = Vec::new();
    let spawn = |tx: Sender<Done>| {
        let slot = Arc::new(Slot::new(None));
        let (job, next, renderer, mine) = (Arc::clone(&job), Arc::clone(&next), renderer.clone(), Arc::clone(&slot));
        std::thread::spawn(move || worker(&job, &next, &mine, renderer.as_deref(), &tx));
        slot
    };
    for _ in 0..job.config.threads.min(n) {
        slots.push(spawn(tx.clone()));
    }
    let limit = job.config.timeout + WATCHDOG_GRACE;
    let mut ready: Vec<Option<(Verdict, Vec<u8>)>> = (0..n).map(|_| None).collect();
    // A log is answered once: by its worker or by the watchdog, whichever first.
    let mut answered = vec![false; n];
    let mut head = 0;
    while head < n {
        if let Some((v, bytes)) = ready[head].take() {
            if !emit(&v, &bytes) {
                return;
            }
            head += 1;
            continue;
        }
        // Scans in progress, by the slots. One that starts while this thread
        // sleeps is seen at the next wake, at most `limit` later, and its own
        // limit is later still. Read without collecting: this runs once per log.
        let now = Instant::now();
        let wait =
            scans(&slots, &answered).map(|(_, t)| (t + limit).saturating_duration_since(now)).min().unwrap_or(limit);
        match rx.recv_timeout(wait) {
            Ok((i, v, bytes)) => {
                if !answered[i] {
                    answered[i] = true;
                    ready[i] = Some((*v, bytes));
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                let overdue: Vec<(usize, Instant)> =
                    scans(&slots, &answered).filter(|&(_, t)| now >= t + limit).collect();
                for (i, started) in overdue {
                    answered[i] = true;
                    let v = job.overdue(i, started);
                    let bytes = renderer.as_ref().map(|r| r.verdict(&v)).unwrap_or_default();
                    ready[i] = Some((v, bytes));
                    slots.push(spawn(tx.clone()));
                }
            }
            // Every worker is gone and nothing is pending: cannot happen while
            // logs remain, but never wait forever.
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The scans in progress that no one has answered for yet.
fn scans<'a>(slots: &'a [Arc<Slot>], answered: &'a [bool]) -> impl Iterator<Item = (usize, Instant)> + 'a {
    slots.iter().filter_map(|s| *s.lock().unwrap_or_else(PoisonError::into_inner)).filter(|&(i, _)| !answered[i])
}

fn worker(
    job: &Job,
    next: &AtomicUsize,
    slot: &Slot,
    renderer: Option<&(dyn Renderer + Send + Sync)>,
    tx: &Sender<Done>,
) {
    let post = |now: Option<(usize, Instant)>| *slot.lock().unwrap_or_else(PoisonError::into_inner) = now;
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= job.config.logs.len() {
            return;
        }
        let verdict = classify_guarded(job, i, &|t| post(Some((i, t))));
        post(None);
        let bytes = renderer.map(|r| r.verdict(&verdict)).unwrap_or_default();
        if tx.send((i, Box::new(verdict), bytes)).is_err() {
            return;
        }
    }
}

/// Classifies log `i`, calling `scanning` when its scan starts. A panic is a
/// bug, but it must cost one log an error verdict, not the run.
fn classify_guarded(job: &Job, i: usize, scanning: &dyn Fn(Instant)) -> Verdict {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| classify_one(job, i, scanning))).unwrap_or_else(|_| {
        let label = job.config.logs[i].label();
        decide::unreadable(
            job.subject(&label),
            "internal error while classifying this log (a bug: please report it)".into(),
        )
    })
}

fn classify_one(job: &Job, i: usize, scanning: &dyn Fn(Instant)) -> Verdict {
    let started = Instant::now();
    let source = &job.config.logs[i];
    let label = source.label();
    let subject = job.subject(&label);
    let mut verdict = match (decide::skip_reason(subject.status, job.config.result_present), &job.compiled) {
        (Some(reason), _) => decide::skipped(subject, reason),
        (None, None) => decide::skipped(subject, "nothing to scan".into()),
        (None, Some(compiled)) => match read_window(source, job.config.window) {
            Err(e) => decide::unreadable(subject, e.to_string()),
            Ok(window) => {
                let scan_start = Instant::now();
                scanning(scan_start);
                classify_window(compiled, subject, &window, Some(scan_start + job.config.timeout), job.config.timeout)
            }
        },
    };
    verdict.elapsed_us = micros(started.elapsed());
    verdict
}

/// Reads the window of one log: regular files by seeking, anything else
/// (standard input, FIFOs, devices) as a stream.
pub fn read_window(source: &LogSource, spec: WindowSpec) -> io::Result<Window> {
    match source {
        LogSource::Stdin => window::read_stream(io::stdin().lock(), spec),
        LogSource::Path(path) => {
            let mut file = File::open(path)?;
            let meta = file.metadata()?;
            if meta.is_dir() {
                return Err(io::Error::other("is a directory"));
            }
            if meta.is_file() { window::read_file(&mut file, spec) } else { window::read_stream(file, spec) }
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
