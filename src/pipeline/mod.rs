//! The classification pipeline (SPEC §1) and its one entry point:
//!
//! ```text
//! log ─window─▶ tail bytes ─clean─▶ lines ─matcher─▶ hits ─decide─▶ verdict
//!                           │         └rejoin─▶ lines ─┘ (no fault in the rows)
//!                           └records─▶ records ─┘
//! ```
//!
//! A window of JSON Lines (SPEC §1.7) goes through [`records`] instead of
//! [`clean`]; the matcher and decide stages take either. When the cleaned
//! rows hold no environment fault, [`rejoin`] joins the rows a pane cut at
//! its width, for a second scan.
//!
//! [`Pipeline::classify`] owns the whole walk for one log and hands back the
//! verdict with what the stages made on the way ([`Trace`]), so that
//! `classify`, `explain`, the tests, the benches and the fuzz targets all run
//! the same code. The one decision it leaves to its caller is whether a
//! watchdog must stand by while the scan runs ([`Watch`]).

pub mod clean;
pub mod decide;
pub mod hints;
pub mod matcher;
pub mod records;
pub mod rejoin;
pub mod stamp;
pub mod window;

use std::time::{Duration, Instant};

use crate::error::ProfileError;
use crate::output::verdict::Verdict;
use crate::pipeline::matcher::{CompiledProfile, Scan, Workload};
use crate::profile::Profile;
use clean::Cleaned;
use decide::{Body, Subject};
use records::{Input, InputMode, Records};
use window::{LogSource, Window, WindowSpec};

/// The scan deadline when none is given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How each log of a job is read and classified.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Which bytes of each log.
    pub window: WindowSpec,
    /// The scan deadline per log.
    pub timeout: Duration,
    /// `--status`: how the session ended.
    pub status: Option<String>,
    /// `--result-present`: the session produced its result; skip.
    pub result_present: bool,
    /// `--input`: how each window is read.
    pub input: InputMode,
}

impl Default for Settings {
    /// The default window and deadline, no status.
    fn default() -> Self {
        Settings {
            window: WindowSpec::default(),
            timeout: DEFAULT_TIMEOUT,
            status: None,
            result_present: false,
            input: InputMode::Auto,
        }
    }
}

/// What a scan tells its caller, once, as it starts: when it started (before
/// the window was cleaned, so cleaning counts against the deadline) and
/// whether it is bounded, so that the caller can start a watchdog, or not.
///
/// A window of at most [`BOUNDED_WINDOW`] bytes is told after cleaning, when
/// [`CompiledProfile::scan_is_bounded`] can say; a larger one before
/// cleaning, as unbounded, so that a watchdog watches the cleaning too.
pub type Watch<'a> = &'a dyn Fn(Instant, bool);

/// The largest window whose scan can count as bounded, so that a single log
/// needs no watchdog thread when its profile and lines allow: reading,
/// cleaning and scanning 256 KiB of random bytes, the slowest such window
/// measured, takes a small fraction of the watchdog's grace.
pub const BOUNDED_WINDOW: usize = 256 << 10;

/// A watch that does nothing: the scan's own deadline checks are enough.
pub fn unwatched(_: Instant, _: bool) {}

/// A profile and settings ready to classify logs.
#[derive(Debug)]
pub struct Pipeline {
    profile_name: String,
    profile_origin: String,
    /// None when the settings skip every log: nothing needs the profile compiled.
    compiled: Option<CompiledProfile>,
    /// The settings.
    pub settings: Settings,
}

/// What the stages made on the way to a verdict, for callers that show it.
#[derive(Debug)]
pub struct Trace {
    /// The bytes read.
    pub window: Window,
    /// The window's lines after cleaning (none when it was read as records).
    pub cleaned: Cleaned,
    /// The window's records, when it was read as JSON Lines.
    pub records: Option<Records>,
    /// The match stage's hits.
    pub scan: Scan,
}

