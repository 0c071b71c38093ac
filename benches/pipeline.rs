//! Micro-benchmarks of the pipeline stages on a 64 KiB pane-capture window:
//! clean (against `strip-ansi-escapes` and raw `vte`), the literal prefilter and
//! match scan, the whole in-process classification, and profile preparation;
//! one tick of `stall`; and the bound that lets a single log scan without a
//! watchdog thread.
//!
//! `cargo bench --bench pipeline`. Inputs are made here, deterministically.

#![allow(clippy::unwrap_used)] // Benchmarks stop on bad setup.

use std::hint::black_box;

use divan::counter::BytesCount;
use faultsift::pipeline::{clean, window};
use faultsift::profile::{Layer, Resolver};
use faultsift::{CompiledProfile, Pipeline, Settings, WindowSpec, Workload};

fn main() {
    divan::main();
}

/// A Claude Code pane capture: colours, spinner repaints with CR, cursor moves,
/// box drawing and a retry line at the end, repeated to `len` bytes.
fn pane_capture(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 256);
    let mut i = 0u32;
    while out.len() < len {
        let line = match i % 8 {
            0 => format!("\x1b[38;5;246m⏺\x1b[0m Working on step {i}: editing src/module_{}.rs\r\n", i % 50),
            1 => format!("  ⎿  \x1b[2mRead {} lines (ctrl+r to expand)\x1b[0m\r\n", i % 400),
            2 => format!("\r\x1b[2K\x1b[38;5;174m✻\x1b[0m Thinking… ({i}s · esc to interrupt)"),
            3 => "\r\x1b[2K\r\n".to_string(),
            4 => "\x1b[1;38;5;174m╭───────────────────────────────────────────╮\x1b[0m\r\n".to_string(),
            5 => format!("│ > run the test suite for crate {}            │\r\n", i % 9),
            6 => format!("\x1b[1A\x1b[2K     ✓ test_{i} passes ({} ms)\r\n", i % 97),
            _ => "\x1b[1;38;5;174m╰───────────────────────────────────────────╯\x1b[0m\r\n".to_string(),
        };
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out.truncate(len - 100);
    out.extend_from_slice(
        "\r\n  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)\r\n".as_bytes(),
    );
    out
}

const WINDOW: usize = 64 * 1024;

fn claude() -> CompiledProfile {
    let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_matching("claude").unwrap();
    CompiledProfile::compile(profile, "builtin").unwrap()
}

mod cleaning {
    use super::*;

    #[divan::bench]
    fn faultsift(bencher: divan::Bencher) {
        let input = pane_capture(WINDOW);
        bencher.counter(BytesCount::of_slice(&input)).bench(|| clean::clean(black_box(&input), false));
    }

    #[divan::bench]
    fn strip_ansi_escapes(bencher: divan::Bencher) {
        let input = pane_capture(WINDOW);
        bencher.counter(BytesCount::of_slice(&input)).bench(|| ::strip_ansi_escapes::strip(black_box(&input)));
    }

    #[divan::bench]
    fn plain_text(bencher: divan::Bencher) {
        let input: Vec<u8> = (0..WINDOW).map(|i| if i % 80 == 79 { b'\n' } else { b'a' + (i % 26) as u8 }).collect();
        bencher.counter(BytesCount::of_slice(&input)).bench(|| clean::clean(black_box(&input), false));
    }
}

mod matching {
    use super::*;

    #[divan::bench]
    fn scan_64k_window(bencher: divan::Bencher) {
        let profile = claude();
        let cleaned = clean::clean(&pane_capture(WINDOW), false);
        // Warm: the winning rule's regex is compiled on first use.
        let _ = profile.scan(&cleaned, None);
        bencher.bench(|| profile.scan(black_box(&cleaned), None));
    }

    #[divan::bench]
    fn prepare_claude_profile(bencher: divan::Bencher) {
        bencher.bench(claude);
    }
}

mod whole {
    use super::*;

