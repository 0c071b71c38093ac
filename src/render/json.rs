//! JSON Lines: one compact (or `--pretty`) verdict object per line, then
//! `{"summary": {…}}` as the last line with `--summary`.

use super::Renderer;
use crate::summary::Summary;
use crate::verdict::Verdict;

/// The default format.
pub struct Json {
    /// Indent the objects.
    pub pretty: bool,
}

fn line(value: &impl serde::Serialize, pretty: bool) -> Vec<u8> {
    let mut out = if pretty { serde_json::to_vec_pretty(value) } else { serde_json::to_vec(value) }
        // Serialising these plain structs cannot fail; an empty object keeps
        // the output well-formed if it ever did.
        .unwrap_or_else(|_| b"{}".to_vec());
    out.push(b'\n');
    out
}

impl Renderer for Json {
    fn verdict(&self, verdict: &Verdict) -> Vec<u8> {
        line(verdict, self.pretty)
    }

    fn end(&self, summary: Option<&Summary>) -> Vec<u8> {
        summary.map(|s| line(&serde_json::json!({ "summary": s }), self.pretty)).unwrap_or_default()
    }
}
