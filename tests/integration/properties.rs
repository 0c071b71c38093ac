//! Properties of the pipeline (issue 7 §3), through the library's public API,
//! with bounded case counts so the suite stays fast.

use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::OnceLock;

use faultsift::output::evidence::{MAX_CHARS, evidence, safe_text};
use faultsift::output::redact::redact_str;
use faultsift::pipeline::clean::{clean, clean_line};
use faultsift::pipeline::matcher::BOUNDED_LINE;
use faultsift::pipeline::rejoin::rejoin;
use faultsift::pipeline::window::{self, Window, WindowSpec};
use faultsift::{Pipeline, Verdict};
use proptest::prelude::*;

use crate::hostile::{Rng, assert_well_formed};

/// The built-in `claude` profile, compiled once for every case, reading
/// windows as screen text: these properties are about text, and a window that
/// holds nothing but one of the profile's JSON-body examples would otherwise
/// be read as records, as `--input auto` means it to be.
fn claude() -> &'static Pipeline {
    static C: OnceLock<Pipeline> = OnceLock::new();
    C.get_or_init(|| {
        let profile =
            faultsift::profile::Resolver::new(vec![faultsift::profile::Layer::Builtin]).resolve("claude").unwrap();
        let settings = faultsift::Settings {
            status: Some("timeout".into()),
            input: faultsift::pipeline::records::InputMode::Text,
            ..faultsift::Settings::default()
        };
        Pipeline::new(profile, settings, faultsift::Workload::Few).unwrap()
    })
}

/// The lines the `claude` profile's rules must match.
fn examples() -> &'static [String] {
    static E: OnceLock<Vec<String>> = OnceLock::new();
    // Lines of screen text: a record rule's examples are JSON records.
    E.get_or_init(|| {
        claude()
            .profile()
            .unwrap()
            .rules
            .iter()
            .filter(|r| !r.is_record_rule())
            .flat_map(|r| r.examples.clone())
            .collect()
    })
}

fn classify(window: &Window) -> Verdict {
    claude().classify_window("-", window.clone()).verdict
}

/// Pieces hostile logs are made of: noise, escapes, breaks, broken UTF-8,
/// secrets, and the lines the profile is looking for.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    const FIXED: &[&[u8]] = &[
        b"\n",
        b"\r",
        b"\r\n",
        b"\t",
        b"\x1b[31m",
        b"\x1b[0m",
        b"\x1b[2K",
        b"\x1b[5;1H",
        b"\x1b[1C",
        b"\x1b]0;title\x07",
        b"\x1b]8;;https://example.com\x1b\\",
        b"\x1bP1;2q",
        b"\x1b\\",
        b"\x1b",
        b"\x9b1m",
        b"\x9d",
        b"\x9c",
        b"\x18",
        b"\xff",
        b"\xe2\x82",
        b"\xf0\x9f",
        b"\xc2\x9b",
        "⎿  ".as_bytes(),
        "é漢🙂".as_bytes(),
        "\u{202E}".as_bytes(),
        b"sk-ant-api03-AbCdEf0123456789_xyz",
        b"Authorization: Bearer abcdefgh12345678",
        b"password=hunter2hunter2",
    ];
    prop_oneof![
        3 => proptest::collection::vec(any::<u8>(), 0..48),
        2 => "[ -~]{0,40}".prop_map(String::into_bytes),
        3 => proptest::sample::select(FIXED).prop_map(<[u8]>::to_vec),
        2 => (0..64usize).prop_map(|i| {
            let ex = examples();
            ex[i % ex.len()].clone().into_bytes()
        }),
    ]
}

