//! Transcripts and event streams read as records (#17): each fixture's
//! documented verdict, the bait, `--input text` for the pane behaviour, and
//! detection without a flag.

use faultsift::{Action, Input, Verdict};

use crate::util::{Test, testdata};

fn classify(profile: &str, file: &str, extra: &[&str]) -> Verdict {
    Test::new()
        .args(["classify", "--profile", profile])
        .args(extra.iter().copied())
        .arg(testdata(&format!("transcripts/{file}")))
        .verdict()
}

/// Offset of the line of `file` that holds `needle`, by plain byte search.
fn line_of(file: &str, needle: &str) -> u64 {
    let text = std::fs::read_to_string(testdata(&format!("transcripts/{file}"))).unwrap();
    let at = text.find(needle).expect("needle in fixture");
    text[..at].rfind('\n').map_or(0, |i| i + 1) as u64
}

struct Case {
    file: &'static str,
    action: Action,
    kind: Option<&'static str>,
    rule: Option<&'static str>,
    /// The start of the evidence, and a string of the line it is on.
    evidence: Option<(&'static str, &'static str)>,
    recovered: bool,
}

const CASES: &[Case] = &[
    Case {
        file: "claude-session-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "claude-session-overloaded.jsonl",
        action: Action::Retry,
        kind: Some("overloaded"),
        rule: Some("claude/record-overloaded"),
        evidence: Some(("API Error: 529 Overloaded. This is a server-side issue", "isApiErrorMessage")),
        recovered: false,
    },
    Case {
        file: "claude-session-recovered.jsonl",
        action: Action::Charge,
        kind: Some("overloaded"),
        rule: Some("claude/retry-row-overloaded"),
        evidence: Some(("529 overloaded", "\"retryAttempt\":2")),
        recovered: true,
    },
    Case {
        file: "claude-session-auth.jsonl",
        action: Action::Pause,
        kind: Some("auth"),
        rule: Some("claude/record-auth"),
        evidence: Some(("Please run /login · API Error: 401", "isApiErrorMessage")),
        recovered: false,
    },
    Case {
        file: "claude-session-unknown-kind.jsonl",
        action: Action::Pause,
        kind: Some("api_error"),
        rule: Some("claude/record-api-error"),
        evidence: Some(("API Error: Request was aborted.", "isApiErrorMessage")),
        recovered: false,
    },
    Case {
        file: "claude-stream-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "claude-stream-limit.jsonl",
        action: Action::Pause,
        kind: Some("quota"),
        rule: Some("claude/result-limit-resets"),
        evidence: Some(("You've hit your session limit · resets 8:30am", "terminal_reason")),
        recovered: false,
    },
    Case {
        file: "codex-exec-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "codex-exec-rate-limit.jsonl",
        action: Action::Retry,
        kind: Some("rate_limit"),
        rule: Some("codex/record-turn-failed-rate-limit"),
        evidence: Some(("stream disconnected before completion: Rate limit is exceeded.", "turn.failed")),
        recovered: false,
    },
    Case {
        file: "codex-exec-recovered.jsonl",
        action: Action::Charge,
        kind: Some("connection"),
        rule: Some("codex/record-reconnecting"),
        evidence: Some(("Reconnecting... 1/5", "Reconnecting")),
        recovered: true,
    },
    Case {
        file: "codex-rollout-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "codex-rollout-usage-limit.jsonl",
        action: Action::Pause,
        kind: Some("quota"),
        rule: Some("codex/rollout-error-info"),
        evidence: Some(("You've hit your usage limit.", "codex_error_info")),
        recovered: false,
    },
    Case {
        file: "codex-rollout-recovered.jsonl",
        action: Action::Charge,
        kind: Some("rate_limit"),
        rule: Some("codex/rollout-turn-rate-limit"),
        evidence: Some(("rate limit exceeded: Rate limit reached", "rate_limit_exceeded")),
        recovered: true,
    },
    Case {
        file: "gemini-stream-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "gemini-stream-quota.jsonl",
        action: Action::Pause,
        kind: Some("quota"),
        rule: Some("gemini/record-quota-class"),
        evidence: Some(("You have exhausted your capacity on this model.", "TerminalQuotaError")),
        recovered: false,
    },
    Case {
        file: "copilot-events-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "copilot-events-quota.jsonl",
        action: Action::Pause,
        kind: Some("quota"),
        rule: Some("copilot/record-quota"),
        evidence: Some(("You have exceeded your monthly quota", "session.error")),
        recovered: false,
    },
    Case {
        file: "opencode-run-healthy.jsonl",
        action: Action::Charge,
        kind: None,
        rule: None,
        evidence: None,
        recovered: false,
    },
    Case {
        file: "opencode-run-balance.jsonl",
        action: Action::Pause,
        kind: Some("auth"),
        rule: Some("opencode/record-auth"),
        evidence: Some(("Insufficient balance. Manage your billing here", "\"type\":\"error\"")),
        recovered: false,
    },
];

