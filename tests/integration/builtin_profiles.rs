//! The built-in profiles against the shared corpus (`testdata/corpus/`) and the
//! bait corpus (`testdata/bait/`), in-process through the same pipeline as the
//! binary: every real outage line of a CLI, placed in a realistic log, is an
//! environment fault with that CLI's profile; no bait or not-fault line is one
//! with any pane-capture profile; the executor fixtures map as issue 3 says.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use faultsift::commands::corpus;
use faultsift::pipeline::window;
use faultsift::{Action, Pipeline, Verdict, WindowSpec};

use crate::util::{builtin_pipeline, testdata};

/// The pipeline of the built-in profile `name`, built once per test binary.
/// A pipeline compiles a pattern the first time a line needs it and keeps it,
/// so the tests that classify every corpus line share one per profile rather
/// than compiling the profile again for each line (which took most of CI's
/// test time); what it keeps never changes a verdict.
fn compiled(name: &str) -> &'static Pipeline {
    static PIPELINES: LazyLock<BTreeMap<&'static str, Pipeline>> = LazyLock::new(|| {
        faultsift::profile::builtin::BUILTINS
            .iter()
            .map(|b| (b.name, builtin_pipeline(b.name, Some("timeout"))))
            .collect()
    });
    &PIPELINES[name]
}

fn classify(profile: &Pipeline, log: &[u8]) -> Verdict {
    profile.classify_window("-", window::from_bytes(log, WindowSpec::default())).verdict
}

/// A pane capture around `line`: a prompt, colours, a spinner repainted with
/// CR, the line in red, then the prompt again.
fn realistic_log(line: &str) -> Vec<u8> {
    let mut log = String::new();
    log.push_str("\x1b]0;agent session\x07\x1b[1m> \x1b[0mfix the failing build\r\n");
    log.push_str("\x1b[38;5;246m⏺\x1b[0m Reading src/main.rs\r\n");
    log.push_str("\r\x1b[2K✢ Working… (3s)\r\x1b[2K✳ Working… (4s)\r\n");
    log.push_str(&format!("\x1b[31m{line}\x1b[0m\r\n"));
    log.push_str("\x1b[2K\x1b[1G> \r\n");
    log.into_bytes()
}

/// `line` as a tmux pane `width` columns wide shows it when captured without
/// `-J`: cut by columns into rows (a wide character that does not fit moved
/// whole to the next row), each row's trailing blanks trimmed.
fn wrap(line: &str, width: usize) -> String {
    let mut rows = vec![(String::new(), 0)];
    for c in line.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if rows.last().unwrap().1 + w > width {
            rows.push((String::new(), 0));
        }
        let row = rows.last_mut().unwrap();
        row.0.push(c);
        row.1 += w;
    }
    rows.iter().map(|(r, _)| r.trim_end_matches(' ')).collect::<Vec<_>>().join("\r\n")
}

/// `line` as a program with a TUI wraps it in a pane `width` columns wide:
/// greedily at word boundaries, the rows that go on indented to the text
/// after the line's leading blanks and glyphs (Codex's `└` too: codex-rs
/// tui's exec cell lays its output out as `PrefixedBlock::new("  └ ", "    ")`).
fn word_wrap(line: &str, width: usize) -> String {
    let glyphs = ['⎿', '⏺', '●', '■', '✕', '✗', '⚠', '✻', '│', '└', '\u{fe0f}'];
    let lead: String = line.chars().take_while(|c| *c == ' ' || *c == '\t' || glyphs.contains(c)).collect();
    let indent = " ".repeat(lead.chars().count());
    let text_width = width.saturating_sub(lead.chars().count()).max(10);
    let rows = crate::util::word_rows(&line[lead.len()..], text_width);
    rows.iter()
        .enumerate()
        .map(|(i, r)| format!("{}{r}", if i == 0 { &lead } else { &indent }))
        .collect::<Vec<_>>()
        .join("\r\n")
}

/// Each bait line wider than a width of `widths`, made into a log by `log`
/// (the line, the width) and classified with every pane-capture profile:
/// how many tries, and those that were an environment fault.
fn bait_fired(widths: &[usize], log: impl Fn(&str, usize) -> String) -> (usize, Vec<String>) {
    let bait: Vec<_> = faultsift::commands::bait::lines().collect();
    let (mut tried, mut fired) = (0, Vec::new());
    for p in &pane_profiles() {
        for b in &bait {
            for &width in widths.iter().filter(|&&w| unicode_width::UnicodeWidthStr::width(b.text) > w) {
                tried += 1;
                let v = classify(p, &realistic_log(&log(b.text, width)));
                if v.env_fault {
                    let name = &p.profile().unwrap().name;
                    fired.push(format!("{name} {width} {:?} at {}:{}: {}", v.rule, b.file, b.line, b.text));
                }
            }
        }
    }
    (tried, fired)
}

fn tsv(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(testdata(&format!("corpus/{name}"))).unwrap();
    text.lines().skip(1).map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

#[test]
fn every_line_of_the_shared_sample_is_an_environment_fault_for_its_cli() {
    let rows: Vec<_> = tsv("real.tsv").into_iter().filter(|r| r[6].starts_with("from the shared sample")).collect();
    assert!(rows.len() >= 70, "the shared sample is in the corpus: {}", rows.len());
    let mut missed = Vec::new();
    for row in &rows {
        let (cli, line) = (&row[0], &row[2]);
        let profile = compiled(corpus::profile_for(cli));
        let v = classify(profile, &realistic_log(line));
        if !v.env_fault {
            missed.push(format!("{cli} ({}): {line}", profile.profile().unwrap().name));
        }
    }
    assert!(missed.is_empty(), "{} missed:\n{}", missed.len(), missed.join("\n"));
}

fn pane_profiles() -> Vec<&'static Pipeline> {
    faultsift::profile::builtin::BUILTINS
        .iter()
        .map(|b| compiled(b.name))
        .filter(|p| p.profile().unwrap().carries_model_output)
        .collect()
}

#[test]
fn no_bait_line_is_an_environment_fault() {
    let profiles = pane_profiles();
    assert!(profiles.len() >= 8, "pane-capture profiles: {}", profiles.len());
    let bait: Vec<_> = faultsift::commands::bait::lines().collect();
    assert!(bait.len() >= 300, "bait lines: {}", bait.len());
    let mut fired = Vec::new();
    for p in &profiles {
        for b in &bait {
            let v = classify(p, &realistic_log(b.text));
            if v.env_fault {
                fired.push(format!("{} {:?} at {}:{}: {}", p.profile().unwrap().name, v.rule, b.file, b.line, b.text));
            }
        }
    }
    assert!(fired.is_empty(), "{} false positives:\n{}", fired.len(), fired.join("\n"));
}

/// `ci` reads tools, not a model, so bait is not its precision bar: in a CI
/// log a network failure is the runner's whoever made the request, and a
/// healthy project's test output that prints one (uv's simulated outages,
/// a logger's `getaddrinfo ENOTFOUND`) is one there. The hand-collected
/// bait it fires on is measured, held to a ceiling and stated in GUIDE.md:
/// 103 of 10,996 lines on 2026-12-02 (90 before the sweeps of the mirrored
/// repositories, 13 of them uv's snapshots and one npm line); 128 of 11,930
/// with the review of 3 December, whose tool results print getaddrinfo and
/// axios failures.
#[test]
fn ci_fires_on_few_hand_collected_bait_lines() {
    let ci = compiled("ci");
    let bait: Vec<_> = faultsift::commands::bait::lines().filter(|b| b.file != "profile-files.txt").collect();
    let fired: Vec<_> = bait
        .iter()
        .filter(|b| classify(ci, b.text.as_bytes()).env_fault)
        .map(|b| format!("{}:{}: {}", b.file, b.line, b.text))
        .collect();
    eprintln!("ci: {} of {} hand-collected bait lines fire", fired.len(), bait.len());
    crate::util::assert_doc_says(
        "GUIDE.md",
        &format!("{} of the {} hand-collected bait lines", fired.len(), crate::util::thousands(bait.len())),
    );
    assert!(fired.len() <= 106, "{} fired:\n{}", fired.len(), fired.join("\n"));
}

/// A healthy session run as a CI step: every bait line behind GitHub
/// Actions' time stamp, and behind `gh run view --log`'s job and step, is no
/// fault either: the matcher reads a stamped line as it is and after the
/// stamp, and neither reading may find what the bare line does not.
#[test]
fn no_bait_line_behind_a_ci_host_s_stamp_is_an_environment_fault() {
    let bait: Vec<_> = faultsift::commands::bait::lines().collect();
    let mut fired = Vec::new();
    for p in &pane_profiles() {
        for b in &bait {
            for stamp in ["2026-11-30T12:00:00.1234567Z ", "agent\tRun the agent\t2026-11-30T12:00:00.1234567Z "] {
                let v = classify(p, &realistic_log(&format!("{stamp}{}", b.text)));
                if v.env_fault {
                    let name = &p.profile().unwrap().name;
                    fired.push(format!("{name} {:?} at {}:{}: {}", v.rule, b.file, b.line, b.text));
                }
            }
        }
    }
    assert!(fired.is_empty(), "{} false positives:\n{}", fired.len(), fired.join("\n"));
}

/// Bait wrapped by a narrow pane: its rows, and the lines re-joined from
/// them, are no fault either, in a pane that shows its cuts elsewhere (a long
/// line of the session's own output above). Alone in a pane, a line cut into
/// two rows shows one cut, which does not prove a pane: its second row is
/// read as a line, and fires when the cut fell just before fault words
/// (measured here, and bounded; `capture-pane -J` avoids it).
#[test]
fn no_bait_line_is_an_environment_fault_when_a_pane_wraps_it() {
    let above = "⏺ I read the build script, the workflow file and the lockfile; the failing step runs the \
                 integration suite against the staging database, so I will rerun it locally with the same \
                 environment variables and compare the two outputs line by line before changing anything.";
    let (tried, fired) =
        bait_fired(&[80, 120], |text, width| format!("{}\r\n{}", wrap(above, width), wrap(text, width)));
    let (_, fired_alone) = bait_fired(&[80, 120], wrap);
    eprintln!("{tried} wrapped bait lines tried; alone in the pane, {} fired", fired_alone.len());
    assert!(tried >= 10_000, "wrapped bait tried: {tried}");
    assert!(fired.is_empty(), "{} false positives:\n{}", fired.len(), fired.join("\n"));
    // 17 of 103,780 when measured (2026-12-01); 16 of 131,450 with the
    // mirrors' sweep as bait and goose's variant rules narrowed (2026-12-02).
    assert!(fired_alone.len() <= 16, "{} false positives alone:\n{}", fired_alone.len(), fired_alone.join("\n"));
}

