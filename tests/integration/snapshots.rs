//! Snapshots of whole verdicts over the pane-capture fixtures in
//! `testdata/logs/` (made by `testdata/make_logs.py`). `elapsed_us` varies from
//! run to run and is zeroed.

use crate::util::{Test, testdata};

fn verdict_of(log: &str, status: Option<&str>) -> faultsift::Verdict {
    verdict_with("claude", log, status)
}

fn verdict_with(profile: &str, log: &str, status: Option<&str>) -> faultsift::Verdict {
    let mut t = Test::new().args(["classify", "--profile", profile]);
    if let Some(s) = status {
        t = t.args(["--status", s]);
    }
    // Relative path, so the snapshot does not hold this machine's checkout path.
    let mut v = t.arg(testdata(log)).verdict();
    v.log = log.to_string();
    v.elapsed_us = 0;
    v
}

#[test]
fn connection_retry() {
    insta::assert_json_snapshot!(verdict_of("logs/claude-connection-retry.log", Some("timeout")));
}

#[test]
fn overloaded() {
    insta::assert_json_snapshot!(verdict_of("logs/claude-overloaded.log", Some("crashed")));
}

#[test]
fn usage_limit() {
    insta::assert_json_snapshot!(verdict_of("logs/claude-usage-limit.log", None));
}

#[test]
fn healthy_quotes() {
    insta::assert_json_snapshot!(verdict_of("logs/claude-healthy-quotes.log", Some("timeout")));
}

#[test]
fn policy_refusal() {
    insta::assert_json_snapshot!(verdict_of("logs/claude-policy-refusal.log", Some("failed")));
}

#[test]
fn wrapped_pane() {
    insta::assert_json_snapshot!(verdict_with("ci", "logs/gradle-wrapped-pane.log", Some("failed")));
}
