//! Issue 19: a session cannot change its own verdict. Planted profiles,
//! untrusted text reaching terminals and CI logs, redaction, bounded loading,
//! explain's deadline. Each test reproduces one finding of the issue.

use faultsift::Action;

use crate::util::Test;

const FAILED_TESTS: &str = "running 120 tests\ntest result: FAILED. 83 passed; 37 tests failed\n";
const FAULT: &str = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\n";
/// The attack of the issue: a rule that matches any line, under a built-in id.
const PLANTED: &str = "[[rule]]\nid = \"connection-error-retrying\"\nkind = \"connection\"\npattern = '[\\s\\S]'\n";

fn planted() -> Test {
    Test::new().file(".faultsift/profiles/claude.toml", PLANTED).file("session.log", FAILED_TESTS)
}

// ---- 19.1 planted profiles ----

#[test]
fn a_profile_planted_in_the_working_directory_is_not_used() {
    let v = planted().args(["classify", "--profile", "claude", "--status", "failed", "session.log"]).verdict();
    assert_eq!(v.action, Action::Charge, "{v:?}");
    assert_eq!(v.profile_origin, "builtin");
}

#[test]
fn the_working_directory_is_used_only_when_asked_and_then_said() {
    let t = planted().args([
        "classify",
        "--profile-dir",
        ".faultsift/profiles",
        "--profile",
        "claude",
        "--status",
        "failed",
        "session.log",
    ]);
    let out = t.run();
    let v: faultsift::Verdict = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v.action, Action::Pause);
    assert!(v.profile_origin.ends_with(".faultsift/profiles/claude.toml"));
    assert!(
        out.stderr.contains("note: profile `claude` is the file .faultsift/profiles/claude.toml, not the built-in"),
        "{}",
        out.stderr
    );
}