/// Programs with a TUI (Claude Code, Codex, Gemini CLI, Copilot CLI, …) wrap
/// their own lines at word boundaries before the pane's edge, and indent the
/// rows that go on to the text after the line's glyph; the re-join reads a
/// row so indented, whose first word would not have fitted above, as going
/// on (`crate::pipeline::rejoin`). A caught `train` line word-wrapped so
/// (greedily) is still caught in 397 of 435 cases at 80 columns and 317 at 60
/// (2026-12-01, after the ninth collection and the rules that leave a wrapped
/// URL or size to the next row; 371 of 418 and 301 before, 358 and 298
/// without that reading); under a rule as wide as the pane, as a TUI draws
/// one, 395 and 343 (at 60 the rows alone are
/// narrower than any pane the re-join reads). What stays missed is mostly a
/// line with no glyph or indent, whose rows no program indents. The floors
/// keep those from falling.
#[test]
fn train_lines_a_program_word_wraps_itself() {
    let agents: Vec<_> =
        corpus::lines().filter(|l| l.split == corpus::Split::Train && corpus::profile_for(l.cli) != "ci").collect();
    let mut caught = 0;
    let (mut kept, mut ruled) = ([0usize; 2], [0usize; 2]);
    for line in &agents {
        let profile = compiled(corpus::profile_for(line.cli));
        if !classify(profile, &realistic_log(line.line)).env_fault {
            continue;
        }
        caught += 1;
        for (k, width) in [80, 60].into_iter().enumerate() {
            let wrapped = word_wrap(line.line, width);
            kept[k] += usize::from(classify(profile, &realistic_log(&wrapped)).env_fault);
            // Under the rule a TUI draws as wide as its pane (Claude Code's
            // and Copilot CLI's prompt box), which shows the pane's width.
            let rule = "─".repeat(width);
            ruled[k] += usize::from(classify(profile, &realistic_log(&format!("{wrapped}\r\n{rule}"))).env_fault);
        }
    }
    eprintln!(
        "word-wrapped by the program: {}/{caught} at 80 columns, {}/{caught} at 60; under a rule as wide as the pane, {} and {}",
        kept[0], kept[1], ruled[0], ruled[1]
    );
    crate::util::assert_doc_says(
        "GUIDE.md",
        &format!(
            "still caught in {} of {caught} cases at 80 columns and {} at 60; under a rule as wide as the pane, as Claude Code and Copilot CLI draw one around their prompt, {} and {}",
            kept[0], kept[1], ruled[0], ruled[1]
        ),
    );
    crate::util::assert_doc_says("GUIDE.md", &format!("word-wrapped itself in {} of {caught} at 80 columns", kept[0]));
    // 0.88 at 80 columns until the sixteenth session's rules (612/693): the
    // lines they catch are mostly logs on standard error (the SDK's
    // `[log_…] post <long url> failed …`), which no TUI word-wraps in a real
    // pane.
    assert!(kept[0] as f64 >= 0.87 * caught as f64 && kept[1] as f64 >= 0.70 * caught as f64, "{kept:?} of {caught}");
    // 0.88 at 80 columns until the fourteenth and fifteenth collections'
    // older lines: log lines (tracing, Python's logging, opencode's log) whose
    // frame alone fills the first row, which no TUI word-wraps in a real pane.
    assert!(
        ruled[0] as f64 >= 0.87 * caught as f64 && ruled[1] as f64 >= 0.76 * caught as f64,
        "{ruled:?} of {caught}"
    );
}

/// In a pane that shows its cuts, a whole row as wide as the pane right
/// above a fault line reads as cut, and the fault's row as the rest of it:
/// the cost of reading rows as pieces of lines. A row drawn to the edge (a
/// test runner's `====` separator) is not read so and costs nothing; a line
/// of prose exactly as wide as the pane, or a column short, costs the fault
/// below it. Both are measured on every caught `train` line.
#[test]
fn a_fault_under_a_row_as_wide_as_the_pane() {
    // Two different lines cut at the edge show the pane's cuts (one line
    // printed twice would show one: a plain log's record repeated).
    let cut_above = [
        "I am reading the retry module: the client wraps every request and counts the attempts it makes, then logs them.",
        "Next I read the tests of that module, which stub the transport and check the counts that the client reports.",
    ]
    .map(|l| wrap(l, 80))
    .join("\r\n");
    let tops = [
        ("separator", "=".repeat(31) + " short test summary " + &"=".repeat(29)),
        (
            "prose, 80 columns",
            "The suite ran green locally, so I pushed the branch and started the CI job anew.".to_string(),
        ),
        (
            "prose, 79 columns",
            "The suite ran green locally, so I pushed the branch and started the CI job now.".to_string(),
        ),
    ];
    assert_eq!(tops.iter().map(|(_, t)| t.len()).collect::<Vec<_>>(), [80, 80, 79]);
    for (name, top) in &tops {
        let (mut caught, mut kept) = (0usize, 0usize);
        for line in corpus::lines().filter(|l| l.split == corpus::Split::Train) {
            let profile = compiled(corpus::profile_for(line.cli));
            if !classify(profile, &realistic_log(line.line)).env_fault {
                continue;
            }
            // The row above is what is measured: a line the rejoin already
            // loses when the pane wraps it (a relay's prefix padded into a
            // column, read as a laid-out row) is the wrap tests' count.
            if !classify(profile, &realistic_log(&format!("{cut_above}\r\n{}", wrap(line.line, 80)))).env_fault {
                continue;
            }
            caught += 1;
            let pane = format!("{cut_above}\r\n{top}\r\n{}", wrap(line.line, 80));
            kept += usize::from(classify(profile, &realistic_log(&pane)).env_fault);
        }
        eprintln!("under a {name} row: {kept}/{caught} caught train lines still caught");
        // Measured 2026-12-02: separator 790/790; under a prose row 205/790
        // (the documented cost: fault lines led by a program's glyph start a
        // line of their own and are kept).
        if *name == "separator" {
            assert_eq!(kept, caught, "under a {name} row");
        } else {
            assert!(kept >= 156, "under a {name} row: {kept}/{caught}");
        }
    }
}

/// A fault line printed last, below a real pane: each `train` line that is
/// caught alone, appended to each healthy pane capture of its program in
/// `testdata/clients/` (the harness's `healthy.pane`, with and without `-J`,
/// and the panes of a session that ran a tool and wrote a file: the answer,
/// the prompt box, the status bar at the bottom). A status bar's row runs
/// close to the edge, so a line below it could be read as a row the program
/// or the pane wrapped. A JSON line read alone is a record of the program's
/// event stream, and in a pane a line of text: those are left out. Each line
/// must stay caught; cut into rows at the pane's width, how many do is
/// measured.
#[test]
fn caught_train_lines_stay_caught_below_a_real_pane() {
    let clients = testdata("clients");
    let (mut tried, mut cut_kept, mut cut_tried) = (0, 0, 0);
    for name in ["aider", "claude", "codex", "copilot", "gemini", "goose", "opencode", "qwen"] {
        let profile = compiled(name);
        // Each pane without its trailing blank rows, and its width.
        let mut panes: Vec<(String, usize)> = std::fs::read_dir(&clients)
            .unwrap()
            .filter_map(|e| {
                let dir = e.unwrap().path();
                dir.file_name()?.to_str()?.strip_prefix(name)?.starts_with('@').then_some(dir)
            })
            .flat_map(|dir| {
                ["healthy.pane", "healthy.pane-nj", "tool.pane", "write.pane"]
                    .into_iter()
                    .filter_map(move |form| std::fs::read_to_string(dir.join(form)).ok())
            })
            .map(|pane| {
                let width = pane.lines().map(unicode_width::UnicodeWidthStr::width).max().unwrap_or(0);
                (pane.trim_end().to_string(), width)
            })
            .collect();
        panes.sort();
        assert!(!panes.is_empty(), "{name}: no healthy pane");
        let lines = corpus::for_profile(name)
            .filter(|l| l.split == corpus::Split::Train && !l.line.starts_with('{'))
            .filter(|l| classify(profile, format!("{}\n", l.line).as_bytes()).env_fault);
        for line in lines {
            for (pane, width) in &panes {
                tried += 1;
                let v = classify(profile, format!("{pane}\n{}\n", line.line).as_bytes());
                assert!(v.env_fault, "{name}: {:?} below a pane -> {:?} {}", line.line, v.action, v.reason);
                // Longer than the pane is wide: cut into its rows as a capture
                // without `-J` shows it, where the cut line alone is caught.
                let cut = wrap(line.line, *width);
                if cut.contains('\n') && classify(profile, format!("{cut}\n").as_bytes()).env_fault {
                    cut_tried += 1;
                    cut_kept += usize::from(classify(profile, format!("{pane}\n{cut}\n").as_bytes()).env_fault);
                }
            }
        }
    }
    eprintln!("below a real pane: all {tried} caught; cut at its width, {cut_kept} of {cut_tried}");
    crate::util::assert_doc_says(
        "GUIDE.md",
        &format!("appended below each real healthy pane capture of its program, {tried} of {tried} stay caught"),
    );
    crate::util::assert_doc_says("GUIDE.md", &format!("cut into rows at the pane's width, {cut_kept} of {cut_tried}"));
}

/// A row that fills the pane without being cut (a whole line exactly as wide
/// as the pane, or a plain log's longest line) is joined to the row below:
/// two healthy lines glued so must not read as a fault. Each bait line wide
/// enough to stand for a pane is tried above the bait line that follows it.
#[test]
fn a_healthy_row_as_wide_as_the_pane_is_not_glued_into_a_fault() {
    let bait: Vec<_> = faultsift::commands::bait::lines().collect();
    let mut fired = Vec::new();
    let mut tried = 0;
    for p in &pane_profiles() {
        for pair in bait.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let width = unicode_width::UnicodeWidthStr::width(a.text);
            if a.file != b.file
                || !(faultsift::pipeline::rejoin::MIN_WIDTH..=faultsift::pipeline::rejoin::MAX_WIDTH).contains(&width)
            {
                continue;
            }
            tried += 1;
            let v = classify(p, &realistic_log(&format!("{}\r\n{}", a.text, b.text)));
            if v.env_fault {
                fired.push(format!(
                    "{} {:?} at {}:{}: {} ⏎ {}",
                    p.profile().unwrap().name,
                    v.rule,
                    a.file,
                    a.line,
                    a.text,
                    b.text
                ));
            }
        }
    }
    eprintln!("{tried} glued bait pairs tried");
    assert!(tried >= 10_000, "glued pairs tried: {tried}");
    assert!(fired.is_empty(), "{} false positives:\n{}", fired.len(), fired.join("\n"));
}

#[test]
fn no_not_fault_line_is_an_environment_fault() {
    let rows = tsv("not-faults.tsv");
    assert!(rows.len() >= 20);
    for p in &pane_profiles() {
        for row in &rows {
            let v = classify(p, &realistic_log(&row[1]));
            assert_eq!(v.action, Action::Charge, "{}: {} -> {:?}", p.profile().unwrap().name, row[1], v.rule);
        }
    }
}

