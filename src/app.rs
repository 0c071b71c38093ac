//! The edge: runs a parsed command line. Resolves the profile and the logs,
//! hands them to [`crate::workers`], writes the verdicts, and maps the outcome
//! to an exit status.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use crate::cli::{
    ClassifyArgs, Cli, Command, ExplainArgs, ProfileDirs, ProfileSelect, SchemaKind, StallArgs, TestArgs,
};
use crate::commands::bait::{self, BaitLine};
use crate::commands::corpus::Recall;
use crate::commands::{check, explain, show};
use crate::config::{ClassifyConfig, Format, LogSource, TestFormat};
use crate::exit_codes::ExitCode;
use crate::output::render::{self, Renderer};
use crate::output::summary::Summary;
use crate::output::verdict::{self, Verdict};
use crate::pipeline::matcher::screen::ScreenPatterns;
use crate::pipeline::matcher::{CompiledProfile, Workload};
use crate::pipeline::window::{self, WindowSpec};
use crate::pipeline::{Pipeline, Settings};
use crate::profile::{Profile, Resolver, budget};
use crate::workers::{self, Job};

/// Runs the command line and returns the exit status. Errors are for the
/// caller to print as one line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Classify(args) => classify(args),
        Command::Explain(args) => explain(args),
        Command::Test(args) => test(args),
        Command::Profiles(args) => profiles(&args.dirs, args.format),
        Command::Show(args) => {
            let profile = Resolver::from_env(&args.dirs.profile_dirs)?.resolve(&args.name)?;
            print(&show::to_toml(&profile))
        }
        Command::Stall(args) => stall(args),
        Command::Schema(args) => {
            let schema = match args.which {
                SchemaKind::Verdict => verdict::json_schema(),
                SchemaKind::Summary => crate::output::summary::json_schema(),
                SchemaKind::Stall => crate::output::stall::json_schema(),
            };
            print(&format!("{}\n", serde_json::to_string_pretty(&schema)?))
        }
        Command::Completions(args) => {
            use clap_complete::env::EnvCompleter;
            let mut out = Vec::new();
            let shell: &dyn EnvCompleter = match args.shell {
                clap_complete::Shell::Bash => &clap_complete::env::Bash,
                clap_complete::Shell::Zsh => &clap_complete::env::Zsh,
                clap_complete::Shell::Fish => &clap_complete::env::Fish,
                clap_complete::Shell::Elvish => &clap_complete::env::Elvish,
                clap_complete::Shell::PowerShell => &clap_complete::env::Powershell,
                other => bail!("no completions for {other}"),
            };
            shell.write_registration(COMPLETE_VAR, "faultsift", "faultsift", "faultsift", &mut out)?;
            print_bytes(&out)
        }
        Command::Man(args) => print_bytes(&crate::commands::man::page(args.command.as_deref())?),
    }
}