/// One log classified.
#[derive(Debug)]
pub struct Classified {
    /// The verdict.
    pub verdict: Verdict,
    /// The stages' output; none when the log was skipped or unreadable.
    pub trace: Option<Trace>,
}

impl Pipeline {
    /// Prepares `profile` for a job of `workload`; the profile is compiled
    /// only when some log will be scanned.
    pub fn new(profile: Profile, settings: Settings, workload: Workload) -> Result<Self, ProfileError> {
        let profile_name = profile.name.clone();
        let profile_origin = profile.origin.label();
        let skip_all = decide::skip_reason(settings.status.as_deref(), settings.result_present).is_some();
        let compiled =
            if skip_all { None } else { Some(CompiledProfile::compile_for(profile, &profile_origin, workload)?) };
        Ok(Pipeline { profile_name, profile_origin, compiled, settings })
    }

    /// The compiled profile, unless every log is skipped.
    pub fn compiled(&self) -> Option<&CompiledProfile> {
        self.compiled.as_ref()
    }

    /// The profile, unless every log is skipped.
    pub fn profile(&self) -> Option<&Profile> {
        self.compiled.as_ref().map(|c| &c.profile)
    }

    /// The parts of a verdict about `log` that do not depend on its content.
    pub fn subject<'a>(&'a self, log: &'a str) -> Subject<'a> {
        Subject {
            log,
            profile: &self.profile_name,
            profile_origin: &self.profile_origin,
            status: self.settings.status.as_deref(),
        }
    }

    /// Classifies one log: skip, read, clean, scan, decide. `watch` hears
    /// when the scan starts. A log that cannot be read gets an error verdict.
    pub fn classify(&self, source: &LogSource, watch: Watch<'_>) -> Classified {
        self.run(&source.label(), watch, || Ok((window::read(source, self.settings.window)?, None)))
    }

    /// Classifies a window already read (tests, benches, fuzzing): clean,
    /// scan, decide. Skips as [`Pipeline::classify`] does.
    pub fn classify_window(&self, log: &str, window: Window) -> Classified {
        self.run(log, &unwatched, || Ok((window, None)))
    }

    /// Classifies a window already read and cleaned, as text: scan, decide.
    /// For a caller that read the lines itself (a `stall --classify` tick),
    /// so that a window is cleaned once. Skips as [`Pipeline::classify`] does.
    pub fn classify_cleaned(&self, log: &str, window: Window, cleaned: Cleaned) -> Classified {
        self.run(log, &unwatched, || Ok((window, Some(cleaned))))
    }

    /// The walk the entry points share: skip, or `read` the window (and its
    /// lines, when the caller cleaned them) and scan it; the window is read
    /// only when the log is to be scanned.
    fn run(
        &self,
        log: &str,
        watch: Watch<'_>,
        read: impl FnOnce() -> std::io::Result<(Window, Option<Cleaned>)>,
    ) -> Classified {
        let started = Instant::now();
        let subject = self.subject(log);
        let settings = &self.settings;
        let mut done = match (decide::skip_reason(subject.status, settings.result_present), &self.compiled) {
            (Some(reason), _) => Classified { verdict: decide::skipped(subject, reason), trace: None },
            (None, None) => Classified { verdict: decide::skipped(subject, "nothing to scan".into()), trace: None },
            (None, Some(compiled)) => match read() {
                Err(e) => Classified { verdict: decide::unreadable(subject, e.to_string()), trace: None },
                Ok((window, cleaned)) => scan_window(compiled, subject, window, cleaned, settings, watch),
            },
        };
        if done.trace.is_none() {
            done.verdict.input = self.nominal_input();
        }
        done.verdict.elapsed_us = micros(started.elapsed());
        done
    }

    /// The verdict a watchdog gives `log`, whose scan started at `started`
    /// and has not answered within the deadline.
    pub fn overdue(&self, log: &str, started: Instant) -> Verdict {
        let mut v = decide::overdue(self.subject(log), self.settings.timeout);
        v.input = self.nominal_input();
        v.elapsed_us = micros(started.elapsed());
        v
    }

