//! `classify` end to end: windows, statuses, errors, exit status, stdin.

use faultsift::Action;

use crate::util::{Test, testdata};

const RETRY_LINE: &str = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)";

/// Byte offset of the line holding `needle`, found by plain byte search.
fn line_offset(log: &[u8], needle: &str) -> u64 {
    let at = log.windows(needle.len()).rposition(|w| w == needle.as_bytes()).expect("needle in log");
    let start = log[..at].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
    start as u64
}

#[test]
fn sample_log_is_a_connection_pause() {
    let path = testdata("logs/claude-connection-retry.log");
    let log = std::fs::read(&path).unwrap();
    let v = Test::new().args(["classify", "--profile", "claude", "--status", "timeout"]).arg(&path).verdict();
    assert_eq!((v.action, v.env_fault), (Action::Pause, true));
    assert_eq!(v.kind.as_deref(), Some("connection"));
    assert_eq!(v.rule.as_deref(), Some("claude/connection-error-retrying"));
    assert_eq!(v.evidence.as_deref(), Some("⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)"));
    // The fixture repaints the retry line four times; the last one wins.
    assert_eq!(v.offset, Some(line_offset(&log, "attempt 4/10")));
    assert_eq!(v.hits.len(), 1);
    assert_eq!(v.hits[0].count, 4);
    assert_eq!(v.hits[0].last_offset, line_offset(&log, "attempt 4/10"));
    assert_eq!(v.status.as_deref(), Some("timeout"));
    assert_eq!((v.profile.as_str(), v.profile_origin.as_str()), ("claude", "builtin"));
    assert!(v.reason.starts_with("environment fault (connection) in timeout session: ⎿  API Error"), "{}", v.reason);
    let w = v.window.unwrap();
    assert_eq!(
        (w.start, w.end, w.log_bytes, w.truncated, w.rotated),
        (0, log.len() as u64, log.len() as u64, false, false)
    );
    assert!(!v.timed_out && v.error.is_none());
}

#[test]
fn stdin_and_file_give_the_same_verdict() {
    let path = testdata("logs/claude-overloaded.log");
    let log = std::fs::read(&path).unwrap();
    for tail in ["64KiB", "700", "1"] {
        let from_file =
            Test::new().args(["classify", "--profile", "claude", "--tail-bytes", tail]).arg(&path).verdict();
        let from_stdin =
            Test::new().args(["classify", "--profile", "claude", "--tail-bytes", tail]).stdin(log.clone()).verdict();
        assert_eq!(from_stdin.log, "-");
        let strip = |mut v: faultsift::Verdict| {
            v.log = String::new();
            v.elapsed_us = 0;
            v
        };
        assert_eq!(strip(from_file), strip(from_stdin), "tail {tail}");
    }
}

#[test]
fn stdin_offsets_count_from_the_first_byte_of_the_stream() {
    let mut log = vec![b'.'; 1_000_000];
    log.push(b'\n');
    log.extend_from_slice(RETRY_LINE.as_bytes());
    log.push(b'\n');
    let v = Test::new().args(["classify", "--profile", "claude", "-"]).stdin(log.clone()).verdict();
    assert_eq!(v.action, Action::Pause);
    assert_eq!(v.offset, Some(1_000_001));
    let w = v.window.unwrap();
    assert_eq!((w.end, w.log_bytes, w.truncated), (log.len() as u64, log.len() as u64, true));
    assert_eq!(w.end - w.start, 65_536);
}

#[test]
fn straddled_first_line_is_dropped() {
    // The window starts inside the fault line: that fragment must not count.
    let log = format!("{RETRY_LINE}\nall good\n");
    let tail = (log.len() - 20).to_string();
    let v = Test::new().args(["classify", "--profile", "claude", "--tail-bytes", &tail]).stdin(log).verdict();
    assert_eq!(v.action, Action::Charge);
    assert!(v.hits.is_empty());
}