#[test]
fn builtin_prefix_always_means_the_builtin() {
    for args in [
        vec!["--profile", "builtin:claude"],
        vec!["--profile-dir", ".faultsift/profiles", "--profile", "builtin:claude"],
    ] {
        let out = planted().arg("classify").args(args).args(["--status", "failed", "session.log"]).run();
        let v: faultsift::Verdict = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!((v.action, v.profile_origin.as_str()), (Action::Charge, "builtin"));
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let t = Test::new().args(["classify", "--profile", "builtin:nosuch", "-"]).stdin("x\n").status(2);
    let err = t.run().stderr;
    assert!(err.starts_with("faultsift: no profile named `builtin:nosuch`") && err.contains("builtin:claude"), "{err}");
    // A file's profile that extends a built-in name cannot reach into a
    // built-in's own `extends` either: `builtin:` is the built-in throughout.
}

#[test]
fn every_format_shows_a_profile_that_is_not_the_builtin() {
    let opt_in = ["--profile-dir", ".faultsift/profiles", "--profile", "claude", "--status", "failed"];
    for (format, want) in [
        ("text", "[profile .faultsift/profiles/claude.toml]"),
        ("github", "[profile .faultsift/profiles/claude.toml]"),
        ("markdown", "(profile .faultsift/profiles/claude.toml)"),
    ] {
        let out = planted().arg("classify").args(opt_in).args(["--format", format, "session.log"]).run();
        assert!(out.stdout.contains(want), "{format}: {}", out.stdout);
    }
    let out = planted().args(["explain", "--profile-dir", ".faultsift/profiles", "--profile", "claude", "session.log"]);
    let out = out.run();
    assert!(out.stdout.contains("(.faultsift/profiles/claude.toml,"), "{}", out.stdout);
    // The built-in says nothing more than before.
    let out = planted().args(["classify", "--profile", "claude", "--format", "text", "session.log"]).run();
    assert!(!out.stdout.contains("[profile"), "{}", out.stdout);
}

#[test]
fn shipped_examples_pin_builtin_profiles() {
    let root = crate::util::root().join("examples");
    for file in ["orchestrator.sh", "supervisor.sh", "github-actions.yml", "gitlab-ci.yml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains("builtin:"), "{file} does not pin a built-in profile");
        assert!(!text.contains("--profile claude") && !text.contains("--profile ci "), "{file}");
    }
}

// ---- 19.4 one sanitiser ----

const ESC: &str = "\u{1b}]0;pwned\u{7}\u{1b}]52;c;aGk=\u{7}\u{1b}[2J";

fn no_controls(what: &str, text: &str) {
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{what}: {text:?}");
    for c in ['\u{200B}', '\u{200F}', '\u{061C}', '\u{FEFF}', '\u{2028}', '\u{2029}'] {
        assert!(!text.contains(c), "{what}: U+{:04X} in {text:?}", u32::from(c));
    }
}

#[test]
fn hostile_file_names_and_statuses_reach_no_terminal() {
    let name = format!("a{ESC}b.log");
    let t = || Test::new().file(&name, FAULT);
    for format in ["text", "github", "markdown"] {
        let out = t()
            .args(["classify", "--profile", "claude", "--format", format, "--summary", "--status"])
            .arg(format!("fail{ESC}ed"))
            .arg(&name)
            .run();
        no_controls(format, &out.stdout);
    }
    let out = t().args(["explain", "--profile", "claude"]).arg(&name).run();
    no_controls("explain", &out.stdout);
    // `jq -r .reason` prints the reason raw: it must be clean in JSON too.
    let v = t().args(["classify", "--profile", "claude", "--status"]).arg(format!("fail{ESC}ed")).arg(&name).verdict();
    no_controls("reason", &v.reason);
    // An unreadable log's error line on stderr.
    let out = Test::new().args(["classify", "--profile", "claude"]).arg(format!("no{ESC}such.log")).status(2).run();
    no_controls("stderr", &out.stderr);
}

#[test]
fn profile_names_must_be_printable() {
    let t = Test::new().file("p.toml", "name = \"x\\u001b[2Jy\"\n[[rule]]\nid = \"a\"\npattern = 'boom'\n");
    let err = t.args(["classify", "--profile", "./p.toml", "-"]).stdin("boom\n").status(2).run().stderr;
    assert!(err.contains("profile name `x [2Jy` must be non-empty"), "{err}");
    no_controls("stderr", &err);
    // A file stem is the default name: the same rule applies.
    let stem = format!("e{ESC}.toml");
    let t = Test::new().file(&stem, "[[rule]]\nid = \"a\"\npattern = 'boom'\n");
    let err = t.args(["classify", "--profile"]).arg(format!("./{stem}")).arg("-").stdin("boom\n").status(2).run();
    assert!(err.stderr.contains("profile name"), "{}", err.stderr);
    no_controls("stderr", &err.stderr);
}

#[test]
fn hostile_profile_files_in_test_show_and_profiles_are_sanitised() {
    let dir = format!("d{ESC}");
    let t = || {
        Test::new().file(&format!("{dir}/mine.toml"), "[[rule]]\nid = \"a\"\npattern = 'boom'\nexamples = ['nope']\n")
    };
    let out = t().args(["test", "--profile-dir"]).arg(&dir).arg("mine").status(1).run();
    no_controls("test", &out.stdout);
    let out = t().args(["show", "--profile-dir"]).arg(&dir).arg("mine").run();
    no_controls("show", &out.stdout);
    let out = t().args(["profiles", "--profile-dir"]).arg(&dir).run();
    no_controls("profiles", &out.stdout);
}

#[test]
fn workflow_commands_and_invisibles_in_a_log_are_neutralised() {
    let log = "API Error: 529 ##[set-output name=action;]pause\n::set-output name=action::pause\n";
    let profile = "[[rule]]\nid = \"cmd\"\nkind = \"x\"\npatterns = ['^::set-output', '^API Error']\n";
    let t = || Test::new().file("p.toml", profile).file("s.log", log);
    let v = t().args(["classify", "--profile", "./p.toml", "s.log"]).verdict();
    let ev = v.evidence.unwrap();
    assert!(ev.starts_with(": :set-output"), "{ev}");
    assert!(!v.reason.contains("::set-output") && !v.reason.contains("##["), "{}", v.reason);
    for format in ["text", "markdown"] {
        let out = t().args(["classify", "--profile", "./p.toml", "--format", format, "s.log"]).run();
        assert!(!out.stdout.lines().any(|l| l.trim_start().starts_with("::") || l.contains("##[")), "{}", out.stdout);
    }
    let out = t().args(["explain", "--profile", "./p.toml", "--color", "never", "s.log"]).run();
    assert!(!out.stdout.lines().any(|l| l.trim_start().starts_with("::") || l.contains("##[")), "{}", out.stdout);

    let invisible = "API Error: 529 a\u{200B}b\u{200F}c\u{061C}d\u{FEFF}e\u{2028}f\u{2029}g\n";
    let t = Test::new().file("p.toml", profile).file("s.log", invisible);
    let v = t.args(["classify", "--profile", "./p.toml", "s.log"]).verdict();
    assert_eq!(v.evidence.as_deref(), Some("API Error: 529 a b c d e f g"));
}

// ---- 19.2 bounded profile loading ----

fn rules(n: usize, pattern: &str, extra: &str) -> String {
    (0..n).map(|i| format!("[[rule]]\nid = 'r{i}'\npattern = '{pattern}x{i}'\n{extra}")).collect()
}

/// Runs `faultsift classify -p FILE` under `/usr/bin/time -v` when it is
/// there, and returns (stderr, seconds, peak KiB or None).
fn load(t: Test) -> (String, f64, Option<u64>) {
    let time = std::path::Path::new("/usr/bin/time").exists();
    let t = t.args(["classify", "--profile", "./p.toml", "/dev/null"]);
    let mut cmd = t.command();
    if time {
        let program = cmd.get_program().to_owned();
        let args: Vec<_> = cmd.get_args().map(ToOwned::to_owned).collect();
        let dir = cmd.get_current_dir().unwrap().to_owned();
        cmd = std::process::Command::new("/usr/bin/time");
        cmd.arg("-v").arg(program).args(args).current_dir(dir);
    }
    let started = std::time::Instant::now();
    let out = cmd.output().unwrap();
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let peak = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
        .and_then(|v| v.parse().ok());
    (stderr, secs, peak)
}

#[test]
fn the_worst_profiles_the_limits_allow_load_or_fail_bounded() {
    let pl = "\\pL".repeat(1364);
    let cases = [
        // The attack of issue 19: 43 s and 7.7 GB before.
        ("1,000 rules of \\pL×1364", rules(1000, &pl, ""), "too large to parse together"),
        ("the same, case-insensitive", rules(1000, &pl, "case_insensitive = true\n"), "too many Unicode classes"),
        ("1,000 rules of \\w", rules(1000, "\\w", ""), "limit together"),
    ];
    for (name, text, want) in cases {
        let t = Test::new().file("p.toml", &text);
        let (stderr, secs, peak) = load(t);
        assert!(stderr.contains(want), "{name}: {stderr}");
        // SECURITY.md gives the measured times of a release build; a debug
        // build on a loaded CI machine is allowed more.
        assert!(secs < 10.0, "{name}: {secs:.1}s");
        if let Some(kib) = peak {
            assert!(kib < 256 * 1024, "{name}: {kib} KiB");
        } else {
            eprintln!("{name}: /usr/bin/time not found; peak memory not measured");
        }
    }
}

// ---- 19.5 redaction ----

#[test]
fn secrets_are_redacted_in_verdicts_and_explain_context() {
    let log = "\
{\\\"password\\\": \\\"hunter2 hunter2\\\"}
PGPASSWORD=pgsecret123 psql
API Error: 529 password=\"correct horse battery staple\" Cookie: sid=abc123def
mysql --password mysqlsecret9
";
    let profile = "[[rule]]\nid = \"e\"\nkind = \"x\"\npattern = '^API Error'\n";
    let t = || Test::new().file("p.toml", profile).file("s.log", log);
    let v = t().args(["classify", "--profile", "./p.toml", "s.log"]).verdict();
    let ev = v.evidence.unwrap();
    assert!(!ev.contains("horse") && !ev.contains("abc123def"), "{ev}");
    let out = t().args(["explain", "--profile", "./p.toml", "--color", "never", "s.log"]).run().stdout;
    for secret in ["hunter2", "pgsecret123", "horse", "abc123def", "mysqlsecret9"] {
        assert!(!out.contains(secret), "{secret} in:\n{out}");
    }
}

// ---- 19.6 explain's watchdog, FIFOs, /proc, causes once ----

#[test]
fn explain_answers_by_its_watchdog_on_a_huge_line() {
    // A slow pattern from a file over a 16 MiB single line: 79.6 s before.
    // (12.5 s on the commit before the watchdog, debug build.)
    let profile = "[[rule]]\nid = \"slow\"\ncase_insensitive = true\npattern = '\\b(?:\\w+\\s+){30}\\d{10}\\b'\n";
    let line = "héllo wörld ünïcödé ".repeat((16 << 20) / 24);
    let t = Test::new().file("p.toml", profile).file("big.log", line);
    let started = std::time::Instant::now();
    let out =
        t.args(["explain", "--profile", "./p.toml", "--tail-bytes", "16MiB", "--timeout", "200ms", "big.log"]).run();
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert!(out.stdout.contains("action charge"), "{}", out.stdout);
}

#[test]
fn a_fifo_as_profile_is_an_error_not_a_hang() {
    let t = Test::new();
    let fifo = t.path().join("p.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let err = t.args(["classify", "--profile", "./p.toml", "-"]).stdin("x\n").status(2).run().stderr;
    assert!(err.contains("not a regular file"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn files_that_report_size_zero_are_read_by_streaming() {
    let proc = std::path::Path::new("/proc/self/status");
    if !proc.exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let v = Test::new().args(["classify", "--profile", "claude"]).arg(proc).verdict();
    let w = v.window.expect("a window");
    assert!(w.log_bytes > 0, "{w:?}");
}

#[test]
fn each_error_cause_is_printed_once() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["test", "/nonexist.toml"],
        vec!["classify", "-p", "./nosuch.toml", "-"],
        vec!["classify", "--profile-dir", "/nonexist", "-p", "claude", "-"],
        vec!["classify", "-p", "./bin.toml", "-"],
    ];
    for args in cases {
        let t = Test::new().file("bin.toml", b"\xff\xfe\x00binary").args(args.clone()).stdin("x\n").status(2);
        let err = t.run().stderr;
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        for cause in ["No such file or directory", "valid UTF-8", "not a directory"] {
            assert!(err.matches(cause).count() <= 1, "{args:?}: {err}");
        }
    }
}