    /// The verdict of a log whose classification failed with `error`.
    pub fn failed(&self, log: &str, error: String) -> Verdict {
        let mut v = decide::unreadable(self.subject(log), error);
        v.input = self.nominal_input();
        v
    }

    /// How a log is said to be read when its window was not: `jsonl` only
    /// when `--input jsonl` forces it.
    fn nominal_input(&self) -> Input {
        if self.settings.input == InputMode::Jsonl { Input::Jsonl } else { Input::Text }
    }
}

/// Read as records or clean (unless the caller gave the cleaned lines), scan
/// under the deadline, decide.
fn scan_window(
    compiled: &CompiledProfile,
    subject: Subject<'_>,
    window: Window,
    cleaned: Option<Cleaned>,
    settings: &Settings,
    watch: Watch<'_>,
) -> Classified {
    let timeout = settings.timeout;
    let scan_start = Instant::now();
    let small = window.bytes.len() <= BOUNDED_WINDOW;
    if !small {
        watch(scan_start, false);
    }
    let records = match cleaned {
        Some(_) => None,
        // A program's banner comes only at the log's start.
        None => {
            let banner = if window.start == 0 { compiled.profile.banner.as_slice() } else { &[] };
            records::read(&window.bytes, window.starts_mid_line, settings.input, banner)
        }
    };
    if let Some(mut records) = records {
        if small {
            watch(scan_start, compiled.records_are_bounded(&records));
        }
        let scan = compiled.scan_records(&window.bytes, &records, Some(scan_start + timeout));
        records.unparsed = scan.unparsed;
        let verdict = decide::decide(subject, compiled, &window, Body::Records(&records), &scan, timeout);
        // Records after a banner stand when a rule read them (a fault, a
        // recovered one, or the work's own failure); else the window is the
        // text it was read as before (its records may be another program's
        // output).
        if records.banner == 0 || !verdict.hits.is_empty() || verdict.timed_out {
            let trace = Trace { window, cleaned: Cleaned::default(), records: Some(records), scan };
            return Classified { verdict, trace: Some(trace) };
        }
    }
    let cleaned = cleaned.unwrap_or_else(|| clean::clean(&window.bytes, window.starts_mid_line));
    if small {
        watch(scan_start, compiled.scan_is_bounded(&cleaned));
    }
    let scan = compiled.scan(&cleaned, Some(scan_start + timeout));
    let (cleaned, scan) = second_look(compiled, cleaned, scan, Some(scan_start + timeout));
    let verdict = decide::decide(subject, compiled, &window, Body::Text(&cleaned), &scan, timeout);
    Classified { verdict, trace: Some(Trace { window, cleaned, records: None, scan }) }
}

