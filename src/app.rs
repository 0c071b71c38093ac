//! The edge: runs a parsed command line. Resolves the profile and the logs,
//! hands them to [`crate::workers`], writes the verdicts, and maps the outcome
//! to an exit status.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use clap::CommandFactory;

use crate::cli::{
    ClassifyArgs, Cli, Command, ExplainArgs, ProfileDirs, ProfileSelect, SchemaKind, StallArgs, TestArgs,
};
use crate::commands::bait::{self, BaitLine};
use crate::commands::{check, explain, show};
use crate::config::{ClassifyConfig, Format, LogSource, TestFormat};
use crate::exit_codes::ExitCode;
use crate::output::render::{self, Renderer};
use crate::output::summary::Summary;
use crate::output::verdict::{self, Verdict};
use crate::pipeline::matcher::{CompiledProfile, Workload};
use crate::pipeline::window::{self, WindowSpec};
use crate::pipeline::{Pipeline, Settings};
use crate::profile::{Profile, Resolver};
use crate::workers::{self, Job};

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
        Command::Stall(args) => stall(args),
        Command::Schema(args) => {
            let schema = match args.kind {
                SchemaKind::Verdict => verdict::json_schema(),
                SchemaKind::Stall => crate::output::stall::json_schema(),
            };
            print(&format!("{}\n", serde_json::to_string_pretty(&schema)?))
        }
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
    let settings = Settings {
        window: WindowSpec { tail_bytes: args.scan.tail_bytes, since: args.scan.since },
        timeout: args.scan.timeout,
        status: None,
        result_present: false,
    };
    let pipeline = Pipeline::new(profile, settings, Workload::Few)?;
    let source = if args.log.as_os_str() == "-" { LogSource::Stdin } else { LogSource::Path(args.log.clone()) };
    // Read first, so that an unreadable log is an error here, not a verdict.
    let label = source.label();
    let window = window::read(&source, pipeline.settings.window).with_context(|| label.clone())?;
    let color = args.color.resolve(io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
    print(&explain::explain(&pipeline, &label, window, color))
}