/// The profile `--profile` (or `FAULTSIFT_PROFILE`) names, as matching needs it.
/// Loading stops with an error past `deadline` (it counts against `--timeout`).
fn resolve_selected(select: &ProfileSelect, deadline: std::time::Instant) -> Result<Profile> {
    let resolver = Resolver::from_env(&select.dirs.profile_dirs)?.with_deadline(deadline);
    let selector = select.profile.as_deref().ok_or_else(|| resolver.none_given())?;
    let profile = resolver.resolve_for_matching(selector)?;
    if let Some(note) = crate::profile::shadow_note(&profile) {
        eprintln!("faultsift: {}", crate::output::safe::line(&note));
    }
    Ok(profile)
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
    let deadline = budget::load_deadline(args.scan.timeout);
    let profile = resolve_selected(&args.select, deadline)?;
    let settings = Settings {
        window: WindowSpec { tail_bytes: args.scan.tail_bytes, since: args.scan.since },
        timeout: args.scan.timeout,
        status: args.status.clone(),
        result_present: false,
        input: args.scan.input,
    };
    let pipeline = budget::with_budget(Some(deadline), || Pipeline::new(profile, settings, Workload::Few))?;
    let source = match &args.log {
        Some(log) if log.as_os_str() != "-" => LogSource::Path(log.clone()),
        Some(_) => LogSource::Stdin(None),
        None if io::stdin().is_terminal() => bail!("no log given: pass a LOG path, or pipe a log into standard input"),
        None => LogSource::Stdin(None),
    };
    // Read first, so that an unreadable log is an error here, not a verdict.
    let label = source.label();
    let window = window::read(&source, pipeline.settings.window).with_context(|| label.clone())?;
    let color = color_for(args.color);
    // The watchdog of classify, for explain's two passes (the scan, then the
    // listing), each with its own deadline: past both and the grace, the
    // answer is "declined", as classify's, and the search is abandoned.
    let timeout = pipeline.settings.timeout;
    let limit = timeout * 2 + workers::WATCHDOG_GRACE;
    let (tx, rx) = std::sync::mpsc::channel();
    let thread_label = label.clone();
    let max_hits = args.max_hits;
    let worker = move || {
        let _ = tx.send(explain::explain(&pipeline, &thread_label, window, color, max_hits));
    };
    std::thread::Builder::new().name("explain".into()).spawn(worker)?;
    match rx.recv_timeout(limit) {
        Ok(text) => print(&text),
        Err(_) => {
            let text = explain::overdue(&label, timeout);
            print(&text)?;
            // The search thread is not joined: end here.
            std::process::exit(ExitCode::Success.code().into())
        }
    }
}

