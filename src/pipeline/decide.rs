//! Decide stage (SPEC §1.5): from the scan to the verdict — the last hit wins,
//! its rule's action is the action, unless progress follows it (recovered);
//! skip, unreadable and timed-out verdicts. The scan may be of cleaned lines
//! or of records ([`Body`]).

use std::time::Duration;

use crate::output::evidence::{evidence, safe_text};
use crate::output::verdict::{Action, Captures, Hit, SCHEMA_ID, Verdict, WindowInfo};
use crate::pipeline::clean::Cleaned;
use crate::pipeline::hints::parse_duration_secs;
use crate::pipeline::matcher::{CompiledProfile, Scan};
use crate::pipeline::records::{Input, Records};
use crate::pipeline::window::Window;

/// What the scan went over: the cleaned lines of a text window, or the
/// records of a JSON Lines one. Hits name lines of it by index.
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    /// Screen text.
    Text(&'a Cleaned),
    /// JSON Lines records.
    Records(&'a Records),
}

impl Body<'_> {
    /// The offset, relative to the window, where line `i` starts.
    fn offset(&self, i: usize) -> usize {
        match self {
            Body::Text(c) => c.lines[i].offset,
            Body::Records(r) => r.lines[i].offset,
        }
    }

    fn input(&self) -> Input {
        match self {
            Body::Text(_) => Input::Text,
            Body::Records(_) => Input::Jsonl,
        }
    }
}

/// Who the verdict is about: the parts that do not depend on the scan.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The log as given (`-` for standard input).
    pub log: &'a str,
    /// The profile's name.
    pub profile: &'a str,
    /// `builtin` or the profile's path.
    pub profile_origin: &'a str,
    /// The `--status` given.
    pub status: Option<&'a str>,
}

/// Statuses that are never classified (SPEC §1.5).
pub const SKIPPED_STATUSES: &[&str] = &["completed", "over_budget"];

/// Why a log is not classified at all, if it is not.
pub fn skip_reason(status: Option<&str>, result_present: bool) -> Option<String> {
    if result_present {
        return Some("a result is present: not classified".to_string());
    }
    let status = status?;
    SKIPPED_STATUSES
        .iter()
        .any(|s| s.eq_ignore_ascii_case(status))
        .then(|| format!("status {status} is not classified"))
}

fn base(subject: Subject<'_>, action: Action, reason: String) -> Verdict {
    Verdict {
        schema: SCHEMA_ID.to_string(),
        log: subject.log.to_string(),
        profile: subject.profile.to_string(),
        profile_origin: subject.profile_origin.to_string(),
        status: subject.status.map(str::to_string),
        action,
        env_fault: action.is_env_fault(),
        kind: None,
        rule: None,
        evidence: None,
        offset: None,
        reason: crate::output::safe::line(&reason),
        hits: Vec::new(),
        captures: Captures::default(),
        window: None,
        timed_out: false,
        error: None,
        elapsed_us: 0,
        input: Input::Text,
        recovered: false,
    }
}

/// The verdict for a log that is not classified.
pub fn skipped(subject: Subject<'_>, reason: String) -> Verdict {
    base(subject, Action::Skip, reason)
}

/// The verdict for a log that could not be read.
pub fn unreadable(subject: Subject<'_>, error: String) -> Verdict {
    let mut v = base(subject, Action::Charge, format!("the log could not be read: {error}"));
    v.error = Some(error);
    v
}

/// The verdict the watchdog prints when no verdict came within the deadline.
pub fn overdue(subject: Subject<'_>, timeout: Duration) -> Verdict {
    let mut v = base(
        subject,
        Action::Charge,
        format!("classification declined: no verdict within the {} deadline", human(timeout)),
    );
    v.timed_out = true;
    v
}