fn profile_of(file: &str) -> &str {
    file.split('-').next().unwrap()
}

#[test]
fn every_fixture_gives_its_documented_verdict() {
    for case in CASES {
        let v = classify(profile_of(case.file), case.file, &[]);
        let what = format!("{}: {v:#?}", case.file);
        assert_eq!(v.input, Input::Jsonl, "{what}");
        assert_eq!(v.action, case.action, "{what}");
        assert_eq!(v.env_fault, case.action.is_env_fault(), "{what}");
        assert_eq!(v.kind.as_deref(), case.kind, "{what}");
        assert_eq!(v.rule.as_deref(), case.rule, "{what}");
        assert_eq!(v.recovered, case.recovered, "{what}");
        match case.evidence {
            Some((start, line)) => {
                let ev = v.evidence.as_deref().unwrap_or_default();
                assert!(ev.starts_with(start), "{what}");
                assert!(!ev.contains('{') || start.contains('{'), "evidence is the field's text, not JSON: {what}");
                assert_eq!(v.offset, Some(line_of(case.file, line)), "{what}");
            }
            None => assert!(v.evidence.is_none() && v.offset.is_none(), "{what}"),
        }
        if case.recovered {
            assert!(v.reason.starts_with("recovered: "), "{what}");
        }
    }
}

#[test]
fn captures_carry_the_reset_time_and_the_wait() {
    let v = classify("claude", "claude-stream-limit.jsonl", &[]);
    assert_eq!(v.captures.groups.get("resume_at").map(String::as_str), Some("8:30am (America/Los_Angeles)"));
    let v = classify("codex", "codex-exec-rate-limit.jsonl", &[]);
    assert_eq!(v.captures.retry_after_s, Some(11));
    let v = classify("codex", "codex-rollout-usage-limit.jsonl", &[]);
    assert_eq!(v.captures.groups.get("resume_at").map(String::as_str), Some("4:05 AM"));
}

#[test]
fn every_bait_record_is_charged_by_every_profile() {
    let dir = testdata("transcripts/bait");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 5);
    for profile in ["claude", "codex", "gemini", "qwen", "copilot", "opencode"] {
        for file in &files {
            // One record per log, so that no hit can hide behind a later one.
            let text = std::fs::read_to_string(file).unwrap();
            let t = Test::new().args(["classify", "--profile", profile]);
            let names: Vec<String> = (0..text.lines().count()).map(|i| format!("r{i}.jsonl")).collect();
            let t = text.lines().zip(&names).fold(t, |t, (line, name)| t.file(name, format!("{line}\n")));
            for v in t.args(&names).verdicts() {
                assert_eq!(v.input, Input::Jsonl, "{profile} {}: {v:#?}", file.display());
                assert_eq!(v.action, Action::Charge, "{profile} {}: {v:#?}", file.display());
                assert!(v.rule.is_none(), "{profile} {}: {v:#?}", file.display());
            }
        }
    }
}