/// One tick of `stall`: read the capture, read it as a screen, update the
/// state file under its lock, and print the report.
fn stall(args: StallArgs) -> Result<ExitCode> {
    use crate::commands::stall::{self as tick, Owner, ScreenRules, Tick, state};
    use crate::output::stall::{SCHEMA_ID, StallReport, render};

    let resolver = Resolver::from_env(&args.select.dirs.profile_dirs)?;
    let selector = args.select.profile.as_deref().ok_or_else(|| resolver.none_given())?;
    let profile = resolver.resolve_for_stall(selector)?;
    let source = match &args.capture {
        Some(path) if path.as_os_str() != "-" => LogSource::Path(path.clone()),
        Some(_) => LogSource::Stdin,
        None if io::stdin().is_terminal() => {
            bail!("no capture given: pass a CAPTURE file, or pipe `tmux capture-pane -p` into standard input")
        }
        None => LogSource::Stdin,
    };
    let label = source.label();
    let spec = WindowSpec { tail_bytes: args.tail_bytes, since: None };
    let window = window::read(&source, spec).with_context(|| label.clone())?;
    let rules = ScreenRules::compile_for(&profile.stall, &profile.origin.label(), window.bytes.len())?;
    let screen = rules.screen(&crate::pipeline::clean::clean(&window.bytes, window.starts_mid_line));
    let now = args.now.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    });
    let session = args.session.clone().unwrap_or_else(|| label.clone());
    let owner = Owner { session: &session, profile: &profile.name };
    let now_tick = Tick { now, threshold_s: args.threshold, busy: args.busy, idle: args.idle };
    let decision = state::update(&args.state, |prior| {
        let d = tick::decide(prior, owner, &screen, now_tick);
        let next = d.next.clone();
        (d, next)
    })
    .with_context(|| format!("state file {}", args.state.display()))?;
    if let Some(why) = &decision.warning {
        // `why` may quote the old file's session and profile: escaped with the path.
        let line = format!("{}: {why}; the static clock starts afresh", args.state.display());
        eprintln!("faultsift: warning: {}", crate::error::printable(&line));
    }
    let verdict = if args.classify {
        let settings = Settings {
            window: spec,
            timeout: crate::pipeline::DEFAULT_TIMEOUT,
            status: decision.stalled.then(|| "stalled".to_string()),
            result_present: false,
        };
        let pipeline = Pipeline::new(profile.clone(), settings, Workload::Few)?;
        Some(pipeline.classify_window(&label, window).verdict)
    } else {
        None
    };
    if args.quiet {
        return Ok(if decision.stalled { ExitCode::Success } else { ExitCode::NoMatch });
    }
    let report = StallReport {
        schema: SCHEMA_ID.to_string(),
        capture: label,
        session,
        profile: profile.name,
        stalled: decision.stalled,
        state: decision.state,
        static_s: decision.static_s,
        threshold_s: args.threshold,
        reason: decision.reason,
        busy_evidence: decision.busy_evidence,
        verdict,
    };
    print(&render(&report, args.format, args.pretty))
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
        let stall_rules = crate::commands::stall::ScreenRules::compile(&profile.stall, &origin)?;
        let compiled = CompiledProfile::compile(profile, &origin)?;
        let mut report = check::check_profile(&compiled, &bait, &clean_logs);
        check::check_stall(&compiled.profile, &stall_rules, &bait, &clean_logs, &mut report);
        reports.push(report);
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
            let read = |p: &std::path::Path| {
                let file = File::open(p)?;
                let size = file.metadata()?.len();
                window::read_file(&file, size, WindowSpec { tail_bytes: window::MAX_TAIL_BYTES, since: None })
            };
            let window = read(&p).with_context(|| p.display().to_string())?;
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
    let job = Arc::new(Job::new(profile, &config)?);
    let mut output = Output::new(&config);
    if job.logs.len() == 1 {
        let (mut output, verdict) = workers::classify_alone(job, output, |mut output, verdict| {
            output.verdict(verdict);
            std::process::exit(exit_status(output.finish()).into())
        });
        output.verdict(&verdict);
        return output.finish();
    }
    // Workers render each verdict, so that this thread only orders and writes.
    let renderer = (!config.quiet).then(|| Arc::clone(&output.renderer));
    workers::classify_logs(job, renderer, |v, bytes| output.rendered(v, bytes));
    output.finish()
}

/// The status to exit with: `result`'s, or 2 after printing its error as one
/// line. A reader that went away (`| head`) is not a failure.
pub fn exit_status(result: Result<ExitCode>) -> u8 {
    match result {
        Ok(code) => code.code(),
        Err(err) => {
            if err.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
            {
                return ExitCode::Success.code();
            }
            eprintln!("faultsift: {}", crate::error::printable(&format!("{err:#}")));
            ExitCode::Error.code()
        }
    }
}

/// Where `classify` puts verdicts: rendered to standard output in input order,
/// tallied for the summary and the exit status, and copied to the GitHub step
/// summary when there is one.
struct Output {
    renderer: Arc<dyn Renderer + Send + Sync>,
    out: io::BufWriter<io::Stdout>,
    /// One log: its verdict is flushed at once. A batch is written in blocks.
    flush_each: bool,
    quiet: bool,
    want_summary: bool,
    summary: Summary,
    /// Workflow commands go to stdout; the table for the run's page goes to
    /// the step summary file, when GitHub provides one.
    step_summary: Option<(std::ffi::OsString, Vec<u8>)>,
    progress: Option<indicatif::ProgressBar>,
    any_error: bool,
    any_fault: bool,
    write_err: Option<io::Error>,
}

impl Output {
    fn new(config: &ClassifyConfig) -> Self {
        let renderer = render::for_format(config.format, config.pretty, config.color);
        let step_summary = (config.format == Format::Github)
            .then(|| std::env::var_os("GITHUB_STEP_SUMMARY"))
            .flatten()
            .map(|path| (path, render::Markdown.begin()));
        let mut out = io::BufWriter::new(io::stdout());
        let write_err = if config.quiet { None } else { out.write_all(&renderer.begin()).err() };
        Output {
            renderer,
            out,
            flush_each: config.logs.len() <= 64,
            quiet: config.quiet,
            want_summary: config.summary,
            summary: Summary::default(),
            step_summary,
            progress: progress_bar(config.logs.len(), config.quiet),
            any_error: false,
            any_fault: false,
            write_err,
        }
    }