/// Pieces of text with no control byte but line breaks: printable text,
/// characters of every length, and broken characters (none of whose bytes is
/// read alone as a C1 control).
fn text_piece() -> impl Strategy<Value = Vec<u8>> {
    const FIXED: &[&[u8]] = &[b"\n", b"\xff", b"\xc3", b"\xe2\x94", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xed\xa0\xbf"];
    prop_oneof![
        2 => "[ -~]{1,60}".prop_map(String::into_bytes),
        2 => "[é─漢🙂⎿·]{1,20}".prop_map(String::into_bytes),
        1 => proptest::sample::select(FIXED).prop_map(<[u8]>::to_vec),
    ]
}

fn hostile_log() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

fn spec() -> impl Strategy<Value = WindowSpec> {
    (prop_oneof![1u64..64, 64u64..4096, Just(65_536)], proptest::option::of(0u64..2048))
        .prop_map(|(tail_bytes, since)| WindowSpec { tail_bytes, since })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// For any bytes and window, the verdict serialises to JSON that parses
    /// back to the same verdict, its evidence is at most 240 characters with no
    /// control character, and every offset lies inside the window.
    #[test]
    fn verdicts_are_well_formed(log in hostile_log(), spec in spec()) {
        let w = window::from_bytes(&log, spec);
        let v = classify(&w);
        let json = serde_json::to_string(&v).unwrap();
        let back: Verdict = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert!(!json.contains('\n'));
        assert_well_formed(&v);
        let info = v.window.unwrap();
        prop_assert_eq!((info.start, info.end, info.log_bytes), (w.start, w.end(), log.len() as u64));
    }

    /// Cleaned lines hold no control character but tab, and no escape.
    #[test]
    fn cleaned_lines_have_no_controls(log in hostile_log(), fragment in any::<bool>()) {
        let cleaned = clean(&log, fragment);
        for (offset, text) in cleaned.iter() {
            prop_assert!(offset <= log.len());
            prop_assert!(!text.chars().any(|c| c.is_control() && c != '\t'), "{:?}", text);
        }
    }

    /// Evidence for any line and match position: at most 240 characters, no
    /// control character.
    #[test]
    fn evidence_is_bounded_and_clean(
        line in prop_oneof!["\\PC{0,600}", ".{0,600}", "[a-z \t\u{1b}\u{85}\u{202e}]{0,2000}"],
        at in 0usize..3000,
        fragment in any::<bool>(),
    ) {
        let e = evidence(&line, at, fragment);
        prop_assert!(e.chars().count() <= MAX_CHARS, "{} chars", e.chars().count());
        prop_assert!(!e.chars().any(char::is_control), "{:?}", e);
        let s = safe_text(&line);
        prop_assert!(!s.chars().any(char::is_control), "{:?}", s);
    }

    /// A file read by seeking, a stream read through the ring buffer, and the
    /// bytes in memory give the same window, hence the same verdict.
    #[test]
    fn stdin_and_file_give_the_same_window(
        seed in any::<u64>(),
        len in prop_oneof![0usize..300, 300usize..70_000, 70_000usize..300_000],
        spec in spec(),
        read_size in 1usize..10_000,
    ) {
        let mut rng = Rng::new(seed);
        let log = if seed % 2 == 0 { rng.bytes(len) } else { rng.terminal_bytes(len) };
        let expected = window::from_bytes(&log, spec);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&log).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        let from_file = window::read_file(&file, log.len() as u64, spec).unwrap();
        let from_stream = window::read_stream(&log[..], spec).unwrap();
        let from_trickle = window::read_stream(Trickle { data: &log, step: read_size }, spec).unwrap();
        prop_assert_eq!(&from_file, &expected);
        prop_assert_eq!(&from_stream, &expected);
        prop_assert_eq!(&from_trickle, &expected);
        let strip = |mut v: Verdict| { v.elapsed_us = 0; v };
        prop_assert_eq!(strip(classify(&from_file)), strip(classify(&from_stream)));
    }

    /// Text without control bytes cleans to its lossy UTF-8 decoding, line by
    /// line, wherever its broken characters fall: the cleaner validates it in
    /// stretches that grow past each one, cut wherever.
    #[test]
    fn text_without_controls_cleans_to_its_lossy_decoding(
        pieces in proptest::collection::vec(text_piece(), 0..300),
    ) {
        let bytes = pieces.concat();
        let cleaned = clean(&bytes, false);
        let got: Vec<&str> = cleaned.lines.iter().map(|l| cleaned.line_text(l).trim_end()).filter(|l| !l.is_empty()).collect();
        let lossy = String::from_utf8_lossy(&bytes);
        let want: Vec<&str> = lossy.split('\n').map(str::trim_end).filter(|l| !l.is_empty()).collect();
        prop_assert_eq!(got, want);
    }

    /// Cleaning is idempotent, and clean text is its own cleaning.
    #[test]
    fn cleaning_is_idempotent(x in prop_oneof![".{0,200}", "[\u{0}-\u{ff}]{0,200}", "\\PC{0,200}"]) {
        let once = clean_line(&x);
        prop_assert_eq!(clean_line(&once), once.clone());
        let clean_text: String = x.chars().filter(|c| !c.is_control() || *c == '\t').collect();
        prop_assert_eq!(clean_line(&clean_text), clean_text);
    }

    /// A fault line wholly inside the window, after an empty row, is found
    /// whatever text came before it and wherever the window cuts that text
    /// (inside a multi-byte character included). The empty row keeps the
    /// fault's row from reading as the rest of the text's: a row indented as
    /// a TUI indents what it wrapped, below a row too full for its first
    /// word, goes on that row by design (`rejoin`'s `word_wraps`), and then
    /// its start is no line's start.
    #[test]
    fn a_fault_line_inside_the_window_is_found(
        before in "\\PC{0,300}",
        example in 0usize..64,
        extra in 0u64..400,
    ) {
        let ex = &examples()[example % examples().len()];
        let mut log = before.into_bytes();
        log.extend_from_slice(b"\n\n");
        let at = log.len() as u64;
        log.extend_from_slice(ex.as_bytes());
        log.push(b'\n');
        let tail = (log.len() as u64 - at + extra).min(log.len() as u64);
        let v = classify(&window::from_bytes(&log, WindowSpec { tail_bytes: tail, since: None }));
        prop_assert!(v.rule.is_some(), "{:?} not found after {} bytes of window: {:?}", ex, extra, v.reason);
        prop_assert_eq!(v.offset, Some(at));
    }

    /// Rows re-joined from any window, hostile or a pane of text cut at its
    /// width: every row is in exactly one line, in order, each line starts at
    /// its first row's offset, and no joined line outgrows the bound.
    #[test]
    fn rejoined_lines_are_the_rows_in_order(
        log in prop_oneof![
            hostile_log(),
            (proptest::collection::vec(text_piece(), 1..30), 60usize..130).prop_map(|(pieces, width)| {
                let text = String::from_utf8_lossy(&pieces.concat()).into_owned();
                let chars: Vec<char> = text.chars().collect();
                chars.chunks(width).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("\n").into_bytes()
            }),
        ],
        fragment in any::<bool>(),
    ) {
        let rows = clean(&log, fragment);
        let Some(joined) = rejoin(&rows, true) else { return Ok(()) };
        let (lines, mut r) = (&joined.cleaned, 0);
        for (i, (offset, text)) in lines.iter().enumerate() {
            prop_assert_eq!(offset, rows.lines[r].offset);
            let mut rest = text;
            let wrapped = |r: usize| joined.wrapped.binary_search(&r).is_ok();
            loop {
                // A row that goes on a line the program wrapped itself is
                // joined without its indent, and the row above without the
                // blanks it ended in.
                let mut row = rows.line_text(&rows.lines[r]);
                if wrapped(r) {
                    row = row.trim_start_matches(' ');
                }
                if wrapped(r + 1) {
                    row = row.trim_end_matches(' ');
                }
                rest = rest.strip_prefix(row).ok_or_else(|| TestCaseError::fail(format!("{row:?} not next in {text:?}")))?;
                r += 1;
                if rest.is_empty() {
                    break;
                }
                // The joint: nothing, or the blank a cut after a blank lost,
                // or the one blank of a program's own wrap.
                let next = rows.line_text(&rows.lines[r]);
                if wrapped(r) || !rest.starts_with(next) {
                    rest = rest.strip_prefix(' ').unwrap_or(rest);
                }
            }
            prop_assert!(!joined.cleaned.rejoined.as_ref().unwrap().joined(i) || text.len() <= BOUNDED_LINE, "{} bytes", text.len());
        }
        prop_assert_eq!(r, rows.lines.len());
    }
}

