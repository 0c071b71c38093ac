//! Hostile profiles (issue 7 §2): profiles come from any project's
//! `.faultsift/profiles/`, so a broken, huge or pathological one must end in
//! one clear error line naming the rule (or the limit), quickly; and a valid
//! but slow one must still answer by its deadline.

use std::time::{Duration, Instant};

use faultsift::Action;

use crate::hostile::{FAULT, LIMIT, one_error, run, run_bounded, verdict, verdicts_or_one_error};
use crate::util::Test;

/// A test directory holding `p.toml` with `text`, running `classify` with it.
fn with_profile(text: impl AsRef<[u8]>) -> Test {
    let t = Test::new().file("p.toml", text);
    let p = t.path().join("p.toml");
    t.args(["classify", "--profile"]).arg(p)
}

/// The one error line of loading `text` as a profile (classify of /dev/null).
fn load_error(text: impl AsRef<[u8]>) -> String {
    let line = one_error(&with_profile(text).arg("/dev/null"));
    assert!(line.starts_with("faultsift: ") && line.contains("p.toml"), "names the profile: {line}");
    line
}

#[test]
fn broken_toml_is_one_line_with_line_and_column() {
    let deep_arrays = format!("x = {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let deep_tables = format!("x = {}1{}\n", "{a = ".repeat(50_000), "}".repeat(50_000));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("unclosed table header", b"name = \"x\"\n[[rule]\nid = 1\n".to_vec(), ":2:"),
        ("unterminated string", b"[[rule]]\nid = \"a\npattern = 'x'\n".to_vec(), ":2:"),
        ("key without value", b"\n\n= 1\n".to_vec(), ":3:"),
        ("duplicate key", b"name = 'a'\nname = 'b'\n".to_vec(), ":2:"),
        ("NUL in a string", b"name = \"a\0b\"\n".to_vec(), ":1:"),
        ("escape in a string", b"name = \"\x1b[31m\"\n".to_vec(), ":1:"),
        ("rule is not a table", b"rule = 5\n".to_vec(), "p.toml"),
        ("100,000 nested arrays", deep_arrays.into_bytes(), ":1:"),
        ("50,000 nested inline tables", deep_tables.into_bytes(), ":1:"),
        ("binary garbage", crate::hostile::Rng::new(3).bytes(4096), "p.toml"),
    ];
    for (name, text, needle) in cases {
        let line = load_error(&text);
        assert!(line.contains(needle), "{name}: {line}");
        // `test` reports the same profile as one clear error line too (and
        // its report, with a `load` failure, on stdout: issue 20.7).
        let t = Test::new().file("p.toml", &text);
        let p = t.path().join("p.toml");
        let out = t.arg("test").arg(p).status(2).run();
        assert_eq!(out.stderr.lines().count(), 1, "{name}: {}", out.stderr);
        assert!(out.stderr.starts_with("faultsift: ") && out.stderr.contains("p.toml"), "{name}: {}", out.stderr);
        assert!(out.stdout.contains("[load]"), "{name}: {}", out.stdout);
    }
    let line = load_error(b"name = \"\xff\xfe\"\n");
    assert!(line.contains("cannot read profile") && line.contains("UTF-8"), "{line}");
}

#[test]
fn ids_and_keys_cannot_split_or_colour_the_error_line() {
    // An id holding a line break and terminal escapes, in a rule that is wrong
    // for another reason (so the id is quoted before it is validated).
    let line = load_error("[[rule]]\nid = \"a\\nb\\u001b]0;pwned\\u0007\"\npatern = 'x'\n");
    // The one sanitiser (src/output/safe.rs) makes them blanks.
    assert!(line.contains("rule `a b ]0;pwned `") && line.contains("patern"), "{line}");
    let line = load_error("[[rule]]\nid = \"ok\"\npattern = 'x'\n\"\\u001b[31mevil\" = 1\n");
    assert!(line.contains("rule `ok`") && line.contains(" [31mevil") && !line.contains('\u{1b}'), "{line}");
    // Such ids are refused even in an otherwise valid rule: they would reach
    // verdicts, reports and CI pages.
    for id in ["a\\u202Eb", "a\\u001b[31m", "a\\u0085b"] {
        let line = load_error(format!("[[rule]]\nid = \"{id}\"\npattern = 'x'\n"));
        assert!(line.contains("control characters") && !line.contains('\u{1b}'), "{line}");
    }
    let line = load_error("[[rule]]\nid = \"a\\u202Eb\"\npattern = 'x'\n");
    assert!(line.contains("`a b`") && !line.contains('\u{202e}'), "a bidirectional override is blanked too: {line}");
}

