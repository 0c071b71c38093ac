//! Many logs at once: directories, `--glob`, `--summary`, the CI formats, and
//! the shell orchestrator of `examples/`.

use std::path::Path;
use std::process::Command;

use faultsift::Action;

use crate::util::{Test, root};

const FAULT: &str =
    "  ⎿  API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.\n";
const REFUSED: &str = "Unable to connect to API (ECONNREFUSED)\n";
const HEALTHY: &str = "all tests passed\n";

fn batch() -> Test {
    Test::new()
        .file("logs/a.log", FAULT)
        .file("logs/b.txt", HEALTHY)
        .file("logs/sub/c.log", REFUSED)
        .file("logs/sub/d.log", HEALTHY)
}

#[test]
fn a_directory_expands_to_its_files_sorted_and_filtered_by_glob() {
    let v = batch().args(["classify", "--profile", "claude", "logs"]).verdicts();
    let logs: Vec<&str> = v.iter().map(|v| v.log.as_str()).collect();
    assert_eq!(logs, ["logs/a.log", "logs/b.txt", "logs/sub/c.log", "logs/sub/d.log"]);
    let v = batch().args(["classify", "--profile", "claude", "--glob", "*.log", "logs"]).verdicts();
    let logs: Vec<&str> = v.iter().map(|v| v.log.as_str()).collect();
    assert_eq!(logs, ["logs/a.log", "logs/sub/c.log", "logs/sub/d.log"]);
    let actions: Vec<Action> = v.iter().map(|v| v.action).collect();
    assert_eq!(actions, [Action::Retry, Action::Pause, Action::Charge]);
}

#[test]
fn summary_is_the_last_json_line() {
    let out = batch().args(["classify", "--profile", "claude", "--summary", "logs"]).run();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 5);
    let doc: serde_json::Value = serde_json::from_str(lines[4]).unwrap();
    let s: faultsift::output::summary::Summary = serde_json::from_value(doc["summary"].clone()).unwrap();
    assert_eq!(s.logs, 4);
    assert_eq!((s.env_faults, s.errors, s.timed_out), (2, 0, 0));
    assert_eq!(s.actions.get("retry"), Some(&1));
    assert_eq!(s.actions.get("pause"), Some(&1));
    assert_eq!(s.actions.get("charge"), Some(&2));
    assert_eq!(s.kinds.get("overloaded"), Some(&1));
    assert_eq!(s.rules.get("claude/unable-to-connect"), Some(&1));
    assert!((s.env_fault_share - 0.5).abs() < 1e-9);
    assert_eq!(s.unclassified, ["logs/b.txt", "logs/sub/d.log"]);
}

#[test]
fn text_summary_is_a_table() {
    let out = batch().args(["classify", "--profile", "claude", "--summary", "--format", "text", "logs"]).run();
    assert!(out.stdout.contains("summary: 4 logs, 2 environment faults (50.0%)"), "{}", out.stdout);
    assert!(out.stdout.contains("\nunclassified (2):\n  logs/b.txt\n  logs/sub/d.log\n"), "{}", out.stdout);
}

#[test]
fn github_annotates_and_appends_the_step_summary() {
    let keep = tempfile::tempdir().unwrap();
    let summary = keep.path().join("step-summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let out = batch()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["classify", "--profile", "claude", "--format", "github", "--summary", "logs", "missing.log"])
        .status(2)
        .run();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    assert!(lines[0].starts_with("::warning title=faultsift%3A retry (overloaded) in logs/a.log::⎿  API Error: 529"));
    assert!(
        lines[1].starts_with("::warning title=faultsift%3A pause (connection) in logs/sub/c.log::Unable to connect")
    );
    assert!(lines[2].starts_with("::error title=faultsift%3A cannot read missing.log::"));
    assert!(lines[3].starts_with("::notice title=faultsift summary::5 logs, 2 environment faults (40.0%25)"));
    let md = std::fs::read_to_string(&summary).unwrap();
    // A blank line first, so the table does not merge into what is above it.
    assert!(md.starts_with("# earlier step\n\n| log | action | kind | rule | evidence |\n"), "{md}");
    assert!(md.contains("| logs/sub/c.log | **pause** | connection | claude/unable-to-connect |"), "{md}");
    assert!(md.contains("**5 logs**: 2 environment faults (40.0%)"), "{md}");
}

#[test]
fn markdown_table_on_stdout() {
    let out = batch().args(["classify", "--profile", "claude", "--format", "markdown", "logs/a.log"]).run();
    assert_eq!(
        out.stdout,
        "| log | action | kind | rule | evidence |\n| --- | --- | --- | --- | --- |\n| logs/a.log | **retry** | overloaded | claude/overloaded-server-side | ⎿  API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. |\n"
    );
}

#[test]
fn an_empty_directory_is_one_clear_error() {
    // Issue 20.2: nothing to classify is an error (exit 2), said once.
    let t = Test::new();
    std::fs::create_dir(t.path().join("empty")).unwrap();
    let out = t.args(["classify", "--profile", "claude", "empty"]).status(2).run();
    assert_eq!(out.stderr, "faultsift: no files to classify under empty\n");
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

/// Runs `examples/orchestrator.sh` with a fake agent script and returns its
/// exit status and output.
fn orchestrate(dir: &Path, agent: &str) -> (i32, String) {
    let script = dir.join("agent.sh");
    std::fs::write(&script, agent).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_faultsift")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(root().join("examples/orchestrator.sh"))
        .args(["--", "bash"])
        .arg(&script)
        .current_dir(dir)
        .env("PATH", path)
        .env("LOG_DIR", dir)
        .env("BACKOFF", "0")
        .env_remove("FAULTSIFT_PROFILE")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn orchestrator_charges_only_the_work() {
    let dir = tempfile::tempdir().unwrap();
    // Overloaded once (a free retry), then the work fails three times (charged).
    let agent = r#"
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count
if [ "$n" -eq 0 ]; then
  printf '  \342\216\277  API Error: 529 Overloaded. This is a server-side issue, usually temporary\n'
else
  echo "error: test suite failed (3 failures)"
fi
exit 1
"#;
    let (code, out) = orchestrate(dir.path(), agent);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("run 1: transient fault, not charged; retrying in 0s"), "{out}");
    assert!(out.contains("run 4: charged (3/3)"), "{out}");
    assert!(out.ends_with("budget spent after 4 runs\n"), "{out}");
}

#[test]
fn orchestrator_pauses_on_an_outage_and_succeeds_after_a_retry() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = orchestrate(dir.path(), "echo 'Unable to connect to API (ECONNREFUSED)'; exit 1\n");
    assert_eq!(code, 75, "{out}");
    assert!(out.starts_with("run 1: paused, not charged: environment fault (connection)"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let agent = "if [ -f done ]; then exit 0; fi; touch done; echo 'API Error: 529 Overloaded. This is a server-side issue, usually temporary'; exit 1\n";
    let (code, out) = orchestrate(dir.path(), agent);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("run 1: transient fault, not charged; retrying in 0s"), "{out}");
    assert!(out.ends_with("run 2: succeeded\n"), "{out}");
}
