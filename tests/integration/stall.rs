//! `faultsift stall` end to end: real captures of agent CLIs (`testdata/stall/`),
//! the state file across ticks with injected times (`--now`, no sleeping),
//! corrupt and concurrent state files, the output forms and exit statuses,
//! and the example supervisor loop against a fake agent that freezes.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use faultsift::output::stall::{StallReport, TickState};

use crate::util::{Test, testdata};

/// One tick of `capture` at `now` against the state file `state`.
fn tick(state: &Path, capture: &Path, profile: &str, now: u64, extra: &[&str]) -> Test {
    Test::new()
        .args(["stall", "--profile", profile, "--session", "s", "--now", &now.to_string(), "--state"])
        .arg(state)
        .arg(capture)
        .args(extra)
}

fn report(test: Test) -> StallReport {
    let out = test.run();
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn pane(name: &str) -> PathBuf {
    testdata(&format!("stall/{name}"))
}

#[test]
fn real_agents_thinking_or_waiting_on_the_provider_are_busy() {
    for cli in ["claude", "codex", "gemini"] {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        // The provider never answers; the screen is the same but for the
        // spinner, for ninety seconds, and far past the threshold.
        for (i, t) in ["010", "030", "060", "090", "090", "090"].iter().enumerate() {
            let now = 1000 + 400 * i as u64;
            let r = report(tick(&state, &pane(&format!("{cli}-hang.t{t}.pane")), cli, now, &[]));
            assert_eq!((r.state, r.stalled, r.static_s), (TickState::Busy, false, 0), "{cli} t{t}: {r:?}");
            assert!(r.busy_evidence.is_some(), "{cli} t{t}");
        }
    }
    for (cli, file, evidence) in [
        ("claude", "claude-hang.t030.pane", "✻ Beboppin'… (28s)"),
        ("codex", "codex-hang.t090.pane", "• Working (1m 26s • esc to interrupt)"),
        ("gemini", "gemini-overloaded.pane", "⠸ Thinking... (esc to cancel, 1m)"),
        ("gemini", "gemini-hang.t090.pane", "⠦ Thinking... (esc to cancel, 1m 25s)"),
        ("qwen", "qwen-overloaded.pane", ".  Dividing by zero... just kidding! (1m · esc to cancel)"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let r = report(tick(&dir.path().join("state"), &pane(file), cli, 1000, &[]));
        // Evidence is the line as cleaned, right-aligned hints included.
        let text = std::fs::read_to_string(pane(file)).unwrap();
        let line = text.lines().map(str::trim).find(|l| l.starts_with(evidence)).unwrap();
        assert_eq!(r.busy_evidence.as_deref(), Some(line), "{file}");
    }
}

#[test]
fn each_builtin_busy_pattern_holds_on_its_own() {
    // One screen per pattern, matching it and no other pattern of its profile:
    // a pane too narrow for the hint, a hint without its spinner.
    let cases = [
        ("claude", "✢ Pondering… "),
        ("claude", "  ⏵⏵ accept edits on (shift+tab to cycle) · esc to interrupt"),
        ("codex", "• Thinking about the tests (12s • esc to interrupt)"),
        ("gemini", " ⠼ Refining the plan..."),
        ("gemini", " Thinking... (esc to cancel, 12s)"),
        ("qwen", "  ...  Pre-heating the servers... (57s · esc to cancel)"),
        ("copilot", "◉ Thinking (Esc to cancel)"),
        ("opencode", "  ⬝⬝■⬝  esc interrupt"),
        ("opencode", "  esc again to interrupt"),
        ("aider", "Waiting for anthropic/claude-sonnet-4 [≡=─────]"),
        ("aider", "Waiting for gpt-4o [-----#=]"),
    ];
    for (cli, line) in cases {
        let dir = tempfile::tempdir().unwrap();
        let capture = dir.path().join("pane");
        std::fs::write(&capture, format!("> fix the tests\n{line}\n")).unwrap();
        let r = report(tick(&dir.path().join("state"), &capture, cli, 1000, &[]));
        assert_eq!((r.state, r.busy_evidence.as_deref()), (TickState::Busy, Some(line.trim())), "{cli}: {line}");
    }
    // And what a finished turn leaves is not busy.
    for (cli, line) in [
        ("claude", "✻ Baked for 1s · done 12:20 PM"),
        ("codex", "  Worked for <1s • 12:20"),
        ("gemini", "✦ Done. All 3 tests pass."),
        ("aider", "Tokens: 2.1k sent, 300 received. Cost: $0.01 message, $0.05 session."),
        ("opencode", "     ▣  Build · Fake Model 1 · 24.0s"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let capture = dir.path().join("pane");
        std::fs::write(&capture, format!("> fix the tests\n{line}\n")).unwrap();
        let r = report(tick(&dir.path().join("state"), &capture, cli, 1000, &[]));
        assert_eq!(r.state, TickState::New, "{cli}: {line}");
    }
}

#[test]
fn real_finished_screens_stall_after_the_threshold() {
    for cli in ["claude", "codex", "gemini", "qwen", "opencode"] {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let capture = pane(&format!("{cli}-healthy.pane"));
        let r = report(tick(&state, &capture, cli, 1000, &[]));
        assert_eq!((r.state, r.stalled, r.busy_evidence), (TickState::New, false, None), "{cli}");
        let r = report(tick(&state, &capture, cli, 1299, &[]));
        assert_eq!((r.state, r.static_s, r.stalled), (TickState::Static, 299, false), "{cli}");
        tick(&state, &capture, cli, 1299, &["-q"]).status(1).run();
        let r = report(tick(&state, &capture, cli, 1300, &[]));
        assert_eq!((r.state, r.static_s, r.stalled, r.threshold_s), (TickState::Static, 300, true, 300), "{cli}");
        assert_eq!(r.reason, "pane unchanged 300s with no busy indicator (threshold 300s)");
        tick(&state, &capture, cli, 1301, &["-q"]).status(0).run();
    }
}

#[test]
fn a_finished_screen_after_a_hang_starts_the_clock_when_the_spinner_goes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    report(tick(&state, &pane("codex-hang.t090.pane"), "codex", 1000, &[]));
    let r = report(tick(&state, &pane("codex-healthy.pane"), "codex", 1030, &[]));
    assert_eq!((r.state, r.static_s), (TickState::Changed, 0));
}

#[test]
fn a_ticking_clock_in_the_status_bar_is_the_same_screen() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let healthy = std::fs::read_to_string(pane("codex-healthy.pane")).unwrap();
    assert!(healthy.contains("Worked for <1s • 12:20"), "the fixture's clock");
    let later = dir.path().join("later.pane");
    std::fs::write(&later, healthy.replace("12:20", "12:27")).unwrap();
    report(tick(&state, &pane("codex-healthy.pane"), "codex", 1000, &[]));
    let r = report(tick(&state, &later, "codex", 1300, &[]));
    assert_eq!((r.state, r.stalled), (TickState::Static, true), "{r:?}");
    // A profile without the volatile pattern sees the clock move.
    let bare = dir.path().join("bare.toml");
    std::fs::write(&bare, "name = \"bare\"\n").unwrap();
    let bare_state = dir.path().join("bare-state");
    report(tick(&bare_state, &pane("codex-healthy.pane"), bare.to_str().unwrap(), 1000, &[]));
    let r = report(tick(&bare_state, &later, bare.to_str().unwrap(), 1300, &[]));
    assert_eq!((r.state, r.stalled), (TickState::Changed, false));
}

#[test]
fn each_leg_of_the_and_false_alone_keeps_the_session_live() {
    let dir = tempfile::tempdir().unwrap();
    let frozen = pane("claude-healthy.pane");
    // Screen changed.
    let state = dir.path().join("a");
    report(tick(&state, &pane("claude-hang.t010.pane"), "claude", 0, &[]));
    let r = report(tick(&state, &frozen, "claude", 600, &[]));
    assert_eq!((r.state, r.stalled), (TickState::Changed, false));
    // A busy line on screen: the capture differs from the frozen one only by
    // the spinner line and the footer hint.
    let state = dir.path().join("b");
    let r1 = report(tick(&state, &pane("claude-hang.t030.pane"), "claude", 0, &[]));
    let r2 = report(tick(&state, &pane("claude-hang.t060.pane"), "claude", 600, &[]));
    assert_eq!((r1.state, r2.state, r2.stalled), (TickState::Busy, TickState::Busy, false));
    // --busy.
    let state = dir.path().join("c");
    report(tick(&state, &frozen, "claude", 0, &[]));
    let r = report(tick(&state, &frozen, "claude", 600, &["--busy"]));
    assert_eq!((r.state, r.stalled, r.busy_evidence), (TickState::Busy, false, None));
    // None of them: stalled.
    let state = dir.path().join("d");
    report(tick(&state, &frozen, "claude", 0, &[]));
    assert!(report(tick(&state, &frozen, "claude", 600, &[])).stalled);
}

#[test]
fn a_long_tool_run_is_never_counted_as_static_time() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let frozen = pane("claude-healthy.pane");
    for i in 0..12 {
        let r = report(tick(&state, &frozen, "claude", 1000 + 60 * i, &["--busy"]));
        assert_eq!(r.state, TickState::Busy);
    }
    // The tool exits just before this tick; the pane is as it was for 12 minutes.
    let r = report(tick(&state, &frozen, "claude", 1000 + 60 * 12, &[]));
    assert_eq!((r.state, r.static_s, r.stalled), (TickState::Static, 0, false), "{r:?}");
    let r = report(tick(&state, &frozen, "claude", 1720 + 299, &[]));
    assert_eq!((r.static_s, r.stalled), (299, false));
    assert!(report(tick(&state, &frozen, "claude", 1720 + 300, &[])).stalled);
}

