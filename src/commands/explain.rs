//! `faultsift explain`: the classification of one log told for people — the
//! window, every matching line with its rule and the match highlighted, the
//! winner and why, context around it, the action and the reason. Pure: returns
//! the text.

use std::fmt::Write as _;
use std::time::Instant;

use crate::output::evidence::{evidence, safe_text};
use crate::output::render::action_color;
use crate::output::safe;
use crate::output::verdict::Action;
use crate::pipeline::matcher::{CompiledProfile, Scan};
use crate::pipeline::records::Records;
use crate::pipeline::window::Window;
use crate::pipeline::{Classified, Pipeline, Trace};

/// Lines of context shown before and after the winning line.
pub const CONTEXT: usize = 2;

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }
    fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
    fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    fn action(&self, action: Action) -> String {
        self.paint(action_color(action), action.as_str())
    }
}

/// Explains the classification of `window` (of the log `log`) by `pipeline`.
/// At most `max_hits` matching lines are listed; the rest are counted.
pub fn explain(pipeline: &Pipeline, log: &str, window: Window, color: bool, max_hits: usize) -> String {
    let Classified { verdict, trace } = pipeline.classify_window(log, window);
    let (Some(compiled), Some(Trace { window, cleaned, records, scan })) = (pipeline.compiled(), trace) else {
        // Not scanned: `--status` says the session is not classified.
        return format!("{} {}\n", verdict.action.as_str(), safe::line(&verdict.reason));
    };
    let timeout = pipeline.settings.timeout;
    let subject = pipeline.subject(log);
    let style = Style { color };
    let profile = &compiled.profile;
    let mut out = String::new();

    let _ = writeln!(
        out,
        "{} {} with profile {} ({}, {} rules)",
        style.bold("log"),
        safe::line(subject.log),
        style.bold(&safe::line(&profile.name)),
        safe::line(&profile.origin.label()),
        profile.rules.len()
    );
    let whole = if window.truncated() { "the last bytes of the log" } else { "the whole log" };
    if let Some(records) = records {
        let _ = writeln!(
            out,
            "{} bytes {}..{} of {} ({whole}), read as JSON Lines: {} records, {} other lines skipped{}",
            style.bold("window"),
            window.start,
            window.end(),
            window.log_bytes,
            records.lines.len().saturating_sub(records.unparsed),
            records.skipped(),
            if records.cut { "; a record longer than the window was cut" } else { "" },
        );
        explain_records(&mut out, compiled, &window, &records, &scan, &style);
        finish(&mut out, &verdict, &style);
        return out;
    }
    let _ = writeln!(
        out,
        "{} bytes {}..{} of {} ({whole}{}{}), {} lines after cleaning{}",
        style.bold("window"),
        window.start,
        window.end(),
        window.log_bytes,
        if window.rotated { "; --since was past the end: the log was replaced" } else { "" },
        if window.starts_mid_line { "; its first line was cut and is dropped unless alone" } else { "" },
        cleaned.lines.len(),
        match &cleaned.rejoined {
            Some(joins) => format!(", re-joined from the rows of a pane {} columns wide", joins.width),
            None => String::new(),
        }
    );

    // Every line that has a hit, in window order: a second pass over the lines,
    // so it gets its own deadline (a slow profile must not hold explain past
    // twice its --timeout).
    let listing_deadline = Instant::now() + timeout;
    let mut listing_cut = false;
    let hits: Vec<(usize, usize, usize)> = cleaned
        .lines
        .iter()
        .enumerate()
        .take_while(|(i, _)| {
            listing_cut = i % 32 == 0 && Instant::now() >= listing_deadline;
            !listing_cut
        })
        // As the scan reads each line: framed rules below their framing, and
        // no fault in a tool's output.
        .filter_map(|(i, _)| compiled.first_rule_at(&cleaned, i, &std::cell::Cell::new(0)).map(|(r, p)| (i, r, p)))
        .collect();
    let cut_note = if listing_cut { ", listing stopped at the deadline" } else { "" };
    let _ = writeln!(out, "\n{} ({}{cut_note})", style.bold("matching lines"), hits.len());
    for &(i, r, p) in hits.iter().take(max_hits) {
        let rule = &profile.rules[r];
        let line = &cleaned.lines[i];
        let _ = writeln!(
            out,
            "  @{:<8} {}  {} → {}",
            window.start + line.offset as u64,
            style.bold(&safe::line(&rule.qualified_id())),
            rule.kind,
            style.action(rule.action)
        );
        let _ = writeln!(out, "             {}", highlighted(compiled, p, cleaned.line_text(line), &style, 13));
    }

    if hits.len() > max_hits {
        let _ = writeln!(out, "  … {} more (--max-hits to list more)", hits.len() - max_hits);
    }

    if let Some(win) = scan.last.filter(|_| !scan.timed_out) {
        let line = &cleaned.lines[win.line];
        let _ = writeln!(
            out,
            "\n{} @{} {} — the last hit in the window wins (recency: the state the session died in)",
            style.bold("winner"),
            window.start + line.offset as u64,
            style.bold(&safe::line(&profile.rules[win.rule].qualified_id()))
        );
        let _ = writeln!(out, "{}", style.bold("context"));
        let from = win.line.saturating_sub(CONTEXT);
        let to = (win.line + CONTEXT + 1).min(cleaned.lines.len());
        for i in from..to {
            let l = &cleaned.lines[i];
            let text = cleaned.line_text(l);
            let marker = if i == win.line { "▶" } else { " " };
            let shown = if i == win.line {
                match win.pattern {
                    Some(p) => highlighted(compiled, p, text, &style, 14),
                    None => evidence(text, 0, false),
                }
            } else {
                style.dim(&evidence(text, 0, false))
            };
            let _ = writeln!(out, "  {marker} @{:<8} {shown}", window.start + l.offset as u64);
        }
    } else if scan.timed_out {
        let _ = writeln!(out, "\n{} the scan passed the deadline: classification declined", style.bold("timed out"));
    } else {
        let _ = writeln!(out, "\n{} no rule matched: nothing says the environment failed", style.bold("winner"));
    }
    finish(&mut out, &verdict, &style);
    out
}

