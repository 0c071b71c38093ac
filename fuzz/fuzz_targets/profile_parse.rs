//! Fuzz target: bytes as a profile file → `profile::schema::parse`, then, if it
//! parsed, compile it and scan a few lines with it (under a deadline). Every
//! outcome must be a value or an error, never a panic.

#![no_main]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use faultsift::CompiledProfile;
use faultsift::profile::{Origin, Profile, schema};
use libfuzzer_sys::fuzz_target;

const LOG: &[u8] = b"API Error: 529 Overloaded\n\x1b[31mUnable to connect to API (ECONNRESET)\x1b[0m\n\
  \xe2\x8e\xbf  API Error (Connection error.) \xc2\xb7 Retrying in 4 seconds\xe2\x80\xa6 (attempt 4/10)\n\
  rate limit exceeded, retry after 30s; token=hunter2 key=sk-ant-api03-0123456789abcdef\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let file = match schema::parse("fuzz.toml", "fuzz", text) {
        Ok(file) => file,
        Err(e) => {
            // Errors are one line once printed.
            let line = faultsift::output::safe::line(&e.to_string());
            assert!(!line.contains('\n'));
            return;
        }
    };
    let profile = Profile {
        name: file.name,
        description: file.description,
        carries_model_output: file.carries_model_output.unwrap_or(false),
        origin: Origin::File(PathBuf::from("fuzz.toml")),
        rules: file.rules,
        progress: file.progress,
        unknown_keys: file.unknown_keys,
        stall: file.stall,
        texts: Vec::new(),
        progress_records: Vec::new(),
        tool_output: file.tool_output,
        banner: file.banner.unwrap_or_default(),
    };
    let Ok(compiled) = CompiledProfile::compile(profile, "fuzz.toml") else { return };
    let cleaned = faultsift::pipeline::clean::clean(LOG, false);
    let scan = compiled.scan(&cleaned, Some(Instant::now() + Duration::from_secs(1)));
    if let Some(hit) = scan.last {
        let line = cleaned.line_text(&cleaned.lines[hit.line]);
        let found = hit.pattern.and_then(|p| compiled.find(p, line));
        assert!(found.is_some(), "a hit has a span");
    }
    for line in cleaned.iter().map(|(_, l)| l) {
        for r in &compiled.profile.rules {
            for ex in &r.examples {
                let _ = compiled.first_rule(ex);
            }
        }
        let _ = compiled.matching_patterns(line);
    }
});