/// The verdict of a scanned window.
pub fn decide(
    subject: Subject<'_>,
    compiled: &CompiledProfile,
    window: &Window,
    body: Body<'_>,
    scan: &Scan,
    timeout: Duration,
) -> Verdict {
    let rules = &compiled.profile.rules;
    let offset_of = |line: usize| window.start + body.offset(line) as u64;
    let hits = scan
        .hits
        .iter()
        .map(|h| {
            let rule = &rules[h.rule];
            Hit {
                rule: rule.qualified_id(),
                kind: rule.kind.clone(),
                action: rule.action,
                count: h.count,
                last_offset: offset_of(h.last_line),
            }
        })
        .collect();
    let window_info = WindowInfo {
        start: window.start,
        end: window.end(),
        log_bytes: window.log_bytes,
        truncated: window.truncated(),
        rotated: window.rotated,
    };

    let winner = if scan.timed_out { None } else { scan.last };
    let mut v = match winner {
        None if scan.timed_out => {
            let mut v = base(
                subject,
                Action::Charge,
                format!("classification declined: the scan passed the {} deadline", human(timeout)),
            );
            v.timed_out = true;
            v
        }
        None => {
            let what = match body {
                _ if window.bytes.is_empty() => "the window is empty".to_string(),
                Body::Text(Cleaned { rejoined: Some(joins), .. }) => {
                    let (bytes, width) = (window.bytes.len(), joins.width);
                    if joins.wrapped.len() == joins.lines.len() {
                        format!(
                            "no rule matched the last {bytes} bytes, read as the lines a program wrapped in a pane {width} columns wide"
                        )
                    } else {
                        format!(
                            "no rule matched the last {bytes} bytes, read as the lines a pane {width} columns wide was cut from"
                        )
                    }
                }
                Body::Text(_) => format!("no rule matched the last {} bytes", window.bytes.len()),
                Body::Records(r) => format!(
                    "no rule matched the {} records of the last {} bytes{}",
                    r.lines.len(),
                    window.bytes.len(),
                    records_note(r)
                ),
            };
            base(subject, Action::Charge, format!("no environment fault found: {what}"))
        }
        Some(hit) => {
            let rule = &rules[hit.rule];
            let (text, fragment) = match body {
                Body::Text(cleaned) => {
                    let line = &cleaned.lines[hit.line];
                    // The straddle guard keeps a cut first line only when it is
                    // the only one: its start is then not the line's start.
                    (cleaned.line_text(line).to_string(), window.starts_mid_line && line.offset == 0)
                }
                Body::Records(r) => {
                    let bytes = r.bytes(&window.bytes, &r.lines[hit.line]);
                    (compiled.record_evidence(hit.rule, bytes), false)
                }
            };
            let text = text.as_str();
            let found = hit.pattern.and_then(|p| compiled.find(p, text));
            let match_start = found.as_ref().map_or(0, |f| f.start);
            let ev = evidence(text, match_start, fragment);
            // A fault the session got past is not what it died of (SPEC §1.5).
            let recovered = rule.action.is_env_fault() && scan.progress.is_some_and(|p| p > hit.line);
            let mut captures = Captures::default();
            if let Some(found) = found {
                captures.groups = found.groups.into_iter().map(|(k, v)| (k, safe_text(&v))).collect();
                captures.retry_after_s = captures.groups.get("retry_after").and_then(|t| parse_duration_secs(t));
            }
            let reason = match rule.action {
                _ if recovered => format!(
                    "recovered: the session got past an environment fault ({}) and went on working from offset {}, so it is not what the session died of: {ev}",
                    rule.kind,
                    match scan.progress_offset {
                        Some(at) => window.start + at as u64,
                        None => scan.progress.map(&offset_of).unwrap_or_default(),
                    }
                ),
                Action::Charge => format!("the work failed ({}): {ev}", rule.kind),
                _ => match subject.status {
                    Some(status) => format!("environment fault ({}) in {status} session: {ev}", rule.kind),
                    None => format!("environment fault ({}): {ev}", rule.kind),
                },
            };
            // Evidence joined from a pane's rows says so: it is not one line
            // of the capture as the caller will find it there.
            let reason = match body {
                Body::Text(Cleaned { rejoined: Some(joins), .. }) if joins.wrapped.binary_search(&hit.line).is_ok() => {
                    format!("{reason} (a line the program wrapped in a pane {} columns wide, re-joined)", joins.width)
                }
                Body::Text(Cleaned { rejoined: Some(joins), .. }) if joins.joined(hit.line) => {
                    format!("{reason} (a line the pane cut into rows {} columns wide, re-joined)", joins.width)
                }
                _ => reason,
            };
            let mut v = base(subject, if recovered { Action::Charge } else { rule.action }, reason);
            v.recovered = recovered;
            v.kind = Some(rule.kind.clone());
            v.rule = Some(rule.qualified_id());
            v.evidence = Some(ev);
            v.offset = Some(offset_of(hit.line));
            v.captures = captures;
            v
        }
    };
    v.hits = hits;
    v.window = Some(window_info);
    v.input = body.input();
    v
}

/// What a reason adds about the records that were not read: invalid lines
/// skipped, a record longer than the window.
fn records_note(r: &Records) -> String {
    let mut note = String::new();
    let skipped = r.skipped();
    if skipped > 0 {
        let what = if skipped == 1 { "line that is not a JSON record" } else { "lines that are not JSON records" };
        note.push_str(&format!("; {skipped} {what} skipped"));
    }
    if r.cut {
        note.push_str("; a record is longer than the window and was cut (raise --tail-bytes)");
    }
    note
}

/// `2s`, `200ms`, `1.5s`: a deadline as a person writes it.
pub fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else if ms < 1000 {
        format!("{ms}ms")
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_reasons() {
        assert!(skip_reason(Some("completed"), false).is_some());
        assert!(skip_reason(Some("over_budget"), false).is_some());
        assert!(skip_reason(Some("COMPLETED"), false).is_some());
        assert!(skip_reason(Some("Over_Budget"), false).is_some());
        assert!(skip_reason(Some("timeout"), false).is_none());
        assert!(skip_reason(None, false).is_none());
        assert!(skip_reason(Some("timeout"), true).is_some());
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(Duration::from_secs(2)), "2s");
        assert_eq!(human(Duration::from_millis(200)), "200ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5s");
    }
}
