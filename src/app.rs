//! The edge: runs a parsed command line. Reads logs, runs the pipeline on worker
//! threads under a watchdog, writes verdicts in input order, and maps the
//! outcome to an exit status.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use clap::CommandFactory;

use crate::bait::{self, BaitLine};
use crate::cli::{ClassifyArgs, Cli, Command, ExplainArgs, ProfileDirs, ProfileSelect, TestArgs};
use crate::config::{ClassifyConfig, Format, LogSource, TestFormat};
use crate::decide::{self, Subject};
use crate::exit_codes::ExitCode;
use crate::matcher::CompiledProfile;
use crate::profile::{Profile, Resolver};
use crate::render::Renderer;
use crate::summary::Summary;
use crate::verdict::Verdict;
use crate::window::{self, Window, WindowSpec};
use crate::{check, classify_window, render, show, verdict};

/// How long past its deadline a scan may run before the watchdog answers for it.
pub const WATCHDOG_GRACE: Duration = Duration::from_millis(100);

/// Runs the command line and returns the exit status. Errors are for the
/// caller to print as one line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Classify(args) => classify(args),
        Command::Explain(args) => explain(args),
        Command::Test(args) => test(args),
        Command::Profiles(dirs) => profiles(&dirs),
        Command::Show(args) => {
            let profile = Resolver::from_env(&args.dirs.profile_dirs)?.resolve(&args.name)?;
            print(&show::to_toml(&profile)?)
        }
        Command::Schema => print(&format!("{}\n", serde_json::to_string_pretty(&verdict::json_schema())?)),
        Command::Completions(args) => {
            let mut out = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "faultsift", &mut out);
            print_bytes(&out)
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command()).render(&mut out)?;
            print_bytes(&out)
        }
    }
}

/// The profile `--profile` (or `FAULTSIFT_PROFILE`) names, as matching needs it.
fn resolve_selected(select: &ProfileSelect) -> Result<Profile> {
    let resolver = Resolver::from_env(&select.dirs.profile_dirs)?;
    let selector = select.profile.as_deref().ok_or_else(|| resolver.none_given())?;
    Ok(resolver.resolve_for_matching(selector)?)
}

fn print(text: &str) -> Result<ExitCode> {
    print_bytes(text.as_bytes())
}

fn print_bytes(bytes: &[u8]) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(ExitCode::Success)
}

