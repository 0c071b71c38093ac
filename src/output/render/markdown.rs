//! Markdown: a table of verdicts and summary tables, for any CI's job summary
//! (and `$GITHUB_STEP_SUMMARY`).

use std::fmt::Write as _;

use super::{Renderer, percent};
use crate::output::summary::Summary;
use crate::output::verdict::Verdict;

/// A Markdown table.
pub struct Markdown;

/// A table cell: pipes and line breaks would end the cell, and HTML would be
/// rendered, so they are escaped.
pub fn cell(text: &str) -> String {
    let text = crate::output::safe::line(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '`' => out.push('\''),
            c => out.push(c),
        }
    }
    out
}

impl Renderer for Markdown {
    fn begin(&self) -> Vec<u8> {
        b"| log | action | kind | rule | evidence |\n| --- | --- | --- | --- | --- |\n".to_vec()
    }

    fn verdict(&self, v: &Verdict) -> Vec<u8> {
        let detail = v.evidence.as_deref().or(v.error.as_deref()).unwrap_or("");
        format!(
            "| {} | **{}** | {} | {} | {} |\n",
            cell(&v.log),
            v.action.as_str(),
            cell(v.kind.as_deref().unwrap_or("")),
            cell(&match (&v.rule, v.profile_origin.as_str()) {
                (Some(rule), "builtin") => rule.clone(),
                // Not the built-in: say which file, so a planted one shows.
                (Some(rule), origin) => format!("{rule} (profile {origin})"),
                (None, _) => String::new(),
            }),
            cell(detail)
        )
        .into_bytes()
    }

    fn end(&self, summary: Option<&Summary>) -> Vec<u8> {
        let Some(s) = summary else { return Vec::new() };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n**{}**: {} ({}), {} unreadable, {} timed out, {} unclassified.",
            super::plural(s.logs, "log"),
            super::plural(s.env_faults, "environment fault"),
            percent(s.env_fault_share),
            s.errors,
            s.timed_out,
            s.unclassified.len()
        );
        for (title, map) in [("action", &s.actions), ("kind", &s.kinds), ("rule", &s.rules)] {
            if map.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n| {title} | logs |\n| --- | ---: |");
            for (k, n) in map {
                let _ = writeln!(out, "| {} | {n} |", cell(k));
            }
        }
        if !s.unclassified.is_empty() {
            let _ = writeln!(out, "\nUnclassified (no rule matched):\n");
            for log in &s.unclassified {
                let _ = writeln!(out, "- {}", cell(log));
            }
        }
        out.into_bytes()
    }
}