/// The hits of a window read as records, and the winner.
fn explain_records(
    out: &mut String,
    compiled: &CompiledProfile,
    window: &Window,
    records: &Records,
    scan: &Scan,
    style: &Style,
) {
    let profile = &compiled.profile;
    let shown = |r: usize, bytes: &[u8]| evidence(&compiled.record_evidence(r, bytes), 0, false);
    let _ = writeln!(out, "\n{}", style.bold("matching records"));
    for (i, span) in records.lines.iter().enumerate() {
        let bytes = records.bytes(&window.bytes, span);
        let Some(fields) = compiled.parse_record(bytes) else { continue };
        let Some((r, _)) = compiled.first_record_rule(&fields, bytes) else { continue };
        let rule = &profile.rules[r];
        let marker = if scan.last.is_some_and(|w| w.line == i) { "▶" } else { " " };
        let _ = writeln!(
            out,
            "{marker} @{:<8} {}  {} → {}",
            window.start + span.offset as u64,
            style.bold(&rule.qualified_id()),
            rule.kind,
            style.action(rule.action)
        );
        let _ = writeln!(out, "             {}", shown(r, bytes));
    }
    match scan.last.filter(|_| !scan.timed_out) {
        Some(win) => {
            let _ = writeln!(
                out,
                "\n{} {} — the last record hit wins{}",
                style.bold("winner"),
                style.bold(&profile.rules[win.rule].qualified_id()),
                if scan.progress.is_some_and(|p| p > win.line) { "; progress records follow it" } else { "" }
            );
        }
        None if scan.timed_out => {
            let _ = writeln!(out, "\n{} the scan passed the deadline", style.bold("timed out"));
        }
        None => {
            let _ = writeln!(out, "\n{} no rule matched a record", style.bold("winner"));
        }
    }
}

/// The action, reason and captures.
fn finish(out: &mut String, verdict: &crate::output::verdict::Verdict, style: &Style) {
    let meaning = match verdict.action {
        Action::Pause => "environment fault: do not charge; a person or the outage must pass",
        Action::Retry => "transient environment fault: retry after a backoff, do not charge",
        Action::Charge => "charge the attempt",
        Action::Skip => "not classified",
    };
    let _ = writeln!(out, "{} {} ({meaning})", style.bold("action"), style.action(verdict.action));
    let _ = writeln!(out, "{} {}", style.bold("reason"), verdict.reason);
    for (name, value) in &verdict.captures.groups {
        let _ = writeln!(out, "{} {} = {}", style.bold("capture"), safe::line(name), safe::line(value));
    }
    if let Some(secs) = verdict.captures.retry_after_s {
        let _ = writeln!(out, "{} retry_after_s = {secs}", style.bold("capture"));
    }
}

/// What explain says when the watchdog answers for a search that did not
/// end: as classify's `timed_out` verdict, the attempt is charged.
pub fn overdue(log: &str, timeout: std::time::Duration) -> String {
    format!(
        "log {}\ntimed out: no answer within twice the {}ms deadline (the scan and the listing); the search was abandoned\naction charge (classification declined)\n",
        safe::line(log),
        timeout.as_millis()
    )
}

/// The line as evidence (cut, sanitised, redacted), with the match painted or,
/// without colour, underlined with carets on the next line, which is indented
/// by `indent` columns like the line itself.
fn highlighted(compiled: &CompiledProfile, pattern: usize, text: &str, style: &Style, indent: usize) -> String {
    let found = compiled.find(pattern, text);
    let start = found.as_ref().map_or(0, |f| f.start);
    let shown = evidence(text, start, false);
    let Some(found) = found else { return shown };
    let matched = safe_text(text.get(found.start..found.end).unwrap_or(""));
    let Some(at) = shown.find(&matched).filter(|_| !matched.is_empty()) else { return shown };
    let (before, rest) = shown.split_at(at);
    let (m, after) = rest.split_at(matched.len());
    if style.color {
        format!("{before}{}{after}", style.paint("1;31", m))
    } else {
        let pad = before.chars().count();
        format!("{shown}\n{}{}", " ".repeat(indent + pad), "^".repeat(m.chars().count()))
    }
}
