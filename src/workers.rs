//! Runs the pipeline over a job's logs under the watchdog: one log on the
//! calling thread, a batch on worker threads with verdicts in input order.
//!
//! The watchdog answers for a scan that has not answered `timeout` plus
//! [`WATCHDOG_GRACE`] after it started: the log gets a `timed_out` verdict at
//! once, and its late answer is dropped. Threads running a scan are never
//! joined, so a stuck one cannot hold the process past its answer. A single
//! log whose scan is bounded (built-in patterns, lines of at most
//! [`crate::pipeline::matcher::BOUNDED_LINE`] bytes, a window of at most
//! [`crate::pipeline::BOUNDED_WINDOW`]) needs no watchdog thread: the
//! deadline checks between its lines keep it within the grace.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

use crate::config::ClassifyConfig;
use crate::error::ProfileError;
use crate::output::render::Renderer;
use crate::output::verdict::Verdict;
use crate::pipeline::Pipeline;
use crate::pipeline::matcher::Workload;
use crate::pipeline::window::LogSource;
use crate::profile::Profile;

/// How long past its deadline a scan may run before the watchdog answers for it.
pub const WATCHDOG_GRACE: Duration = Duration::from_millis(100);

/// A classification run: the pipeline, shared by the workers, and the logs.
pub struct Job {
    /// The profile and settings every log is classified with.
    pub pipeline: Pipeline,
    /// The logs, in output order.
    pub logs: Vec<LogSource>,
    /// Worker threads for a batch.
    pub threads: usize,
}

impl Job {
    /// Prepares a run of `config` with `profile`, sized for its logs.
    pub fn new(profile: Profile, config: ClassifyConfig) -> Result<Self, ProfileError> {
        let workload = Workload::for_logs(config.logs.len());
        let pipeline = Pipeline::new(profile, config.settings, workload)?;
        Ok(Job { pipeline, logs: config.logs, threads: config.threads })
    }

    /// The verdict the watchdog gives log `i`, whose scan started at `started`.
    fn overdue(&self, i: usize, started: Instant) -> Verdict {
        self.pipeline.overdue(&self.logs[i].label(), started)
    }
}

/// Classifies the job's only log on the calling thread, with a watchdog
/// thread beside it unless the scan is bounded, and hands the verdict to `sink`.
///
/// `sink` is shared: whichever of the two threads answers first takes it. When
/// the watchdog does, it calls `on_overdue` with the sink and the `timed_out`
/// verdict (which must end the process), and this thread waits for the end.
/// The watchdog waits on a condition variable and does nothing else unless it
/// answers, so a log that scans in time costs at most one thread start.
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
    let limit = job.pipeline.settings.timeout + WATCHDOG_GRACE;
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
    let set = |f: &dyn Fn(&mut Scan)| {
        f(&mut shared.scan.lock().unwrap_or_else(PoisonError::into_inner));
        shared.changed.notify_all();
    };
    let watchdog = std::cell::Cell::new(Some(watchdog));
    // A bounded scan keeps to its deadline by itself: starting the thread
    // would cost a one-shot run a tenth of its time.
    let start = |t: Instant, bounded: bool| {
        if bounded {
            return;
        }
        set(&|s| s.started = Some(t));
        // The stack is reserved, not committed: 256 KiB leaves rendering and
        // writing the verdict ample room. Should the thread not start, the
        // deadline is still checked between lines; only a single runaway
        // search could then overrun it.
        if let Some(watchdog) = watchdog.take() {
            let _ = std::thread::Builder::new().name("watchdog".into()).stack_size(256 << 10).spawn(watchdog);
        }
    };
    let verdict = classify_guarded(&job, 0, &start);
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

/// A verdict and, unless `-q`, its rendered bytes.
type Answer = (Verdict, Vec<u8>);

