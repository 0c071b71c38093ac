//! The shipped examples, run: `examples/orchestrator.sh` against fake agents for
//! every action (issue 19: it read the action with a greedy `sed` and decided
//! wrong), and `examples/github-actions.yml` parsed and checked.

use std::path::Path;
use std::process::Command;

use crate::util::root;

const FAILED_TESTS: &str = "test result: FAILED. 83 passed; 37 tests failed\n";
const CONNECTION: &str = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\n";
const REFUSAL: &str = "  ⎿  API Error: Claude Code is unable to respond to this request, which appears to violate our Usage Policy (https://www.anthropic.com/legal/aup). Please double press esc\n";
const OVERLOADED: &str =
    "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.\n";

/// Runs the orchestrator on a fake agent that, on its Nth run, prints
/// `runs[N-1].0` and exits with `runs[N-1].1` (the last entry repeats).
/// Returns (exit status, stdout).
fn orchestrate(profile: &str, runs: &[(&str, i32)], env: &[(&str, &str)]) -> (i32, String) {
    require_jq();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("runs")).unwrap();
    for (i, (log, rc)) in runs.iter().enumerate() {
        std::fs::write(work.join(format!("runs/{}.log", i + 1)), log).unwrap();
        std::fs::write(work.join(format!("runs/{}.rc", i + 1)), rc.to_string()).unwrap();
    }
    let agent = work.join("agent.sh");
    std::fs::write(
        &agent,
        format!(
            "#!/usr/bin/env bash\nn=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count\n\
             [ -f runs/$n.log ] || n={last}\ncat runs/$n.log; exit $(cat runs/$n.rc)\n",
            last = runs.len()
        ),
    )
    .unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("examples/orchestrator.sh")).arg("--").arg("bash").arg(&agent).current_dir(&work);
    cmd.env("FAULTSIFT", env!("CARGO_BIN_EXE_faultsift"))
        .env("PROFILE", profile)
        .env("LOG_DIR", dir.path())
        .env("BACKOFF", "0")
        .env("HOME", dir.path())
        .env_remove("FAULTSIFT_PROFILE_PATH")
        .env_remove("XDG_CONFIG_HOME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), format!("{stdout}{stderr}"))
}

/// The orchestrator example reads verdicts with jq: a machine without it
/// fails these tests rather than passing them unrun (`.ci/run` installs it).
fn require_jq() {
    let ok = Command::new("jq").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "jq is not installed: the orchestrator example needs it (apt-get install jq)");
}

#[test]
fn orchestrator_success_charge_pause_and_retry() {
    let (rc, out) = orchestrate("builtin:claude", &[("all good\n", 0)], &[]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("run 1: succeeded"), "{out}");

    let (rc, out) = orchestrate("builtin:claude", &[(FAILED_TESTS, 1)], &[]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("charged (3/3)") && out.contains("budget spent after 3 runs"), "{out}");

    let (rc, out) = orchestrate("builtin:claude", &[(CONNECTION, 1)], &[]);
    assert_eq!(rc, 75, "{out}");
    assert!(out.contains("run 1: paused, not charged: environment fault (connection)"), "{out}");

    let (rc, out) = orchestrate("builtin:claude", &[(OVERLOADED, 1), ("done\n", 0)], &[]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("run 1: transient fault, not charged; retrying in 0s") && out.contains("run 2: succeeded"));
}

#[test]
fn orchestrator_caps_the_wait_a_log_asks_for() {
    let huge = "stream disconnected before completion: Rate limit is exceeded. Try again in 999999999999999s.\n";
    let (rc, out) = orchestrate("builtin:codex", &[(huge, 1), ("done\n", 0)], &[("MAX_WAIT", "1")]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("retrying in 1s"), "{out}");
}

#[test]
fn orchestrator_reads_the_verdict_not_the_hits() {
    // Recovered from a policy refusal (a charge rule), then died in a
    // connection retry: the verdict is pause. The greedy sed read the last
    // `"action"` of the line — a hit's — and charged it.
    let log = format!("{REFUSAL}> trying again\n{CONNECTION}");
    let (rc, out) = orchestrate("builtin:claude", &[(&log, 1)], &[]);
    assert_eq!(rc, 75, "{out}");
    // An executor log: ECONNREFUSED, then HTTP 408 (the work's timeout): the
    // verdict is charge; sed read the pause of a hit.
    let log = "executor: connect ECONNREFUSED 127.0.0.1:8700\n\
               executor: HTTP 408 Request Timeout: command timed out after 300s: pytest -q\n";
    let (rc, out) = orchestrate("builtin:executor", &[(log, 1)], &[("BUDGET", "1")]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("run 1: charged (1/1): the work failed (request_timeout)"), "{out}");
}

#[test]
fn orchestrator_verdict_cannot_be_planted_by_the_agent() {
    // The agent writes a profile into its working directory and into the
    // user's profile directory (the session runs as that user), and fails.
    let planted = "[[rule]]\nid = \"connection-error-retrying\"\npattern = '[\\s\\S]'\n";
    let (rc, out) = orchestrate_with_plant(planted, None);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("charged (1/1)"), "{out}");
    // The control: an orchestrator that did not pin `builtin:` is fooled, so
    // the run above tests the pinning.
    let (rc, out) = orchestrate_with_plant(planted, Some("claude"));
    assert_eq!(rc, 75, "{out}");
}

