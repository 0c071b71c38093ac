//! What the lines around a hit say: a rule's `after` framing above it, the
//! pane's structure (`tool_output`: a tool's output or the model's own text
//! is no fault), and the `progress` lines below it that show the session
//! working again (SPEC §1.5).

use std::cell::Cell;
use std::sync::OnceLock;

use regex::Regex;

use super::engine::{Engine, build_regex};
use crate::pipeline::clean::Cleaned;
use crate::pipeline::stamp;

/// A rule's `after` condition, its regex compiled on first need.
#[derive(Debug)]
pub(super) struct Framing {
    pattern: String,
    pub(super) within: usize,
    regex: OnceLock<Option<Regex>>,
}

impl Framing {
    pub(super) fn new(pattern: String, within: usize) -> Self {
        Framing { pattern, within, regex: OnceLock::new() }
    }

    /// Whether a line within reach above line `line` of `cleaned` holds the
    /// framing; adds the bytes searched to `searched`.
    pub(super) fn frames(&self, cleaned: &Cleaned, line: usize, searched: &Cell<usize>) -> bool {
        let Some(re) = self.regex.get_or_init(|| build_regex(&self.pattern).ok()) else { return false };
        cleaned.lines[line.saturating_sub(self.within)..line].iter().rev().any(|l| {
            let text = cleaned.line_text(l);
            searched.set(searched.get() + text.len());
            stamp::readings(text).into_iter().flatten().any(|t| re.is_match(t))
        })
    }
}

/// The profile's `tool_output`, its regexes compiled on first need (at a
/// fault's hit: a healthy log compiles none).
#[derive(Debug)]
pub(super) struct ToolCheck {
    spec: crate::profile::ToolOutput,
    /// `item`, `tool`, `result` (when set) and `row`. A built-in profile's
    /// run on their `regex-lite` forms, which compile in microseconds; a
    /// file's on `regex`, within its limits. None when one does not compile.
    regexes: OnceLock<Option<ToolRegexes>>,
}

/// `tool_output`'s patterns, compiled.
#[derive(Debug)]
struct ToolRegexes {
    item: Engine,
    tool: Engine,
    result: Option<Engine>,
    row: Engine,
    /// `message` and `message_row`, when set.
    message: Option<(Engine, Engine)>,
    /// `prompt`'s `row` and `below`, when set.
    prompt: Option<(Engine, Engine)>,
}

impl ToolCheck {
    pub(super) fn new(spec: crate::profile::ToolOutput) -> Self {
        ToolCheck { spec, regexes: OnceLock::new() }
    }

    /// Whether line `line` of `cleaned` is a row of the agent's own message
    /// (the model writing), a row of the user's prompt (`prompt`, drawn as
    /// the agent's error box is), or a tool's own output: the line, or
    /// the item its rows continue, is a tool's call or the first result below
    /// a call. A later result under the same call is the agent's own (a retry
    /// notice hangs there too), and a line that neither starts an item nor is
    /// a row breaks the chain (the agent's own line, or a row a pane cut), as
    /// a blank line does where `blank_ends_item` says so.
    /// Adds the bytes searched to `searched`.
    pub(super) fn is_not_the_agent_speaking(
        &self,
        cleaned: &Cleaned,
        line: usize,
        searched: &Cell<usize>,
        is_fault: &dyn Fn(&str) -> bool,
    ) -> bool {
        let compiled = self.regexes.get_or_init(|| {
            let t = &self.spec;
            // A lite form with ASCII word boundaries stands for its pattern
            // only on some lines: such a pattern runs on `regex`.
            let new = |p: &str, i: usize| Engine::compile(p, t.lite[i].filter(|l| !l.ascii_words));
            let result = match &t.result {
                Some(r) => Some(new(r, 2)?),
                None => None,
            };
            let message = match (&t.message, &t.message_row) {
                (Some(m), Some(r)) => Some((new(m, 4)?, new(r, 5)?)),
                _ => None,
            };
            let prompt = match &t.prompt {
                Some(p) => Some((new(&p.row, 6)?, new(&p.below, 7)?)),
                None => None,
            };
            Some(ToolRegexes {
                item: new(&t.item, 0)?,
                tool: new(&t.tool, 1)?,
                result,
                row: new(&t.row, 3)?,
                message,
                prompt,
            })
        });
        let Some(ToolRegexes { item, tool, result, row, message, prompt }) = compiled else {
            return false;
        };
        let text = |i: usize| {
            let t = cleaned.line_text(&cleaned.lines[i]);
            searched.set(searched.get() + t.len());
            t
        };
        let low = line.saturating_sub(crate::profile::schema::MAX_TOOL_OUTPUT_REACH);
        // A row of the agent's own message: the model writing. Its rows go on
        // across blank lines; the item's own line is not one of them, and the
        // program's own error is an item of the same shape (`● API Error: …`)
        // whose rows are its own.
        if let Some((message, message_row)) = message
            && let Some(head) = item_of(&text, item, message_row, line, low, None).filter(|&h| h != line)
        {
            let t = text(head);
            if message.is_match(t) && !is_fault(t) {
                return true;
            }
        }
        // Cleaning drops blank lines; a line that did not follow the one
        // above directly had one before it.
        let blank_ends = self.spec.blank_ends_item.then_some(cleaned);
        let Some(at) = item_of(&text, item, row, line, low, blank_ends) else {
            // No item: the user's prompt, or the agent's own box (its error).
            // A toast drawn over the prompt's rows (a bar at each side) is
            // no row of it: only a row is.
            return prompt.as_ref().is_some_and(|(rows, below)| {
                row.is_match(text(line)) && is_prompt(&text, rows, below, cleaned, line, low)
            });
        };
        let head = cleaned.line_text(&cleaned.lines[at]);
        if tool.is_match(head) {
            return true;
        }
        // A result: the first below a call when the item above it is the call.
        result.as_ref().is_some_and(|r| r.is_match(head))
            && (low..at).rev().map(&text).find(|t| item.is_match(t)).is_some_and(|t| tool.is_match(t))
    }
}