/// One tick of `stall`: read the capture, read it as a screen, update the
/// state file under its lock, and print the report.
fn stall(args: StallArgs) -> Result<ExitCode> {
    use crate::commands::stall::{self as tick, Owner, Tick, state};
    use crate::output::stall::{SCHEMA_ID, StallReport, render};

    let resolver = Resolver::from_env(&args.select.dirs.profile_dirs)?;
    let selector = args.select.profile.as_deref().ok_or_else(|| resolver.none_given())?;
    // Without `--classify` a tick needs the screen patterns only.
    let profile =
        if args.classify { resolver.resolve_for_stall(selector)? } else { resolver.resolve_for_screen(selector)? };
    let source = match &args.capture {
        Some(path) if path.as_os_str() != "-" => LogSource::Path(path.clone()),
        Some(_) => LogSource::Stdin(None),
        None if io::stdin().is_terminal() => {
            bail!("no capture given: pass a CAPTURE file, or pipe `tmux capture-pane -p` into standard input")
        }
        None => LogSource::Stdin(None),
    };
    let label = source.label();
    let spec = WindowSpec { tail_bytes: args.tail_bytes, since: None };
    let window = window::read(&source, spec).with_context(|| label.clone())?;
    let patterns = ScreenPatterns::compile(&profile.stall, &profile.origin.label(), Workload::Few)?;
    // Cleaned once: the screen is read from these lines, and `--classify`
    // scans the same ones.
    let cleaned = crate::pipeline::clean::clean(&window.bytes, window.starts_mid_line);
    let screen = patterns.screen(&cleaned);
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
        eprintln!("faultsift: warning: {}", crate::output::safe::line(&line));
    }
    if args.quiet {
        // The exit status is the answer: no verdict to compute.
        return Ok(if decision.stalled { ExitCode::Success } else { ExitCode::NoMatch });
    }
    let profile_name = profile.name.clone();
    let verdict = if args.classify {
        let settings = Settings {
            window: spec,
            timeout: crate::pipeline::DEFAULT_TIMEOUT,
            status: decision.stalled.then(|| "stalled".to_string()),
            result_present: false,
            // A stall tick reads a pane capture: screen text.
            input: crate::pipeline::records::InputMode::Text,
        };
        let pipeline = Pipeline::new(profile, settings, Workload::Few)?;
        Some(pipeline.classify_cleaned(&label, window, cleaned).verdict)
    } else {
        None
    };
    let report = StallReport {
        schema: SCHEMA_ID.to_string(),
        capture: label,
        session,
        profile: profile_name,
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
    // A profile that does not load is reported, and the others still checked.
    let mut load_errors = false;
    for selector in &selectors {
        let loaded = resolver.resolve(selector).and_then(|profile| {
            let origin = profile.origin.label();
            let stall_rules = ScreenPatterns::compile(&profile.stall, &origin, Workload::Many)?;
            Ok((CompiledProfile::compile(profile, &origin)?, stall_rules))
        });
        match loaded {
            Ok((compiled, stall_rules)) => {
                let mut report = check::check_profile(&compiled, &bait, &clean_logs);
                check::check_stall(&compiled.profile, &stall_rules, &bait, &clean_logs, &mut report);
                reports.push(report);
            }
            Err(e) => {
                let message = format!("{:#}", anyhow::Error::new(e));
                eprintln!("faultsift: {}", crate::output::safe::line(&message));
                load_errors = true;
                reports.push(check::load_failure(selector, message));
            }
        }
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
    Ok(if load_errors {
        ExitCode::Error
    } else if failed {
        ExitCode::NoMatch
    } else {
        ExitCode::Success
    })
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
        // The one sanitiser: profile names, ids and file texts are the
        // user's, and this goes to a terminal.
        let mut s = crate::output::safe::line(&s);
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
            "{} {} ({}): {}, {}, {}, {}, {}{}{}\n",
            if c.failures == 0 { "ok  " } else { "FAIL" },
            crate::output::safe::line(&c.profile),
            crate::output::safe::line(&c.origin),
            plural(c.rules, "rule"),
            plural(c.examples, "example"),
            plural(c.counterexamples, "counterexample"),
            plural(c.bait_lines, "bait line"),
            plural(c.self_lines, "own line"),
            if c.clean_log_lines > 0 { format!(", {} clean-log lines", c.clean_log_lines) } else { String::new() },
            if c.corpus_train.lines + c.corpus_test.lines > 0 {
                format!(
                    "; corpus recall as printed train {}, test {} (not quoted by the profile {}); lines alone train {}, test {}",
                    c.corpus_train, c.corpus_test, c.corpus_test_unquoted, c.corpus_train_alone, c.corpus_test_alone
                )
            } else {
                String::new()
            },
        ));
    }
    // The bar is over the agent profiles' lines together.
    let agents: Vec<&check::Counts> = reports
        .iter()
        .map(|r| &r.counts)
        .filter(|c| c.profile != "ci" && c.corpus_train.lines + c.corpus_test.lines > 0)
        .collect();
    if agents.len() > 1 {
        let sum = |pick: fn(&check::Counts) -> Recall| agents.iter().fold(Recall::default(), |sum, c| sum + pick(c));
        out.push_str(&format!(
            "agents together ({}): corpus recall as printed train {}, test {} (not quoted by the profile {}); lines alone train {}, test {}\n",
            plural(agents.len(), "profile"),
            sum(|c| c.corpus_train),
            sum(|c| c.corpus_test),
            sum(|c| c.corpus_test_unquoted),
            sum(|c| c.corpus_train_alone),
            sum(|c| c.corpus_test_alone),
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

/// `1 rule`, `2 rules`: the renderers' helper, for counts of the test report.
fn plural(n: usize, word: &str) -> String {
    render::plural(n as u64, word)
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

fn profiles(dirs: &ProfileDirs, format: TestFormat) -> Result<ExitCode> {
    let resolver = Resolver::from_env(&dirs.profile_dirs)?;
    let mut rows = vec![["NAME".to_string(), "RULES".into(), "MODEL OUTPUT".into(), "ORIGIN".into(), "SHADOWS".into()]];
    let mut status = ExitCode::Success;
    let mut json = Vec::new();
    for a in resolver.available() {
        let (rules, model) = match resolver.resolve(&a.name) {
            Ok(p) => (p.rules.len().to_string(), if p.carries_model_output { "yes" } else { "no" }.to_string()),
            Err(e) => {
                eprintln!("faultsift: {}", crate::output::safe::line(&e.to_string()));
                status = ExitCode::Error;
                ("error".into(), "-".into())
            }
        };
        let shadows: Vec<String> = a.shadows.iter().map(|o| o.label()).collect();
        let shadows = if shadows.is_empty() { "-".to_string() } else { shadows.join(", ") };
        json.push(serde_json::json!({
            "name": a.name,
            "rules": rules.parse::<u64>().ok(),
            "carries_model_output": (model != "-").then_some(model == "yes"),
            "origin": a.origin.label(),
            "shadows": a.shadows.iter().map(|o| o.label()).collect::<Vec<_>>(),
            "error": (rules == "error").then_some(true),
        }));
        rows.push([a.name, rules, model, a.origin.label(), shadows].map(|c| crate::output::safe::line(&c)));
    }
    if format == TestFormat::Json {
        print(&format!("{}\n", serde_json::to_string_pretty(&json)?))?;
        return Ok(status);
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
    let deadline = budget::load_deadline(config.settings.timeout);
    let profile = resolve_selected(&args.select, deadline)?;
    let mut output = Output::new(&config);
    let quiet = config.quiet;
    let job = Arc::new(budget::with_budget(Some(deadline), || Job::new(profile, config))?);
    if job.logs.len() == 1 {
        // The process ends with this one log: freeing the compiled profile
        // rule by rule would only delay the exit, so one reference is kept.
        std::mem::forget(Arc::clone(&job));
        let (mut output, verdict) = workers::classify_alone(job, output, |mut output, verdict| {
            output.verdict(verdict);
            std::process::exit(exit_status(output.finish()).into())
        });
        output.verdict(&verdict);
        return output.finish();
    }
    // Workers render each verdict, so that this thread only orders and writes.
    let renderer = (!quiet).then(|| Arc::clone(&output.renderer));
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
            eprintln!("faultsift: {}", crate::output::safe::line(&format!("{err:#}")));
            ExitCode::Error.code()
        }
    }
}

/// The variable through which the completion scripts ask the binary for
/// completions (clap's default, `COMPLETE`, is too common a name to own).
pub const COMPLETE_VAR: &str = "FAULTSIFT_COMPLETE";

/// Whether to colour standard output: `auto` is on for a terminal, unless
/// `NO_COLOR` is set (and not empty) or `TERM` is `dumb`.
fn color_for(choice: crate::config::ColorChoice) -> bool {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    choice.resolve(io::stdout().is_terminal() && !dumb, std::env::var_os("NO_COLOR").as_deref())
}

/// A command-line error as SPEC §6 has errors: one `faultsift: …` line on
/// stderr and exit 2. `--help` and `--version` print as clap prints them.
pub fn usage_error(err: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return if err.use_stderr() { ExitCode::Error.code() } else { ExitCode::Success.code() };
    }
    let rendered = err.render().to_string();
    let mut parts = Vec::new();
    for line in rendered.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !line.is_empty() {
            parts.push(line.strip_prefix("error: ").unwrap_or(line).to_string());
        }
    }
    eprintln!("faultsift: {} (see --help)", crate::output::safe::line(&parts.join(" ")));
    ExitCode::Error.code()
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
            // Set but empty is unset (a step outside GitHub's runner).
            .filter(|path| !path.is_empty())
            // A blank line first: a table right after the previous one (a
            // second run in the same step) would merge into it.
            .map(|path| (path, [b"\n".as_slice(), &render::Markdown.begin()].concat()));
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
            let report = || eprintln!("faultsift: {}", crate::output::safe::line(&format!("{}: {e}", v.log)));
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

/// `--glob`s, as ripgrep's `-g`: the last glob that matches a file decides
/// (`!` excludes); a file no glob matches is taken when every glob is a `!`.
struct Globs {
    /// (matcher, negated, matches the path rather than the file name).
    globs: Vec<(globset::GlobMatcher, bool, bool)>,
    any_positive: bool,
    hidden: bool,
}

impl Globs {
    fn new(patterns: &[String], hidden: bool) -> Result<Self> {
        let mut globs = Vec::new();
        for pattern in patterns {
            let (negated, glob) = match pattern.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, pattern.as_str()),
            };
            let glob = glob.strip_prefix("./").unwrap_or(glob);
            let matcher = globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .with_context(|| format!("--glob {pattern}"))?
                .compile_matcher();
            globs.push((matcher, negated, glob.contains('/')));
        }
        let any_positive = globs.iter().any(|g| !g.1);
        Ok(Globs { globs, any_positive, hidden })
    }

    /// The last glob matching `rel` (the path under the directory), if any:
    /// whether it includes.
    fn verdict(&self, rel: &std::path::Path) -> Option<bool> {
        let name = rel.file_name().map(std::path::Path::new).unwrap_or(rel);
        self.globs
            .iter()
            .rev()
            .find(|(m, _, path)| m.is_match(if *path { rel } else { name }))
            .map(|(_, negated, _)| !negated)
    }

    fn file(&self, rel: &std::path::Path) -> bool {
        self.verdict(rel).unwrap_or(!self.any_positive)
    }

    /// A directory is walked unless it is hidden (without `--hidden`) or a
    /// `!` glob matches it.
    fn dir(&self, rel: &std::path::Path) -> bool {
        (self.hidden || !is_hidden(rel)) && self.verdict(rel) != Some(false)
    }
}

