//! Fuzz target: log bytes → window → clean → match (built-in `claude` profile)
//! → verdict, checking the verdict's invariants (SPEC §3) on every input.
//!
//! The first two bytes choose the window (size, and whether `--since` is set);
//! the rest is the log.

#![no_main]

use std::sync::OnceLock;

use faultsift::pipeline::window::{self, WindowSpec};
use faultsift::{Pipeline, Settings, Verdict, Workload};
use libfuzzer_sys::fuzz_target;

fn claude() -> &'static Pipeline {
    static C: OnceLock<Pipeline> = OnceLock::new();
    C.get_or_init(|| {
        let resolver = faultsift::profile::Resolver::new(vec![faultsift::profile::Layer::Builtin]);
        let profile = resolver.resolve("claude").expect("built-in claude profile");
        let settings = Settings { status: Some("timeout".into()), ..Settings::default() };
        Pipeline::new(profile, settings, Workload::Few).expect("built-in claude profile compiles")
    })
}

fuzz_target!(|data: &[u8]| {
    let (head, log) = data.split_at(data.len().min(2));
    let a = head.first().copied().unwrap_or(0);
    let b = head.get(1).copied().unwrap_or(0);
    // Windows from 1 byte to the whole input, and --since inside, at or past the end.
    let tail_bytes = match a % 4 {
        0 => 65_536,
        1 => u64::from(b) + 1,
        2 => u64::from(b) * 64 + 1,
        _ => u64::from(a) * u64::from(b) + 1,
    };
    let since = (a & 0x80 != 0).then(|| u64::from(b) * 8);
    let spec = WindowSpec { tail_bytes, since };
    let w = window::from_bytes(log, spec);
    let v = claude().classify_window("-", w.clone()).verdict;

    let json = serde_json::to_string(&v).expect("a verdict serialises");
    assert!(!json.contains('\n'));
    let back: Verdict = serde_json::from_str(&json).expect("a verdict parses back");
    assert_eq!(back, v);
    if let Some(e) = &v.evidence {
        assert!(e.chars().count() <= 240, "evidence over 240 characters: {e:?}");
        assert!(!e.chars().any(char::is_control), "control character in evidence: {e:?}");
    }
    assert!(!v.reason.chars().any(char::is_control), "control character in reason: {:?}", v.reason);
    for value in v.captures.groups.values() {
        assert!(!value.chars().any(char::is_control), "control character in a capture: {value:?}");
    }
    let (start, end) = (w.start, w.end());
    if let Some(offset) = v.offset {
        assert!(start <= offset && offset < end, "offset {offset} outside {start}..{end}");
    }
    for h in &v.hits {
        assert!(start <= h.last_offset && h.last_offset < end, "hit {h:?} outside {start}..{end}");
    }

    // Cleaning is idempotent on what it produces.
    let cleaned = faultsift::pipeline::clean::clean(&w.bytes, w.starts_mid_line);
    for (_, line) in cleaned.iter() {
        assert!(!line.chars().any(|c| c.is_control() && c != '\t'), "control character in a line: {line:?}");
        let once = faultsift::pipeline::clean::clean_line(line);
        assert_eq!(faultsift::pipeline::clean::clean_line(&once), once);
    }
});