#[test]
fn every_rejection_names_its_rule() {
    let mib = "a".repeat(1 << 20);
    let nest = |open: &str, close: &str| format!("{}x{}", open.repeat(1000), close.repeat(1000));
    let cases: Vec<(String, &str, &str)> = vec![
        (format!("[[rule]]\nid = \"huge\"\npattern = '{mib}'\n"), "huge", "the limit is 4096"),
        (format!("env_fault_patterns = ['{mib}']\n"), "env_fault_patterns[0]", "the limit is 4096"),
        (format!("[[rule]]\nid = \"second\"\npatterns = ['ok', '{mib}']\n"), "second", "the limit is 4096"),
        ("[[rule]]\nid = \"wrep\"\npattern = '\\w{1000}{1000}'\n".into(), "wrep", "compiles to more than"),
        ("[[rule]]\nid = \"count\"\npattern = 'a{4294967295}'\n".into(), "count", "compiles to more than"),
        ("[[rule]]\nid = \"fold\"\npattern = '\\w{400}'\ncase_insensitive = true\n".into(), "fold", "compiles to more than"),
        (format!("[[rule]]\nid = \"groups\"\npattern = '{}'\n", nest("(", ")")), "groups", "nested"),
        (format!("[[rule]]\nid = \"noncap\"\npattern = '{}'\n", nest("(?:", ")")), "noncap", "nested"),
        (format!("[[rule]]\nid = \"classes\"\npattern = '{}'\n", nest("[", "]")), "classes", "nested"),
        (format!("[[rule]]\nid = \"alts\"\npattern = '{}'\n", nest("(a|", ")")), "alts", "nested"),
        (format!("[[rule]]\nid = \"reps\"\npattern = 'x{}'\n", "{2}".repeat(100)), "reps", "nested"),
        ("[[rule]]\nid = \"reps30\"\npattern = 'x{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}'\n".into(), "reps30", "compiles to more than"),
        ("[[rule]]\nid = \"look\"\npattern = '(?<!x)y'\n".into(), "look", "look-around"),
        ("[[rule]]\nid = \"backref\"\npattern = '(a)\\1'\n".into(), "backref", "back-reference"),
        ("[[rule]]\nid = \"empty\"\npattern = '(?:x|)*'\n".into(), "empty", "empty string"),
        ("[[rule]]\nid = \"dup\"\npattern = 'x'\n[[rule]]\nid = \"dup\"\npattern = 'y'\n".into(), "dup", "duplicate"),
        ("[[rule]]\nid = \"act\"\npattern = 'x'\naction = \"rm -rf\"\n".into(), "act", "unknown action"),
        ("[[rule]]\nid = \"a/b\"\npattern = 'x'\n".into(), "a/b", "must be non-empty"),
        ("[[rule]]\nid = \"nopat\"\n".into(), "nopat", "exactly one of"),
    ];
    for (text, rule, needle) in cases {
        let started = Instant::now();
        let line = load_error(&text);
        let took = started.elapsed();
        assert!(line.contains(&format!("rule `{rule}`")) && line.contains(needle), "{rule}: {line}");
        assert!(line.chars().count() < 600, "the reason is not buried under the pattern: {line}");
        assert!(took < Duration::from_secs(10), "{rule} took {took:?} to reject");
    }
}