#[test]
fn executor_fixtures_map_to_their_kinds_and_actions() {
    let executor = compiled("executor");
    let cases = [
        (
            "executor: HTTP 400 Bad Request: Command not in allowlist: /x/run.sh",
            Some("allowlist_blocked"),
            Action::Pause,
        ),
        (
            "executor: HTTP 500 Internal Server Error: server restarting (watchfiles reload)",
            Some("server_reload"),
            Action::Retry,
        ),
        (
            "executor: HTTP 408 Request Timeout: command timed out after 300s: pytest -q",
            Some("request_timeout"),
            Action::Charge,
        ),
        ("executor: connect ECONNREFUSED 127.0.0.1:8700", Some("executor_down"), Action::Pause),
        ("executor: agent stopped: end_turn with no tool_return_message", Some("end_turn_no_return"), Action::Retry),
        (
            "executor: run stopped at max_steps: peer required_before_exit send_message",
            Some("peer_tool_rule_hang"),
            Action::Pause,
        ),
        // Unmapped: no hit, charged — never a free retry.
        ("executor: HTTP 502 Bad Gateway", None, Action::Charge),
        ("executor: HTTP 400 Bad Request: invalid JSON body", None, Action::Charge),
    ];
    for (line, kind, action) in cases {
        let log = format!("executor: POST /run {{\"cmd\": \"make test\"}}\n{line}\n");
        let v = classify(executor, log.as_bytes());
        assert_eq!((v.kind.as_deref(), v.action), (kind, action), "{line}");
    }
}

#[test]
fn reset_times_are_captured() {
    let cases = [
        ("claude", "  You've hit your limit · resets 3:30am (Asia/Calcutta)", "resume_at", "3:30am (Asia/Calcutta)"),
        (
            "codex",
            "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 8 hours 30 minutes.",
            "retry_after_s",
            "30600",
        ),
        (
            "gemini",
            "Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after 21h39m57s.. Retrying after 6173ms...",
            "retry_after_s",
            "77997",
        ),
        (
            "codex",
            "■ stream disconnected before completion: Rate limit is exceeded. Try again in 4 seconds.",
            "retry_after_s",
            "4",
        ),
    ];
    for (profile, line, key, want) in cases {
        let v = classify(compiled(profile), &realistic_log(line));
        let got = match key {
            "retry_after_s" => v.captures.retry_after_s.map(|s| s.to_string()),
            _ => v.captures.groups.get(key).cloned(),
        };
        assert_eq!(got.as_deref(), Some(want), "{profile}: {line} -> {:?}", v.captures);
    }
}

#[test]
fn gemini_error_report_below_its_cause_does_not_override_it() {
    // Gemini CLI's debug console renders the turn's error report below the
    // `[API Error: …]` line; the report names no cause (a fallback rule).
    let report = "│ ✖  Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2025-07-21T10-00-00.json";
    let gemini = compiled("gemini");
    let v = classify(
        gemini,
        &realistic_log(&format!("✕ [API Error: 400 Request contains an invalid argument.]\n{report}")),
    );
    assert_eq!((v.action, v.rule.as_deref()), (Action::Charge, Some("gemini/api-error-invalid-request")));
    let v = classify(gemini, &realistic_log(report));
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("gemini/api-error-cause-below")));
}

/// Recall of one profile on the corpus, through the whole pipeline: each line
/// as printed (below the earlier lines of its post) at the end of a realistic
/// pane capture, as `faultsift classify` sees it.
fn pane_recall(name: &str) -> (corpus::Recall, corpus::Recall) {
    let profile = compiled(name);
    let (mut train, mut test) = (corpus::Recall::default(), corpus::Recall::default());
    for (line, printed) in corpus::as_printed(name) {
        let caught = classify(profile, &realistic_log(printed.trim_end_matches('\n'))).env_fault;
        match line.split {
            corpus::Split::Train => train.add(caught),
            corpus::Split::Test => test.add(caught),
        }
    }
    (train, test)
}

/// The corpus figures (issue 16): recall on `train` lines, which the rules
/// were written from, and on held-out `test` lines, per profile. The bar the
/// issue sets is 97% train, 80% test per agent profile and 90% over all agents
/// and for `ci`; the profiles that meet it are held to it here, the others to
/// a floor under which a change would be a regression (the README gives the
/// figures, and the issue stays open until every profile meets the bar).
#[test]
fn corpus_recall_per_profile_and_split() {
    let names: Vec<&str> = faultsift::profile::builtin::BUILTINS
        .iter()
        .map(|b| b.name)
        .filter(|n| corpus::for_profile(n).next().is_some())
        .collect();
    assert!(names.len() >= 11, "profiles with corpus lines: {names:?}");
    let (mut agents_train, mut agents_test) = (corpus::Recall::default(), corpus::Recall::default());
    let mut table = Vec::new();
    for name in &names {
        let (train, test) = pane_recall(name);
        table.push(format!("{name:<10} train {train:<14} test {test}"));
        if *name != "ci" {
            agents_train = agents_train + train;
            agents_test = agents_test + test;
        }
        // Every profile: no worse than four train lines in five; `aider`
        // one line short of it (31/39) since the thirteenth collection's
        // older lines joined: tracebacks of aider 0.10–0.62's crashes whose
        // last line is httpx's or litellm's class, which a project's own
        // script that calls the provider ends on too (a review's bait); and
        // 45/57 once the sixteenth's joined: two more such tails
        // (`httpcore.ConnectTimeout: [Errno 60] …`) and a bare `OSError:
        // [Errno 28] No space left on device`, which a project's own tests
        // end on too (the crash rules read them below a frame of aider's own
        // package, which these lines, cut from their tracebacks, lack); and
        // 44/57 once the litellm auth tail asked for that frame as well;
        // 45/60 once the eighteenth's joined: a crash report's
        // `litellm.llms.ollama.OllamaError: <html>` and the 504 page's title
        // below it (a provider module's own class opening the page, which a
        // project's own litellm script ends on too: a review's bait); 45/61
        // once the twentieth's joined: aider 0.59's retry loop printing the
        // bare socket error (`[WinError 10061] …`, in French) above its
        // `Retrying in 0.2 seconds...`, which any Python script that prints
        // an exception writes at the left edge too, and whose retry line,
        // the one row that says aider printed it, comes after it.
        let floor = if *name == "aider" { 0.73 } else { 0.80 };
        assert!(train.share() >= floor, "{name}: train recall {train}\n{}", table.join("\n"));
        // `openhands` was at the bar (97%) until the fifteenth collection's
        // older lines (36/39 after their rules): an `httpx.HTTPStatusError`
        // traceback tail of 2024 (a project's own script ends so) and an
        // evaluation harness's per-instance line; 38/42 once the
        // nineteenth's joined: the docker runtime's `FAILED to start
        // container!` row, a frame whose cause is the row below it; 39/44
        // once the twenty-first's joined: OpenDevin's `OpenAIException -
        // Error code: 429 - {…}` pasted without the log frame it followed.
        if *name == "openhands" {
            assert!(train.share() >= 0.88, "{name}: train recall {train}");
        }
        // `qwen` left it when the thirteenth collection's older lines
        // (`older.tsv`) joined `train` (30/33): an HTML page's row with no
        // frame, the auth dialog in Chinese (a review's bait holds a model's
        // prose in that form) and a line the VS Code companion prints; and
        // the fourteenth's (32/36): a bare `Error: Connection error.` with
        // none of Qwen Code's framing (any OpenAI SDK script prints it); and
        // the fifteenth's (33/38): the token manager's fallback to the
        // device flow, after which Qwen Code goes on.
        if *name == "qwen" {
            assert!(train.share() >= 0.86, "{name}: train recall {train}");
        }
        // `copilot` left it when the twelfth collection moved lines held out
        // before into `train`: a premium-allowance notice after which Copilot
        // CLI switched the model and went on, and a 402 pasted without the
        // glyph its row starts with (44/46). Held at that floor.
        if *name == "copilot" {
            assert!(train.share() >= 0.95, "{name}: train recall {train}");
        }
        // `claude` and `opencode` left it when the eighth collection moved
        // lines held out before into `train`: a proxy's own error body, and
        // a gateway's bare `Upstream request failed: …` that many projects'
        // own proxies print too. Held at the floor they fell to. `opencode`
        // fell again with the fourteenth collection's older lines (59/66): a
        // bare `AI_RetryError: … Last error: Too Many Requests` (a project's
        // own AI SDK script prints the same; bait holds one), an OpenAI
        // stream error event printed raw, OpenRouter's `User not found.`
        // for a bad key, and a poster's placeholder in place of a URL; and
        // the fifteenth's (63/72): auth plugins' own refresh errors (an
        // Anthropic OAuth plugin's `Token refresh failed: 400 — {…}`, the
        // GitLab provider's `GitLabError: …`), which a single line of a
        // project's own auth code prints alike; and the sixteenth's (66/76):
        // a nix build's `opencode> ERROR … service=models.dev error=Unable to
        // connect…` (a build sandbox without network, behind nix's prefix);
        // and the twenty-first's (73/85): a bare `Service Unavailable:
        // <!DOCTYPE html>` at the left edge and a bare `AI_RetryError: …`
        // again (a project's own script prints both so), and OpenRouter's
        // rate-limit sentence behind a `[DeepSeek]` tag no printer read shows,
        // and (72/85 after its review) the Responses API's error event at the
        // first column alone, as a model's answer quotes it; and the
        // twenty-second's (72/87): a desktop build's bare `Error: Token
        // refresh failed: 401` (a project's own auth code prints it alike)
        // and the Zen free tier's sentence pasted behind a markdown `> `.
        if *name == "opencode" {
            assert!(train.share() >= 0.82, "{name}: train recall {train}");
        }
        // `claude` fell again with the thirteenth collection's older lines
        // (137/149): a relay's body, a login screen's bare gateway text and
        // its `OAuth error: …` lines, the SDK's own debug log, a Node ENOSPC
        // crash with no frame of Claude Code's. The sixteenth session reads
        // the `OAuth error:` lines with axios's messages (as plain text, not
        // a message's `●`) and the SDK's `[log_…] … - error; no more retries
        // left` (a later `succeeded with status 200` is the recovery):
        // 212/222. Left after a review: the bare ENOSPC crash line, envoy's
        // body and `Login failed: …` from the first column, which a headless
        // answer or a project's own log prints alike. The seventeenth's 23
        // older lines and their rules (the updater's and installer's network
        // failures, a 400's usage-limit body on its wrapped row): 230/245;
        // left: `/bug` reports' JSON error log pasted as a line, headless
        // `API Error: …` answers from the first column, a bare Node EDQUOT
        // crash line, the lone status row of that wrapped 400.
        if *name == "claude" {
            assert!(train.share() >= 0.93, "{name}: train recall {train}");
        }
        // `ci` left the bar when the sixth collection moved lines held out
        // before into `train` (two `actions/cache` warnings that a job goes
        // on past, which no rule should take as what the job died of) and
        // came back to it with the rules the tenth's `train` lines gave
        // (334/344; 348/359 after the eleventh collection; 349/359 once a
        // public archive's 403 to apt read as the network's; 370/382 after
        // the twelfth; 448/470 once the thirteenth's older lines joined:
        // posters' placeholders for a host or an address, git's own auth
        // refusal, which the profile charges as Maven's 4xx are, and lines
        // left on purpose after a review: npm 1.x's per-attempt `npm http
        // 503` (npm goes on retrying), a 2016 docker daemon's sentence that
        // projects' own logs print too, and the artifact service's storage
        // quota, which an `if: always()` upload prints after a job's own
        // tests have failed; 530/561 after the fourteenth's 91 older lines:
        // its new misses are a Java chain's bare `SocketTimeoutException`
        // (a project's own tests throw it too), a local registry's refusal
        // (the job's own service), yarn berry's headline without its status
        // row, a cache action's own throttling body, Maven's 403 on central,
        // a yarn line behind docker compose's prefix (the services are the
        // project's own programs),
        // which the profile charges as its other 4xx, and lines deep behind
        // a packer or a translated prefix); 607/650 after the sixteenth's 58
        // older lines and the rules they gave: Maven's and Gradle's framing
        // lines whose cause is the next row, npm's verbose stack, the
        // artifact upload's retries (an upload runs `if: always()` after a
        // job's tests failed), the cache action's HTML-for-JSON retry line;
        // 650/703 after the seventeenth's 50 older lines and their rules
        // (left: the same upload retries, framing rows whose cause is the
        // next row, registry 401/denied answers the profile charges, a
        // devstack prefix, an info line the setup actions print before they
        // fall back to another download); 719/786 after the eighteenth's 83
        // older lines and their rules (left: framing rows whose cause is a
        // later row, npm's `nospc` advice rows of an ENOSPC block whose
        // cause row the paste lacks, warnings an install goes on past
        // (a skipped optional dependency, stale registry data), the artifact
        // upload's diagnostics, a registry's 401, a goal's bare `Connection
        // reset` that a project's own code may end on, pnpm audit's bad
        // response and its retries, which `--ignore-registry-errors` prints
        // too and a job goes on past, yarn's bare `ResponseError` head);
        // 983/1086 after the twenty-second's and twenty-third's 161 older
        // lines and their rules (left: registries' refusals during their own
        // outages, which `ci` charges as it charges every 401/403: Microsoft's
        // registry refusing anonymous pulls, Docker Hub's `unauthorized:
        // authentication required`, a WAF's 403 on npm's registry; the
        // artifact storage quota; Docker 1.x's causeless lines); 0.89 once
        // the twenty-sixth's 55 older lines joined (1072/1193 after the rules
        // they gave; left: hosts' 403/401/418 refusals during their outages,
        // which `ci` charges, git's per-address errno row pasted without its
        // head, a build script's or Terraform's prefix before git's and apt's
        // lines, old cargo's localized libgit2 text and its bare curl cause
        // row, npm's echo of a CDN block page, apt's Origin change).
        if *name == "ci" {
            assert!(train.share() >= 0.89, "{name}: train recall {train}");
        }
        // At the bar (80%) until the twenty-first collection's new held-out
        // line and a caught line that moved to `train` took it to 79%
        // (11/14), with no change of its rules; the twenty-fourth's five new
        // held-out lines (three caught ones moved to `train`) to 69% (11/16),
        // before and after the rules its `train` lines gave; held there.
        if *name == "openhands" {
            assert!(test.share() >= 0.68, "{name}: test recall {test}");
        }
        // The tenth collection's new held-out lines took `aider` from 92% to
        // 79% (11/14) with no change of its rules; the sixteenth's two (and a
        // caught line that moved to `train`) to 73% (11/15); the
        // seventeenth's two (litellm's model-price fetch failing at import,
        // a warning aider goes on past) and another caught line moved to
        // `train` to 62% (10/16), again with no rule change; held there.
        if *name == "aider" {
            assert!(test.share() >= 0.62, "{name}: test recall {test}");
        }
        // The sixth collection's new held-out lines took `claude` from 81% to
        // 78% with no change of rules, the eighth's to 73%; held at that floor.
        if *name == "claude" {
            assert!(test.share() >= 0.72, "{name}: test recall {test}");
        }
    }
    eprintln!("{}\nagents     train {agents_train:<14} test {agents_test}", table.join("\n"));
    // 0.92 until the thirteenth collection's older lines joined `train`
    // (573/629 after the rules they gave and the review that narrowed them);
    // 0.90 once the fourteenth's and fifteenth's joined (703/776); 0.89 once
    // the twenty-fourth's and twenty-fifth's joined (901/1004 after the rules
    // they gave): the new misses are body rows pasted without their head, a
    // JSON result pretty-printed by an action, a `/bug` report's bracketed
    // retry row, a TypeScript CLI notice pasted without its glyph.
    assert!(agents_train.share() >= 0.89, "agents: train recall {agents_train}");
}