#[test]
fn straddled_only_line_is_kept_and_marked_cut() {
    let log = format!("{}Unable to connect to API (ECONNRESET)", "x".repeat(100_000));
    let v = Test::new().args(["classify", "--profile", "claude"]).stdin(log).verdict();
    // The window cut the line: it is a fragment, but the only line, so it stays.
    // The rule is anchored at the line start, so the fragment must not match it…
    assert_eq!(v.action, Action::Charge);
    // …while a rule that matches anywhere sees the tail, marked as cut.
    let t = Test::new().file("p.toml", "env_fault_patterns = ['Unable to connect to API']\n");
    let dir = t.path().to_path_buf();
    let log = format!("{}Unable to connect to API (ECONNRESET)", "x".repeat(100_000));
    let len = log.len() as u64;
    let v = t.args(["classify", "--profile"]).arg(dir.join("p.toml")).stdin(log).verdict();
    assert_eq!(v.action, Action::Pause);
    let ev = v.evidence.unwrap();
    assert!(ev.starts_with('…') && ev.ends_with("Unable to connect to API (ECONNRESET)"), "{ev}");
    assert!(ev.chars().count() <= 240);
    assert_eq!(v.offset, Some(len - 65_536), "a fragment's offset is the window's start");
}

#[test]
fn since_skips_earlier_sessions_and_detects_rotation() {
    let t = Test::new().file("s.log", format!("{RETRY_LINE}\nnew session: all good\n"));
    let since = (RETRY_LINE.len() + 1).to_string();
    let v = t.args(["classify", "--profile", "claude", "--since", &since, "s.log"]).verdict();
    assert_eq!(v.action, Action::Charge, "the old session's fault is before --since");
    let w = v.window.unwrap();
    assert_eq!((w.start, w.rotated, w.truncated), (RETRY_LINE.len() as u64 + 1, false, true));

    let t = Test::new().file("s.log", format!("{RETRY_LINE}\n"));
    let v = t.args(["classify", "--profile", "claude", "--since", "999999", "s.log"]).verdict();
    assert_eq!(v.action, Action::Pause, "a replaced log is classified whole");
    assert!(v.window.unwrap().rotated);
}

#[test]
fn completed_and_result_present_are_skipped_without_reading() {
    for args in [vec!["--status", "completed"], vec!["--status", "over_budget"], vec!["--result-present"]] {
        // The log does not even exist: nothing is read.
        let v = Test::new().args(["classify", "--profile", "claude", "missing.log"]).args(args.clone()).verdict();
        assert_eq!((v.action, v.env_fault), (Action::Skip, false), "{args:?}");
        assert!(v.window.is_none() && v.error.is_none());
    }
}

#[test]
fn any_other_status_is_classified() {
    for status in ["timeout", "stalled", "crashed", "failed", "unknown", "my-own-status"] {
        let v = Test::new()
            .args(["classify", "--profile", "claude", "--status", status])
            .arg(testdata("logs/claude-usage-limit.log"))
            .verdict();
        assert_eq!(v.action, Action::Pause, "{status}");
    }
}

#[test]
fn unreadable_log_gets_an_error_verdict_and_exit_2() {
    let t = Test::new().file("ok.log", format!("{RETRY_LINE}\n"));
    let out = t.args(["classify", "--profile", "claude", "missing.log", "ok.log"]).status(2).run();
    let verdicts: Vec<faultsift::Verdict> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let logs: Vec<&str> = verdicts.iter().map(|v| v.log.as_str()).collect();
    assert_eq!(logs, ["missing.log", "ok.log"], "input order");
    assert_eq!(verdicts[0].action, Action::Charge);
    assert!(verdicts[0].error.as_deref().unwrap().contains("No such file"));
    assert_eq!(verdicts[1].action, Action::Pause);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].starts_with("faultsift: missing.log: "));
}

#[test]
fn quiet_answers_like_grep_q() {
    let fault = testdata("logs/claude-overloaded.log");
    let healthy = testdata("logs/claude-healthy-quotes.log");
    let q = || Test::new().args(["classify", "-q", "--profile", "claude"]);
    assert_eq!(q().arg(&fault).status(0).run().stdout, "");
    assert_eq!(q().arg(&healthy).status(1).run().stdout, "");
    q().arg("missing.log").status(2).run();
    // A match wins over an error, as with grep -q.
    q().arg("missing.log").arg(&fault).status(0).run();
}

#[test]
fn policy_refusal_after_a_recovered_outage_is_charged() {
    let v =
        Test::new().args(["classify", "--profile", "claude"]).arg(testdata("logs/claude-policy-refusal.log")).verdict();
    assert_eq!(v.action, Action::Charge);
    assert_eq!(v.rule.as_deref(), Some("claude/usage-policy-refusal"));
    let rules: Vec<&str> = v.hits.iter().map(|h| h.rule.as_str()).collect();
    assert_eq!(rules, ["claude/connection-error-retrying", "claude/usage-policy-refusal"], "profile order");
    assert!(v.reason.starts_with("the work failed (usage_policy): "), "{}", v.reason);
}