#[test]
fn idle_time_is_never_charged_to_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let frozen = pane("claude-healthy.pane");
    report(tick(&state, &frozen, "claude", 0, &[]));
    let r = report(tick(&state, &frozen, "claude", 3600, &["--idle"]));
    assert_eq!((r.state, r.stalled), (TickState::Cleared, false));
    // A new request: the first tick shows the same (idle) screen an hour later.
    let out = tick(&state, &frozen, "claude", 7200, &[]).run();
    let r: StallReport = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((r.state, r.static_s, r.stalled), (TickState::New, 0, false));
    assert_eq!(out.stderr, "", "a cleared state is no surprise");
    assert!(!report(tick(&state, &frozen, "claude", 7499, &[])).stalled);
    assert!(report(tick(&state, &frozen, "claude", 7500, &[])).stalled);
}

#[test]
fn corrupt_or_foreign_state_files_start_fresh_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let frozen = pane("claude-healthy.pane");
    // A good state, far in the past: the next tick would be a stall.
    let good_state = dir.path().join("good");
    report(tick(&good_state, &frozen, "claude", 0, &[]));
    let good = std::fs::read_to_string(&good_state).unwrap();
    let cases: [(&str, String, &str); 7] = [
        ("empty", String::new(), "empty"),
        ("garbage", "{\"schema\": \"faultsift/stall-state/v1\", \"since\": ".to_string(), "not a stall state"),
        ("binary", "\u{0}\u{1b}[2J".to_string(), "not a stall state"),
        ("future", good.replace("\"tick\":0", "\"tick\":99999"), "in the future"),
        ("other-session", good.replace("\"session\":\"s\"", "\"session\":\"t\""), "session `t`"),
        ("other-profile", good.replace("\"profile\":\"claude\"", "\"profile\":\"codex\""), "profile `codex`"),
        ("escapes", good.replace("\"session\":\"s\"", "\"session\":\"\\u001b[2J\""), "session ` [2J`"),
    ];
    for (name, text, why) in cases {
        assert_ne!(text, good, "{name}: the fixture was altered");
        let state = dir.path().join(name);
        std::fs::write(&state, &text).unwrap();
        let out = tick(&state, &frozen, "claude", 1000, &[]).run();
        let r: StallReport = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!((r.state, r.stalled), (TickState::New, false), "{name}");
        assert!(out.stderr.starts_with("faultsift: warning: ") && out.stderr.contains(why), "{name}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{name}");
        // The file was replaced by a good record: the clock runs from here.
        assert_eq!(report(tick(&state, &frozen, "claude", 1300, &[])).static_s, 300, "{name}");
    }
    // The good state itself does stall.
    assert!(report(tick(&good_state, &frozen, "claude", 1000, &[])).stalled);
    // A missing state file is the first tick; it is said too.
    let out = tick(&dir.path().join("missing"), &frozen, "claude", 1000, &[]).run();
    assert!(out.stderr.contains("does not exist yet"), "{}", out.stderr);
    // A state path that cannot be read is an error.
    let out = tick(dir.path(), &frozen, "claude", 1000, &[]).status(2).run();
    assert!(out.stderr.starts_with("faultsift: state file "), "{}", out.stderr);
}