#[test]
fn the_same_files_as_text_get_the_pane_behaviour() {
    for case in CASES {
        let v = classify(profile_of(case.file), case.file, &["--input", "text"]);
        assert_eq!(v.input, Input::Text, "{}", case.file);
        // No record rule applies to text: whatever wins is a screen rule.
        if let Some(rule) = &v.rule {
            assert!(!rule.contains("/record-") && !rule.contains("/result-"), "{}: {rule}", case.file);
        }
    }
    // A screen rule reads the quoted message inside the JSON line; as records
    // the program's own `turn.failed` record decides instead.
    let v = classify("codex", "codex-exec-rate-limit.jsonl", &["--input", "text"]);
    assert_eq!(v.rule.as_deref(), Some("codex/stream-rate-limited"));
    let v = classify("claude", "claude-session-overloaded.jsonl", &["--input", "text"]);
    assert_eq!((v.action, v.rule), (Action::Charge, None));
}

#[test]
fn detection_needs_no_flag_and_can_be_forced() {
    let session = "{\"type\":\"assistant\",\"isApiErrorMessage\":true,\"apiErrorStatus\":529,\"error\":\"server_error\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"API Error: 529 Overloaded\"}]}}\n";
    let v =
        Test::new().file("SESSION.jsonl", session).args(["classify", "--profile", "claude", "SESSION.jsonl"]).verdict();
    assert_eq!((v.input, v.action, v.rule.as_deref()), (Input::Jsonl, Action::Retry, Some("claude/record-overloaded")));
    // Standard input too.
    let v = Test::new().stdin(session).args(["classify", "--profile", "claude"]).verdict();
    assert_eq!(v.input, Input::Jsonl);
    // A pane capture stays text; forced to jsonl its lines are skipped and counted.
    let pane = "⏺ Working\n  ⎿  API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n";
    let v = Test::new().file("pane.log", pane).args(["classify", "--profile", "claude", "pane.log"]).verdict();
    assert_eq!((v.input, v.action), (Input::Text, Action::Retry));
    let v = Test::new()
        .file("pane.log", pane)
        .args(["classify", "--profile", "claude", "--input", "jsonl", "pane.log"])
        .verdict();
    assert_eq!((v.input, v.action), (Input::Jsonl, Action::Charge));
    assert!(v.reason.contains("2 lines that are not JSON records skipped"), "{}", v.reason);
}

#[test]
fn a_line_shaped_as_a_record_that_is_not_json_is_skipped_and_counted() {
    // Detection looks at the shape of a line; its syntax is learnt when the
    // scan parses it. A broken line that would be the error record if it
    // parsed must neither match nor stop the records after it from counting.
    let error = "{\"type\":\"assistant\",\"isApiErrorMessage\":true,\"apiErrorStatus\":529,\"error\":\"server_error\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"API Error: 529 Overloaded\"}]}}\n";
    let broken = error.replacen("true", "tru", 1);
    let ok = "{\"type\":\"user\",\"message\":{\"content\":\"go on\"}}\n";
    let log = format!("{ok}{broken}{ok}{ok}{ok}{ok}{ok}{ok}{ok}{ok}{ok}");
    let v = Test::new().file("s.jsonl", &log).args(["classify", "--profile", "claude", "s.jsonl"]).verdict();
    assert_eq!((v.input, v.action, v.rule), (Input::Jsonl, Action::Charge, None));
    assert!(v.reason.contains("1 line that is not a JSON record skipped"), "{}", v.reason);
    let log = format!("{broken}{error}");
    let v = Test::new().file("s.jsonl", &log).args(["classify", "--profile", "claude", "s.jsonl"]).verdict();
    assert_eq!((v.input, v.rule.as_deref()), (Input::Jsonl, Some("claude/record-overloaded")));
    assert_eq!(v.offset, Some(broken.len() as u64), "the evidence is the record that parsed");
}