/// A pane captured without `-J` hard-wraps long lines at its width. A fault
/// line cut at 80 or 120 columns is caught from its first row when the cut
/// falls after its cause (the rules anchor the start and leave the end open),
/// and from the rows re-joined when it falls before.
#[test]
fn caught_train_lines_are_still_caught_when_the_pane_wraps_them() {
    let mut figures = Vec::new();
    for width in [80, 120] {
        let (mut caught, mut kept) = (0usize, 0usize);
        let mut lost = Vec::new();
        for line in corpus::lines().filter(|l| l.split == corpus::Split::Train) {
            let profile = compiled(corpus::profile_for(line.cli));
            if !classify(profile, &realistic_log(line.line)).env_fault {
                continue;
            }
            caught += 1;
            if classify(profile, &realistic_log(&wrap(line.line, width))).env_fault {
                kept += 1;
            } else {
                lost.push(line.line);
            }
        }
        let share = kept as f64 / caught as f64;
        eprintln!("width {width}: {kept}/{caught} caught train lines still caught");
        // 741/746 and 742/746 measured with the rows re-joined (2026-12-01;
        // 533/630 and 592/630 from the first row alone when last measured so).
        let floor = if width == 80 { 0.98 } else { 0.99 };
        assert!(share >= floor, "width {width}: {kept}/{caught} kept; lost:\n{}", lost.join("\n"));
        figures.push((kept, caught));
    }
    let [(k80, caught), (k120, _)] = figures[..] else { unreachable!() };
    crate::util::assert_doc_says(
        "GUIDE.md",
        &format!("stays caught in {k80} of {caught} cases at 80 columns and {k120} at 120"),
    );
}

/// The precision side of a program's own word wrap: a healthy line (bait)
/// wrapped so may put fault words at the start of a row. Measured: 293 of
/// 162,920 tries fire at 80 and 60 columns (2026-12-01; 353 before the
/// re-join read indented rows as going on), mostly `litellm.…Error:` rows
/// of lines with no glyph or indent under the aider and OpenHands profiles
/// and `…Exception - ` rows under opencode. The bait is pessimistic here: most of
/// it (grep output, logs, test fixtures) is text a TUI does not word-wrap but
/// tmux cuts, which the re-join reads whole. The ceiling keeps it from
/// growing; it rose twice, for bait and not for a rule: to 291 when the record
/// examples of the older releases' formats added to the profile files
/// (themselves bait) wrap, the Qwen Code 0.8 ones between `[API` and
/// `Error: 401 …`, an error head at a row's start under opencode, 18 tries
/// in all; to 292 when the rules for the harness's `forbidden` and
/// `tls` scenarios added their examples; and to 293 for a rule, goose's
/// unframed `Authentication error: Authentication failed. Status: 401 …`,
/// which a row of the profile's own JSON record example starts with. It
/// stood at 292 of 165,120 on 2026-12-02, after the rules from aider's and
/// the OpenHands CLI's real runs (a Rich row now fires only after its level
/// column), and at 292 of 167,900 after the gateway-page rules, whose review
/// first took it to 316 (a reset sentence cut before its reason); 289 of
/// 221,980 once goose's variant rules needed the Debug form's quoted String.
#[test]
fn bait_a_program_word_wraps_itself() {
    let (tried, fired) = bait_fired(&[80, 60], word_wrap);
    eprintln!("{tried} word-wrapped bait lines tried, {} fired", fired.len());
    crate::util::assert_doc_says(
        "GUIDE.md",
        &format!(
            "word-wrapped so fire in {} of {} tries at 80 and 60 columns",
            fired.len(),
            crate::util::thousands(tried)
        ),
    );
    assert!(tried >= 10_000);
    // 289 until the examples of the releases between the oldest and the
    // pins (five rows of profile-file examples, the GUIDE says which); 294
    // until the error-grammar audit's (four more such rows); 298 until the
    // older releases' wordings (three more). Copilot CLI's retry-summary
    // tails read only on the TUI's wrapped row keep their examples' split
    // rows quiet. 301 until Claude Code's compaction wrapper with its inner
    // `Error: ` (one example row, whose status a row of its own starts at 60
    // columns, read under claude and opencode). 303 until Copilot CLI's
    // process-log example of a proxy's refused tunnel (one row at 60 columns
    // starts with the native runtime's `Failed native model HTTP request:`).
    // 304 until the in-stream rate limit's examples (eight rows under
    // opencode, whose rules read a provider's sentence after a blank:
    // Qwen Code's JSON results and Copilot CLI's summaries, cut mid-line).
    assert!(fired.len() <= 312, "{} fired:\n{}", fired.len(), fired.join("\n"));
}

/// The line with a request id after it, as a next release may append one
/// (inside a TUI's box, before its right border).
fn tail_variant(line: &str) -> Option<String> {
    const ID: &str = " (request id: req_011CVz8wQ5nTgR7bYk3mJdLp)";
    match line.trim_end().strip_suffix('│') {
        Some(text) => Some(format!("{}{ID} │", text.trim_end())),
        None => Some(format!("{line}{ID}")),
    }
}

/// Each 5xx status of the line (not a port, a version or part of a longer
/// number) as the next of its family, with the reason phrase that follows it.
fn status_variant(line: &str) -> Option<String> {
    swap_statuses(
        line,
        &[
            ("500", "Internal Server Error", "502", "Bad Gateway"),
            ("502", "Bad Gateway", "503", "Service Unavailable"),
            ("503", "Service Unavailable", "504", "Gateway Timeout"),
            ("504", "Gateway Timeout", "500", "Internal Server Error"),
            ("529", "<unknown status code>", "503", "Service Unavailable"),
        ],
    )
}

