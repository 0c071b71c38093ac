//! The real CLIs' own output (issue 22): every capture of `testdata/clients/`
//! — pane captures, raw terminal streams, headless text and JSON streams, and
//! the transcripts the CLIs wrote — classified with its CLI's built-in profile,
//! as `classify` reads it (the 64 KiB window, `--input auto`), against what
//! `manifest.tsv` says the harness saw (`harness/README.md`).
//!
//! Healthy runs (whose answers quote error strings) must all be `charge`: a
//! false positive pauses a healthy run. Of the runs whose fault reached the
//! file (`visible` = `yes`), the share caught is printed per CLI and held to a
//! floor, so that a change that loses real outages fails here.

use std::collections::BTreeMap;

use faultsift::pipeline::window;
use faultsift::{Action, Pipeline, WindowSpec};

use crate::util::{builtin_pipeline, testdata};

/// One row of the manifest.
struct Capture {
    path: String,
    cli: String,
    form: String,
    scenario: String,
    expect_action: Action,
    visible: bool,
}

fn manifest() -> Vec<Capture> {
    let text = std::fs::read_to_string(testdata("clients/manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (path, cli, form, scenario, action, visible) =
        (col("path"), col("cli"), col("form"), col("scenario"), col("expect_action"), col("visible"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Capture {
                path: c[path].to_string(),
                cli: c[cli].to_string(),
                form: c[form].to_string(),
                scenario: c[scenario].to_string(),
                expect_action: match c[action] {
                    "pause" => Action::Pause,
                    "retry" => Action::Retry,
                    "charge" => Action::Charge,
                    other => panic!("{}: unknown action {other}", c[path]),
                },
                visible: c[visible] == "yes",
            }
        })
        .collect()
}

/// The kind of file a capture is: what the pane showed, the raw terminal
/// stream, a headless run's plain text, its JSON event stream, or the
/// transcript the CLI wrote.
fn form_family(form: &str) -> &'static str {
    if form.contains("transcript") {
        "transcript"
    } else if form.starts_with("pane") {
        "pane"
    } else if form == "raw" {
        "raw"
    } else if form.ends_with(".jsonl") || form.ends_with(".json") {
        "json"
    } else {
        "text"
    }
}

/// Each CLI of `harness/versions.toml`: its name in the docs, its pinned
/// version, and the directory of that release's captures (`claude@2.1.332`).
fn pinned_dirs() -> Vec<(&'static str, String, String)> {
    let text = std::fs::read_to_string(crate::util::root().join("harness/versions.toml")).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let clis = table["cli"].as_table().unwrap();
    [
        ("claude", "Claude Code"),
        ("codex", "Codex"),
        ("copilot", "Copilot CLI"),
        ("gemini", "Gemini CLI"),
        ("opencode", "opencode"),
        ("qwen", "Qwen Code"),
        ("aider", "aider"),
        ("openhands", "OpenHands CLI"),
        ("goose", "goose"),
    ]
    .into_iter()
    .map(|(cli, name)| {
        let version = clis[cli]["version"].as_str().unwrap();
        (name, version.to_string(), format!("{cli}@{version}"))
    })
    .collect()
}

/// GUIDE.md's table: per pinned release and kind of file, the visible faults
/// caught of those captured (`—` where the release writes no such file).
fn pin_table(pins: &[(&str, String, String)], per_pin: &BTreeMap<(String, &str), (usize, usize)>) -> String {
    let mut table = String::from(
        "| CLI | pane | raw stream | headless text and logs | headless JSON | transcript |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for (name, version, dir) in pins {
        let cells: Vec<String> = ["pane", "raw", "text", "json", "transcript"]
            .iter()
            .map(|f| per_pin.get(&(dir.clone(), *f)).map_or("—".to_string(), |(c, a)| format!("{c}/{a}")))
            .collect();
        table.push_str(&format!("| {name} {version} | {} |\n", cells.join(" | ")));
    }
    table
}

fn classify(pipelines: &mut BTreeMap<String, Pipeline>, c: &Capture) -> faultsift::Verdict {
    let p = pipelines.entry(c.cli.clone()).or_insert_with(|| builtin_pipeline(&c.cli, Some("failed")));
    let bytes = std::fs::read(testdata(&format!("clients/{}", c.path))).unwrap();
    p.classify_window(&c.path, window::from_bytes(&bytes, WindowSpec::default())).verdict
}

#[test]
fn the_manifest_names_every_capture_and_only_captures() {
    let rows = manifest();
    assert!(rows.len() >= 300, "captures: {}", rows.len());
    for c in &rows {
        assert!(testdata(&format!("clients/{}", c.path)).is_file(), "{} is missing", c.path);
    }
    let clis: std::collections::BTreeSet<&str> = rows.iter().map(|c| c.cli.as_str()).collect();
    for cli in ["claude", "codex", "gemini", "qwen", "opencode", "copilot", "aider", "openhands", "goose"] {
        assert!(clis.contains(cli), "no captures of {cli}");
    }
}

/// Captures that hold only a recovered run's retry notices, its answer in
/// another file: Gemini CLI's `-p` writes each retry (`Attempt 1 failed with
/// status 503. Retrying with backoff... …`) on standard error and the answer
/// on standard output, so its standard error alone ends on the last retry,
/// the same bytes as a run killed while it retried (which is the fault).
/// The file cannot tell them apart and is read as the retry (README: a run
/// that exited 0 is `--status completed`). Held to that here, so that a
/// change in how they read shows.
const RECOVERED_ELSEWHERE: &[&str] = &["gemini@0.61.0/flaky.text.stderr"];

/// A run whose session was fine, whose work failed on its own (a request
/// over the model's context window), or that got past an outage (retried,
/// then answered) is charged: the environment did not end it, and pausing
/// would stall a loop that should go on.
#[test]
fn every_healthy_run_and_every_failure_of_the_work_is_charged() {
    let mut pipelines = BTreeMap::new();
    let (charged, elsewhere): (Vec<Capture>, Vec<Capture>) = manifest()
        .into_iter()
        .filter(|c| c.expect_action == Action::Charge)
        .partition(|c| !RECOVERED_ELSEWHERE.contains(&c.path.as_str()));
    assert_eq!(elsewhere.len(), RECOVERED_ELSEWHERE.len(), "a listed capture is gone or not a charged run");
    for c in &elsewhere {
        let v = classify(&mut pipelines, c);
        assert_eq!(v.action, Action::Retry, "{}: {:?} {:?}", c.path, v.rule, v.evidence);
    }
    let healthy = charged.iter().filter(|c| c.scenario == "healthy").count();
    assert!(healthy >= 30, "healthy captures: {healthy}");
    assert!(charged.len() - healthy >= 20, "work-fault and recovered captures: {}", charged.len() - healthy);
    let paused: Vec<String> = charged
        .iter()
        .filter_map(|c| {
            let v = classify(&mut pipelines, c);
            v.env_fault.then(|| format!("{} -> {:?} {:?}: {:?}", c.path, v.action, v.rule, v.evidence))
        })
        .collect();
    assert!(paused.is_empty(), "runs the environment did not fail, paused:\n{}", paused.join("\n"));
}

/// A raw terminal stream (the bytes a TUI wrote, as `script` or a pipe
/// records them) shows what its pane showed: every visible fault in one is
/// caught. opencode draws each row cell by cell with absolute cursor moves
/// along the row, which the clean stage reads as gaps in one line.
#[test]
fn every_visible_fault_in_a_raw_terminal_stream_is_caught() {
    let mut pipelines = BTreeMap::new();
    let raw: Vec<_> = manifest()
        .into_iter()
        .filter(|c| c.visible && c.expect_action != Action::Charge && form_family(&c.form) == "raw")
        .collect();
    assert!(raw.len() >= 20, "raw streams with a visible fault: {}", raw.len());
    let missed: Vec<String> =
        raw.iter().filter(|c| !classify(&mut pipelines, c).env_fault).map(|c| c.path.clone()).collect();
    assert!(missed.is_empty(), "raw streams whose fault was missed:\n{}", missed.join("\n"));
}

/// The share of visible faults caught, per CLI: each CLI's floor is set under
/// what the profiles catch today, so that losing real outages fails here.
#[test]
fn visible_faults_of_the_real_clis_are_caught() {
    let floors = [
        ("claude", 0.95),
        ("codex", 0.95),
        ("gemini", 0.95),
        ("qwen", 0.95),
        ("opencode", 0.95),
        ("copilot", 0.95),
        ("aider", 0.95),
        ("openhands", 0.95),
        ("goose", 0.95),
    ];
    let mut pipelines = BTreeMap::new();
    let mut per_cli: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    let mut per_form: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    let pins = pinned_dirs();
    let mut per_pin: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    for c in manifest().into_iter().filter(|c| c.visible && c.expect_action != Action::Charge) {
        let v = classify(&mut pipelines, &c);
        let tally = |cell: &mut (usize, usize)| *cell = (cell.0 + usize::from(v.env_fault), cell.1 + 1);
        tally(per_form.entry((c.cli.clone(), form_family(&c.form))).or_default());
        let dir = c.path.split('/').next().unwrap_or_default();
        if pins.iter().any(|(_, _, d)| d == dir) {
            tally(per_pin.entry((dir.to_string(), form_family(&c.form))).or_default());
        }
        let entry = per_cli.entry(c.cli.clone()).or_default();
        entry.1 += 1;
        if v.env_fault {
            entry.0 += 1;
        } else {
            entry.2.push(format!("{} ({})", c.path, c.form));
        }
    }
    let table: Vec<String> = per_cli
        .iter()
        .map(|(cli, (caught, all, _))| {
            format!("{cli:<9} {caught}/{all} ({:.0}%)", 100.0 * *caught as f64 / *all as f64)
        })
        .collect();
    eprintln!("visible faults caught:\n{}", table.join("\n"));
    for ((cli, form), (caught, all)) in &per_form {
        eprintln!("  {cli:<9} {form:<11} {caught}/{all}");
    }
    for (cli, floor) in floors {
        let (caught, all, missed) = &per_cli[cli];
        let share = *caught as f64 / *all as f64;
        assert!(share >= floor, "{cli}: {caught}/{all} caught; missed:\n{}", missed.join("\n"));
    }
    // GUIDE.md's table of the pinned releases follows the captures too.
    let guide = std::fs::read_to_string(crate::util::root().join("GUIDE.md")).unwrap();
    let table = pin_table(&pins, &per_pin);
    assert!(guide.contains(&table), "GUIDE.md's table of the pinned releases should read:\n{table}");
    // The README states the whole figure; it follows the captures.
    let (caught, all) = per_cli.values().fold((0, 0), |(c, a), (caught, all, _)| (c + caught, a + all));
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    let sentence = format!("{caught} of {all} faults caught");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&sentence), "README.md should say {sentence:?}");
}