    /// The one-shot pipeline of the claude profile.
    fn pipeline() -> Pipeline {
        let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_matching("claude").unwrap();
        let settings = Settings { status: Some("timeout".into()), ..Settings::default() };
        Pipeline::new(profile, settings, Workload::Few).unwrap()
    }

    fn classify(pipeline: &Pipeline, log: &[u8]) -> faultsift::Verdict {
        pipeline.classify_window("bench.log", window::from_bytes(log, WindowSpec::default())).verdict
    }

    /// Window, clean, match, decide on a 5 MB capture, profile already prepared.
    #[divan::bench]
    fn classify_64k_window(bencher: divan::Bencher) {
        let pipeline = pipeline();
        let log = pane_capture(5 << 20);
        let _ = classify(&pipeline, &log);
        bencher.bench(|| classify(&pipeline, black_box(&log)));
    }

    /// The same from a cold start: the profile prepared and the winning regex
    /// compiled inside the measurement, as a fresh process does it.
    #[divan::bench]
    fn classify_cold(bencher: divan::Bencher) {
        let log = pane_capture(5 << 20);
        bencher.bench(|| classify(&pipeline(), black_box(&log)));
    }
}

/// A window of a Claude Code session transcript read as records (#17).
mod records {
    use super::*;

    /// A transcript of about `len` bytes: user turns, tool calls and results,
    /// assistant turns, then two retry rows and the synthetic 529 line.
    fn transcript(len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 1024);
        let mut i = 0u32;
        while out.len() < len {
            let line = match i % 4 {
                0 => format!(
                    r#"{{"type":"user","uuid":"u{i}","message":{{"role":"user","content":"step {i}: fix module_{}.rs"}}}}"#,
                    i % 50
                ),
                1 => format!(
                    r#"{{"type":"assistant","uuid":"a{i}","message":{{"role":"assistant","stop_reason":"tool_use","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"cargo test -p crate{}"}}}}]}}}}"#,
                    i % 9
                ),
                2 => format!(
                    r#"{{"type":"user","uuid":"r{i}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"{}"}}]}}}}"#,
                    "test_x ... ok ".repeat(1 + (i % 20) as usize)
                ),
                _ => format!(
                    r#"{{"type":"assistant","uuid":"a{i}","message":{{"role":"assistant","stop_reason":"end_turn","content":[{{"type":"text","text":"Step {i} is done."}}]}}}}"#
                ),
            };
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
            i += 1;
        }
        for attempt in 1..=2 {
            let row = format!(
                r#"{{"type":"system","subtype":"api_error","level":"error","error":{{"message":"529 overloaded","status":529}},"retryAttempt":{attempt},"maxRetries":10}}"#
            );
            out.extend_from_slice(row.as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(br#"{"type":"assistant","isApiErrorMessage":true,"apiErrorStatus":529,"error":"server_error","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: 529 Overloaded"}]}}"#);
        out.push(b'\n');
        out
    }

    /// Detect, parse, match, decide on a 64 KiB transcript window, profile
    /// already prepared.
    #[divan::bench]
    fn classify_64k_transcript(bencher: divan::Bencher) {
        let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_matching("claude").unwrap();
        let pipeline = Pipeline::new(profile, Settings::default(), Workload::Few).unwrap();
        let log = transcript(WINDOW);
        let run = |log: &[u8]| {
            pipeline.classify_window("bench.jsonl", window::from_bytes(log, WindowSpec::default())).verdict
        };
        assert_eq!(run(&log).input, faultsift::Input::Jsonl);
        bencher.counter(BytesCount::of_slice(&log)).bench(|| run(black_box(&log)));
    }
}

/// One tick of `faultsift stall` on the 64 KiB capture: clean, read the
/// screen (busy lines, volatile masks, identity), decide; and the state
/// file's locked read and atomic replacement.
mod stall {
    use super::*;
    use faultsift::commands::stall::{Owner, Prior, Tick, decide, state};
    use faultsift::pipeline::matcher::Workload;
    use faultsift::pipeline::matcher::screen::ScreenPatterns;

    /// As a tick prepares them: built-in patterns compile on first need.
    fn rules() -> ScreenPatterns {
        let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_stall("claude").unwrap();
        ScreenPatterns::compile(&profile.stall, "builtin", Workload::Few).unwrap()
    }

    const OWNER: Owner<'static> = Owner { session: "bench", profile: "claude" };
    const TICK: Tick = Tick { now: 1000, threshold_s: 300, busy: false, idle: false };

    #[divan::bench]
    fn tick_64k_window(bencher: divan::Bencher) {
        let rules = rules();
        let input = pane_capture(WINDOW);
        bencher.counter(BytesCount::of_slice(&input)).bench(|| {
            let screen = rules.screen(&clean::clean(black_box(&input), false));
            decide(Prior::Unusable(String::new()), OWNER, &screen, TICK)
        });
    }

    #[divan::bench]
    fn prepare_claude_rules(bencher: divan::Bencher) {
        bencher.bench(rules);
    }

    #[divan::bench]
    fn state_file_update(bencher: divan::Bencher) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.state");
        let screen = rules().screen(&clean::clean(&pane_capture(WINDOW), false));
        bencher.bench(|| {
            state::update(&path, |prior| {
                let d = decide(prior, OWNER, &screen, TICK);
                let next = d.next.clone();
                (d.stalled, next)
            })
            .unwrap()
        });
    }
}

/// The worst a built-in profile does on lines of [`faultsift::pipeline::matcher::BOUNDED_LINE`]
/// bytes (the bound behind scanning a single log without a watchdog thread):
/// eight such lines made of the profile's own literals and examples, so that
/// every pattern is a candidate and most search the whole line in vain, with
/// ASCII, accented and no separators (an accented letter sends the patterns
/// with word boundaries to `regex`, compiled then). Each run starts from a
/// freshly prepared profile, so first-use compiles are counted. Between two
/// deadline checks a scan searches at most a quarter of this: 4 KiB plus one line.
mod bounded {
    use super::*;
    use faultsift::pipeline::matcher::BOUNDED_LINE;