/// A worker's mailbox, shared with the thread that orders: what the worker is
/// scanning and since when (for the watchdog), the logs it has finished that
/// the ordering thread has not collected yet, and the written ones it is to
/// free. Finished logs wait here, not in a channel, so that a worker stuck on
/// its next scan cannot take them with it: the ordering thread collects them
/// all the same.
#[derive(Default)]
struct Mailbox {
    scanning: Option<(usize, Instant)>,
    /// Finished logs, by index.
    done: Vec<(usize, Answer)>,
    /// Freed by the worker that allocated them: glibc frees another thread's
    /// memory under that thread's arena lock, and the ordering thread freeing
    /// verdicts kept a lone worker waiting on it a quarter of the time.
    spent: Vec<Answer>,
}

type Slot = Mutex<Mailbox>;

/// A worker wakes the ordering thread once it holds this many finished logs
/// (or has no more to take). Waking it for every log cost a context switch
/// per log: 11,000 of them on 10,000 small logs.
const WAKE_EVERY: usize = 32;

/// The longest the ordering thread sleeps between collections: how late a
/// verdict can reach the output when logs are slow to scan.
const COLLECT_EVERY: Duration = Duration::from_millis(5);

/// Classifies every log of the job on worker threads and calls `emit` with each
/// verdict, rendered by `renderer` (when given) on the worker, in input order;
/// `emit` returns false to stop early. A scan the watchdog answers for has its
/// worker replaced by a fresh one.
///
/// This thread only collects, orders, writes and watches the clock, so that it
/// stays a small share of the work.
pub fn classify_logs(
    job: Arc<Job>,
    renderer: Option<Arc<dyn Renderer + Send + Sync>>,
    mut emit: impl FnMut(&Verdict, &[u8]) -> bool,
) {
    let n = job.logs.len();
    let next = Arc::new(AtomicUsize::new(0));
    let orderer = std::thread::current();
    let spawn = || {
        let slot = Arc::new(Slot::default());
        let (job, next, renderer, mine, orderer) =
            (Arc::clone(&job), Arc::clone(&next), renderer.clone(), Arc::clone(&slot), orderer.clone());
        let handle = std::thread::spawn(move || worker(&job, &next, &mine, renderer.as_deref(), &orderer));
        (slot, handle)
    };
    let mut workers: Vec<(Arc<Slot>, JoinHandle<()>)> = (0..job.threads.min(n)).map(|_| spawn()).collect();
    let limit = job.pipeline.settings.timeout + WATCHDOG_GRACE;
    // Each finished log with the index of the worker that made it (none for
    // the watchdog's verdicts).
    let mut ready: InOrder<(Answer, Option<usize>)> = InOrder::default();
    // A log is answered once: by its worker or by the watchdog, whichever first.
    let mut answered = vec![false; n];
    // Written logs on their way back to their workers.
    let mut spent: Vec<Vec<Answer>> = Vec::new();
    loop {
        // Every worker gone with logs unanswered cannot happen (a panic costs
        // one log an error verdict), but never wait forever.
        let all_gone = workers.iter().all(|(_, h)| h.is_finished());
        for (w, (slot, _)) in workers.iter().enumerate() {
            for (i, answer) in slot.lock().unwrap_or_else(PoisonError::into_inner).done.drain(..) {
                if !answered[i] {
                    answered[i] = true;
                    ready.put(i, (answer, Some(w)));
                }
            }
        }
        spent.resize_with(workers.len(), Vec::new);
        while let Some(((v, bytes), maker)) = ready.next() {
            if !emit(&v, &bytes) {
                // Leave the workers nothing more to take.
                next.store(n, Ordering::Relaxed);
                return;
            }
            if let Some(w) = maker {
                spent[w].push((v, bytes));
            }
        }
        for (back, (slot, _)) in spent.iter_mut().zip(&workers).filter(|(back, _)| !back.is_empty()) {
            slot.lock().unwrap_or_else(PoisonError::into_inner).spent.append(back);
        }
        if ready.head == n || all_gone {
            return;
        }
        // Scans in progress, by the slots. One that starts while this thread
        // sleeps is seen at the next wake, at most `COLLECT_EVERY` later.
        let now = Instant::now();
        let wait = scans(&workers, &answered)
            .map(|(_, t)| (t + limit).saturating_duration_since(now))
            .fold(COLLECT_EVERY, Duration::min);
        std::thread::park_timeout(wait);
        let now = Instant::now();
        let overdue: Vec<(usize, Instant)> = scans(&workers, &answered).filter(|&(_, t)| now >= t + limit).collect();
        for (i, started) in overdue {
            answered[i] = true;
            let v = job.overdue(i, started);
            let bytes = renderer.as_ref().map(|r| r.verdict(&v)).unwrap_or_default();
            ready.put(i, ((v, bytes), None));
            workers.push(spawn());
        }
    }
}