/// Many patterns that each fit the size limit but not together: the profile
/// as a whole is bounded (16 MiB of automata), so loading it is one quick error
/// rather than gigabytes and minutes of compiling. (Before the whole-profile
/// check, 50 such rules took 15 s and 900 MB to load, release build.)
/// `\w{100}` fits (1.7 MB each, so the tenth crosses it).
#[test]
fn many_mid_sized_patterns_are_bounded_as_a_whole() {
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("[[rule]]\nid = \"mid{i}\"\npattern = '\\w{{100}}x{i}'\n"));
    }
    let started = Instant::now();
    let line = load_error(&text);
    let took = started.elapsed();
    assert!(line.contains("rule `mid9`") && line.contains("limit together"), "{line}");
    println!("200 rules of \\w{{100}}: rejected in {took:?}");
}

/// A fragment just within the pattern limit, referred to from thousands of
/// patterns, would expand to far more than the file (a 4 MiB file holds half
/// a million references): expansion stops at the file's budget with one line,
/// naming what was left of it, before any other limit is checked.
#[test]
fn a_define_bomb_is_one_clear_error() {
    let refs = vec!["'{{big}}'"; 20_000].join(", ");
    let text = format!("[define]\nbig = '{}'\n[[rule]]\nid = \"bomb\"\npatterns = [{refs}]\n", "a".repeat(4000));
    let line = load_error(&text);
    assert!(line.contains("rule bomb") && line.contains("expands to more than"), "{line}");
    assert!(!line.contains("more than 4096 bytes"), "the file's budget, not the pattern limit, stopped it: {line}");
    // A fragment over the pattern limit is refused at its first reference.
    let text = format!("[define]\nbig = '{}'\n[[rule]]\nid = \"one\"\npattern = '{{{{big}}}}'\n", "a".repeat(1 << 20));
    let line = load_error(&text);
    assert!(line.contains("rule one") && line.contains("more than 4096 bytes"), "{line}");
    // Small fragments within the budget still expand and then meet the pattern limit.
    let text =
        format!("[define]\nk = '{}'\n[[rule]]\nid = \"long\"\npattern = '{}'\n", "b".repeat(100), "{{k}}".repeat(50));
    let line = load_error(&text);
    assert!(line.contains("rule long") && line.contains("more than 4096 bytes"), "{line}");
}

/// 10,000 rules: over the 1,000-pattern limit, a clear error naming it, before
/// any regex is compiled. Measured before the limit (release build): 10,000
/// simple rules loaded in 1.9 s (156 MB), 10,000 case-insensitive rules with
/// `\w` in 14.5 s (768 MB). With it: the figure printed below.
#[test]
fn ten_thousand_rules_are_one_clear_error() {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[rule]]\nid = \"r{i}\"\nkind = \"k\"\npattern = 'fault number {i} occurred: [a-z]+'\n"
        ));
    }
    let t = with_profile(&text).arg("-");
    let started = Instant::now();
    let r = run(&t, Some(b"fault number 9999 occurred: boom\n".to_vec()));
    let took = started.elapsed();
    verdicts_or_one_error(&r);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("10000 patterns; the limit is 1000"), "{}", r.stderr);
    println!("10,000 rules: rejected in {took:?}");

    // At the limit, it loads and classifies.
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!(
            "[[rule]]\nid = \"r{i}\"\nkind = \"k\"\npattern = 'fault number {i} occurred: [a-z]+'\n"
        ));
    }
    let started = Instant::now();
    let v = verdict(&with_profile(&text).arg("-"), Some(b"noise\nfault number 999 occurred: boom\n".to_vec()));
    println!("1,000 rules: loaded and classified in {:?}", started.elapsed());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("p/r999")));
}