#[test]
fn noisy_bytes_still_classify() {
    let v =
        Test::new().args(["classify", "--profile", "claude"]).arg(testdata("logs/claude-noisy-bytes.log")).verdict();
    assert_eq!(v.rule.as_deref(), Some("claude/unable-to-connect"));
    assert_eq!(v.evidence.as_deref(), Some("Unable to connect to API (ECONNRESET)"));
}

#[test]
fn resume_at_and_retry_after_are_captured() {
    let v =
        Test::new().args(["classify", "--profile", "claude"]).arg(testdata("logs/claude-usage-limit.log")).verdict();
    assert_eq!(v.captures.groups.get("resume_at").map(String::as_str), Some("2pm (America/New_York)"));

    let t = Test::new().file("p.toml", "[[rule]]\nid = \"rl\"\nkind = \"rate_limit\"\naction = \"retry\"\npattern = 'Try again in (?P<retry_after>[0-9hms ]+?)\\.'\n");
    let dir = t.path().to_path_buf();
    let v = t
        .args(["classify", "--profile"])
        .arg(dir.join("p.toml"))
        .stdin("Rate limit is exceeded. Try again in 21h39m57s.\n")
        .verdict();
    assert_eq!(v.captures.retry_after_s, Some(21 * 3600 + 39 * 60 + 57));
    assert_eq!(v.captures.groups.get("retry_after").map(String::as_str), Some("21h39m57s"));
}

#[test]
fn secrets_never_reach_the_output() {
    let key = "sk-ant-api03-0123456789abcdefghijklmnop";
    let log = "Unable to connect to API (ECONNRESET)\n";
    let t = Test::new().file("p.toml", "env_fault_patterns = ['proxy (?P<who>\\S+) refused']\n");
    let dir = t.path().to_path_buf();
    let out = t
        .args(["classify", "--profile"])
        .arg(dir.join("p.toml"))
        .stdin(format!("{log}proxy {key} refused, Authorization: Bearer abcdefghijklmnop\n"))
        .run();
    assert!(
        !out.stdout.contains("0123456789abcdefghijklmnop") && !out.stdout.contains("abcdefghijklmnop"),
        "{}",
        out.stdout
    );
    let v: faultsift::Verdict = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v.captures.groups.get("who").map(String::as_str), Some("[REDACTED]"));
    assert!(v.evidence.unwrap().contains("Bearer [REDACTED]"));
}

#[test]
fn evidence_has_no_control_characters() {
    let log = b"\x1b]0;title\x07\x1b[31mUnable\tto connect to API (ECONNRESET)\x1b[0m\x07\r\n";
    let t = Test::new().file("p.toml", "env_fault_patterns = ['Unable\\s+to connect']\n");
    let dir = t.path().to_path_buf();
    let v = t.args(["classify", "--profile"]).arg(dir.join("p.toml")).stdin(&log[..]).verdict();
    assert_eq!(v.evidence.as_deref(), Some("Unable to connect to API (ECONNRESET)"));
}

#[test]
fn tail_bytes_units_and_cap() {
    let path = testdata("logs/claude-overloaded.log");
    for size in ["65536", "64KiB", "1MiB", "64MiB"] {
        Test::new().args(["classify", "--profile", "claude", "--tail-bytes", size]).arg(&path).verdict();
    }
    let out = Test::new().args(["classify", "--profile", "claude", "--tail-bytes", "65MiB"]).arg(&path).status(2).run();
    assert!(out.stderr.contains("64MiB limit"), "{}", out.stderr);
}

#[test]
fn no_profile_lists_what_resolves() {
    let out = Test::new().args(["classify", "x.log"]).status(2).run();
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.starts_with("faultsift: no profile given") && out.stderr.contains("claude"), "{}", out.stderr);
}

#[test]
fn profile_from_the_environment() {
    let v = Test::new()
        .env("FAULTSIFT_PROFILE", "claude")
        .arg("classify")
        .arg(testdata("logs/claude-overloaded.log"))
        .verdict();
    assert_eq!(v.action, Action::Retry);
}

