//! Issue 20: rough edges a new user hits in the first hour. One test (or a
//! few) per item, numbered as in the issue.

use faultsift::Action;

use crate::util::Test;

const FAULT: &str = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\n";

/// Runs `args` as the user `nobody` when this process is root and `setpriv`
/// is there; None when that is not possible.
fn as_nobody(t: &Test, args: &[&str]) -> Option<std::process::Output> {
    let root = std::process::Command::new("id").arg("-u").output().ok()?;
    let root = String::from_utf8_lossy(&root.stdout).trim() == "0";
    let mut cmd = if root {
        let ok = std::process::Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success());
        if !ok {
            return None;
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]).arg(env!("CARGO_BIN_EXE_faultsift"));
        c
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_faultsift"))
    };
    cmd.args(args).current_dir(t.path()).env_remove("FAULTSIFT_PROFILE").env("HOME", t.path());
    cmd.output().ok()
}

#[test]
fn item_1_an_unreadable_subdirectory_is_an_error_verdict() {
    use std::os::unix::fs::PermissionsExt;
    let t = Test::new().file("logs/ok.log", "fine\n").file("logs/locked/fault.log", FAULT);
    let perm = |mode| std::fs::set_permissions(t.path().join("logs/locked"), std::fs::Permissions::from_mode(mode));
    // The scratch directory must be reachable by `nobody`.
    for dir in [t.path(), &t.path().join("logs")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(t.path().join("logs/ok.log"), std::fs::Permissions::from_mode(0o644)).unwrap();
    perm(0o000).unwrap();
    let out = as_nobody(&t, &["classify", "-p", "claude", "--summary", "logs"]);
    let quiet = as_nobody(&t, &["classify", "-p", "claude", "-q", "logs"]);
    perm(0o755).unwrap();
    let (Some(out), Some(quiet)) = (out, quiet) else {
        eprintln!("skipped: running as root without setpriv, the directory stays readable");
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.contains("fault.log") {
        eprintln!("skipped: the test user can read a mode-000 directory (root without setpriv?)");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let locked: faultsift::Verdict =
        stdout.lines().find(|l| l.contains("locked")).map(|l| serde_json::from_str(l).unwrap()).expect(&stdout);
    assert!(locked.error.as_deref().unwrap().contains("Permission denied"), "{locked:?}");
    assert!(stdout.contains("\"errors\":1"), "{stdout}");
    assert_eq!(quiet.status.code(), Some(2));
}

#[test]
fn item_2_nothing_to_classify_is_one_clear_error() {
    let t = Test::new().file("logs/a.txt", "x\n");
    let out = t.args(["classify", "-p", "claude", "--glob", "*.log", "logs"]).status(2).run();
    assert_eq!(out.stderr, "faultsift: no files under logs match '*.log'\n");
    assert!(out.stdout.is_empty());
}

#[test]
fn item_6_values_and_usage_errors_are_one_line() {
    let ok = Test::new().args(["classify", "-p", "claude", "--timeout", "1h", "--tail-bytes", "1.5KiB", "-"]);
    let v = ok.stdin(FAULT).verdict();
    assert_eq!(v.action, Action::Pause);
    for (args, want) in [
        (vec!["--since", "abc"], "`abc` is not a byte offset"),
        (vec!["--timeout", "2h"], "at most 1 hour"),
        (vec!["--tail-bytes", "lots"], "is not a size"),
        (vec!["--bogus"], "unexpected argument '--bogus'"),
    ] {
        let out = Test::new().arg("classify").args(args).args(["-p", "claude", "-"]).stdin("x\n").status(2).run();
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        assert!(out.stderr.starts_with("faultsift: ") && out.stderr.contains(want), "{}", out.stderr);
    }
    // Help is still help.
    let out = Test::new().args(["classify", "--help"]).run();
    assert!(out.stdout.contains("Usage:"));
}

#[test]
fn item_8_glob_works_like_ripgrep() {
    let t = || {
        Test::new()
            .file("logs/a.log", "x\n")
            .file("logs/sub/b.log", "x\n")
            .file("logs/sub/c.txt", "x\n")
            .file("logs/.hidden/d.log", "x\n")
            .file("logs/.git/e.log", "x\n")
    };
    let logs = |t: Test| -> Vec<String> { t.verdicts().into_iter().map(|v| v.log).collect() };
    let base = ["classify", "-p", "claude"];
    assert_eq!(logs(t().args(base).args(["--glob", "b.log", "logs"])), ["logs/sub/b.log"]);
    assert_eq!(logs(t().args(base).args(["-g", "*.log", "-g", "!a.log", "logs"])), ["logs/sub/b.log"]);
    assert_eq!(logs(t().args(base).args(["-g", "!*.txt", "logs"])), ["logs/a.log", "logs/sub/b.log"]);
    assert_eq!(logs(t().args(base).args(["-g", "sub/*.txt", "logs"])), ["logs/sub/c.txt"]);
    let all = logs(t().args(base).args(["--hidden", "-g", "*.log", "logs"]));
    assert_eq!(all, ["logs/.git/e.log", "logs/.hidden/d.log", "logs/a.log", "logs/sub/b.log"]);
}

#[test]
fn item_12_status_case_pretty_colour_and_plurals() {
    let v = Test::new().args(["classify", "-p", "claude", "--status", "COMPLETED", "-"]).stdin(FAULT).verdict();
    assert_eq!(v.action, Action::Skip);
    let out = Test::new().args(["classify", "-p", "claude", "--pretty", "--format", "text", "-"]).stdin("x\n");
    let err = out.status(2).run().stderr;
    assert!(err.starts_with("faultsift: --pretty") && err.contains("--format text"), "{err}");
    let out = Test::new().args(["classify", "-p", "claude", "--format", "text", "--summary", "-"]).stdin(FAULT).run();
    assert!(out.stdout.contains("summary: 1 log, 1 environment fault ("), "{}", out.stdout);
}

#[test]
fn item_7_test_goes_past_a_broken_profile_and_warns_on_zero_rules() {
    let t = || {
        Test::new()
            .file("p/a-broken.toml", "[[rule]\n")
            .file("p/b-empty.toml", "description = \"nothing yet\"\n")
            .file("p/c-good.toml", "[[rule]]\nid = \"x\"\npattern = '^mine: down$'\nexamples = ['mine: down']\n")
    };
    let out = t().args(["test", "--profile-dir", "p", "a-broken", "b-empty", "c-good"]).status(2).run();
    assert!(out.stdout.contains("c-good") && out.stdout.contains("FAIL a-broken [load]"), "{}", out.stdout);
    assert!(out.stdout.contains("warn b-empty [no-rules]"), "{}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let out = t().args(["test", "--profile-dir", "p", "--format", "json", "a-broken", "c-good"]).status(2).run();
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["profiles"].as_array().unwrap().len(), 2);
    assert_eq!(doc["failures"][0]["check"], "load");
}

#[test]
fn item_4_step_summary_starts_with_a_blank_line_and_empty_is_unset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.md");
    std::fs::write(&path, "| previous | table |\n").unwrap();
    let t = Test::new();
    let out = t.env("GITHUB_STEP_SUMMARY", &path).args(["classify", "-p", "claude", "--format", "github", "-"]);
    out.stdin(FAULT).run();
    let md = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(md.starts_with("| previous | table |\n\n| log | action |"), "{md}");
    let t = Test::new().env("GITHUB_STEP_SUMMARY", "").args(["classify", "-p", "claude", "--format", "github", "-"]);
    let out = t.stdin(FAULT).run();
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn item_9_explain_reads_piped_stdin_takes_status_and_limits_hits() {
    let out = Test::new().args(["explain", "-p", "claude", "--color", "never"]).stdin(FAULT).run();
    assert!(out.stdout.contains("action pause"), "{}", out.stdout);
    let out = Test::new().args(["explain", "-p", "claude", "--status", "COMPLETED"]).stdin(FAULT).run();
    assert!(out.stdout.starts_with("skip "), "{}", out.stdout);
    let out = Test::new().args(["explain", "-p", "claude", "--color", "never"]).stdin(FAULT.repeat(30)).run();
    assert!(out.stdout.contains("matching lines (30)") && out.stdout.contains("… 10 more"), "{}", out.stdout);
    let listed = out.stdout.lines().filter(|l| l.contains(" → ")).count();
    assert_eq!(listed, 20, "{}", out.stdout);
    let out = Test::new().args(["explain", "-p", "claude", "--max-hits", "2"]).stdin(FAULT.repeat(3)).run();
    assert!(out.stdout.contains("… 1 more"), "{}", out.stdout);
}

#[test]
fn item_10_summary_schema_label_and_profiles_json() {
    let out = Test::new().args(["classify", "-p", "claude", "--summary", "--label", "pane-7", "-"]).stdin(FAULT).run();
    let lines: Vec<serde_json::Value> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["log"], "pane-7");
    assert_eq!(lines[1]["schema"], "faultsift/summary/v1");
    assert_eq!(lines[1]["summary"]["logs"], 1);
    let schema: serde_json::Value =
        serde_json::from_str(&Test::new().args(["schema", "summary"]).run().stdout).unwrap();
    assert_eq!(schema["title"], "faultsift summary");
    assert!(schema["properties"]["summary"].is_object(), "{schema}");
    let verdict: serde_json::Value = serde_json::from_str(&Test::new().arg("schema").run().stdout).unwrap();
    assert_eq!(verdict["title"], "faultsift verdict");
    let profiles: serde_json::Value =
        serde_json::from_str(&Test::new().args(["profiles", "--format", "json"]).run().stdout).unwrap();
    let claude = profiles.as_array().unwrap().iter().find(|p| p["name"] == "claude").unwrap();
    assert_eq!(claude["origin"], "builtin");
    assert!(claude["rules"].as_u64().unwrap() > 10);
}

const COMMANDS: [&str; 8] = ["classify", "explain", "test", "profiles", "show", "schema", "completions", "man"];

/// The long options that `faultsift [COMMAND] --help` lists.
fn help_flags(command: Option<&str>) -> Vec<String> {
    let out = Test::new().args(command).arg("--help").run().stdout;
    let mut flags: Vec<String> = out
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn item_3_a_man_page_for_every_command_with_options_exit_status_and_environment() {
    let has_man = std::process::Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success());
    for command in std::iter::once(None).chain(COMMANDS.map(Some)) {
        let roff = Test::new().arg("man").args(command).run().stdout;
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH \"SEE ALSO\""] {
            assert!(roff.contains(section), "{command:?}: no {section}");
        }
        // Every option of --help is on the page (roff writes `-` as `\-`).
        let page = roff.replace("\\-", "-");
        for flag in help_flags(command) {
            assert!(page.contains(&flag), "{command:?}: {flag} is in --help but not in the man page");
        }
        if let Some(name) = command {
            assert!(roff.contains(&format!("faultsift-{name}")), "{name}");
        }
        if has_man {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("page.1");
            std::fs::write(&file, &roff).unwrap();
            let out = std::process::Command::new("man").arg("-l").arg(&file).env("MANPAGER", "cat").output().unwrap();
            assert!(out.status.success(), "{command:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(String::from_utf8_lossy(&out.stdout).contains("EXIT STATUS"), "{command:?}");
        } else {
            eprintln!("man not installed: pages checked as roff only");
        }
    }
    let err = Test::new().args(["man", "nosuch"]).status(2).run().stderr;
    assert!(err.starts_with("faultsift: no command `nosuch`"), "{err}");
}

#[test]
fn item_11_completions_offer_profile_names_after_profile() {
    let t = Test::new().file("xdg/faultsift/profiles/mine.toml", "[[rule]]\nid = \"a\"\npattern = 'boom'\n");
    let xdg = t.path().join("xdg");
    let out = t
        .env("XDG_CONFIG_HOME", xdg)
        .env("FAULTSIFT_COMPLETE", "fish")
        .args(["--", "faultsift", "classify", "--profile", ""])
        .run()
        .stdout;
    let names: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    for want in ["claude", "mine", "builtin:claude"] {
        assert!(names.contains(&want), "{want} not in {names:?}");
    }
    assert!(!names.iter().any(|n| n.ends_with(".toml")), "no file names: {names:?}");
    let script = Test::new().args(["completions", "bash"]).run().stdout;
    assert!(script.contains("FAULTSIFT_COMPLETE"), "{script}");
}

#[test]
fn readme_option_tables_match_help() {
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    for command in ["classify", "explain"] {
        for flag in help_flags(Some(command)) {
            if ["--help", "--version"].contains(&flag.as_str()) {
                continue;
            }
            let documented = [" ", "`", ","].iter().any(|end| readme.contains(&format!("{flag}{end}")));
            assert!(documented, "README.md does not document {command} {flag}");
        }
    }
}