/// A fault that needs a person (a spent quota, a refused credential) is never
/// `retry`: retrying it burns attempts against a wall. OpenAI-compatible
/// providers answer a spent quota with status 429, so a profile whose 429
/// rule comes before its quota rule would say `retry` here.
#[test]
fn quota_and_auth_faults_are_never_retried() {
    let mut pipelines = BTreeMap::new();
    let faults: Vec<Capture> =
        manifest().into_iter().filter(|c| c.visible && matches!(c.scenario.as_str(), "quota" | "auth")).collect();
    assert!(faults.len() >= 20, "quota and auth captures: {}", faults.len());
    let retried: Vec<String> = faults
        .iter()
        .filter_map(|c| {
            let v = classify(&mut pipelines, c);
            (v.action == Action::Retry).then(|| format!("{} -> {:?}: {:?}", c.path, v.rule, v.evidence))
        })
        .collect();
    assert!(retried.is_empty(), "{} retried:\n{}", retried.len(), retried.join("\n"));
}

/// A plan's spent usage (the `plan-*` scenarios): never retried, but for
/// Claude Code's debug log, whose only trace is the 429's body; a reset time
/// the verdict gives is whole (a time of day, with a date before it past a
/// day), never a word a pane row cut (Codex wraps its own cell: `… try again
/// at Dec` / `10th, 2026 10:25 AM.`); and every JSON form whose sentence names
/// the time gives it.
#[test]
fn a_plan_limit_is_quota_with_a_whole_reset_time_or_none() {
    let whole = regex::Regex::new(r"(?i)^(?:[A-Z][a-z]{2,8}\.? [0-9]{1,2}(?:st|nd|rd|th)?,? (?:[0-9]{4},? )?)?[0-9]{1,2}(?::[0-9]{2})? ?[ap]m(?: \([^)]+\))?$").unwrap();
    let mut pipelines = BTreeMap::new();
    let plans: Vec<Capture> = manifest().into_iter().filter(|c| c.visible && c.scenario.starts_with("plan-")).collect();
    assert!(plans.len() >= 100, "plan captures: {}", plans.len());
    let (mut hinted, mut problems) = (0, vec![]);
    for c in &plans {
        let v = classify(&mut pipelines, c);
        let names_time = v.evidence.as_deref().is_some_and(|e| e.contains("resets ") || e.contains("try again at "));
        match v.captures.groups.get("resume_at") {
            Some(at) if whole.is_match(at) => hinted += 1,
            Some(at) => problems.push(format!("{}: resume_at {at:?}", c.path)),
            None if names_time && form_family(&c.form) == "json" => {
                problems.push(format!("{}: no resume_at for {:?}", c.path, v.evidence))
            }
            None => {}
        }
        if v.action != Action::Pause && !c.form.contains("debug") {
            problems.push(format!("{}: {:?} by {:?}", c.path, v.action, v.rule));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(hinted >= 60, "reset times given: {hinted}");
}