fn is_hidden(rel: &std::path::Path) -> bool {
    rel.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
}

/// The logs that `args` name: files as given, directories expanded to the
/// regular files under them (sorted, symbolic links to directories not
/// followed, hidden entries skipped unless `--hidden`), filtered by `--glob`.
/// A subdirectory that cannot be read is kept as a log, so that it gets its
/// own error verdict (`Permission denied`), as ripgrep reports it. A directory
/// with no file to classify is an error: nothing to classify (exit 2).
fn expand_logs(args: &ClassifyArgs) -> Result<Vec<LogSource>> {
    let globs = Globs::new(&args.glob, args.hidden)?;
    let mut logs = Vec::new();
    for arg in &args.logs {
        if arg.as_os_str() == "-" {
            logs.push(LogSource::Stdin(args.label.clone()));
            continue;
        }
        if !arg.is_dir() {
            logs.push(LogSource::Path(arg.clone()));
            continue;
        }
        let before = logs.len();
        walk(arg, arg, &globs, &mut logs);
        if logs.len() == before {
            let shown = arg.display();
            if args.glob.is_empty() {
                bail!("no files to classify under {shown}");
            }
            bail!(
                "no files under {shown} match {}",
                args.glob.iter().map(|g| format!("'{g}'")).collect::<Vec<_>>().join(", ")
            );
        }
    }
    Ok(logs)
}

