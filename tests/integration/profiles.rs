//! Profile loading through the binary: resolution layers, overlays, the
//! foreign-orchestrator shorthand, and load errors as one clear line.

use faultsift::Action;

use crate::util::Test;

const FAULT: &str = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\n";

fn rule_of(t: Test, stdin: &str) -> Option<String> {
    t.stdin(stdin).verdict().rule
}

#[test]
fn foreign_orchestrator_profile_loads_unchanged() {
    let profile = r#"
# A profile written for another orchestrator.
binary = "claude"
bypass_args = ["--dangerously-skip-permissions"]
env_fault_patterns = [
  'API Error \(Connection error\.\)',
  'Unable to connect to API',
]
[env]
CLAUDE_CODE_MAX_OUTPUT_TOKENS = "32000"
[hooks]
post = "notify-send done"
"#;
    let t = Test::new().file("orchestrator/claude.toml", profile);
    let v = t.args(["classify", "--profile", "orchestrator/claude.toml"]).stdin(FAULT).verdict();
    assert_eq!((v.action, v.kind.as_deref()), (Action::Pause, Some("env_fault")));
    assert_eq!(v.rule.as_deref(), Some("claude/env_fault_patterns[0]"));
    assert_eq!(v.profile_origin, "orchestrator/claude.toml");
}

#[test]
fn layers_resolve_in_order() {
    let mine = |tag: &str| format!("[[rule]]\nid = \"{tag}\"\npattern = 'Connection error'\n");
    // Every layer holds a `claude.toml`; each run removes the top one.
    let t = || {
        Test::new()
            .file("flag/claude.toml", mine("from-flag"))
            .file("envpath/claude.toml", mine("from-env-path"))
            .file(".faultsift/profiles/claude.toml", mine("from-cwd"))
            .file(".config/faultsift/profiles/claude.toml", mine("from-xdg"))
    };
    let base = |t: Test| {
        let dir = t.path().to_path_buf();
        t.env("FAULTSIFT_PROFILE_PATH", dir.join("envpath")).args(["classify", "--profile", "claude"])
    };
    let t1 = t();
    let flag = t1.path().join("flag");
    assert_eq!(rule_of(base(t1).arg("--profile-dir").arg(flag), FAULT).as_deref(), Some("claude/from-flag"));
    assert_eq!(rule_of(base(t()), FAULT).as_deref(), Some("claude/from-env-path"));
    let t3 = t();
    std::fs::remove_dir_all(t3.path().join("envpath")).unwrap();
    // The working directory's `.faultsift/profiles` is never searched
    // implicitly (SPEC §4): the session being classified may have written it.
    assert_eq!(rule_of(base(t3), FAULT).as_deref(), Some("claude/from-xdg"));
    let t5 = Test::new().args(["classify", "--profile", "claude"]);
    assert_eq!(rule_of(t5, FAULT).as_deref(), Some("claude/connection-error-retrying"));
}

#[test]
fn overlay_extends_and_disables_the_builtin() {
    let overlay = r#"
extends = "claude"
disable = ["claude/connection-error-retrying", "claude/api-error-retrying"]
[[rule]]
id = "proxy-down"
kind = "connection"
pattern = '^corp-proxy: upstream unreachable$'
"#;
    let t = || {
        Test::new().file(".faultsift/profiles/claude.toml", overlay).args([
            "classify",
            "--profile-dir",
            ".faultsift/profiles",
            "--profile",
            "claude",
        ])
    };
    let v = t().stdin(FAULT).verdict();
    assert_eq!(v.action, Action::Charge, "the disabled rule no longer fires");
    assert!(v.profile_origin.ends_with(".faultsift/profiles/claude.toml"));
    let v = t().stdin("corp-proxy: upstream unreachable\n").verdict();
    assert_eq!(v.rule.as_deref(), Some("claude/proxy-down"));
    let v = t().stdin("You've hit your limit · resets 2pm (UTC)\n").verdict();
    assert_eq!(v.rule.as_deref(), Some("claude/hit-your-limit"), "inherited rules still fire");
}

