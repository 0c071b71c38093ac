//! JSON Lines: one compact (or `--pretty`) verdict object per line, then
//! `{"schema": "faultsift/summary/v1", "summary": {…}}` as the last line with `--summary`.

use super::Renderer;
use crate::output::summary::{SUMMARY_SCHEMA_ID, Summary};
use crate::output::verdict::Verdict;

/// The default format.
pub struct Json {
    /// Indent the objects.
    pub pretty: bool,
}

/// Room for a typical verdict's line, with a hit. `serde_json`'s own buffer
/// starts small and doubles: more allocations and copies per log of a batch.
const LINE_CAPACITY: usize = 1024;

fn line(value: &impl serde::Serialize, pretty: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(LINE_CAPACITY);
    let written =
        if pretty { serde_json::to_writer_pretty(&mut out, value) } else { serde_json::to_writer(&mut out, value) };
    // Serialising these plain structs cannot fail; an empty object keeps the
    // output well-formed if it ever did.
    if written.is_err() {
        out = b"{}".to_vec();
    }
    out.push(b'\n');
    out
}

impl Renderer for Json {
    fn verdict(&self, verdict: &Verdict) -> Vec<u8> {
        line(verdict, self.pretty)
    }

    fn end(&self, summary: Option<&Summary>) -> Vec<u8> {
        summary
            .map(|s| line(&serde_json::json!({ "schema": SUMMARY_SCHEMA_ID, "summary": s }), self.pretty))
            .unwrap_or_default()
    }
}