#[test]
fn concurrent_ticks_neither_corrupt_the_state_nor_stall() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let frozen = pane("claude-healthy.pane");
    report(tick(&state, &frozen, "claude", 1000, &[]));
    for round in 0..3u64 {
        // Eight processes tick the same state file at once, with times that
        // are all under the threshold from the first tick.
        let tests: Vec<Test> = (0..8u64).map(|i| tick(&state, &frozen, "claude", 1000 + 30 * round + i, &[])).collect();
        let children: Vec<_> = tests
            .iter()
            .map(|t| {
                let mut cmd = t.command();
                cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
                cmd.spawn().unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8(out.stdout).unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert!(out.status.success(), "{stdout}{stderr}");
            let r: StallReport = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
            assert!(!r.stalled, "{r:?}");
            // Some ticks see a later `--now` already written: that state is
            // dated after them and starts fresh; anything else is a defect.
            assert!(stderr.is_empty() || stderr.contains("in the future"), "{stderr}");
        }
        let text = std::fs::read_to_string(&state).unwrap();
        assert!(text.starts_with("{\"schema\":\"faultsift/stall-state/v1\"") && text.ends_with("}\n"), "{text}");
    }
    assert!(!dir.path().join("state.tmp").exists());
}

#[test]
fn output_forms_and_classify() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    // A screen that froze with a connection error on it.
    let log = dir.path().join("error.pane");
    let mut screen = std::fs::read_to_string(pane("claude-healthy.pane")).unwrap();
    screen.push_str("  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\n");
    std::fs::write(&log, screen).unwrap();
    let classified = Test::new().args(["classify", "--profile", "claude", "--status", "stalled"]).arg(&log).verdict();
    let r = report(tick(&state, &log, "claude", 0, &["--classify"]));
    let v = r.verdict.unwrap();
    assert_eq!((v.status, v.log), (None, log.to_string_lossy().into_owned()), "not stalled: no status");
    let r = report(tick(&state, &log, "claude", 300, &["--classify"]));
    assert!(r.stalled);
    let v = r.verdict.unwrap();
    assert_eq!(v.status.as_deref(), Some("stalled"));
    assert_eq!((v.action, v.rule), (classified.action, classified.rule));
    assert!(v.env_fault, "the fixture dies of a connection error");
    // Without --classify, the field is there and null.
    let out = tick(&state, &log, "claude", 301, &[]).run();
    let raw: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(raw["verdict"], serde_json::Value::Null);
    assert_eq!(raw["schema"], "faultsift/stall/v1");
    // pact: exactly the task metadata.
    let out = tick(&state, &log, "claude", 302, &["--format", "pact"]).run();
    let raw: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        raw,
        serde_json::json!({"stalled": true, "reason": "pane unchanged 302s with no busy indicator (threshold 300s)"})
    );
    // text
    let out = tick(&state, &log, "claude", 303, &["--format", "text", "--classify"]).run();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("stalled: {}: pane unchanged 303s with no busy indicator (threshold 300s)", log.display())
    );
    assert!(lines[1].starts_with("  verdict: pause: "), "{}", out.stdout);
    // Standard input, and the session defaulting to the capture.
    let text = " > fix the tests\n \x1b[38;5;4m⠇\x1b[0m Thinking... (esc to cancel, 5s)\r\n";
    let out = Test::new()
        .args(["stall", "--profile", "gemini", "--now", "5", "--format", "text", "--state"])
        .arg(dir.path().join("stdin-state"))
        .stdin(text)
        .run();
    assert_eq!(
        out.stdout,
        "not stalled (busy): -: busy indicator on screen: the static clock restarts\n  busy: ⠇ Thinking... (esc to cancel, 5s)\n"
    );
}