#[test]
fn load_errors_are_one_line_naming_file_rule_and_cause() {
    let cases = [
        ("broken.toml", "name = \"x\"\n[[rule]\n", "broken.toml:2:"),
        ("lookaround.toml", "[[rule]]\nid = \"la\"\npattern = 'API(?= Error)'\n", "rule `la`: invalid regex"),
        (
            "unknown_key.toml",
            "[[rule]]\nid = \"uk\"\npattern = 'x'\nexample = ['x']\n",
            "rule `uk`: unknown field `example`",
        ),
        (
            "dup.toml",
            "[[rule]]\nid = \"d\"\npattern = 'x'\n[[rule]]\nid = \"d\"\npattern = 'y'\n",
            "rule `d`: duplicate",
        ),
        ("action.toml", "[[rule]]\nid = \"a\"\npattern = 'x'\naction = \"halt\"\n", "rule `a`: unknown action `halt`"),
        (
            "empty.toml",
            "[[rule]]\nid = \"e\"\npattern = '(x)?'\n",
            "rule `e`: pattern \"(x)?\" can match the empty string",
        ),
        ("big.toml", "[[rule]]\nid = \"b\"\npattern = '\\w{1000}{1000}'\n", "rule `b`: pattern"),
        (
            "define.toml",
            "[define]\nlead = 'x'\n[[rule]]\nid = \"r\"\npattern = '{{led}}y'\n",
            "rule r: `{{led}}` is not defined (defined: lead)",
        ),
    ];
    for (file, text, needle) in cases {
        let out = Test::new().file(file, text).args(["classify", "--profile", file, "x.log"]).status(2).run();
        assert_eq!(out.stderr.lines().count(), 1, "{file}: {}", out.stderr);
        assert!(out.stderr.starts_with(&format!("faultsift: {file}")), "{file}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{file}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
    let out = Test::new()
        .file("lb.toml", "[[rule]]\nid = \"lb\"\npattern = '(?<!x)y'\n")
        .args(["classify", "--profile", "lb.toml", "x.log"])
        .status(2)
        .run();
    assert!(
        out.stderr.contains("look-around is not supported") && out.stderr.contains("linear time"),
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_profile_name_lists_the_alternatives() {
    let out = Test::new().args(["classify", "--profile", "claud", "x.log"]).status(2).run();
    assert!(out.stderr.contains("no profile named `claud`") && out.stderr.contains("claude"), "{}", out.stderr);
}

/// An overlay that extends the built-in claude profile and says what progress
/// looks like: a tool call line of Claude Code.
const WITH_PROGRESS: &str = r#"
name = "claude"
extends = "claude"
progress = ['^\s*⏺ (?:Bash|Edit|Write|Read|Update)\(']
"#;

#[test]
fn a_fault_followed_by_progress_is_recovered_and_charged() {
    let log = format!("{FAULT}⏺ Bash(cargo test)\n  ⎿  test result: FAILED. 37 passed; 2 failed\n> \n");
    let t = Test::new().file("p/claude.toml", WITH_PROGRESS);
    let v = t.args(["classify", "--profile", "p/claude.toml", "--status", "timeout"]).stdin(log.as_str()).verdict();
    assert_eq!((v.action, v.env_fault, v.recovered), (Action::Charge, false, true));
    // The verdict still names the fault it got past, and says why it charges.
    assert_eq!(v.rule.as_deref(), Some("claude/connection-error-retrying"));
    assert!(v.reason.starts_with("recovered: the session got past an environment fault (connection)"), "{}", v.reason);
}

#[test]
fn a_fault_followed_only_by_chrome_is_still_the_fault() {
    // The tool's result comes first: the first result below a call is the
    // tool's own output (`tool_output`), and Claude Code hangs its retry
    // notice as a later one.
    let log = format!("⏺ Bash(cargo test)\n  ⎿  test result: ok. 39 passed\n{FAULT}> \n  ? for shortcuts\n");
    let t = Test::new().file("p/claude.toml", WITH_PROGRESS);
    let v = t.args(["classify", "--profile", "p/claude.toml", "--status", "timeout"]).stdin(log.as_str()).verdict();
    assert_eq!((v.action, v.recovered), (Action::Pause, false));
}

#[test]
fn a_fallback_rule_decides_only_when_no_other_rule_hits() {
    let profile = r#"
[[rule]]
id = "report"
kind = "api_error"
fallback = true
pattern = '^\s*Error when talking to the API'
[[rule]]
id = "bad-request"
action = "charge"
kind = "invalid_request"
pattern = '^\s*\[API Error: 400\b'
[[rule]]
id = "overloaded"
kind = "overloaded"
action = "retry"
pattern = '^\s*\[API Error: 503\b'
"#;
    let report = "Error when talking to the API. Full report available at: /tmp/r.json\n";
    let classify = |log: String| {
        Test::new().file("f.toml", profile).args(["classify", "--profile", "f.toml"]).stdin(log.as_str()).verdict()
    };
    // Alone, the framing line decides.
    let v = classify(format!("working\n{report}"));
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("f/report")));
    // Printed below a cause line, it does not override the cause: the work's
    // own 400 is charged, an outage keeps its own action.
    let v = classify(format!("[API Error: 400 invalid argument]\n{report}"));
    assert_eq!((v.action, v.rule.as_deref()), (Action::Charge, Some("f/bad-request")));
    let v = classify(format!("{report}[API Error: 503 Service Unavailable]\n{report}"));
    assert_eq!((v.action, v.rule.as_deref()), (Action::Retry, Some("f/overloaded")));
    assert_eq!(v.hits.iter().find(|h| h.rule == "f/report").map(|h| h.count), Some(2), "still counted");
    let shown = Test::new().file("f.toml", profile).args(["show", "f.toml"]).run().stdout;
    assert_eq!(shown.matches("fallback = true").count(), 1, "{shown}");
}

#[test]
fn show_prints_progress_and_after() {
    let framed = r#"
progress = ['^\s*⏺ Bash\(']
[[rule]]
id = "body"
pattern = '"code": 503'
after = { pattern = '^✕ \[API Error: ', within = 12 }
"#;
    let t = Test::new().file("f.toml", framed);
    let out = t.args(["show", "f.toml"]).run().stdout;
    assert!(out.contains("progress = [") && out.contains("⏺ Bash"), "{out}");
    assert!(out.contains("within = 12"), "{out}");
}

#[test]
fn defined_fragments_stand_in_for_their_text_everywhere_a_pattern_is_written() {
    let profile = r#"
progress = ['{{lead}}Bash\(']
[define]
lead = '^\s*(?:⎿|⏺)?\s*'
[[rule]]
id = "connection"
kind = "connection"
pattern = '{{lead}}API Error \(Connection error'
examples = ['  ⎿  API Error (Connection error.) · Retrying in 4 seconds…']
"#;
    let t = Test::new().file("d.toml", profile);
    let v = t.args(["classify", "--profile", "d.toml", "--status", "timeout"]).stdin(FAULT).verdict();
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("d/connection")));
    // The fragment is anchored: a quotation mid-line is not the fault.
    let quoted = "the log said API Error (Connection error.) twice\n";
    let v = Test::new().file("d.toml", profile).args(["classify", "--profile", "d.toml"]).stdin(quoted).verdict();
    assert_eq!(v.action, Action::Charge);
    // Progress patterns expand too: the fault followed by a tool call is recovered.
    let log = format!("{FAULT}⏺ Bash(cargo test)\n");
    let v = Test::new().file("d.toml", profile).args(["classify", "--profile", "d.toml"]).stdin(log.as_str()).verdict();
    assert_eq!((v.action, v.recovered), (Action::Charge, true));
    // `show` prints the resolved patterns, with no [define] left to resolve.
    let out = Test::new().file("d.toml", profile).args(["show", "d.toml"]).run().stdout;
    assert!(out.contains(r"^\s*(?:⎿|⏺)?\s*API Error") && !out.contains("{{"), "{out}");
    assert!(Test::new().file("d.toml", profile).args(["test", "d.toml"]).run().stdout.contains("ok "));
}