fn orchestrate_with_plant(planted: &str, profile: Option<&str>) -> (i32, String) {
    // As `orchestrate`, with a profile written where the agent can write.
    require_jq();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    for plant in [work.join(".faultsift/profiles"), dir.path().join(".config/faultsift/profiles")] {
        std::fs::create_dir_all(&plant).unwrap();
        std::fs::write(plant.join("claude.toml"), planted).unwrap();
    }
    std::fs::write(work.join("agent.sh"), format!("printf '%s' '{FAILED_TESTS}'\nexit 1\n")).unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("examples/orchestrator.sh"))
        .args(["--", "bash", "agent.sh"])
        .current_dir(&work)
        .env("FAULTSIFT", env!("CARGO_BIN_EXE_faultsift"))
        .env("LOG_DIR", dir.path())
        .env("BUDGET", "1")
        .env("HOME", dir.path())
        .env_remove("FAULTSIFT_PROFILE_PATH")
        .env_remove("XDG_CONFIG_HOME");
    match profile {
        Some(p) => cmd.env("PROFILE", p),
        None => cmd.env_remove("PROFILE"),
    };
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn yaml(path: &Path) -> serde_yaml_ng::Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn github_actions_example_uses_bash_with_pipefail() {
    let doc = yaml(&root().join("examples/github-actions.yml"));
    let job = &doc["jobs"]["task"];
    let default_shell = job["defaults"]["run"]["shell"].as_str();
    let steps = job["steps"].as_sequence().unwrap();
    let mut piped = 0;
    for step in steps {
        let Some(run) = step["run"].as_str() else { continue };
        let shell = step["shell"].as_str().or(default_shell).unwrap_or("");
        // `bash` alone is `bash --noprofile --norc -eo pipefail {0}` on GitHub;
        // an explicit template must say pipefail itself.
        assert!(shell == "bash" || (shell.starts_with("bash") && shell.contains("pipefail")), "{step:?}");
        if run.contains('|') {
            piped += 1;
            assert!(step["shell"].as_str().is_some_and(|s| s.contains("pipefail")) || shell == "bash", "{step:?}");
        }
        if run.contains("faultsift classify") {
            assert!(run.contains("--profile builtin:"), "pin the built-in: {run}");
            assert!(step["working-directory"].as_str().is_some(), "classify outside the agent's tree: {step:?}");
        }
    }
    assert!(piped >= 2, "the agent's `| tee` and the classify `| jq` steps");
    let agent = steps.iter().find(|s| s["id"].as_str() == Some("agent")).unwrap();
    assert!(agent["run"].as_str().unwrap().contains("| tee"));
    let classify = steps.iter().find(|s| s["id"].as_str() == Some("classify")).unwrap();
    assert_eq!(classify["if"].as_str(), Some("failure() && steps.agent.outcome == 'failure'"));
}

#[test]
fn gitlab_example_parses() {
    let doc = yaml(&root().join("examples/gitlab-ci.yml"));
    let script = doc["classify-failures"]["script"].as_sequence().unwrap();
    assert!(script.iter().filter_map(|s| s.as_str()).any(|s| s.contains("--profile builtin:ci")));
}

#[test]
fn orchestrator_charges_a_run_faultsift_could_not_classify() {
    // A profile that does not resolve: classify exits 2 on every run, and
    // each run is charged (not retried for free, not looped on).
    let (rc, out) = orchestrate("builtin:no-such-profile", &[(CONNECTION, 1)], &[("BUDGET", "2")]);
    assert_eq!(rc, 1, "{out}");
    assert_eq!(out.matches("faultsift could not classify").count(), 2, "{out}");
    assert!(out.contains("run 2: faultsift could not classify") && out.contains("budget spent after 2 runs"), "{out}");
}

#[test]
fn orchestrator_charges_a_session_that_recovered_from_its_fault() {
    // A connection fault, then the agent worked on (an edit) and failed its
    // tests: the fault is not what the session died of, so the run is charged.
    let log = format!("{CONNECTION}⏺ Update(src/lib.rs)\n  ⎿  Updated src/lib.rs with 2 additions\n{FAILED_TESTS}");
    let (rc, out) = orchestrate("builtin:claude", &[(&log, 1)], &[("BUDGET", "1")]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("run 1: charged (1/1): recovered: the session got past an environment fault"), "{out}");
}

#[test]
fn orchestrator_stops_after_max_runs_of_free_retries() {
    // Overloaded five times, then it would succeed: MAX_RUNS=3 stops the
    // loop first, though no run was charged.
    let runs = [(OVERLOADED, 1), (OVERLOADED, 1), (OVERLOADED, 1), (OVERLOADED, 1), (OVERLOADED, 1), ("done\n", 0)];
    let (rc, out) = orchestrate("builtin:claude", &runs, &[("MAX_RUNS", "3")]);
    assert_eq!(rc, 1, "{out}");
    assert_eq!(out.matches("transient fault, not charged").count(), 3, "{out}");
    assert!(out.contains("budget spent after 3 runs") && !out.contains("succeeded"), "{out}");
}