#[test]
fn usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let frozen = pane("claude-healthy.pane");
    let out = tick(&state, &frozen, "claude", 0, &["--threshold", "29s"]).status(2).run();
    assert!(out.stderr.contains("under the 30s minimum"), "{}", out.stderr);
    let r = report(tick(&state, &frozen, "claude", 0, &["--threshold", "30s"]));
    assert_eq!(r.threshold_s, 30);
    let out = tick(&state, &frozen, "claude", 0, &["--busy", "--idle"]).status(2).run();
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
    let out = Test::new().args(["stall", "--state"]).arg(&state).arg(&frozen).status(2).run();
    assert!(out.stderr.starts_with("faultsift: no profile given"), "{}", out.stderr);
    let out = tick(&state, Path::new("/nonexistent/pane"), "claude", 0, &[]).status(2).run();
    assert!(out.stderr.starts_with("faultsift: /nonexistent/pane"), "{}", out.stderr);
    // -q answers errors with 2, as grep does.
    tick(&state, Path::new("/nonexistent/pane"), "claude", 0, &["-q"]).status(2).run();
    // A bad `busy` pattern in a profile file names its key and position.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "busy = ['fine', '(?<=x)y']\n").unwrap();
    let out = tick(&state, &frozen, bad.to_str().unwrap(), 0, &[]).status(2).run();
    assert!(out.stderr.contains("rule `busy[1]`") && out.stderr.contains("look-around"), "{}", out.stderr);
}