#[test]
fn broken_pipe_exits_quietly() {
    let t = Test::new().args(["classify", "--profile", "claude"]);
    let log = testdata("logs/claude-overloaded.log");
    let mut cmd = t.command();
    for _ in 0..2000 {
        cmd.arg(&log);
    }
    cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn schema_describes_every_verdict_field() {
    let out = Test::new().arg("schema").run();
    let schema: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mut props: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
    props.sort();
    let v = Test::new().args(["classify", "--profile", "claude"]).arg(testdata("logs/claude-overloaded.log")).run();
    let verdict: serde_json::Value = serde_json::from_str(v.stdout.trim()).unwrap();
    let mut keys: Vec<String> = verdict.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(props, keys);
    let spec_fields = [
        "schema",
        "log",
        "profile",
        "profile_origin",
        "status",
        "action",
        "env_fault",
        "kind",
        "rule",
        "evidence",
        "offset",
        "reason",
        "hits",
        "captures",
        "window",
        "timed_out",
        "error",
        "elapsed_us",
    ];
    for f in spec_fields {
        assert!(keys.iter().any(|k| k == f), "SPEC §3 field {f} missing");
    }
}

#[test]
fn many_logs_keep_their_order() {
    let logs = [
        "logs/claude-usage-limit.log",
        "logs/claude-healthy-quotes.log",
        "logs/claude-overloaded.log",
        "logs/claude-connection-retry.log",
    ];
    let mut t = Test::new().args(["classify", "--profile", "claude", "-j", "3"]);
    for _ in 0..25 {
        for l in logs {
            t = t.arg(testdata(l));
        }
    }
    let v = t.verdicts();
    assert_eq!(v.len(), 100);
    let actions: Vec<Action> = v.iter().take(4).map(|v| v.action).collect();
    assert_eq!(actions, [Action::Pause, Action::Charge, Action::Retry, Action::Pause]);
    for (i, v) in v.iter().enumerate() {
        assert!(v.log.ends_with(logs[i % 4]), "{i}: {}", v.log);
    }
}

/// A pane captured without `-J` at 80 columns cut the gradle wrapper's line
/// before its cause: the rows alone show no fault, the line re-joined from
/// them does, and the verdict points at its first row.
#[test]
fn a_line_the_pane_cut_before_its_cause_is_read_whole() {
    let path = testdata("logs/gradle-wrapped-pane.log");
    let log = std::fs::read(&path).unwrap();
    let first_row = line_offset(&log, "Exception in thread");
    let v = Test::new().args(["classify", "--profile", "ci"]).arg(&path).verdict();
    assert_eq!((v.action, v.kind.as_deref()), (Action::Pause, Some("timeout")));
    assert_eq!(v.offset, Some(first_row));
    let evidence = v.evidence.unwrap();
    assert!(
        evidence.starts_with("Exception in thread") && evidence.ends_with("failed: timeout (10000ms)"),
        "{evidence}"
    );
    assert!(v.reason.ends_with("(a line the pane cut into rows 80 columns wide, re-joined)"), "{}", v.reason);
    let out = Test::new().args(["explain", "--profile", "ci", "--color", "never"]).arg(&path).run();
    assert!(
        out.stdout.contains("6 lines after cleaning, re-joined from the rows of a pane 80 columns wide"),
        "{}",
        out.stdout
    );
    // The cause is on the second row: without it, no fault.
    let cause_row = line_offset(&log, "s.gradle.org/distributions/gradle-8.0.2-bin.zip failed");
    let v = Test::new().args(["classify", "--profile", "ci"]).stdin(&log[..cause_row as usize]).verdict();
    assert_eq!(v.action, Action::Charge, "{}", v.reason);
}

/// In a pane that shows its cuts, a row is read as the line it is a piece
/// of: a row that reads as a fault on its own, but whose line is prose
/// quoting it, is none; the same words as a line of their own still are.
#[test]
fn a_row_that_looks_like_a_fault_in_a_cut_pane_is_read_with_its_line() {
    let rows = |width: usize, text: &str| -> String {
        text.as_bytes().chunks(width).map(|c| std::str::from_utf8(c).unwrap().trim_end()).collect::<Vec<_>>().join("\n")
    };
    // ASCII, so that a row of 80 bytes is one of 80 columns: two lines cut
    // flush at the edge show the pane.
    let above = "I am reading the retry module: the client wraps every request and counts the attempts it makes.";
    let prose = "The doc comment in the retry module quotes the message that users see; it reads:\
                 unexpected status 503 Service Unavailable: Service Unavailable, url: http://h/v1/responses";
    let quoted = prose.split_once(':').unwrap().1.trim_start_matches(" it reads:");
    let classify = |log: String| Test::new().args(["classify", "--profile", "codex"]).stdin(log).verdict();
    let cut_prose = format!("{}\n{}\n› \n", rows(80, above), rows_by_chars(80, prose));
    // The prose's second row starts with the quoted fault: alone, a fault.
    let second_row = cut_prose.lines().nth(3).unwrap();
    assert!(second_row.starts_with("unexpected status 503"), "{cut_prose}");
    let v = classify(format!("{second_row}\n› \n"));
    assert!(v.env_fault, "{}", v.reason);
    // Read with its line: prose.
    let v = classify(cut_prose);
    assert_eq!(v.action, Action::Charge, "{}", v.reason);
    assert!(v.reason.contains("read as the lines a pane 80 columns wide was cut from"), "{}", v.reason);
    // The same words as a line of their own, under the same cut lines, still are.
    let v = classify(format!("{}\n{}\n{quoted}\n› \n", rows(80, above), rows(80, above)));
    assert!(v.env_fault && !v.reason.contains("re-joined"), "{}", v.reason);
}

/// A TUI wraps its own line at a blank and indents the rows that go on to
/// the text after its glyph: the cause the wrap moved to the next row is read
/// with its line, and a row that goes on a model's paragraph, whose words
/// alone read as a fault, is read with its paragraph. Both as Claude Code
/// draws them in a pane 80 columns wide (its separators as wide as the pane).
#[test]
fn a_line_the_program_wrapped_itself_is_read_whole() {
    let rule = "─".repeat(80);
    let classify = |log: String| Test::new().args(["classify", "--profile", "claude"]).stdin(log).verdict();
    // A 504 whose server-side sentence the wrap cut after `This is a`.
    let first = "  ⎿  Error: Error during compaction: API Error: 504 Gateway Time-out. This is a";
    let fault = format!(
        "❯ fix the flaky test\n{first}\n     server-side issue, usually temporary — try again in a moment. If it\n     persists, check status.claude.com.\n{rule}\n❯ \n{rule}\n"
    );
    let v = classify(format!("{first}\n"));
    assert!(!v.env_fault, "the first row alone is no fault: {}", v.reason);
    let v = classify(fault);
    assert!(v.env_fault, "{}", v.reason);
    assert!(v.reason.ends_with("(a line the program wrapped in a pane 80 columns wide, re-joined)"), "{}", v.reason);
    assert!(v.evidence.unwrap().contains("This is a server-side issue, usually temporary"));
    // The model's paragraph: its second row starts with a 529 line's words.
    let prose = format!(
        "❯ why did it fail?\n⏺ The retry module logs the provider's answer verbatim, and the line it logged\n  API Error: 529 {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\"}}}} is what\n  the test asserts on.\n{rule}\n❯ \n{rule}\n"
    );
    let second_row = prose.lines().nth(2).unwrap().trim_start();
    let v = classify(format!("{second_row}\n"));
    assert!(v.env_fault, "alone, the row reads as a fault: {}", v.reason);
    let v = classify(prose);
    assert_eq!(v.action, Action::Charge, "{}", v.reason);
}

/// A fault whose first row already reads as one, and whose wrapped rows name
/// the cause more exactly, takes the whole line's verdict: Copilot CLI's
/// retry summary, wrapped by the TUI before its last error's DNS failure
/// (as Copilot CLI 1.0.102 drew it in a 120-column pane). A first row whose
/// joined line reads as no fault keeps its own.
#[test]
fn a_wrapped_fault_is_read_with_the_cause_on_its_later_rows() {
    let rule = "─".repeat(120);
    let rows = [
        " ✗ Failed to get response from the AI model; retried 5 times (total retry wait time: 23.00 seconds) Last error: Failed",
        "   native model HTTP request: error sending request for url (http://llm-provider.invalid:8080/v1/chat/completions): ",
        "   client error (Connect): dns error: error resolving DNS: failed to lookup address information: Temporary failure in ",
        "   name resolution [ENOTFOUND] ",
    ];
    let classify = |log: String| Test::new().args(["classify", "--profile", "copilot"]).stdin(log).verdict();
    let v = classify(format!("{}\n", rows[0]));
    assert_eq!(v.action, Action::Retry, "the first row alone: {}", v.reason);
    let v = classify(format!("{}\n\n{rule}\n❯ \n", rows.join("\n")));
    assert_eq!((v.action, v.kind.as_deref()), (Action::Pause, Some("connection")), "{}", v.reason);
    assert!(v.reason.ends_with("(a line the program wrapped in a pane 120 columns wide, re-joined)"), "{}", v.reason);
}

/// The rows a pane `width` columns wide shows of `text`, cut by characters
/// (each one column here), trailing blanks trimmed.
fn rows_by_chars(width: usize, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect::<String>().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}
