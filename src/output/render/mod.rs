//! Render stage: verdicts to bytes, one renderer per output format. Pure: the
//! caller writes the bytes.

mod github;
mod json;
mod markdown;
mod text;

pub use github::{Github, escape_data, escape_property};
pub use json::Json;
pub use markdown::Markdown;
pub use text::Text;

use std::sync::Arc;

use crate::output::summary::Summary;
use crate::output::verdict::{Action, Verdict};

/// One output format.
pub trait Renderer {
    /// Bytes before the first verdict.
    fn begin(&self) -> Vec<u8> {
        Vec::new()
    }
    /// The bytes of one verdict.
    fn verdict(&self, verdict: &Verdict) -> Vec<u8>;
    /// Bytes after the last verdict, with the summary when `--summary` asked.
    fn end(&self, summary: Option<&Summary>) -> Vec<u8>;
}

/// The renderer of `format`. `color` applies to the text format.
pub fn for_format(format: Format, pretty: bool, color: bool) -> Arc<dyn Renderer + Send + Sync> {
    match format {
        Format::Json => Arc::new(Json { pretty }),
        Format::Text => Arc::new(Text { color }),
        Format::Github => Arc::new(Github),
        Format::Markdown => Arc::new(Markdown),
    }
}

/// Output formats of `classify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON Lines: one verdict object per log (the default).
    Json,
    /// One line per log for people, coloured on a terminal.
    Text,
    /// GitHub Actions workflow commands (annotations), and a Markdown table
    /// appended to `$GITHUB_STEP_SUMMARY` when it is set.
    Github,
    /// A Markdown table, for any CI's job summary.
    Markdown,
}

/// The SGR colour code an action is painted with, wherever it is painted.
pub fn action_color(action: Action) -> &'static str {
    match action {
        Action::Pause => "1;33",
        Action::Retry => "1;36",
        Action::Charge => "1;31",
        Action::Skip => "2",
    }
}

/// `1 log`, `2 logs`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// `part` of `whole` as a percentage with one decimal.
fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

#[cfg(test)]
mod tests;