/// A second look at a text window's lines, as a pane without `-J` cut them
/// into rows ([`rejoin`]), under the same deadline:
///
/// - when the rows' last hit is no environment fault, the lines joined from
///   them are scanned, and stand if their last hit is an environment fault
///   after the rows' last hit, or reaching its row when that row is a piece
///   of a cut line: what the join newly shows (a window whose
///   joined lines, and the lines they may frame, hold no rule's literal,
///   costs no scan);
/// - when the rows' last hit is an environment fault on a piece of a cut
///   line, in a capture that shows itself a cut pane, the row's start or end
///   is not the line's: the joined lines decide, fault or not.
///
/// Either way a fault from the joined lines is recovered from by a `progress`
/// row after its rows, as read on the rows (a progress row right under a
/// whole row as wide as the pane is glued to it in the joined lines), or by
/// a progress line of the joined lines when no row shows one. A
/// second scan that runs out of time declines the classification, as the
/// first would have.
fn second_look(compiled: &CompiledProfile, rows: Cleaned, scan: Scan, deadline: Option<Instant>) -> (Cleaned, Scan) {
    let faulted = |s: &Scan| s.last.is_some_and(|l| compiled.profile.rules[l.rule].action.is_env_fault());
    if scan.timed_out {
        return (rows, scan);
    }
    // A TUI wraps its own lines: the pane of a program whose log carries
    // model output is read for those wraps too.
    let tui = compiled.profile.carries_model_output;
    let Some(rejoined) = rejoin::rejoin(&rows, tui) else { return (rows, scan) };
    let joined = &rejoined.cleaned;
    let joins = joined.rejoined.as_ref().map(|j| j.lines.as_slice()).unwrap_or_default();
    let mut again = match scan.last {
        Some(last) if faulted(&scan) => {
            if rejoined.is_piece(last.line) {
                compiled.scan(joined, deadline)
            } else if rejoined.starts_wrapped(last.line) {
                // The fault's row starts a line the program wrapped: the
                // whole line may name its cause more exactly (a summary whose
                // last error wrapped onto the next rows). The joined reading
                // stands only when it is a fault too, reaching that row.
                let again = compiled.scan(joined, deadline);
                let reaches = again.last.is_some_and(|hit| rejoined.rows_of(hit.line).end > last.line);
                if again.timed_out || !faulted(&again) || !reaches {
                    return (rows, scan);
                }
                again
            } else {
                return (rows, scan);
            }
        }
        last => {
            // A joined line, or a line it may frame, must hold a literal.
            let reach = compiled.framing_reach();
            let worth = joins.iter().flat_map(|&j| j..(j + 1 + reach).min(joined.lines.len()));
            if !worth.into_iter().any(|i| compiled.may_match(joined.line_text(&joined.lines[i]))) {
                return (rows, scan);
            }
            let again = compiled.scan(joined, deadline);
            // What the join newly shows: a fault whose match ends on a row
            // after the rows' last hit (not one read in a line glued above
            // the charge the session died on), or on that row when the row
            // is a piece of a cut line: a charge read on the rest of a line
            // (`… 403  Forbidden [IP: …]` without the host that began it)
            // does not outrank the whole line that reaches it.
            let newly = again.last.filter(|hit| {
                let text = joined.line_text(&joined.lines[hit.line]);
                let end = hit.pattern.and_then(|p| compiled.find(p, text)).map_or(text.len(), |f| f.end);
                let row = rejoined.row_at(hit.line, end.saturating_sub(1));
                faulted(&again) && last.is_none_or(|l| row > l.line || row == l.line && rejoined.is_piece(l.line))
            });
            if newly.is_none() && !again.timed_out {
                return (rows, scan);
            }
            again
        }
    };
    if again.timed_out {
        let mut declined = scan;
        declined.timed_out = true;
        return (rows, declined);
    }
    if let Some(hit) = again.last.filter(|_| faulted(&again)) {
        let after = rejoined.rows_of(hit.line).end - 1;
        match compiled.progress_from(&rows, after, deadline) {
            Ok(Some(row)) => {
                again.progress = Some(rejoined.line_of(row).max(hit.line + 1));
                again.progress_offset = Some(rows.lines[row].offset);
            }
            // The joined lines' own progress, if any, stands.
            Ok(None) => {}
            Err(matcher::Overdue) => again.timed_out = true,
        }
    }
    (rejoined.cleaned, again)
}

/// Classifies `text` as a whole text log with a profile compiled elsewhere:
/// clean, scan, decide, with no skip and no watchdog (`faultsift test`
/// reads the corpus's printed blocks this way).
pub fn classify_text(compiled: &CompiledProfile, text: &str) -> Verdict {
    let origin = compiled.profile.origin.label();
    let subject = Subject { log: "-", profile: &compiled.profile.name, profile_origin: &origin, status: None };
    let window = window::from_bytes(text.as_bytes(), WindowSpec::default());
    let settings = Settings { input: InputMode::Text, ..Settings::default() };
    scan_window(compiled, subject, window, None, &settings, &unwatched).verdict
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