#[test]
fn profiles_show_and_test_the_stall_patterns() {
    let out = Test::new().args(["show", "claude"]).run();
    assert!(out.stdout.contains("busy = ["), "{}", out.stdout);
    assert!(out.stdout.contains("volatile = ["));
    let shown: toml::Table = toml::from_str(&out.stdout).unwrap();
    assert_eq!(shown["busy"].as_array().unwrap().len(), 2);
    // qwen extends gemini: both sets of busy patterns.
    let out = Test::new().args(["show", "qwen"]).run();
    let shown: toml::Table = toml::from_str(&out.stdout).unwrap();
    assert_eq!(shown["busy"].as_array().unwrap().len(), 3);
    // A volatile pattern that masks a whole line of model output fails `test`.
    let t = Test::new().file("greedy.toml", "volatile = ['\\S.*']\n");
    let path = t.path().join("greedy.toml");
    let out = t.args(["test", "--format", "json"]).arg(&path).status(1).run();
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let checks: Vec<&str> = doc["failures"].as_array().unwrap().iter().filter_map(|f| f["check"].as_str()).collect();
    assert!(checks.contains(&"volatile-masks-line"), "{}", out.stdout);
    // `schema stall` describes the report.
    let out = Test::new().args(["schema", "stall"]).run();
    let schema: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(schema["title"], "faultsift stall report");
    assert!(schema["properties"]["busy_evidence"].is_object());
}

/// The example supervisor loop against a fake agent that works for a moment
/// (a spinner on its screen), then freezes: the loop ticks on a fake clock
/// (`--now`), sees the stall only after the freeze, reads the classification
/// and restarts the agent. Real time: about a second.
#[test]
fn example_supervisor_restarts_a_frozen_agent() {
    let stdout = supervise("  I will now run the tests.");
    assert!(stdout.contains("supervisor: the session is stuck (charge): restarting the agent"), "{stdout}");
}