/// Appends the files under `dir` to `out` in path order (as `Path` sorts,
/// component by component): each directory's entries sorted by name, depth
/// first. Sorting the whole list by path instead compares paths component by
/// component, which is slow on a large batch, before any worker starts. A
/// directory that cannot be read is appended itself: reading it gives its
/// error verdict.
fn walk(root: &std::path::Path, dir: &std::path::Path, globs: &Globs, out: &mut Vec<LogSource>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(_) => {
            out.push(LogSource::Path(dir.to_path_buf()));
            return;
        }
    };
    let mut entries: Vec<_> =
        entries.filter_map(Result::ok).filter_map(|e| Some((e.path(), e.file_type().ok()?))).collect();
    // Entries of one directory share everything before their names.
    entries.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    for (path, kind) in entries {
        let rel = path.strip_prefix(root).unwrap_or(&path);
        if kind.is_dir() {
            if globs.dir(rel) {
                walk(root, &path, globs, out);
            }
        } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
            && (globs.hidden || !is_hidden(rel))
            && globs.file(rel)
        {
            out.push(LogSource::Path(path));
        }
    }
}

fn resolve_config(args: &ClassifyArgs) -> Result<ClassifyConfig> {
    if args.pretty && args.format != Format::Json {
        bail!(
            "--pretty indents JSON: it needs --format json (the default), not --format {}",
            format!("{:?}", args.format).to_lowercase()
        );
    }
    let mut logs = expand_logs(args)?;
    if logs.is_empty() {
        if io::stdin().is_terminal() {
            bail!("no log given: pass LOG paths, or pipe a log into standard input");
        }
        logs.push(LogSource::Stdin(args.label.clone()));
    }
    if logs.iter().filter(|l| matches!(l, LogSource::Stdin(_))).count() > 1 {
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
            input: args.scan.input,
        },
        format: args.format,
        pretty: args.pretty,
        quiet: args.quiet,
        summary: args.summary,
        color: color_for(args.color),
        threads,
    })
}