/// Finished logs waiting for the ones before them to be written: slots from
/// the first unwritten log to the last finished one. Logs finish a few per
/// worker out of order, so this stays small however long the batch (a slot
/// per log of the batch cost memory and page faults in proportion to the
/// batch); only a scan that overruns holds back the logs after it, until the
/// watchdog answers for it.
struct InOrder<T> {
    /// The first log not taken yet.
    head: usize,
    slots: VecDeque<Option<T>>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        InOrder { head: 0, slots: VecDeque::new() }
    }
}

impl<T> InOrder<T> {
    /// Holds log `i`, finished. A log before the head was taken already and is
    /// not held again.
    fn put(&mut self, i: usize, item: T) {
        let Some(k) = i.checked_sub(self.head) else { return };
        if self.slots.len() <= k {
            self.slots.resize_with(k + 1, || None);
        }
        self.slots[k] = Some(item);
    }

    /// The log at the head, once it has finished.
    fn next(&mut self) -> Option<T> {
        let item = self.slots.front_mut()?.take()?;
        self.slots.pop_front();
        self.head += 1;
        Some(item)
    }
}

/// The scans in progress that no one has answered for yet.
fn scans<'a>(
    workers: &'a [(Arc<Slot>, JoinHandle<()>)],
    answered: &'a [bool],
) -> impl Iterator<Item = (usize, Instant)> + 'a {
    workers
        .iter()
        .filter_map(|(s, _)| s.lock().unwrap_or_else(PoisonError::into_inner).scanning)
        .filter(|&(i, _)| !answered[i])
}

fn worker(
    job: &Job,
    next: &AtomicUsize,
    slot: &Slot,
    renderer: Option<&(dyn Renderer + Send + Sync)>,
    orderer: &Thread,
) {
    let mailbox = || slot.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= job.logs.len() {
            orderer.unpark();
            return;
        }
        let verdict = classify_guarded(job, i, &|t, _| mailbox().scanning = Some((i, t)));
        let bytes = renderer.map(|r| r.verdict(&verdict)).unwrap_or_default();
        let (held, spent) = {
            let mut mailbox = mailbox();
            mailbox.scanning = None;
            mailbox.done.push((i, (verdict, bytes)));
            (mailbox.done.len(), std::mem::take(&mut mailbox.spent))
        };
        if held >= WAKE_EVERY {
            orderer.unpark();
        }
        drop(spent);
    }
}

/// Classifies log `i` under `watch`. A panic is a bug, but it must cost one
/// log an error verdict, not the run.
fn classify_guarded(job: &Job, i: usize, watch: &dyn Fn(Instant, bool)) -> Verdict {
    let source = &job.logs[i];
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.pipeline.classify(source, watch).verdict))
        .unwrap_or_else(|_| {
            job.pipeline
                .failed(&source.label(), "internal error while classifying this log (a bug: please report it)".into())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_finished_out_of_order_come_out_in_order_and_only_the_gap_is_held() {
        let mut ready = InOrder::default();
        ready.put(1, "b");
        ready.put(2, "c");
        assert_eq!(ready.next(), None, "log 0 has not finished");
        ready.put(0, "a");
        assert_eq!((ready.next(), ready.next(), ready.next(), ready.next()), (Some("a"), Some("b"), Some("c"), None));
        ready.put(1, "late");
        ready.put(5, "f");
        assert_eq!((ready.head, ready.slots.len()), (3, 3), "slots from the head to log 5 only");
        ready.put(3, "d");
        ready.put(4, "e");
        assert_eq!([ready.next(), ready.next(), ready.next()], [Some("d"), Some("e"), Some("f")]);
        assert!(ready.slots.is_empty());
    }
}
