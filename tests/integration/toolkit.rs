//! The profile authors' toolkit: `test`, `explain`, `profiles`, `show`,
//! `completions`, `man`.

use faultsift::profile::{Layer, Resolver, schema};

use crate::util::{Test, testdata};

/// Runs `faultsift test --format json` on one bad profile and returns the checks
/// that failed and warned.
fn checks_of(profile: &str) -> (Vec<String>, Vec<String>, serde_json::Value) {
    let path = testdata(&format!("profiles-bad/{profile}"));
    let t = Test::new().args(["test", "--format", "json", "--clean-logs"]).arg(testdata("clean-logs")).arg(&path);
    let status = if profile == "unknown-key.toml" { 0 } else { 1 };
    let out = t.status(status).run();
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let list =
        |key: &str| doc[key].as_array().unwrap().iter().map(|f| f["check"].as_str().unwrap().to_string()).collect();
    (list("failures"), list("warnings"), doc)
}

#[test]
fn each_check_fails_on_its_bad_profile() {
    let cases = [
        ("example.toml", "example"),
        ("counterexample.toml", "counterexample"),
        ("bait.toml", "bait"),
        ("self-match.toml", "self-match"),
        ("no-literal.toml", "no-literal"),
        ("bare-cause.toml", "bare-cause"),
        ("never-wins.toml", "never-wins"),
        ("unicode-repetition.toml", "unicode-repetition"),
        ("clean-log.toml", "clean-log"),
    ];
    for (file, check) in cases {
        let (failures, _, doc) = checks_of(file);
        assert!(failures.iter().any(|c| c == check), "{file}: expected a {check} failure, got {failures:?}");
        assert_eq!(doc["ok"], false);
    }
}

#[test]
fn unknown_top_level_keys_are_warnings() {
    let (failures, warnings, doc) = checks_of("unknown-key.toml");
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(warnings, ["unknown-key", "unknown-key"]);
    assert_eq!(doc["ok"], true);
}

#[test]
fn clean_log_failure_names_log_line_and_rule() {
    let (_, _, doc) = checks_of("clean-log.toml");
    let f = &doc["failures"][0];
    assert_eq!(f["rule"], "clean-log/timeout");
    assert!(f["location"].as_str().unwrap().ends_with("clean-logs/npm-test-session.log:5"), "{f}");
    assert_eq!(f["text"], "Error: request timed out after 3000ms");
}

#[test]
fn human_output_is_one_line_per_failure_then_a_summary() {
    let out = Test::new().arg("test").arg(testdata("profiles-bad/counterexample.toml")).status(1).run();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert!(lines[0].starts_with("FAIL counterexample/refused [counterexample]"), "{}", lines[0]);
    assert!(lines[0].contains("\"proxy: upstream connection refused in the test fixture\""));
    assert_eq!(lines[2], "faultsift test: 1 profile, 1 failure, 0 warnings");
}

#[test]
fn builtins_pass_every_check() {
    let out = Test::new().args(["test", "--format", "json"]).run();
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["ok"], true, "{}", out.stdout);
    let profiles = doc["profiles"].as_array().unwrap();
    let names: Vec<&str> = profiles.iter().map(|p| p["profile"].as_str().unwrap()).collect();
    let expected: Vec<&str> = faultsift::profile::builtin::BUILTINS.iter().map(|b| b.name).collect();
    assert_eq!(names, expected);
    for p in profiles {
        assert!(p["examples"].as_u64().unwrap() > 0, "{p}");
        if p["profile"] == "claude" {
            assert!(p["bait_lines"].as_u64().unwrap() >= 300, "the bait corpus is compiled in: {p}");
        }
    }
}

#[test]
fn test_exits_2_on_a_profile_that_does_not_load() {
    let out = Test::new().file("broken.toml", "[[rule]\n").args(["test", "broken.toml"]).status(2).run();
    assert!(out.stderr.starts_with("faultsift: broken.toml:1:"), "{}", out.stderr);
}

fn explain_output(color: &str) -> String {
    let out = Test::new()
        .args(["explain", "--profile", "claude", "--color", color])
        .arg(testdata("logs/claude-policy-refusal.log"))
        .run();
    out.stdout.replace(testdata("").to_str().unwrap(), "testdata/")
}

#[test]
fn explain_without_colour() {
    let text = explain_output("never");
    assert!(!text.contains('\x1b'));
    insta::assert_snapshot!(text);
}

#[test]
fn explain_with_colour() {
    let text = explain_output("always");
    assert!(text.contains("\x1b[1;31m"), "the match is painted");
    insta::assert_snapshot!(text);
}

#[test]
fn explain_respects_no_color() {
    // Not a terminal: auto is off; NO_COLOR does not override `always`.
    let auto =
        Test::new().args(["explain", "--profile", "claude"]).arg(testdata("logs/claude-overloaded.log")).run().stdout;
    assert!(!auto.contains('\x1b'));
    let always = Test::new()
        .env("NO_COLOR", "1")
        .args(["explain", "--profile", "claude", "--color", "always"])
        .arg(testdata("logs/claude-overloaded.log"))
        .run()
        .stdout;
    assert!(always.contains('\x1b'));
}