fn explain(args: ExplainArgs) -> Result<ExitCode> {
    let profile = resolve_selected(&args.select)?;
    let origin = profile.origin.label();
    let compiled = CompiledProfile::compile(profile, &origin)?;
    let source = if args.log.as_os_str() == "-" { LogSource::Stdin } else { LogSource::Path(args.log.clone()) };
    let label = source.label();
    let window = read_window(&source, WindowSpec { tail_bytes: args.scan.tail_bytes, since: args.scan.since })
        .with_context(|| label.clone())?;
    let color = args.color.resolve(io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
    let subject = Subject { log: &label, profile: &compiled.profile.name, profile_origin: &origin, status: None };
    print(&crate::explain::explain(&compiled, subject, &window, args.scan.timeout, color))
}

fn test(args: TestArgs) -> Result<ExitCode> {
    let resolver = Resolver::from_env(&args.dirs.profile_dirs)?;
    let selectors: Vec<String> = if args.profiles.is_empty() {
        resolver.available().into_iter().map(|a| a.name).collect()
    } else {
        args.profiles.clone()
    };
    let bait: Vec<BaitLine> = bait::lines().collect();
    let clean_logs = match &args.clean_logs {
        Some(dir) => read_clean_logs(dir)?,
        None => Vec::new(),
    };
    let mut reports = Vec::new();
    for selector in &selectors {
        let profile = resolver.resolve(selector)?;
        let origin = profile.origin.label();
        let compiled = CompiledProfile::compile(profile, &origin)?;
        reports.push(check::check_profile(&compiled, &bait, &clean_logs));
    }
    let failed = reports.iter().any(|r| !r.failures.is_empty());
    let text = match args.format {
        TestFormat::Human => test_report_human(&reports),
        TestFormat::Json => {
            let failures: Vec<_> = reports.iter().flat_map(|r| &r.failures).collect();
            let warnings: Vec<_> = reports.iter().flat_map(|r| &r.warnings).collect();
            let counts: Vec<_> = reports.iter().map(|r| &r.counts).collect();
            let doc =
                serde_json::json!({ "ok": !failed, "profiles": counts, "failures": failures, "warnings": warnings });
            format!("{}\n", serde_json::to_string_pretty(&doc)?)
        }
    };
    print(&text)?;
    Ok(if failed { ExitCode::NoMatch } else { ExitCode::Success })
}

fn test_report_human(reports: &[check::ProfileReport]) -> String {
    let mut out = String::new();
    let line = |f: &check::Finding, tag: &str| {
        let who = f.rule.clone().unwrap_or_else(|| f.profile.clone());
        let check = serde_json::to_value(f.check).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let mut s = format!("{tag} {who} [{check}] {}", f.message);
        if let Some(loc) = &f.location {
            s.push_str(&format!(" at {loc}"));
        }
        // Debug quoting escapes control characters; the text is shown as it is
        // (a pattern, or a line of the user's own files), not redacted.
        if let Some(text) = &f.text {
            s.push_str(&format!(": {text:?}"));
        }
        s.push('\n');
        s
    };
    for r in reports {
        for f in &r.failures {
            out.push_str(&line(f, "FAIL"));
        }
        for f in &r.warnings {
            out.push_str(&line(f, "warn"));
        }
    }
    for r in reports {
        let c = &r.counts;
        out.push_str(&format!(
            "{} {} ({}): {}, {}, {}, {}, {}{}\n",
            if c.failures == 0 { "ok  " } else { "FAIL" },
            c.profile,
            c.origin,
            plural(c.rules, "rule"),
            plural(c.examples, "example"),
            plural(c.counterexamples, "counterexample"),
            plural(c.bait_lines, "bait line"),
            plural(c.self_lines, "own line"),
            if c.clean_log_lines > 0 { format!(", {} clean-log lines", c.clean_log_lines) } else { String::new() },
        ));
    }
    let failures: usize = reports.iter().map(|r| r.failures.len()).sum();
    let warnings: usize = reports.iter().map(|r| r.warnings.len()).sum();
    out.push_str(&format!(
        "faultsift test: {}, {}, {}\n",
        plural(reports.len(), "profile"),
        plural(failures, "failure"),
        plural(warnings, "warning")
    ));
    out
}

/// `1 rule`, `2 rules`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn read_clean_logs(dir: &std::path::Path) -> Result<Vec<check::CleanLog>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("--clean-logs {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let mut file = File::open(&p).with_context(|| p.display().to_string())?;
            let window = window::read_file(&mut file, WindowSpec { tail_bytes: window::MAX_TAIL_BYTES, since: None })
                .with_context(|| p.display().to_string())?;
            Ok(check::CleanLog { name: p.display().to_string(), bytes: window.bytes })
        })
        .collect()
}

fn profiles(dirs: &ProfileDirs) -> Result<ExitCode> {
    let resolver = Resolver::from_env(&dirs.profile_dirs)?;
    let mut rows = vec![["NAME".to_string(), "RULES".into(), "MODEL OUTPUT".into(), "ORIGIN".into(), "SHADOWS".into()]];
    let mut status = ExitCode::Success;
    for a in resolver.available() {
        let (rules, model) = match resolver.resolve(&a.name) {
            Ok(p) => (p.rules.len().to_string(), if p.carries_model_output { "yes" } else { "no" }.to_string()),
            Err(e) => {
                eprintln!("faultsift: {}", crate::error::printable(&e.to_string()));
                status = ExitCode::Error;
                ("error".into(), "-".into())
            }
        };
        let shadows: Vec<String> = a.shadows.iter().map(|o| o.label()).collect();
        let shadows = if shadows.is_empty() { "-".to_string() } else { shadows.join(", ") };
        rows.push([a.name, rules, model, a.origin.label(), shadows]);
    }
    let widths: Vec<usize> = (0..5).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    print(&out)?;
    Ok(status)
}