#[test]
fn the_partial_first_record_is_dropped_and_a_cut_record_is_said() {
    // The window starts inside the error record: its tail must not count.
    let error = "{\"type\":\"assistant\",\"isApiErrorMessage\":true,\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"API Error: 529\"}]}}\n";
    let ok = "{\"type\":\"user\",\"message\":{\"content\":\"go on\"}}\n";
    let log = format!("{error}{ok}");
    let tail = (ok.len() + 20).to_string();
    let v = Test::new()
        .file("s.jsonl", &log)
        .args(["classify", "--profile", "claude", "--tail-bytes", &tail, "s.jsonl"])
        .verdict();
    assert_eq!((v.input, v.action, v.rule), (Input::Jsonl, Action::Charge, None));
    let v = Test::new().file("s.jsonl", &log).args(["classify", "--profile", "claude", "s.jsonl"]).verdict();
    assert_eq!((v.action, v.rule.as_deref()), (Action::Retry, Some("claude/record-text-overloaded")));
    // One record longer than the window: read as far as it goes, and said.
    let long = format!("{{\"type\":\"user\",\"message\":{{\"content\":\"{}\"}}}}\n", "x".repeat(500));
    let v = Test::new()
        .file("l.jsonl", &long)
        .args(["classify", "--profile", "claude", "--tail-bytes", "100", "l.jsonl"])
        .verdict();
    assert_eq!((v.input, v.action), (Input::Jsonl, Action::Charge));
    assert!(v.reason.contains("longer than the window"), "{}", v.reason);
}