/// Each refused credential's status as the other: 401 and 403.
fn auth_variant(line: &str) -> Option<String> {
    swap_statuses(line, &[("401", "Unauthorized", "403", "Forbidden"), ("403", "Forbidden", "401", "Unauthorized")])
}

/// Each status of `line` found in `swap` (`from`, its reason phrase, `to`,
/// its reason phrase), where it stands alone as a number.
fn swap_statuses(line: &str, swap: &[(&str, &str, &str, &str)]) -> Option<String> {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while i + 3 <= b.len() {
        let bounded = (i == 0 || !(b[i - 1].is_ascii_digit() || b[i - 1] == b'.' || b[i - 1] == b':'))
            && (i + 3 == b.len() || !(b[i + 3].is_ascii_digit() || b[i + 3] == b'.' || b[i + 3] == b':'));
        if let Some((_, reason, code, new_reason)) = swap.iter().find(|s| bounded && line.get(i..i + 3) == Some(s.0)) {
            out.push_str(&line[last..i]);
            out.push_str(code);
            i += 3;
            if line[i..].starts_with(&format!(" {reason}")) {
                out.push(' ');
                out.push_str(new_reason);
                i += 1 + reason.len();
            }
            last = i;
            changed = true;
        } else {
            i += 1;
        }
    }
    out.push_str(&line[last..]);
    changed.then_some(out)
}

/// The line's first network errno as another of the same family.
fn errno_variant(line: &str) -> Option<String> {
    const SWAP: [(&str, &str); 6] = [
        ("ECONNRESET", "ETIMEDOUT"),
        ("ECONNREFUSED", "ECONNRESET"),
        ("ETIMEDOUT", "ECONNREFUSED"),
        ("ENOTFOUND", "EAI_AGAIN"),
        ("EAI_AGAIN", "ENOTFOUND"),
        ("EHOSTUNREACH", "ENETUNREACH"),
    ];
    let (from, to) = SWAP.iter().find(|(f, _)| line.contains(f))?;
    Some(line.replacen(from, to, 1))
}

/// Every count, delay, clock time and id in the line changed (each digit
/// `d` to `d + 5 mod 10`), keeping what names the fault or the program: a
/// three-digit status, an error's own number (`curl: (56)`, `errno 104`,
/// `[Errno -2]`), an IPv4 address, a digit glued to a word (`gpt-4o`, `v1`)
/// other than a unit of time (`20s`, `9pm`).
fn digits_variant(line: &str) -> Option<String> {
    use std::sync::LazyLock;
    static IPV4: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}").unwrap());
    static RUN: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(r"[0-9]+").unwrap());
    // An error's number names it: curl's, git's `curl NN`, an errno, HTTP/2.
    static CODE_BEFORE: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"(?i)(?:curl|errno|error|err|code|status)[ =]-?$|HTTP/$").unwrap());
    static UNIT: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^(?:ms|s|m|h|d|pm|am|sec|seconds?|minutes?|hours?)(?:[^A-Za-z]|$)").unwrap()
    });
    let kept: Vec<(usize, usize)> = IPV4.find_iter(line).map(|m| (m.start(), m.end())).collect();
    let (mut out, mut last, mut changed) = (String::new(), 0, false);
    for m in RUN.find_iter(line) {
        let (before, after) = (&line[..m.start()], &line[m.end()..]);
        let glued_before = before.chars().next_back().is_some_and(|c| c.is_ascii_alphabetic());
        let glued_after = after.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !UNIT.is_match(after);
        let status = m.as_str().len() == 3 && matches!(m.as_str().as_bytes()[0], b'1'..=b'5');
        let code = CODE_BEFORE.is_match(before)
            || (before.ends_with(['(', '[', '<', '-']) && after.starts_with([')', ']', '>']));
        if glued_before || glued_after || status || code || kept.iter().any(|&(s, e)| m.start() >= s && m.end() <= e) {
            continue;
        }
        out.push_str(&line[last..m.start()]);
        out.extend(m.as_str().bytes().map(|b| char::from(b'0' + (b - b'0' + 5) % 10)));
        last = m.end();
        changed = true;
    }
    out.push_str(&line[last..]);
    changed.then_some(out)
}

/// The post as a CI host logs it when the program runs as a job's step: each
/// line after GitHub Actions' time stamp (`crate::pipeline::stamp`).
fn stamp_variant(text: &str) -> Option<String> {
    // A host stamps a line once: a line captured from a CI log already has its stamp.
    Some(
        text.split_inclusive('\n')
            .map(|l| {
                if faultsift::pipeline::stamp::len(l) > 0 {
                    l.to_string()
                } else {
                    format!("2026-11-30T12:00:00.1234567Z {l}")
                }
            })
            .collect(),
    )
}

/// A rule written from one captured line must still catch the line the next
/// release prints: with a request id after it, another status of the same
/// 5xx family or of the refused credentials (401, 403), another errno of the
/// same network family, its counts, delays
/// and ids renumbered; and in the log of a CI job that ran the program, every
/// line of the post behind the host's time stamp. Each `train` line
/// caught as printed is varied one way at a time and classified again; the
/// agent profiles keep every line with a request id after it (the `close`
/// fragment: a rule that reads a line whole ends on blanks or on closed
/// brackets, never on more words), and the families hold almost everywhere.
/// `ci` reads tools whose lines end where their format ends, so the tail
/// does not apply to all of them (ten of its 334 caught lines end there on purpose).
#[test]
fn caught_train_lines_survive_the_next_release_s_variations() {
    type Variant = fn(&str) -> Option<String>;
    let variants: [(&str, Variant); 6] = [
        ("tail", tail_variant),
        ("status", status_variant),
        ("auth", auth_variant),
        ("errno", errno_variant),
        ("digits", digits_variant),
        ("stamp", stamp_variant),
    ];
    for (name, variant) in variants {
        let (mut agents, mut ci) = (corpus::Recall::default(), corpus::Recall::default());
        let mut lost = Vec::new();
        for b in faultsift::profile::builtin::BUILTINS {
            let profile = compiled(b.name);
            for (line, printed) in corpus::as_printed(b.name).filter(|(l, _)| l.split == corpus::Split::Train) {
                let printed = printed.trim_end_matches('\n');
                let Some(varied) = variant(line.line) else { continue };
                if !classify(profile, &realistic_log(printed)).env_fault {
                    continue;
                }
                let above = &printed[..printed.len() - line.line.len()];
                // A host stamps the lines above as well.
                let above = if name == "stamp" { stamp_variant(above).unwrap_or_default() } else { above.to_string() };
                let kept = classify(profile, &realistic_log(&format!("{above}{varied}"))).env_fault;
                if b.name == "ci" {
                    ci.add(kept)
                } else {
                    agents.add(kept)
                }
                if !kept {
                    lost.push(format!("{} {varied}", b.name));
                }
            }
        }
        eprintln!("{name}: agents {agents}, ci {ci}");
        // `ci` has few refused credentials among its caught lines, and each
        // of its tools answers 401 and 403 for different causes (apt's 401 is
        // a private archive's, the runner's 403 a download's, npm's E403 a
        // publish the token may not make): the auth family is the agents'.
        let ci_min = if name == "auth" { 0 } else { 20 };
        assert!(agents.lines >= 10 && ci.lines >= ci_min, "{name}: too few lines varied: agents {agents}, ci {ci}");
        let (agent_floor, ci_floor) = match name {
            // `ci` 0.97 until the eighteenth collection's older lines (695/718):
            // lines its rules read whole (`npm ERR! syscall getaddrinfo`,
            // Docker's `…/v2/: EOF`, gradle's `> Could not GET '…'.` row),
            // which no tool prints with a request id after them.
            "tail" => (1.0, 0.96),
            "stamp" => (1.0, 1.0),
            // Claude Code's `/bug` log reads an HTTP client's 401 only: its
            // 403 may be any endpoint's refusal, a plugin marketplace's too.
            "auth" => (0.94, 0.0),
            _ => (0.97, 0.95),
        };
        assert!(
            agents.share() >= agent_floor && ci.share() >= ci_floor,
            "{name}: agents {agents}, ci {ci}; lost:\n{}",
            lost.join("\n")
        );
    }
}

/// How each agent draws a tool's call and its output in its pane, from the
/// harness's `tool` captures (testdata/clients/*/tool.pane*): per profile, a
/// log with `{}` as the tool's first output line, and one with `{}` as a
/// later row of it.
const TOOL_FRAMES: [(&str, [&str; 2]); 9] = [
    ("claude", ["● Bash(./run-checks.sh)\n  ⎿  {}\n", "● Bash(./run-checks.sh)\n  ⎿  checking\n     {}\n"]),
    ("codex", ["• Ran ./run-checks.sh\n  └ {}\n", "• Exited (status 1) ./run-checks.sh\n  └ checking\n    {}\n"]),
    (
        "gemini",
        [
            "╭────╮\n│ ✓  Shell ./run-checks.sh │\n│ │\n│ {} │\n╰────╯\n",
            "╭────╮\n│ x  Shell ./run-checks.sh │\n│ │\n│ checking │\n│ {} │\n╰────╯\n",
        ],
    ),
    (
        "qwen",
        [
            "  ✓ Shell ./run-checks.sh (Run the checks)\n    {}\n",
            "  x Shell {\"command\":\"./run-checks.sh\"}\n    Output: checking\n    {}\n",
        ],
    ),
    (
        "copilot",
        [
            " $ Shell Run the checks 12 lines\n │ {}\n   ./run-checks.sh\n",
            " ✗ Shell Run the checks 3 lines\n │ checking\n │ {}\n   ./run-checks.sh\n",
        ],
    ),
    (
        "opencode",
        [
            "  ┃\n  ┃  $ ./run-checks.sh\n  ┃\n  ┃  {}\n  ┃\n",
            "  ┃\n  ┃  $ ./run-checks.sh\n  ┃\n  ┃  checking\n  ┃  {}\n  ┃\n",
        ],
    ),
    // `opencode run`: the same blocks at the left edge, and a failed tool's
    // error right below its `✗` line.
    ("opencode", ["\n$ ./run-checks.sh\nchecking\n{}\n\n", "\n← Edit src/checks.ts\n@@ -1 +1 @@\n{}\n\n"]),
    ("opencode", ["\n$ ./run-checks.sh\n{}\n\n", "\n# Todos\n[•] {}\n\n"]),
    (
        "goose",
        [
            "  ────────\n  ▸ shell\n    command: ./run-checks.sh\n    {}\n",
            "  ────────\n  ▸ shell\n    command: ./run-checks.sh\n    checking\n    {}\n    \n    Command exited with code 1\n",
        ],
    ),
];