/// A reader that returns at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The secret shapes of `faultsift::output::redact`, as generators of tokens, and the
/// part of each that must not survive redaction.
fn secret() -> impl Strategy<Value = (String, String)> {
    let same = |s: String| (s.clone(), s);
    prop_oneof![
        "sk-ant-[A-Za-z0-9_\\-]{8,40}".prop_map(same),
        "sk-[A-Za-z0-9_\\-]{16,40}".prop_map(same),
        "AIza[0-9A-Za-z_\\-]{30,40}".prop_map(same),
        "gh[pousr]_[A-Za-z0-9]{20,40}".prop_map(same),
        "github_pat_[A-Za-z0-9_]{20,60}".prop_map(same),
        "xox[abposr]-[A-Za-z0-9\\-]{10,40}".prop_map(same),
        "(AKIA|ASIA)[0-9A-Z]{16}".prop_map(same),
        "eyJ[A-Za-z0-9_\\-]{8,30}\\.[A-Za-z0-9_\\-]{8,30}\\.[A-Za-z0-9_\\-]{8,30}".prop_map(same),
        ("(Bearer|bearer|BEARER)[ \t]{1,3}", "[A-Za-z0-9._~+/=\\-]{12,40}").prop_map(|(b, v)| (format!("{b}{v}"), v)),
        (
            // Alone, or as the end of an environment variable's name.
            "([A-Z][A-Z0-9]{0,7}_)?",
            "(api_key|API-KEY|access_token|auth-token|client_secret|key|token|secret|password|passwd|Password)",
            "[\"']?[ ]?[=:][ ]?[\"']?",
            "[A-Za-z0-9!#$%()*+./<>?@^_~\\-]{12,40}",
        )
            .prop_map(|(env, k, sep, v)| (format!("{env}{k}{sep}{v}"), v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No token of a listed shape survives redaction, whatever text is around
    /// it (separated by a blank, as a token is in a log line), in the evidence
    /// and in captured values.
    #[test]
    fn redaction_leaves_no_listed_token(
        before in "\\PC{0,80}",
        (text, secret) in secret(),
        after in "\\PC{0,80}",
    ) {
        let line = format!("{before} {text} {after}");
        let redacted = redact_str(&line);
        prop_assert!(!redacted.contains(&secret), "{:?} survives in {:?}", secret, redacted);
        let e = evidence(&line, before.len(), false);
        prop_assert!(!e.contains(&secret), "{:?} survives in evidence {:?}", secret, e);
        prop_assert!(!safe_text(&line).contains(&secret));
    }

    /// The same for a token far along a long line (evidence cuts a region of
    /// the line before redacting it).
    #[test]
    fn redaction_holds_on_long_lines(
        pad in 0usize..6000,
        (text, secret) in secret(),
        at in 0usize..8000,
    ) {
        let line = format!("{} {text} {}", "w ".repeat(pad / 2), "z ".repeat(3000));
        let e = evidence(&line, at.min(line.len()), false);
        prop_assert!(!e.contains(&secret), "{:?} survives in evidence {:?}", secret, e);
    }
}

/// Found by the properties above: secrets that used to survive redaction.
#[test]
fn redaction_regressions() {
    for (line, secret) in [
        // Environment variables: no word boundary before the name.
        ("DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
        ("export OPENAI_API_KEY=abc123def456ghi", "abc123def456ghi"),
        ("aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"),
        // A bearer value cut at `!`, whose key=value reading goes on: the tail
        // used to be printed after the first mark.
        ("Authorization: Bearer token=abcdefgh!tail-of-secret", "tail-of-secret"),
    ] {
        let r = redact_str(line);
        assert!(!r.contains(secret), "{line:?} -> {r:?}");
    }
    // Names that only end like a listed one are not secrets.
    assert_eq!(redact_str("max_tokens=4096 monkey=banana"), "max_tokens=4096 monkey=banana");
}

/// A JSON object as a program writes one: strings that hold brackets,
/// braces, quotes and backslashes, nested arrays and objects.
fn json_object() -> impl Strategy<Value = String> {
    let text = "[a-z{}\\[\\]\"\\\\,: ]{0,12}";
    (text, text, proptest::collection::vec(0u8..3, 0..3)).prop_map(|(a, b, nest)| {
        let mut inner = serde_json::json!({ "text": b });
        for n in nest {
            inner = match n {
                0 => serde_json::json!([inner, 1, null]),
                1 => serde_json::json!({ "k": inner, "s": "}]" }),
                _ => serde_json::json!([[], {}, inner]),
            };
        }
        serde_json::json!({ "type": a, "inner": inner }).to_string()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A one-line JSON array of objects, cut anywhere (the window starts
    /// inside it), reads as exactly the objects the window holds whole, in
    /// order, each one valid JSON.
    #[test]
    fn a_cut_json_array_yields_the_objects_it_holds_whole(
        objects in proptest::collection::vec(json_object(), 1..6),
        cut in any::<proptest::sample::Index>(),
    ) {
        use faultsift::pipeline::records::{InputMode, read};
        let line = format!("[{}]\n", objects.join(","));
        let mut starts = Vec::new();
        let mut at = 1;
        for o in &objects {
            starts.push(at);
            at += o.len() + 1;
        }
        let cut = cut.index(line.len() - 1);
        let window = &line.as_bytes()[cut..];
        let r = read(window, cut > 0, InputMode::Jsonl, &[]).unwrap();
        let got: Vec<(usize, &[u8])> = r.lines.iter().map(|l| (l.offset + cut, r.bytes(window, l))).collect();
        let want: Vec<(usize, &[u8])> = starts
            .iter()
            .zip(&objects)
            .filter(|(s, _)| **s >= cut)
            .map(|(s, o)| (*s, o.as_bytes()))
            .collect();
        prop_assert_eq!(&got, &want);
        for (_, bytes) in got {
            prop_assert!(serde_json::from_slice::<serde_json::Value>(bytes).is_ok());
        }
    }
}