fn classify(args: ClassifyArgs) -> Result<ExitCode> {
    let config = resolve_config(&args)?;
    let profile = resolve_selected(&args.select)?;
    let job = Job::new(profile, config)?;
    let config = &job.config;
    let n = config.logs.len();
    let quiet = config.quiet;
    let renderer = render::for_format(config.format, config.pretty, config.color);
    // Workflow commands go to stdout; the table for the run's page goes to the
    // step summary file, when GitHub provides one.
    let step_summary = (config.format == Format::Github).then(|| std::env::var_os("GITHUB_STEP_SUMMARY")).flatten();
    let mut table = step_summary.as_ref().map(|_| render::Markdown.begin());
    let progress = progress_bar(n, quiet);
    // One log: its verdict is flushed at once. A batch is written in blocks.
    let flush_each = n <= 64;

    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut summary = Summary::default();
    let mut any_error = false;
    let mut any_fault = false;
    let mut write_err: Option<io::Error> = None;
    if !quiet {
        write_err = out.write_all(&renderer.begin()).err();
    }
    let job = Arc::new(job);
    classify_logs(Arc::clone(&job), |v| {
        progress.inc(1);
        if let Some(e) = &v.error {
            any_error = true;
            progress.suspend(|| eprintln!("faultsift: {}", crate::error::printable(&format!("{}: {e}", v.log))));
        }
        any_fault |= v.env_fault;
        if quiet {
            // As grep -q: the first match settles the answer.
            return !v.env_fault;
        }
        summary.add(v);
        if let Some(table) = &mut table {
            table.extend(render::Markdown.verdict(v));
        }
        let written = out.write_all(&renderer.verdict(v)).and_then(|()| if flush_each { out.flush() } else { Ok(()) });
        if let Err(e) = written {
            write_err = Some(e);
            return false;
        }
        true
    });
    progress.finish_and_clear();
    if let Some(e) = write_err {
        return Err(e).context("writing verdicts");
    }
    if quiet {
        return Ok(ExitCode::for_quiet(any_fault, any_error));
    }
    let summary = job.config.summary.then_some(&summary);
    out.write_all(&renderer.end(summary)).and_then(|()| out.flush()).context("writing verdicts")?;
    if let (Some(path), Some(mut table)) = (step_summary, table) {
        table.extend(render::Markdown.end(summary));
        append(std::path::Path::new(&path), &table).context("writing $GITHUB_STEP_SUMMARY")?;
    }
    Ok(ExitCode::for_classify(any_error))
}

/// A progress bar on stderr for a long batch when stderr is a terminal;
/// hidden (and free) otherwise.
fn progress_bar(logs: usize, quiet: bool) -> indicatif::ProgressBar {
    if quiet || logs < 100 || !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(logs as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} logs {elapsed} (eta {eta})") {
        bar.set_style(style);
    }
    bar
}

fn append(path: &std::path::Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(bytes)
}

/// The logs that `args` name: files as given, directories expanded to the
/// regular files under them (sorted, symbolic links to directories not
/// followed), filtered by `--glob`. A directory with no such file stays as
/// it is, so that it gets its own error verdict.
fn expand_logs(args: &ClassifyArgs) -> Result<Vec<LogSource>> {
    let glob = match &args.glob {
        Some(pattern) => Some(
            globset::GlobBuilder::new(pattern)
                .literal_separator(false)
                .build()
                .with_context(|| format!("--glob {pattern}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    let mut logs = Vec::new();
    for arg in &args.logs {
        if arg.as_os_str() == "-" {
            logs.push(LogSource::Stdin);
            continue;
        }
        if !arg.is_dir() {
            logs.push(LogSource::Path(arg.clone()));
            continue;
        }
        let mut files = Vec::new();
        walk(arg, &mut files);
        files.sort();
        let before = logs.len();
        for file in files {
            let rel = file.strip_prefix(arg).unwrap_or(&file);
            if glob.as_ref().is_none_or(|g| g.is_match(rel)) {
                logs.push(LogSource::Path(file));
            }
        }
        if logs.len() == before {
            logs.push(LogSource::Path(arg.clone()));
        }
    }
    Ok(logs)
}

fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let Ok(kind) = entry.file_type() else { continue };
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, out);
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            out.push(path);
        }
    }
}

fn resolve_config(args: &ClassifyArgs) -> Result<ClassifyConfig> {
    let mut logs = expand_logs(args)?;
    if logs.is_empty() {
        if io::stdin().is_terminal() {
            bail!("no log given: pass LOG paths, or pipe a log into standard input");
        }
        logs.push(LogSource::Stdin);
    }
    if logs.iter().filter(|l| **l == LogSource::Stdin).count() > 1 {
        bail!("standard input (`-`) can be given only once");
    }
    // One log needs one worker; asking for the core count reads cgroup files.
    let threads = match (args.threads, logs.len()) {
        (Some(n), _) => n,
        (None, 1) => 1,
        (None, _) => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
    .clamp(1, 256);
    Ok(ClassifyConfig {
        logs,
        window: WindowSpec { tail_bytes: args.scan.tail_bytes, since: args.scan.since },
        timeout: args.scan.timeout,
        status: args.status.clone(),
        result_present: args.result_present,
        format: args.format,
        pretty: args.pretty,
        quiet: args.quiet,
        summary: args.summary,
        color: args.color.resolve(io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref()),
        threads,
    })
}

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
}