/// Healthy lines shaped like an agent's own error line, which the line alone
/// cannot tell from the agent's (testdata/tool-output): as a tool's output,
/// framed as each agent draws it, they are no fault under any pane-capture
/// profile, because the profile reads the pane's items (`tool_output`).
/// Alone, each fires under one of the seven: the structure, not the rules, is
/// what keeps them out.
#[test]
fn a_tool_s_output_is_not_the_agent_s_error() {
    let text = std::fs::read_to_string(testdata("tool-output/healthy-lines.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    assert!(lines.len() >= 400, "{} lines", lines.len());
    let profiles: Vec<_> = TOOL_FRAMES.iter().map(|(name, _)| compiled(name)).collect();
    let mut fired = Vec::new();
    for line in &lines {
        let body = line.trim_start();
        let alone = profiles.iter().any(|p| classify(p, format!("{line}\n").as_bytes()).env_fault);
        assert!(alone, "fires under none of the seven profiles alone: {line}");
        for (p, (name, frames)) in profiles.iter().zip(TOOL_FRAMES) {
            for frame in frames {
                let log = frame.replacen("{}", body, 1);
                if classify(p, log.as_bytes()).env_fault {
                    fired.push(format!("{name}: {log:?}"));
                }
            }
        }
    }
    assert!(fired.is_empty(), "{} fired:\n{}", fired.len(), fired.join("\n"));
}

/// The same lines as the tool's output in the real panes of the harness's
/// `tool` scenario (testdata/clients/*/tool.pane*): each takes the place of
/// the tool's `line10` row, as the CLI drew it, and none is a fault.
#[test]
fn a_tool_s_output_in_the_real_panes_is_not_the_agent_s_error() {
    let text = std::fs::read_to_string(testdata("tool-output/healthy-lines.txt")).unwrap();
    let bodies: std::collections::BTreeSet<&str> =
        text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(str::trim_start).collect();
    let panes = [
        ("claude", "claude@2.1.332/tool.pane-expanded"),
        ("codex", "codex@0.171.0/tool.pane"),
        ("gemini", "gemini@0.61.0/tool.pane"),
        ("qwen", "qwen@0.24.4/tool.pane"),
        ("copilot", "copilot@1.0.102/tool.pane-expanded"),
        ("opencode", "opencode@1.18.33/tool.pane"),
        ("opencode", "opencode@1.18.33/tool.run.stderr"),
        // goose's `line10` row is in its first call, and its second call
        // below is progress: the pane is charged with or without
        // `tool_output`, which TOOL_FRAMES checks for goose instead.
        ("goose", "goose@1.52.0/tool.pane"),
    ];
    let mut fired = Vec::new();
    for (name, path) in panes {
        let pane = std::fs::read_to_string(testdata(&format!("clients/{path}"))).unwrap();
        let lines: Vec<&str> = pane.lines().collect();
        // The tool's own `line10` row (the command that printed it names it too).
        let rows: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim_matches(|c: char| c.is_whitespace() || "│┃└⎿".contains(c)) == "line10")
            .collect();
        assert_eq!(rows.len(), 1, "{path}: rows {rows:?}");
        let profile = compiled(name);
        for body in &bodies {
            let mut log = lines.clone();
            let row = lines[rows[0]].replacen("line10", body, 1);
            log[rows[0]] = &row;
            let v = classify(profile, (log.join("\n") + "\n").as_bytes());
            if v.env_fault {
                fired.push(format!("{path}: {row:?} -> {:?}", v.rule));
            }
        }
    }
    assert!(fired.is_empty(), "{} fired:\n{}", fired.len(), fired.join("\n"));
}

/// opencode shows an in-stream error object it cannot map as JSON in the
/// session's error block (testdata/clients/opencode@1.18.33/stream-overloaded.pane);
/// the same object printed by a `curl` in a shell block is the project's own
/// server answering, a tool's output.
#[test]
fn opencode_reads_its_error_object_in_the_error_block_only() {
    let object = r#"{"message":"The server is overloaded. Please try again later.","type":"server_error","code":"server_is_overloaded"}"#;
    let opencode = compiled("opencode");
    let error_block = format!("  ┃\n  ┃  Reply with one sentence\n  ┃\n\n  ┃\n  ┃  {object}\n  ┃\n");
    let v = classify(opencode, error_block.as_bytes());
    assert_eq!((v.env_fault, v.rule.as_deref()), (true, Some("opencode/provider-overloaded")), "{error_block:?}");
    let shell_block = format!("  ┃\n  ┃  $ curl -s localhost:8080/api/chat\n  ┃\n  ┃  {object}\n  ┃\n");
    let v = classify(opencode, shell_block.as_bytes());
    assert!(!v.env_fault, "{shell_block:?} -> {:?} {:?}", v.action, v.rule);
}

/// opencode draws the user's prompt as a block of the same shape as its own
/// error box, a bar at the left (`tool_output.prompt`). The healthy lines of
/// testdata/tool-output as the prompt's text in the real panes (the first
/// prompt at the top, over a session that hangs or that answered; below the
/// session header of 1.1.53; a second prompt below the turn before's footer)
/// are no fault. The same lines in the error box below the prompt
/// (account.pane's) are read as the agent's: where the block is, not its
/// words, tells them apart.
#[test]
fn opencode_reads_the_user_s_prompt_as_the_user_s_words() {
    let text = std::fs::read_to_string(testdata("tool-output/healthy-lines.txt")).unwrap();
    let bodies: std::collections::BTreeSet<&str> =
        text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(str::trim_start).collect();
    let pane = |path: &str| std::fs::read_to_string(testdata(&format!("clients/{path}"))).unwrap();
    let opencode = compiled("opencode");
    // The error box: account.pane's three rows of the refusal, one line.
    let account = pane("opencode@1.18.33/account.pane");
    let rows: Vec<&str> = account.lines().collect();
    let first = rows.iter().position(|l| l.contains("Your organization must be verified")).unwrap();
    let read_in_box: Vec<&str> = bodies
        .iter()
        .copied()
        .filter(|body| {
            let mut log: Vec<String> = rows.iter().map(|l| (*l).to_string()).collect();
            log.splice(first..first + 3, [format!("  ┃  {body}")]);
            classify(opencode, (log.join("\n") + "\n").as_bytes()).env_fault
        })
        .collect();
    assert!(read_in_box.len() >= 10, "{} read in the error box", read_in_box.len());
    // The same lines as the prompt.
    let prompt = "Reply with one short sentence: what is 2+2?";
    let healthy = pane("opencode@1.18.33/healthy.pane");
    let footer = healthy.lines().position(|l| l.trim_start().starts_with("▣ ")).unwrap();
    // A second turn, hanging: the first turn's answer and footer above it.
    let mut second: Vec<String> = healthy.lines().map(|l| l.replace(prompt, "Now the docs.")).collect();
    let turn = ["", "  ┃  ", &format!("  ┃  {prompt}"), "  ┃  ", "", "  ▣  Build · Fake Model 1"];
    second.splice(footer + 1..footer + 1, turn.map(String::from));
    let panes = [
        ("opencode@1.18.33/hang.pane", pane("opencode@1.18.33/hang.pane")),
        ("opencode@1.18.33/healthy.pane", healthy.clone()),
        ("opencode@1.14.41/healthy.pane", pane("opencode@1.14.41/healthy.pane")),
        ("opencode@1.1.53/side-down.pane", pane("opencode@1.1.53/side-down.pane")),
        ("a second turn of opencode@1.18.33/healthy.pane", second.join("\n") + "\n"),
    ];
    let mut fired = Vec::new();
    for (name, pane) in &panes {
        assert_eq!(pane.matches(prompt).count(), 1, "{name}");
        for body in &read_in_box {
            let v = classify(opencode, pane.replacen(prompt, body, 1).as_bytes());
            if v.env_fault {
                fired.push(format!("{name}: {body:?} -> {:?}", v.rule));
            }
        }
    }
    assert!(fired.is_empty(), "{} fired:\n{}", fired.len(), fired.join("\n"));
    // The error toast, drawn over the prompt's row with a bar at each side,
    // is the agent's: still read there.
    let toast = "  ┃  Reply with one short sentence: what is 2+2?      ┃  Your organization must be verified to stream this   ┃";
    let hang: Vec<String> = pane("opencode@1.18.33/hang.pane")
        .lines()
        .map(|l| if l.contains(prompt) { toast.to_string() } else { l.to_string() })
        .collect();
    let hang = hang.join("\n") + "\n";
    assert!(hang.contains(toast));
    let v = classify(opencode, hang.as_bytes());
    assert_eq!((v.env_fault, v.rule.as_deref()), (true, Some("opencode/provider-auth")), "{toast:?}");
}

/// The agent's own errors around a tool's output stay faults: a new item
/// after the output, a later result under the same call (where a retry
/// notice hangs), and the error below the prompt.
#[test]
fn the_agent_s_errors_around_a_tool_s_output_stay_faults() {
    let cases = [
        (
            "claude",
            "● Bash(npm test)\n  ⎿  ok\n● API Error: 529 Overloaded. This is a server-side issue, usually temporary\n",
        ),
        (
            "claude",
            "● Bash(npm test)\n  ⎿  ok\n  ⎿  API Error (Request timed out.) · Retrying in 1 seconds… (attempt 1/10)\n",
        ),
        ("claude", "● Bash(npm test)\n  ⎿  ok\n❯ go on\n  ⎿  Invalid API key · Fix external API key\n"),
        // A line that is neither an item nor a row of the tool's output.
        ("claude", "● Bash(npm test)\n  ⎿  ok\nUnable to connect to API (ECONNRESET)\n"),
        ("claude", "● Bash(npm test)\n  ⎿  ok\n  You've hit your limit · resets 2pm (America/New_York)\n"),
        (
            "codex",
            "• Ran cargo test\n  └ ok\n■ unexpected status 503 Service Unavailable: upstream, url: https://api.openai.com/v1/responses\n",
        ),
        // The other agents' own errors below a tool's output, as their
        // fault captures show them (testdata/clients/*/{auth,refused,rate-limit}.pane).
        (
            "gemini",
            "╭────╮\n│ ✓  Shell npm test │\n│ │\n│ ok │\n╰────╯\n✕ [API Error: exception TypeError: fetch failed sending request]\n",
        ),
        (
            "qwen",
            "  ✓ Shell npm test (Run the tests)\n    ok\n  ✕ [API Error: 401 Incorrect API key provided: <FAKE_KEY>. You can find your API key in your account\n    settings.] (Press Ctrl+Y to retry)\n",
        ),
        (
            "copilot",
            " $ Shell Run the tests 1 line\n │ ok\n   npm test\n ✗ Authentication failed with provider at http://127.0.0.1:<PORT>/v1 (HTTP 401).\n",
        ),
        (
            "opencode",
            "  ┃\n  ┃  $ npm test\n  ┃\n  ┃  ok\n  ┃\n\n  ┃\n  ┃  Incorrect API key provided: <FAKE_KEY>. You can find your API key in your account settings.\n  ┃\n",
        ),
        // The error toast drawn over a row of the shell block.
        (
            "opencode",
            "  ┃\n  ┃  $ npm test\n  ┃\n  ┃  ok          ┃  {\"message\":\"The server is overloaded. Please try again later.\"}  ┃\n  ┃\n",
        ),
        (
            "opencode",
            "  ┃\n  ┃  $ npm test\n  ┃\n  ┃  ok\n  ┃\n   ⬝⬝⬝⬝⬝⬝⬝⬝ Cannot connect to API: Unable to connect. Is the computer able to access the url… [retrying in 10s attempt #2]\n",
        ),
        // `opencode run`: the session's error after a block's closing blank
        // line, right below a one-line tool, and right below the shell's
        // prompt that started opencode (a startup error).
        (
            "opencode",
            "\n> build · gpt-5\n\n$ npm test\nok\n\nError: Incorrect API key provided: sk-x. You can find your API key in your account settings.\n",
        ),
        ("opencode", "→ Read src/index.ts\nError: The server is overloaded. Please try again later.\n"),
        (
            "opencode",
            "✗ Edit src/index.ts failed\nError: oldString not found in content\nError: The server is overloaded. Please try again later.\n",
        ),
        ("opencode", "# Summary\nThe tests fail.\nError: Incorrect API key provided: sk-x.\n"),
        ("opencode", "$ opencode run \"fix the tests\"\nError: Incorrect API key provided: sk-x.\n"),
        // goose's own message at the first column after a call's rows
        // (testdata/clients/goose@1.52.0/tool.pane, overloaded.pane).
        (
            "goose",
            "  ────────\n  ▸ shell\n    command: npm test\n    ok\nRan into this error: Server error: Server error (503 Service Unavailable) at https://api.openai.com/v1/chat/completions: The server is overloaded. Please try again later..\nPlease retry if you think this is a transient or recoverable error.\n",
        ),
        (
            "goose",
            "  ────────\n  ▸ shell\n    command: npm test\n    ok\nNetwork error: Could not connect to api.openai.com — check your network connection and try again.\nPlease resend your message to try again.\n",
        ),
        // The agent's error after its own message: an item of its own.
        (
            "claude",
            "● The tests pass now.\n  One more check.\n● API Error: 529 Overloaded. This is a server-side issue, usually temporary\n",
        ),
        (
            "codex",
            "• The tests pass now.\n  One more check.\n■ unexpected status 503 Service Unavailable: upstream, url: https://api.openai.com/v1/responses\n",
        ),
        (
            "gemini",
            "✦ The tests pass now.\n  One more check.\n✕ [API Error: exception TypeError: fetch failed sending request]\n",
        ),
        (
            "qwen",
            "  ◆\u{fe0e} The tests pass now.\n    One more check.\n  ✕ [API Error: 401 Incorrect API key provided: <FAKE_KEY>.] (Press Ctrl+Y to retry)\n",
        ),
    ];
    for (name, log) in cases {
        let v = classify(compiled(name), log.as_bytes());
        assert!(v.env_fault, "{name}: {log:?} -> {:?}", v.action);
    }
}

/// `codex exec` prints `tokens used` and the count when it exits, after a
/// fatal error too (the real `too-long` capture ends so): it is no work after
/// the fault. The agent's next message (`codex`) after a retry notice is.
#[test]
fn codex_exec_s_exit_count_is_no_recovery_and_its_next_message_is() {
    let codex = compiled("codex");
    let fatal = std::fs::read_to_string(testdata("clients/codex@0.171.0/rate-limit.exec.stderr")).unwrap();
    let v = classify(codex, format!("{fatal}tokens used\n4,812\n").as_bytes());
    assert_eq!((v.action, v.recovered), (Action::Retry, false), "{:?}", v.rule);
    let retried = "ERROR: Reconnecting... 1/2\ncodex\nThe answer is 4.\ntokens used\n52\n";
    let v = classify(codex, retried.as_bytes());
    assert_eq!((v.action, v.recovered), (Action::Charge, true), "{:?}", v.rule);
}

/// A CI job whose test runner opened its session got past what an earlier
/// step printed (an optional `|| true` download that could not resolve its
/// host); the same fault printed inside the run, below the banner, is still
/// what the job died of. Each runner's banner is the one its source writes.
#[test]
fn a_test_run_that_began_after_a_ci_fault_is_past_it() {
    let ci = compiled("ci");
    let fault = "curl: (6) Could not resolve host: codecov.io\n";
    for banner in [
        "============================= test session starts ==============================",
        "2026-12-05T07:01:02.1234567Z ============================= test session starts =============================",
        " RUN  v3.2.4 /home/runner/work/app/app",
        "PHPUnit 11.5.42 by Sebastian Bergmann and contributors.",
    ] {
        let v = classify(ci, format!("{fault}{banner}\n1 failed, 2 passed in 0.12s\n").as_bytes());
        assert_eq!((v.action, v.recovered), (Action::Charge, true), "{banner}: {:?}", v.rule);
        let v = classify(ci, format!("{banner}\n{fault}").as_bytes());
        assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("ci/dns")), "{banner}");
    }
    // A row that names the banner is not one: a test file's name, a quote.
    for row in ["tests/test_session.py::test_session_starts PASSED", "echo 'RUN  v3 is the banner'"] {
        let v = classify(ci, format!("{fault}{row}\n").as_bytes());
        assert_eq!((v.action, v.recovered), (Action::Pause, false), "{row}");
    }
}