/// The item line `line` belongs to: itself, or the nearest item above it
/// (down to `low`) reached through lines that match `rows` only; with
/// `blank_ends`, a blank line before a row ends the chain too.
fn item_of<'a>(
    text: &impl Fn(usize) -> &'a str,
    item: &Engine,
    rows: &Engine,
    line: usize,
    low: usize,
    blank_ends: Option<&Cleaned>,
) -> Option<usize> {
    let mut at = line;
    loop {
        let t = text(at);
        if item.is_match(t) {
            return Some(at);
        }
        if !rows.is_match(t) || at == low || blank_ends.is_some_and(|c| !c.lines[at].follows) {
            return None;
        }
        at -= 1;
    }
}

/// Whether line `line` is a row of the user's prompt (`tool_output.prompt`):
/// its block (the `rows` lines around it that follow each other directly, a
/// blank line above the first) comes right below a line that `below`
/// matches (the nearest above that holds a letter or a digit), or has no
/// such line above it and more of the pane below it: the first prompt, at
/// the top. A block with nothing above or below is what a pasted error box
/// looks like, and is read.
fn is_prompt<'a>(
    text: &impl Fn(usize) -> &'a str,
    rows: &Engine,
    below: &Engine,
    cleaned: &Cleaned,
    line: usize,
    low: usize,
) -> bool {
    if !rows.is_match(text(line)) {
        return false;
    }
    let mut start = line;
    while start > low && cleaned.lines[start].follows && rows.is_match(text(start - 1)) {
        start -= 1;
    }
    let worded = |t: &&str| t.chars().any(char::is_alphanumeric);
    if let Some(above) = (low..start).rev().map(text).find(worded) {
        return below.is_match(above);
    }
    let high = cleaned.lines.len().min(line + crate::profile::schema::MAX_TOOL_OUTPUT_REACH);
    let mut end = line + 1;
    while end < high && cleaned.lines[end].follows && rows.is_match(text(end)) {
        end += 1;
    }
    (end..high).map(text).any(|t| worded(&t))
}

/// The progress patterns: the literals each requires (so that a line
/// holding none of a pattern's is passed over without its regex), and each
/// pattern compiled on its own the first time a line holds one of its
/// literals. A profile's progress patterns mostly share a long host prefix
/// (`ci`'s `{{host_progress}}`): compiled as one set, each copy of it is
/// built again, and a recovered log would pay for all of them to read the
/// one line that names a tool's success.
#[derive(Debug)]
pub(super) struct Progress {
    /// Per pattern, the literals of which a matching line holds one; `None`
    /// when the pattern requires none (every line is then searched).
    literals: Vec<Option<Vec<String>>>,
    /// Per pattern, its regex once a line needed it (`None`: over the size
    /// limits, which a built-in pattern never is; a profile file's pattern
    /// is compiled when the profile loads, see [`Progress::compile_all`]).
    regexes: Vec<OnceLock<Option<Regex>>>,
    patterns: Vec<String>,
}

impl Progress {
    pub(super) fn new(patterns: &[String]) -> Option<Self> {
        if patterns.is_empty() {
            return None;
        }
        let literals = patterns
            .iter()
            .map(|p| match crate::profile::builtin::progress_literals(p) {
                // A built-in pattern's were worked out when faultsift was built.
                Some(built) => built.map(|l| l.iter().map(|s| (*s).to_string()).collect()),
                None => Self::required(p),
            })
            .collect();
        let regexes = patterns.iter().map(|_| OnceLock::new()).collect();
        Some(Progress { literals, regexes, patterns: patterns.to_vec() })
    }

    /// The literals of which a line matching `pattern` holds one.
    pub(super) fn required(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
        crate::profile::literal::required(&hir, false)
    }

    /// Compiles every pattern now: the first that does not compile, with its
    /// error (a profile file's progress is checked when it loads).
    pub(super) fn compile_all(&self) -> Result<(), (&str, regex::Error)> {
        for (pattern, slot) in self.patterns.iter().zip(&self.regexes) {
            let regex = build_regex(pattern).map_err(|e| (pattern.as_str(), e))?;
            let _ = slot.set(Some(regex));
        }
        Ok(())
    }

    pub(super) fn is_match(&self, line: &str) -> bool {
        // The stamp is read only for a line that holds a pattern's literal:
        // most lines after a fault hold none.
        let mut readings = None;
        (0..self.patterns.len()).any(|i| {
            if self.literals[i].as_ref().is_some_and(|ls| !ls.iter().any(|l| line.contains(l.as_str()))) {
                return false;
            }
            let regex = self.regexes[i].get_or_init(|| build_regex(&self.patterns[i]).ok());
            let readings = readings.get_or_insert_with(|| stamp::readings(line));
            regex.as_ref().is_some_and(|r| readings.iter().flatten().any(|t| r.is_match(t)))
        })
    }
}