/// The one-shot JSON output of Qwen Code (`--output-format json`) and Claude
/// Code (`-p --output-format json --verbose`): one line, a JSON array of every
/// message of the session, the result last (real captures of the harness).
#[test]
fn a_one_line_json_array_is_read_as_its_records() {
    let qwen = std::fs::read_to_string(testdata("clients/qwen@0.24.4/auth.json.json")).unwrap();
    assert!(qwen.starts_with("[{") && qwen.trim_end().ends_with("}]") && qwen.trim_end().lines().count() == 1);
    let v = Test::new().file("out.json", &qwen).args(["classify", "--profile", "qwen", "out.json"]).verdict();
    assert_eq!((v.input, v.action, v.rule.as_deref()), (Input::Jsonl, Action::Pause, Some("qwen/record-result-auth")));
    // The offset is where the result's object starts inside the line.
    assert_eq!(v.offset, qwen.find(r#"{"type":"result""#).map(|at| at as u64));
    assert!(v.evidence.unwrap().contains("401 Incorrect API key"));

    // An array longer than the window: the window starts inside the first
    // message's text (which quotes a 529 and a `}]`), and the complete
    // messages at its end are still read.
    let claude = std::fs::read_to_string(testdata("clients/claude@2.1.332/rate-limit.json.json")).unwrap();
    let quote = "API Error: 529 Overloaded \\\"}]\\\" ".repeat(3000);
    let long = format!(
        r#"[{{"type":"assistant","message":{{"content":[{{"type":"text","text":"{quote}"}}]}}}},{}"#,
        &claude[1..]
    );
    assert!(long.len() > 64 * 1024);
    let v = Test::new().file("out.json", &long).args(["classify", "--profile", "claude", "out.json"]).verdict();
    assert_eq!((v.input, v.action, v.rule.as_deref()), (Input::Jsonl, Action::Retry, Some("claude/result-rate-limit")));
    assert!(v.window.unwrap().truncated);
    // The same bytes as screen text are one long line: no rule reads it.
    let v = Test::new()
        .file("out.json", &long)
        .args(["classify", "--profile", "claude", "--input", "text", "out.json"])
        .verdict();
    assert_eq!(v.action, Action::Charge);
}

#[test]
fn explain_tells_the_records_apart() {
    let out = Test::new()
        .args(["explain", "--profile", "claude", "--color", "never"])
        .arg(testdata("transcripts/claude-session-recovered.jsonl"))
        .run()
        .stdout;
    assert!(out.contains("read as JSON Lines: 6 records"), "{out}");
    assert!(out.contains("claude/retry-row-overloaded"), "{out}");
    assert!(out.contains("progress records follow it"), "{out}");
}

/// A record rule over Codex's failed turns, for the tests that write a profile.
const TURN_FAILED: &str = r#"
[[rule]]
id = "turn-failed"
record = { "/type" = "turn.failed" }
field = "/error/message"
pattern = '^Quota exceeded'
"#;

#[test]
fn faultsift_test_checks_record_rules_on_records() {
    let examples = r#"examples = ['{"type":"turn.failed","error":{"message":"Quota exceeded."}}', '{"type":"turn.failed","error":{"message":"other"}}', 'Quota exceeded.']
counterexamples = ['{"type":"item.completed","item":{"text":"Quota exceeded."}}', '{"type":"turn.failed","error":{"message":"Quota exceeded!"}}']
"#;
    let profile = format!("{TURN_FAILED}{examples}");
    let out = Test::new().file("p.toml", &profile).args(["test", "./p.toml"]).status(1).run().stdout;
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL p/")).collect();
    assert_eq!(fails.len(), 3, "{out}");
    assert!(fails[0].contains("[example] example is not matched by its rule") && fails[0].contains("other"), "{out}");
    assert!(fails[1].contains("not a JSON object on one line"), "{out}");
    assert!(fails[2].contains("[counterexample] counterexample is matched by rule p/turn-failed"), "{out}");
    assert!(out.contains("3 examples, 2 counterexamples"), "{out}");
}

#[test]
fn clean_logs_that_are_transcripts_are_checked_as_records() {
    let healthy = std::fs::read(testdata("transcripts/claude-session-healthy.jsonl")).unwrap();
    let failing = std::fs::read(testdata("transcripts/claude-session-overloaded.jsonl")).unwrap();
    let out = Test::new()
        .file("clean/healthy.jsonl", &healthy)
        .args(["test", "claude", "--clean-logs", "clean"])
        .run()
        .stdout;
    assert!(out.contains(", 4 clean-log lines"), "{out}");
    let out = Test::new()
        .file("clean/failing.jsonl", &failing)
        .args(["test", "claude", "--clean-logs", "clean"])
        .status(1)
        .run()
        .stdout;
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL claude/")).collect();
    assert_eq!(fails.len(), 3, "{out}");
    assert!(fails[2].contains("claude/record-overloaded [clean-log]") && fails[2].contains("failing.jsonl:6"), "{out}");
}

#[test]
fn a_record_hit_has_its_evidence_however_deep_its_other_members_nest() {
    // The scan reads a record only as far as the rules' pointers go; what it
    // skips (here, an array nested deeper than a full parse allows) must not
    // make the verdict lose the evidence of the record it hit.
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let log = format!(
        "{{\"type\":\"turn.started\"}}\n{{\"type\":\"turn.failed\",\"error\":{{\"message\":\"Quota exceeded.\"}},\"trace\":{deep}}}\n"
    );
    let v =
        Test::new().file("p.toml", TURN_FAILED).args(["classify", "--profile", "./p.toml", "-"]).stdin(log).verdict();
    assert_eq!(v.action, Action::Pause);
    assert_eq!(v.input, Input::Jsonl);
    assert_eq!(v.evidence.as_deref(), Some("Quota exceeded."));
}

#[test]
fn a_record_hit_whose_field_is_missing_shows_the_record() {
    // A rule without a pattern hits on its conditions; the field it shows
    // may be named otherwise in another release of the program (Qwen Code
    // 0.5.2 wrote `error` where 0.24.4 writes `error_message`). The verdict
    // then shows the record, not an empty line.
    let rule = "[[rule]]\nid = \"telemetry\"\nrecord = { \"/event\" = \"api_error\" }\nfield = \"/error_message\"\n";
    let classify = |log: &str| {
        Test::new().file("p.toml", rule).args(["classify", "--profile", "./p.toml", "-"]).stdin(log).verdict()
    };
    let v = classify("{\"event\":\"start\"}\n{\"event\":\"api_error\",\"error\":\"503 The server is overloaded.\"}\n");
    assert_eq!((v.action, v.input), (Action::Pause, Input::Jsonl));
    assert_eq!(v.evidence.as_deref(), Some(r#"{"event":"api_error","error":"503 The server is overloaded."}"#));
    assert!(v.reason.ends_with("503 The server is overloaded.\"}"), "{}", v.reason);
    // A null field is no text either; with the field there, the field shows.
    let v = classify("{\"event\":\"api_error\",\"error_message\":null}\n");
    assert_eq!(v.evidence.as_deref(), Some(r#"{"event":"api_error","error_message":null}"#));
    let v = classify("{\"event\":\"api_error\",\"error_message\":\"429 Too Many Requests\"}\n");
    assert_eq!(v.evidence.as_deref(), Some("429 Too Many Requests"));
}

/// goose prints its banner on standard output before the JSON Lines of
/// `goose run --output-format stream-json`; the goose profile names the
/// banner's words, so such a log is read as records (at the log's start only,
/// and only when the records show the fault), while the same shape under a
/// profile without a banner, a model's or a tool's line before the records,
/// or a window that starts later, stays text.
#[test]
fn a_program_s_banner_before_its_records_is_read_past_only_for_that_program() {
    let banner = "\n    __( O)>  ● new session · openai gpt-4.1\n   \\____)    20261203_1 · /home/dev/proj\n     L L     goose is ready\n";
    let goose_error = r#"{"type":"message","message":{"id":"msg_b5c5","role":"assistant","created":1,"content":[{"type":"text","text":"Ran into this error: Server error: Server error (503 Service Unavailable) at https://api.openai.com/v1/chat/completions: The server is overloaded. Please try again later..\n\nPlease retry if you think this is a transient or recoverable error."}],"metadata":{"userVisible":true,"agentVisible":true}}}"#;
    let complete = r#"{"type":"complete","total_tokens":0}"#;
    let stream = format!("{banner}{goose_error}\n{complete}\n");
    let classify = |profile: &str, log: &str, extra: &[&str]| {
        Test::new().args(["classify", "--profile", profile]).args(extra.iter().copied()).arg("-").stdin(log).verdict()
    };
    let v = classify("goose", &stream, &[]);
    assert_eq!(
        (v.action, v.input, v.rule.as_deref()),
        (Action::Retry, Input::Jsonl, Some("goose/stream-server-error"))
    );
    // Not at the log's start: the tail of a longer log (the first line of
    // the window is a banner line after a line break) is text.
    let long = format!("{}{stream}", "x".repeat(70_000));
    let v = classify("goose", &long, &["--tail-bytes", &(stream.len() + 1).to_string()]);
    assert_eq!((v.action, v.input), (Action::Charge, Input::Text), "{v:?}");
    // A model's line between the banner and the records.
    let v = classify("goose", &format!("{banner}Here is the fixture:\n{goose_error}\n{complete}\n"), &[]);
    assert_eq!((v.action, v.input), (Action::Charge, Input::Text), "{v:?}");
    // The model quoting goose's whole message in one record of its own (it
    // carries the provider's `inference` metadata), then going on.
    let quoted =
        goose_error.replace(r#""agentVisible":true}"#, r#""agentVisible":true,"inference":{"provider":"openai"}}"#);
    assert_eq!(classify("goose", &format!("{banner}{quoted}\n{complete}\n"), &[]).action, Action::Charge);
    let more = goose_error
        .replace("msg_b5c5", "chatcmpl-9")
        .replace(r#""text":"Ran into this error"#, r#""text":"I retried, and it answered. Ran into this error"#);
    let more = more.replace(r#""agentVisible":true}"#, r#""agentVisible":true,"inference":{"provider":"openai"}}"#);
    let v = classify("goose", &format!("{banner}{goose_error}\n{more}\n{complete}\n"), &[]);
    assert_eq!((v.action, v.recovered), (Action::Charge, true), "{v:?}");
    // A profile that names no banner reads a reply of a few lines followed by
    // a transcript fixture as the text it is.
    let fixture = r#"{"type":"assistant","isApiErrorMessage":true,"apiErrorStatus":529,"error":"overloaded","message":{"role":"assistant","content":[{"type":"text","text":"API Error: 529 Overloaded"}]}}"#;
    let reply = format!("Added the fixture:\n{fixture}\n{fixture}\n");
    let v = classify("claude", &reply, &[]);
    assert_eq!((v.action, v.input), (Action::Charge, Input::Text), "{v:?}");
}