/// Each retry family of `ci` (`testdata/recovery/ci-retries.txt`): a retry
/// that worked, then the job's own failure, is recovered, by the line the
/// tool prints once the operation is done; a retry that gave up stays the
/// fault, whatever the tool printed in between (pip's `Collecting`, cargo's
/// per-crate `Downloaded`, checkout's `Fetching the repository`, the cache's
/// `Cache hit for:`).
#[test]
fn ci_retries_that_worked_are_recovered_and_those_that_gave_up_are_not() {
    let ci = compiled("ci");
    let text = std::fs::read_to_string(testdata("recovery/ci-retries.txt")).unwrap();
    let mut cases: Vec<(&str, &str, String)> = Vec::new();
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("=== ") {
            let mut parts = head.split(" | ");
            cases.push((parts.next().unwrap(), parts.next().unwrap(), String::new()));
        } else if let Some((_, _, log)) = cases.last_mut() {
            log.push_str(line);
            log.push('\n');
        }
    }
    let recovered = cases.iter().filter(|c| c.1 == "recovered").count();
    assert!(recovered >= 50 && cases.len() - recovered >= 20, "{recovered} of {}", cases.len());
    for (id, expect, log) in &cases {
        let v = classify(ci, log.as_bytes());
        match *expect {
            "recovered" => assert_eq!((v.action, v.recovered), (Action::Charge, true), "{id}: {:?}", v.rule),
            "fault" => assert!(v.env_fault && !v.recovered, "{id}: {:?} {:?}", v.action, v.rule),
            other => panic!("{id}: unknown expectation {other}"),
        }
    }
}

/// Copilot CLI 1.0.10's process log writes each failed attempt and retries
/// (the lines of the harness's `--at copilot=1.0.10` runs, 2026-12-04): a log
/// that ends retrying is the provider's fault; one where a response came back
/// after the attempt is recovered.
#[test]
fn copilot_1_0_s_failed_attempt_is_the_fault_until_a_response_comes_back() {
    let copilot = compiled("copilot");
    let attempt = "2026-12-04T22:32:31.566Z [DEBUG] Failed to get response from the AI model: CAPIError: 500 The server had an error while processing your request. Sorry about that!\n2026-12-04T22:32:31.567Z [DEBUG] Retrying after 11.655058237573815 seconds (API error)...\n";
    let killed = format!("{attempt}2026-12-04T22:32:42.371Z [DEBUG] [shutdown] Starting shutdown with 6 disposables\n");
    let v = classify(copilot, killed.as_bytes());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Retry, Some("copilot/process-log-server-error")));
    let answered =
        format!("{attempt}2026-12-04T22:35:16.801Z [DEBUG] response (Request-ID null):\n{{\n  \"choices\": []\n}}\n");
    let v = classify(copilot, answered.as_bytes());
    assert_eq!((v.action, v.recovered), (Action::Charge, true), "{:?}", v.rule);
    // The SDK's status opens the message; a number that is not one does not.
    let v = classify(copilot, attempt.replace("CAPIError: 500 ", "CAPIError: 5000 ").as_bytes());
    assert_eq!(v.action, Action::Charge, "{:?}", v.rule);
}

/// OpenHands's evaluation harness announces each failed attempt of an
/// instance (`Error in instance [id]: {e}. Stacktrace:`, then the retry
/// banner): a run that ends there died of the runtime's 5xx; one whose
/// progress bar moved on after it got past it; the agent's own app on
/// localhost answering 500 is the work's.
#[test]
fn the_eval_harness_retry_notice_is_the_fault_until_the_run_moves_on() {
    let openhands = compiled("openhands");
    let notice = "----------\nError in instance [astropy__astropy-12907]: 502 Server Error: Bad Gateway for url: https://runtime.eval.all-hands.dev/start. Stacktrace:\nTraceback (most recent call last):\n  File \"evaluation/utils/shared.py\", line 312, in _process_instance_wrapper\nrequests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: https://runtime.eval.all-hands.dev/start\n\n----------[The above error occurred. Retrying... (attempt 1 of 5)]----------\n";
    let v = classify(openhands, notice.as_bytes());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Retry, Some("openhands/eval-instance-server-error")));
    let moved_on = format!(
        "{notice}Instance astropy__astropy-12907:  75%|███████▌  | 3/4 [14:02<04:12, 252.2s/it]\nERROR: 4 instances unresolved\n"
    );
    let v = classify(openhands, moved_on.as_bytes());
    assert_eq!((v.action, v.recovered), (Action::Charge, true), "{:?}", v.rule);
    let local = notice.replace("https://runtime.eval.all-hands.dev/start", "http://localhost:3000/start");
    let v = classify(openhands, local.as_bytes());
    assert_eq!(v.action, Action::Charge, "{:?}", v.rule);
}

