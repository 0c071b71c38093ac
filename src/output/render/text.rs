//! Text: one line per log for people (`PAUSE  connection  logs/t1.log  …`),
//! coloured on a terminal, and a summary table.

use std::fmt::Write as _;

use super::{Renderer, percent};
use crate::output::safe;
use crate::output::summary::Summary;
use crate::output::verdict::Verdict;

/// One line per log.
pub struct Text {
    /// Colour the action.
    pub color: bool,
}

impl Renderer for Text {
    fn verdict(&self, v: &Verdict) -> Vec<u8> {
        let detail = safe::line(v.evidence.as_deref().unwrap_or(&v.reason));
        let kind = safe::line(v.kind.as_deref().unwrap_or("-"));
        let log = safe::line(&v.log);
        // A profile that is not the built-in says where it came from: a file
        // that took a built-in's name must not pass for it.
        let origin = if v.profile_origin == "builtin" {
            String::new()
        } else {
            format!("  [profile {}]", safe::line(&v.profile_origin))
        };
        let action = format!("{:<6}", v.action.as_str().to_uppercase());
        let action =
            if self.color { format!("\x1b[{}m{action}\x1b[0m", super::action_color(v.action)) } else { action };
        format!("{action} {kind:<14} {log}  {detail}{origin}\n").into_bytes()
    }

    fn end(&self, summary: Option<&Summary>) -> Vec<u8> {
        let Some(s) = summary else { return Vec::new() };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nsummary: {}, {} ({}), {} unreadable, {} timed out",
            super::plural(s.logs, "log"),
            super::plural(s.env_faults, "environment fault"),
            percent(s.env_fault_share),
            s.errors,
            s.timed_out
        );
        for (title, map) in [("action", &s.actions), ("kind", &s.kinds), ("rule", &s.rules)] {
            if map.is_empty() {
                continue;
            }
            let width = map.keys().map(|k| k.chars().count()).max().unwrap_or(0).max(title.len());
            let _ = writeln!(out, "\n{title:<width$}  logs");
            for (k, n) in map {
                let k = safe::line(k);
                let _ = writeln!(out, "{k:<width$}  {n}");
            }
        }
        let _ = writeln!(out, "\nunclassified ({}):", s.unclassified.len());
        for log in &s.unclassified {
            let _ = writeln!(out, "  {}", safe::line(log));
        }
        out.into_bytes()
    }
}