/// A profile of rules that the regex engine runs slowly on Unicode text: no
/// required literal (so every line meets every rule), Unicode `\b` (so the lazy
/// DFA gives up on non-ASCII text and the NFA simulation runs). Without a
/// deadline, on this machine: 4 MiB of 200-byte lines take 8.4 s (release
/// build) and 10.6 s (debug); 4 MiB of 512 KiB lines 12.6 s (release) — the
/// 64 MiB window below, minutes.
const SLOW_PROFILE: &str = "
[[rule]]\nid = \"slow0\"\npattern = '\\b(?:\\w+\\s){2}\\d{3}\\b'
[[rule]]\nid = \"slow1\"\npattern = '\\b(?:\\w+\\s){3}\\d{4}\\b'
[[rule]]\nid = \"slow2\"\npattern = '\\b(?:\\w+\\s){4}\\d{5}\\b'
[[rule]]\nid = \"slow3\"\npattern = '\\b(?:\\w+\\s){5}\\d{6}\\b'
[[rule]]\nid = \"slow4\"\npattern = '\\b(?:\\w+\\s){2}\\d{7}\\b'
[[rule]]\nid = \"slow5\"\npattern = '\\b(?:\\w+\\s){3}\\d{8}\\b'
[[rule]]\nid = \"slow6\"\npattern = '\\b(?:\\w+\\s){4}\\d{9}\\b'
[[rule]]\nid = \"slow7\"\npattern = '\\b(?:\\w+\\s){5}\\d{10}\\b'
";

fn unicode_lines(total: usize, line_len: usize) -> Vec<u8> {
    let word = "héllo wörld ünïcödé ";
    let line: String = word.chars().cycle().take(line_len).collect();
    let mut out = Vec::with_capacity(total + line_len);
    while out.len() < total {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out.truncate(total);
    out
}

/// Runs the slow profile over `log` with `--timeout 200ms` and checks that the
/// `timed_out` verdict came within the deadline plus a generous grace, over
/// what the same run costs on an empty log (start-up, profile compile).
fn assert_deadline_holds(log: Vec<u8>) {
    let t = Test::new().file("slow.toml", SLOW_PROFILE).file("slow.log", &log);
    let p = t.path().join("slow.toml");
    let args = |t: Test| t.args(["classify", "--tail-bytes", "64MiB", "--timeout", "200ms", "--profile"]).arg(&p);
    let t = args(t);
    let baseline = run_bounded(args(Test::new()).arg("/dev/null").command(), None, LIMIT);
    assert_eq!(baseline.code, Some(0), "{}", baseline.stderr);
    let r = run_bounded(t.arg("slow.log").command(), None, LIMIT);
    let v = verdicts_or_one_error(&r).remove(0);
    assert_eq!(r.code, Some(0));
    assert!(v.timed_out, "the scan cannot finish in 200ms: {v:?}");
    assert_eq!(v.action, Action::Charge);
    assert!(v.reason.contains("200ms deadline"), "{}", v.reason);
    let grace = Duration::from_millis(200 + 1500);
    println!(
        "slow profile, {} bytes: verdict after {:?} (empty log: {:?}; scan {} µs)",
        log.len(),
        r.elapsed,
        baseline.elapsed,
        v.elapsed_us
    );
    assert!(r.elapsed < baseline.elapsed + grace, "took {:?} (empty log {:?})", r.elapsed, baseline.elapsed);
    assert!(v.elapsed_us < grace.as_micros() as u64, "{} µs", v.elapsed_us);
}

#[test]
fn a_slow_profile_answers_by_its_deadline_on_long_lines() {
    // 64 MiB of 512 KiB lines: the deadline is checked between lines, and one
    // line's search outlasts the grace, so it is the watchdog that answers,
    // 100 ms past the deadline.
    assert_deadline_holds(unicode_lines(64 << 20, 512 << 10));
}

#[test]
fn a_slow_profile_answers_by_its_deadline_on_short_lines() {
    assert_deadline_holds(unicode_lines(4 << 20, 200));
}

/// The scan stops by itself at the deadline (without the watchdog): through
/// the library, on lines short enough for its checks between lines.
#[test]
fn the_scan_itself_stops_at_the_deadline() {
    let t = Test::new().file("slow.toml", SLOW_PROFILE);
    let resolver = faultsift::profile::Resolver::new(vec![faultsift::profile::Layer::Builtin]);
    let profile = resolver.resolve(t.path().join("slow.toml").to_str().unwrap()).unwrap();
    let compiled = faultsift::CompiledProfile::compile(profile, "slow.toml").unwrap();
    let cleaned = faultsift::pipeline::clean::clean(&unicode_lines(4 << 20, 200), false);
    let started = Instant::now();
    let scan = compiled.scan(&cleaned, Some(started + Duration::from_millis(200)));
    let took = started.elapsed();
    assert!(scan.timed_out);
    assert!(took < Duration::from_millis(200 + 1500), "{took:?}");
}

#[test]
fn a_broken_overlay_breaks_only_its_own_name() {
    // An overlay in the project's .faultsift/profiles that is broken: classify
    // with that name stops with one clear line; other profiles are unaffected.
    let t = Test::new().file(".faultsift/profiles/claude.toml", "[[rule]\n");
    let line =
        one_error(&t.args(["classify", "--profile-dir", ".faultsift/profiles", "--profile", "claude", "/dev/null"]));
    assert!(line.contains(".faultsift/profiles/claude.toml:1:"), "{line}");
    let t = Test::new().file(".faultsift/profiles/claude.toml", "[[rule]\n");
    let v = verdict(
        &t.args(["classify", "--profile-dir", ".faultsift/profiles", "--profile", "codex", "-"]),
        Some(format!("{FAULT}\n").into_bytes()),
    );
    assert_eq!(v.profile, "codex");
}

/// `explain` lists every matching line in a second pass over the window: that
/// pass has a deadline too (before it had none: 8.1 s for the 4 MiB log below
/// with `--timeout 200ms`, release build).
#[test]
fn explain_holds_its_deadline_with_a_slow_profile() {
    let t = Test::new().file("slow.toml", SLOW_PROFILE).file("slow.log", unicode_lines(4 << 20, 200));
    let p = t.path().join("slow.toml");
    let t = t.args(["explain", "slow.log", "--tail-bytes", "64MiB", "--timeout", "200ms", "--profile"]).arg(p);
    let r = run(&t, None);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("200ms deadline"), "{}", r.stdout);
    println!("explain with a slow profile: {:?}", r.elapsed);
    assert!(r.elapsed < Duration::from_millis(2 * 200 + 2500), "{:?}", r.elapsed);
}