    /// Takes one verdict; false when no more are wanted (`-q` has its answer,
    /// or standard output failed).
    fn verdict(&mut self, v: &Verdict) -> bool {
        let bytes = if self.quiet { Vec::new() } else { self.renderer.verdict(v) };
        self.rendered(v, &bytes)
    }

    /// Takes one verdict, rendered as `bytes` by this output's renderer.
    fn rendered(&mut self, v: &Verdict, bytes: &[u8]) -> bool {
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        if let Some(e) = &v.error {
            self.any_error = true;
            let report = || eprintln!("faultsift: {}", crate::error::printable(&format!("{}: {e}", v.log)));
            match &self.progress {
                Some(bar) => bar.suspend(report),
                None => report(),
            }
        }
        self.any_fault |= v.env_fault;
        if self.quiet {
            // As grep -q: the first match settles the answer.
            return !v.env_fault;
        }
        if self.write_err.is_some() {
            return false;
        }
        if self.want_summary {
            self.summary.add(v);
        }
        if let Some((_, table)) = &mut self.step_summary {
            table.extend(render::Markdown.verdict(v));
        }
        let flush_each = self.flush_each;
        let out = &mut self.out;
        let written = out.write_all(bytes).and_then(|()| if flush_each { out.flush() } else { Ok(()) });
        if let Err(e) = written {
            self.write_err = Some(e);
            return false;
        }
        true
    }

    /// Writes the end (and summary) and gives the exit status.
    fn finish(mut self) -> Result<ExitCode> {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        if let Some(e) = self.write_err {
            return Err(e).context("writing verdicts");
        }
        if self.quiet {
            return Ok(ExitCode::for_quiet(self.any_fault, self.any_error));
        }
        let summary = self.want_summary.then_some(&self.summary);
        self.out.write_all(&self.renderer.end(summary)).and_then(|()| self.out.flush()).context("writing verdicts")?;
        if let Some((path, mut table)) = self.step_summary {
            table.extend(render::Markdown.end(summary));
            append(std::path::Path::new(&path), &table).context("writing $GITHUB_STEP_SUMMARY")?;
        }
        Ok(ExitCode::for_classify(self.any_error))
    }
}

/// A progress bar on stderr for a long batch when stderr is a terminal; none
/// otherwise (even a hidden bar parses its style's template).
fn progress_bar(logs: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    if quiet || logs < 100 || !io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(logs as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} logs {elapsed} (eta {eta})") {
        bar.set_style(style);
    }
    Some(bar)
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
        let before = logs.len();
        for file in files {
            // Paths are made relative to the directory for the glob only:
            // this runs before any worker starts.
            if glob.as_ref().is_none_or(|g| g.is_match(file.strip_prefix(arg).unwrap_or(&file))) {
                logs.push(LogSource::Path(file));
            }
        }
        if logs.len() == before {
            logs.push(LogSource::Path(arg.clone()));
        }
    }
    Ok(logs)
}

/// Appends the files under `dir` to `out` in path order (as `Path` sorts,
/// component by component): each directory's entries sorted by name, depth
/// first. Sorting the whole list by path instead compares paths component by
/// component, which is slow on a large batch, before any worker starts.
fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> =
        entries.filter_map(Result::ok).filter_map(|e| Some((e.path(), e.file_type().ok()?))).collect();
    // Entries of one directory share everything before their names.
    entries.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    for (path, kind) in entries {
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
        settings: Settings {
            window: WindowSpec { tail_bytes: args.scan.tail_bytes, since: args.scan.since },
            timeout: args.scan.timeout,
            status: args.status.clone(),
            result_present: args.result_present,
        },
        format: args.format,
        pretty: args.pretty,
        quiet: args.quiet,
        summary: args.summary,
        color: args.color.resolve(io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref()),
        threads,
    })
}