/// An agent started detached (as `tmux new-session -d` starts one) is not the
/// process behind `$!`: `SUPERVISOR_STOP` stops it on a restart. Without the
/// hook the detached agent outlives the supervisor (the control, which shows
/// the check can fail).
#[test]
fn example_supervisor_stops_a_detached_agent_with_its_stop_hook() {
    let alive = |dir: &std::path::Path| {
        let pid = std::fs::read_to_string(dir.join("agent.pid")).unwrap();
        let pid = pid.trim().to_string();
        // Running unless gone or a zombie (an orphan's parent here may not reap it).
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        let alive = matches!(state, Some(Some(c)) if c != 'Z' && c != 'X');
        (pid, alive)
    };
    let detached = "sh detach.sh";
    let stop = [("SUPERVISOR_STOP", "kill $(cat agent.pid)")];
    let (_, t) = supervise_with("  I will now run the tests.", detached, &stop);
    // `kill` returns before the agent has died: on a loaded machine the
    // process may still be running for a moment, so give it up to 5 s.
    let mut waited = 0;
    let (pid, running) = loop {
        let (pid, running) = alive(t.path());
        if !running || waited >= 50 {
            break (pid, running);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    assert!(!running, "the stop hook stopped agent {pid}");
    let (_, t) = supervise_with("  I will now run the tests.", detached, &[]);
    let (pid, running) = alive(t.path());
    let _ = std::process::Command::new("kill").arg(&pid).status();
    assert!(running, "control: without the hook, detached agent {pid} survives");
}

/// A session frozen on the provider's error is the environment's fault: the
/// supervisor pauses and does not restart (or charge) it.
#[test]
fn example_supervisor_pauses_an_agent_frozen_on_a_provider_error() {
    let stdout = supervise("\\342\\234\\225 [API Error: got status: UNAVAILABLE. The model is overloaded.]");
    assert!(stdout.contains("supervisor: environment fault (retry): pausing, the attempt is not charged"), "{stdout}");
    assert!(!stdout.contains("restarting the agent"), "{stdout}");
}

/// Runs examples/supervisor.sh on a fake clock against a fake agent that works
/// for a moment (a spinner) and then freezes showing `last` (printf octal
/// escapes allowed); returns what the supervisor printed.
fn supervise(last: &str) -> String {
    supervise_with(last, "sh fake-agent.sh screen.txt", &[]).0
}

/// [`supervise`] with the agent started by `start` (`detach.sh` starts it in
/// the background and exits, writing its pid to `agent.pid`) and more
/// environment; returns the output and the scratch directory.
fn supervise_with(last: &str, start: &str, env: &[(&str, &str)]) -> (String, Test) {
    let agent = format!(
        "#!/bin/sh\n\
        for i in 1 2 3 4; do\n\
          printf '> fix the tests\\n  step %s\\n \\342\\240\\213 Thinking... (esc to cancel, %ss)\\n' $i $i > \"$1\"\n\
          sleep 0.2\n\
        done\n\
        printf '> fix the tests\\n{last}\\n' > \"$1\"\n\
        exec sleep 600\n"
    );
    let detach = "#!/bin/sh\nsh fake-agent.sh screen.txt >/dev/null 2>&1 &\necho $! > agent.pid\n";
    let t = Test::new().file("fake-agent.sh", agent).file("detach.sh", detach);
    let dir = t.path().to_path_buf();
    let mut command = std::process::Command::new("sh");
    command.envs(env.iter().copied());
    let out = command
        .arg(crate::util::root().join("examples/supervisor.sh"))
        .current_dir(&dir)
        .env("FAULTSIFT", env!("CARGO_BIN_EXE_faultsift"))
        .env("SUPERVISOR_PROFILE", "gemini")
        .env("SUPERVISOR_INTERVAL", "0.1")
        .env("SUPERVISOR_CLOCK_STEP", "60")
        .env("SUPERVISOR_MAX_TICKS", "60")
        .env("SUPERVISOR_MAX_RESTARTS", "1")
        .env("SUPERVISOR_START", start)
        .env("SUPERVISOR_CAPTURE", "cat screen.txt 2>/dev/null")
        .env_remove("FAULTSIFT_PROFILE")
        .env("HOME", &dir)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let ticks: Vec<&str> = stdout.lines().filter(|l| l.starts_with("tick ")).collect();
    let busy = ticks.iter().position(|l| l.contains("not stalled (busy)")).expect("the agent was seen working");
    let stalled = ticks.iter().position(|l| l.contains(": stalled: ")).expect("the freeze was seen");
    assert!(busy < stalled, "{stdout}");
    // Working, then frozen for the threshold: at least five 60 s ticks after the spinner went.
    let last_busy = ticks.iter().rposition(|l| l.contains("(busy)")).unwrap();
    assert!(stalled >= last_busy + 5, "{stdout}");
    (stdout, t)
}