    const PROFILES: &[&str] = &[
        "aider",
        "ci",
        "claude",
        "codex",
        "copilot",
        "cursor",
        "executor",
        "gemini",
        "goose",
        "opencode",
        "openhands",
        "qwen",
    ];

    fn compiled(name: &str) -> CompiledProfile {
        let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_matching(name).unwrap();
        CompiledProfile::compile(profile, "builtin").unwrap()
    }

    fn hostile_lines(profile: &CompiledProfile) -> Vec<u8> {
        let rules = &profile.profile.rules;
        let literals: Vec<&str> =
            rules.iter().flat_map(|r| r.literals.iter().flatten().flatten()).map(String::as_str).collect();
        let examples: Vec<&str> = rules.iter().flat_map(|r| &r.examples).map(String::as_str).collect();
        let mut out = Vec::new();
        for (parts, sep) in [(&literals, " "), (&literals, " é "), (&literals, "é"), (&examples, " ")] {
            let mut line = String::new();
            for part in parts.iter().cycle().take(BOUNDED_LINE) {
                if line.len() + part.len() + sep.len() > BOUNDED_LINE {
                    break;
                }
                line.push_str(&part.replace(['\n', '\r'], " "));
                line.push_str(sep);
            }
            for _ in 0..2 {
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
        }
        out
    }

    #[divan::bench(args = PROFILES)]
    fn eight_4k_lines_of_own_literals(bencher: divan::Bencher, name: &str) {
        let cleaned = clean::clean(&hostile_lines(&compiled(name)), false);
        assert!(compiled(name).scan_is_bounded(&cleaned));
        bencher.with_inputs(|| compiled(name)).bench_values(|profile| profile.scan(black_box(&cleaned), None));
    }
}