enum Msg {
    /// The log's window is read; its scan (under the deadline) starts now.
    Scanning(usize, Instant),
    Done(usize, Box<Verdict>),
}

/// Classifies every log of the job on worker threads and calls `emit` with each
/// verdict in input order; `emit` returns false to stop early.
///
/// The watchdog: a scan that has not answered `timeout` plus [`WATCHDOG_GRACE`]
/// after it started gets a `timed_out` verdict at once, its late answer is
/// dropped, and a fresh worker takes its place. Workers are not joined, so a
/// stuck one cannot hold the process past its answer.
pub fn classify_logs(job: Arc<Job>, mut emit: impl FnMut(&Verdict) -> bool) {
    let n = job.config.logs.len();
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<Msg>();
    let spawn = |tx: Sender<Msg>| {
        let job = Arc::clone(&job);
        let next = Arc::clone(&next);
        std::thread::spawn(move || worker(&job, &next, &tx))
    };
    for _ in 0..job.config.threads.min(n) {
        spawn(tx.clone());
    }
    let limit = job.config.timeout + WATCHDOG_GRACE;
    let mut ready: Vec<Option<Verdict>> = (0..n).map(|_| None).collect();
    // A log is answered once: by its worker or by the watchdog, whichever first.
    let mut answered = vec![false; n];
    let mut scanning: HashMap<usize, Instant> = HashMap::new();
    let mut head = 0;
    while head < n {
        if let Some(v) = ready[head].take() {
            if !emit(&v) {
                return;
            }
            head += 1;
            continue;
        }
        let wait = scanning.values().map(|&t| (t + limit).saturating_duration_since(Instant::now())).min();
        let msg = match wait {
            Some(wait) => rx.recv_timeout(wait),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match msg {
            Ok(Msg::Scanning(i, t)) => {
                scanning.insert(i, t);
            }
            Ok(Msg::Done(i, v)) => {
                scanning.remove(&i);
                if !answered[i] {
                    answered[i] = true;
                    ready[i] = Some(*v);
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                let overdue: Vec<(usize, Instant)> =
                    scanning.iter().filter(|&(_, &t)| now >= t + limit).map(|(&i, &t)| (i, t)).collect();
                for (i, started) in overdue {
                    scanning.remove(&i);
                    let label = job.config.logs[i].label();
                    let mut v = decide::overdue(job.subject(&label), job.config.timeout);
                    v.elapsed_us = micros(now - started);
                    answered[i] = true;
                    ready[i] = Some(v);
                    spawn(tx.clone());
                }
            }
            // Every worker is gone and nothing is pending: cannot happen while
            // logs remain, but never wait forever.
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

fn worker(job: &Job, next: &AtomicUsize, tx: &Sender<Msg>) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(source) = job.config.logs.get(i) else { return };
        // A panic is a bug, but it must cost one log an error verdict, not the run.
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| classify_one(job, i, source, tx)))
            .unwrap_or_else(|_| {
                let label = source.label();
                decide::unreadable(
                    job.subject(&label),
                    "internal error while classifying this log (a bug: please report it)".into(),
                )
            });
        if tx.send(Msg::Done(i, Box::new(verdict))).is_err() {
            return;
        }
    }
}

fn classify_one(job: &Job, i: usize, source: &LogSource, tx: &Sender<Msg>) -> Verdict {
    let started = Instant::now();
    let label = source.label();
    let subject = job.subject(&label);
    let mut verdict = match (decide::skip_reason(subject.status, job.config.result_present), &job.compiled) {
        (Some(reason), _) => decide::skipped(subject, reason),
        (None, None) => decide::skipped(subject, "nothing to scan".into()),
        (None, Some(compiled)) => match read_window(source, job.config.window) {
            Err(e) => decide::unreadable(subject, e.to_string()),
            Ok(window) => {
                let scan_start = Instant::now();
                let _ = tx.send(Msg::Scanning(i, scan_start));
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