/// Older releases write a refused request's record with its text alone
/// (Claude Code 1.0's transcript, Codex 0.50's `turn.failed`): a refusal of
/// the request's own size or model is the work's, but a 400 of credits, an
/// organisation or a budget is not, and stays paused.
#[test]
fn an_older_release_s_refused_request_is_charged_only_for_the_work_s_own_causes() {
    let claude_line = |text: &str| {
        let text = serde_json::to_string(text).unwrap();
        format!(
            "{{\"type\":\"assistant\",\"version\":\"1.0.110\",\"message\":{{\"model\":\"<synthetic>\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":{text}}}]}},\"isApiErrorMessage\":true}}\n"
        )
    };
    let codex_line = |text: &str| {
        let text = serde_json::to_string(text).unwrap();
        format!("{{\"type\":\"turn.started\"}}\n{{\"type\":\"turn.failed\",\"error\":{{\"message\":{text}}}}}\n")
    };
    let cases = [
        ("claude", claude_line("Prompt is too long"), Action::Charge),
        (
            "claude",
            claude_line(
                r#"API Error: 404 {"type":"error","error":{"type":"not_found_error","message":"model: fake-model-1"}}"#,
            ),
            Action::Charge,
        ),
        (
            "claude",
            claude_line(
                r#"API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}"#,
            ),
            Action::Pause,
        ),
        (
            "claude",
            claude_line(
                r#"API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"This organization has been disabled."}}"#,
            ),
            Action::Pause,
        ),
        (
            "codex",
            codex_line(
                r#"unexpected status 404 Not Found: {"error": {"message": "The model `fake-model-1` does not exist or you do not have access to it.", "code": "model_not_found"}}"#,
            ),
            Action::Charge,
        ),
        (
            "codex",
            codex_line(
                r#"unexpected status 400 Bad Request: {"error": {"message": "This model's maximum context length is 128000 tokens.", "code": "context_length_exceeded"}}"#,
            ),
            Action::Charge,
        ),
        (
            "codex",
            codex_line(
                r#"unexpected status 400 Bad Request: {"error": {"message": "Your organization must be verified to stream this model.", "type": "invalid_request_error"}}"#,
            ),
            Action::Pause,
        ),
        (
            "codex",
            codex_line(
                r#"unexpected status 404 Not Found: {"error": {"code": "DeploymentNotFound", "message": "The API deployment for this resource does not exist."}}"#,
            ),
            Action::Pause,
        ),
    ];
    for (name, log, want) in cases {
        let v = classify(compiled(name), log.as_bytes());
        assert_eq!(v.action, want, "{name}: {log} -> {:?}", v.rule);
    }
}

/// The rows below the agent's own error item are the error's, though the
/// item has a message's shape (`● API Error: …` as `● Done.`): a rule that
/// reads a wrapped tail still reads it there.
#[test]
fn the_rows_of_an_error_item_are_not_the_model_s_message() {
    let claude = compiled("claude");
    // Claude Code 2.1.332's error wrapped two columns in below its head, in
    // a pane whose rules give its width.
    let log = format!(
        "● Bash(cargo test -q)\n  ⎿  running 12 tests\n● API Error: 401\n  {{\"type\":\"error\",\"error\":{{\"type\":\"authentication_error\",\"message\":\"OAuth\n  token has expired. Please obtain a new token or refresh your existing\n  token.\"}},\"request_id\":\"req_011CSSdA5fqJCVm1m4XMjNks\"}} · Please run /login\n\n{rule}\n❯ \n{rule}\n",
        rule = "─".repeat(80)
    );
    let v = classify(claude, log.as_bytes());
    let rules: Vec<&str> = v.hits.iter().map(|h| h.rule.as_str()).collect();
    assert!(rules.contains(&"claude/auth-failed-continuation"), "{rules:?}");
}

/// How each agent draws its own message (the model's text) in its pane, from
/// the harness's captures (testdata/clients/*/tool.pane: `● Done. …` and its
/// rows two columns in; Qwen Code's `  ◆︎ Done. …` and its rows four in;
/// Copilot CLI's ` ● Done. …` and its rows three in): a
/// message that quotes a line in a paragraph of its own.
const MESSAGE_FRAMES: [(&str, &str); 5] = [
    ("copilot", " ● Fixed. The wrapper now prints:\n\n   {}\n\n   and all 42 tests pass.\n"),
    ("claude", "● Fixed. The wrapper now prints:\n\n  {}\n\n  and all 42 tests pass.\n"),
    ("codex", "• Fixed. The wrapper now prints:\n\n  {}\n\n  and all 42 tests pass.\n"),
    ("gemini", "✦ Fixed. The wrapper now prints:\n\n  {}\n\n  and all 42 tests pass.\n"),
    ("qwen", "  ◆\u{fe0e} Fixed. The wrapper now prints:\n\n    {}\n\n    and all 42 tests pass.\n"),
];

/// The healthy lines shaped like an agent's own error (testdata/tool-output)
/// quoted in the agent's own message are the model writing, not a fault:
/// the profile reads its message's rows (`tool_output.message`). Without
/// that, most fire (the test asserts they do as the message's first line,
/// which is the item itself). Lines that open with an agent's own glyph
/// (`⎿`, `└`, `✕`) are left out: quoted so, a row is that agent's item.
#[test]
fn an_error_quoted_in_the_agent_s_message_is_not_a_fault() {
    let text = std::fs::read_to_string(testdata("tool-output/healthy-lines.txt")).unwrap();
    let bodies: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::trim_start)
        .filter(|b| b.starts_with(|c: char| c.is_ascii()))
        .collect();
    assert!(bodies.len() >= 150, "{} lines", bodies.len());
    let mut fired = Vec::new();
    // The same lines at the left edge below the message, where no item's
    // row is: a program's line, which the rules read.
    let mut outside = std::collections::BTreeSet::new();
    for (name, frame) in MESSAGE_FRAMES {
        let profile = compiled(name);
        let indent = frame.split("{}").next().unwrap().rsplit('\n').next().unwrap();
        for body in &bodies {
            let log = frame.replacen("{}", body, 1);
            if classify(profile, log.as_bytes()).env_fault {
                fired.push(format!("{name}: {log:?}"));
            }
            let left = frame.replacen(&format!("{indent}{{}}"), body, 1);
            if classify(profile, left.as_bytes()).env_fault {
                outside.insert(*body);
            }
        }
    }
    assert!(fired.is_empty(), "{} fired:\n{}", fired.len(), fired.join("\n"));
    assert!(outside.len() * 2 >= bodies.len(), "only {} of {} fire at the left edge", outside.len(), bodies.len());
}

/// Claude Code 1.0 and 2.0 log a failed stream and then, once the request
/// sent again without streaming fails too, the give-up line: only the second
/// is the fault, as the fallback may answer after the first.
#[test]
fn claude_2_0_s_debug_log_gives_up_after_the_non_streaming_fallback() {
    let claude = compiled("claude");
    let stamp = |s: u32| format!("2026-12-04T23:29:{s:02}.206Z");
    let attempt = format!(
        "{} [ERROR] Error streaming, falling back to non-streaming mode: 529 {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}},\"request_id\":\"req_1\"}}\n",
        stamp(5)
    );
    let hooks = format!("{} [DEBUG] Getting matching hook commands for Stop with query: undefined\n", stamp(9));
    let v = classify(claude, format!("{attempt}{hooks}").as_bytes());
    assert_eq!(v.action, Action::Charge, "{:?} {:?}", v.rule, v.evidence);
    let gave_up =
        attempt.replace("Error streaming, falling back to non-streaming mode", "Error in non-streaming fallback");
    let v = classify(claude, format!("{attempt}{gave_up}{hooks}").as_bytes());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Retry, Some("claude/debug-log-overloaded")));
    // The next request streams: the session got past it.
    let streamed = format!("{} [DEBUG] Stream started - received first chunk\n", stamp(40));
    let v = classify(claude, format!("{attempt}{gave_up}{streamed}").as_bytes());
    assert_eq!((v.action, v.recovered), (Action::Charge, true), "{:?}", v.rule);
    // A stream cut off mid-body (undici's `terminated`), and a refused key.
    for (cause, action, rule) in [
        ("terminated", Action::Pause, "claude/debug-log-connection"),
        ("Connection error.", Action::Pause, "claude/debug-log-connection"),
        (
            r#"401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            Action::Pause,
            "claude/debug-log-auth",
        ),
    ] {
        let log = format!("{} [ERROR] Error in non-streaming fallback: {cause}\n{hooks}", stamp(32));
        let v = classify(claude, log.as_bytes());
        assert_eq!((v.action, v.rule.as_deref()), (action, Some(rule)), "{cause}");
    }
}

/// A plain log may write one long record several times (a retry loop's
/// error line, as wide each time): that is no pane whose rows were cut, and
/// the line after the last record stays a line of its own (Codex 0.98's
/// `exec` standard error on a refused key).
#[test]
fn a_record_a_log_repeats_does_not_make_it_a_cut_pane() {
    let codex = compiled("codex");
    let record = |t: &str| {
        format!(
            "2026-12-04T23:40:13.{t}Z ERROR codex_api::endpoint::responses: error=http 401 Unauthorized: Some(\"{{\\\"error\\\": {{\\\"message\\\": \\\"Incorrect API key provided: sk-****. You can find your API key in your account settings.\\\", \\\"type\\\": \\\"invalid_request_error\\\", \\\"code\\\": \\\"invalid_api_key\\\"}}}}\")\n"
        )
    };
    let retry = |n: u32| {
        format!(
            "Reconnecting... {n}/2 (unexpected status 401 Unauthorized: Incorrect API key provided: sk-****., url: http://127.0.0.1:8080/v1/responses)\n"
        )
    };
    let log = format!(
        "{}{}{}{}{}ERROR: unexpected status 401 Unauthorized: Incorrect API key provided: sk-****. You can find your API key in your account settings., url: http://127.0.0.1:8080/v1/responses, request id: req_3\n",
        record("086640"),
        retry(1),
        record("321224"),
        retry(2),
        record("781821"),
    );
    let v = classify(codex, log.as_bytes());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("codex/unauthorized")), "{}", v.reason);
    assert!(v.evidence.as_deref().unwrap().starts_with("ERROR: unexpected status 401"), "{:?}", v.evidence);
}

/// Qwen Code's JSON output of a stream cut after the model began: the CLI
/// appends the error's bracket to the text it had, the message carries no
/// usage, and the result says `is_error: false`. An answer that finished
/// (with usage) and ends the same way is the model's text.
#[test]
fn qwen_s_answer_cut_by_the_network_ends_in_the_program_s_bracket() {
    let qwen = compiled("qwen");
    let run = |text: &str, usage: (u32, u32)| {
        let text = serde_json::to_string(text).unwrap();
        format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"qwen_code_version\":\"0.15.6\"}}\n{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":{text}}}],\"stop_reason\":null,\"usage\":{{\"input_tokens\":{},\"output_tokens\":{}}}}}}}\n{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":{text}}}\n",
            usage.0, usage.1
        )
    };
    let v = classify(qwen, run("Sure. [API Error: terminated (cause: other side closed)]", (0, 0)).as_bytes());
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("qwen/record-synthetic-cut-stream")));
    let v = classify(qwen, run("Sure. [API Error: terminated (cause: other side closed)]", (812, 40)).as_bytes());
    assert_eq!(v.action, Action::Charge, "{:?}", v.rule);
    // A bracket of a cause the network did not make is not this rule's.
    let v = classify(qwen, run("Sure. [API Error: 400 Bad request]", (0, 0)).as_bytes());
    assert_eq!(v.action, Action::Charge, "{:?}", v.rule);
}