/// A profile file is read up to 4 MiB: parsing costs some 40 times the file in
/// memory (before the cap, a 48 MB profile took 17.5 s and 1.8 GB to load), and
/// a device or a huge file in an overlay must not take the machine.
#[test]
fn huge_profile_files_are_refused() {
    let mut big = String::from("# a large comment block\n");
    while big.len() <= 4 << 20 {
        big.push_str("x = [\"padding\", \"padding\", \"padding\", \"padding\", \"padding\", \"padding\"]\n# \n");
        big.push_str(&format!("k{} = 1\n", big.len()));
    }
    let line = load_error(&big);
    assert!(line.contains("larger than the 4 MiB limit"), "{line}");
    for device in ["/dev/zero", "/dev/urandom"] {
        let line = one_error(&Test::new().args(["classify", "--profile", device, "/dev/null"]));
        assert!(line.contains(device) && line.contains("not a regular file"), "{line}");
    }
}

/// In a batch, the watchdog answers for each stuck log in turn and a fresh
/// worker takes the next: with one worker, two logs that cannot finish and a
/// plain one still give three verdicts, in input order, the plain one scanned.
#[test]
fn a_batch_gets_past_stuck_logs_in_order() {
    let slow = unicode_lines(64 << 20, 512 << 10);
    let t = Test::new()
        .file("slow.toml", SLOW_PROFILE)
        .file("logs/a.log", &slow)
        .file("logs/b.log", &slow)
        .file("logs/c.log", "nothing here\n");
    let p = t.path().join("slow.toml");
    let logs = t.path().join("logs");
    let t =
        t.args(["classify", "-j", "1", "--tail-bytes", "64MiB", "--timeout", "200ms", "--profile"]).arg(&p).arg(&logs);
    let r = run_bounded(t.command(), None, LIMIT);
    let v = verdicts_or_one_error(&r);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let names: Vec<&str> = v.iter().map(|v| v.log.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, ["a.log", "b.log", "c.log"]);
    assert!(v[0].timed_out && v[1].timed_out, "{v:?}");
    assert!(!v[2].timed_out && v[2].action == Action::Charge && v[2].error.is_none(), "{:?}", v[2]);
    // Each stuck scan is answered 100 ms past its 200 ms deadline; reading
    // 64 MiB twice and starting up come on top.
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}