#[test]
fn profiles_lists_origin_shadows_and_counts() {
    let t = Test::new()
        .file(".faultsift/profiles/claude.toml", "extends = \"claude\"\n")
        .file(".faultsift/profiles/mine.toml", "[[rule]]\nid = \"x\"\npattern = '^mine: down$'\n");
    let out = t.args(["profiles", "--profile-dir", ".faultsift/profiles"]).run();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{}", out.stdout);
    let claude = lines.iter().find(|l| l.starts_with("claude ")).unwrap();
    assert!(claude.contains(".faultsift/profiles/claude.toml") && claude.ends_with("builtin"), "{claude}");
    assert!(claude.contains(" yes "), "inherits carries_model_output: {claude}");
    let mine = lines.iter().find(|l| l.starts_with("mine ")).unwrap();
    assert!(mine.split_whitespace().nth(1) == Some("1") && mine.ends_with('-'), "{mine}");
}

#[test]
fn show_round_trips_the_resolved_rules() {
    let overlay = "extends = \"claude\"\ndisable = [\"claude/bad-request\"]\n[[rule]]\nid = \"proxy\"\nkind = \"connection\"\npatterns = ['^proxy: down$', '^proxy: gone$']\ncase_insensitive = true\n";
    let t = Test::new().file(".faultsift/profiles/claude.toml", overlay);
    // Resolved in-process from the same files, before the run removes them.
    let layers = vec![Layer::Dir(t.path().join(".faultsift/profiles")), Layer::Builtin];
    let resolved = Resolver::new(layers).resolve("claude").unwrap();
    let shown = t.args(["show", "--profile-dir", ".faultsift/profiles", "claude"]).run().stdout;
    let reparsed = schema::parse("shown", "claude", &shown).unwrap();
    assert_eq!(reparsed.rules.len(), resolved.rules.len());
    assert!(reparsed.rules.iter().all(|r| r.id != "bad-request"));
    for (a, b) in reparsed.rules.iter().zip(&resolved.rules) {
        // The declaring profile is not part of the TOML; everything else is.
        assert_eq!(
            (&a.id, &a.kind, a.action, &a.patterns, a.case_insensitive),
            (&b.id, &b.kind, b.action, &b.patterns, b.case_insensitive)
        );
        assert_eq!(
            (&a.description, &a.source, &a.examples, &a.counterexamples),
            (&b.description, &b.source, &b.examples, &b.counterexamples)
        );
    }
    assert_eq!(reparsed.carries_model_output, Some(resolved.carries_model_output));
}

#[test]
fn a_shown_builtin_passes_every_check_and_classifies_as_the_builtin() {
    // Saved and checked as a profile author would: `show X > x.toml; test x.toml`.
    let builtins = Test::new().args(["test", "--format", "json"]).run();
    let builtins: serde_json::Value = serde_json::from_str(&builtins.stdout).unwrap();
    for b in builtins["profiles"].as_array().unwrap() {
        let name = b["profile"].as_str().unwrap();
        let shown = Test::new().args(["show", name]).run().stdout;
        let out = Test::new().file("shown.toml", &shown).args(["test", "--format", "json", "shown.toml"]).run();
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let p = &doc["profiles"][0];
        // A multi-line example written as a multi-line string starts its
        // lines at the first column, where the profile's own rules read it.
        assert_eq!(doc["failures"], serde_json::json!([]), "{name}");
        for key in ["rules", "examples", "counterexamples", "corpus_train", "corpus_test"] {
            assert_eq!(p[key], b[key], "{name}: {key}");
        }
    }
}

#[test]
fn completions_and_man_page() {
    // The scripts register the binary as its own completer (clap_complete's
    // dynamic completions): they hold no option names, the binary answers.
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = Test::new().args(["completions", shell]).run();
        assert!(
            out.stdout.contains("faultsift") && out.stdout.contains("FAULTSIFT_COMPLETE"),
            "{shell}: {}",
            out.stdout
        );
    }
    let out =
        Test::new().env("FAULTSIFT_COMPLETE", "fish").args(["--", "faultsift", "classify", "--tail"]).run().stdout;
    assert!(out.contains("--tail-bytes"), "{out}");
    let man = Test::new().arg("man").run().stdout;
    assert!(man.starts_with(".ie") || man.contains(".TH FAULTSIFT"), "{}", &man[..200.min(man.len())]);
}

#[test]
fn every_help_ends_with_examples() {
    for cmd in ["classify", "explain", "test", "profiles", "show", "schema", "completions", "man"] {
        let out = Test::new().args([cmd, "--help"]).run();
        let tail: Vec<&str> = out.stdout.trim_end().lines().rev().take_while(|l| !l.is_empty()).collect();
        assert!(tail.last().is_some_and(|l| l.starts_with("Examples:")), "{cmd}:\n{}", out.stdout);
    }
}

/// The `a/b` figures of a line of `faultsift test`, in order.
fn fractions(line: &str) -> Vec<(u64, u64)> {
    line.split([' ', ',', ';'])
        .filter_map(|t| t.split_once('/'))
        .filter_map(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .collect()
}

#[test]
fn agents_together_sums_the_agent_profiles_corpus_figures_and_leaves_ci_out() {
    let out = Test::new().args(["test", "claude", "gemini", "ci"]).run().stdout;
    let line = |start: &str| out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start}: {out}"));
    let (claude, gemini) = (fractions(line("ok   claude ")), fractions(line("ok   gemini ")));
    // As printed train, test, test not quoted by the profile; alone train, test.
    assert_eq!((claude.len(), gemini.len(), fractions(line("ok   ci ")).len()), (5, 5, 5), "{out}");
    let together = line("agents together (2 profiles): ");
    let sum: Vec<(u64, u64)> = claude.iter().zip(&gemini).map(|(a, b)| (a.0 + b.0, a.1 + b.1)).collect();
    assert_eq!(fractions(together), sum, "{out}");
    // One agent profile alone has no such line.
    assert!(!Test::new().args(["test", "claude", "ci"]).run().stdout.contains("agents together"));
}
