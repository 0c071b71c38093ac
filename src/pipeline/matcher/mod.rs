//! Match stage (SPEC §1.4): a profile's rules prepared once — an Aho-Corasick
//! automaton over their required literals that finds candidate lines in one
//! pass, and one regex per pattern for the line's verdict, span and captures
//! (on `regex`, or, for built-in patterns in a one-shot run, on `regex-lite`:
//! see [`crate::profile::lite`] and [`Workload`]) — and the scan under a deadline.
//! [`screen`] prepares the `busy` and `volatile` patterns of `stall`, with the
//! rules' size limits but a builder of their own (no literal prefilters).

pub mod screen;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexBuilder};

use serde_json::Value;

use crate::error::{ProfileError, RuleError};
use crate::pipeline::clean::{Cleaned, clean_line};
use crate::pipeline::records::{self, Records};
use crate::pipeline::stamp;
use crate::profile::Profile;
use crate::profile::builtin::LiteForm;
use crate::profile::record::{Condition, Scalar};

/// Compiled-size limit of each pattern's regex, in bytes.
pub const SIZE_LIMIT: usize = 16 << 20;
/// Cache limit of the lazy DFA, per regex.
const DFA_SIZE_LIMIT: usize = 2 << 20;
/// The deadline is checked before a line once the lines searched since the
/// last check hold this many bytes (each counting at least [`LINE_COST`]), so
/// that between two checks at most this much text, plus one line, is searched.
const DEADLINE_BYTES: usize = 4096;
/// What one line counts towards [`DEADLINE_BYTES`] at least: its candidates
/// and searches cost something however short it is.
const LINE_COST: usize = 128;
/// The longest line a scan may search and still count as bounded without a
/// watchdog (see [`CompiledProfile::scan_is_bounded`]).
pub const BOUNDED_LINE: usize = 4096;
/// How many logs a job classifies, which decides once, for the whole job, how
/// its built-in patterns run. `regex-lite` compiles in microseconds but
/// searches with a PikeVM; `regex` takes a good part of a millisecond to
/// compile one pattern and then searches several times faster. A one-shot run
/// searches a few lines and cannot repay `regex`; a batch of many failing logs
/// repays it many times over. The choice never depends on what other threads
/// did, so a log gets the same engine whichever worker takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Workload {
    /// One log, or a few: built-in patterns on `regex-lite`, literals looked
    /// up with `str::contains`.
    #[default]
    Few,
    /// A batch: every pattern on `regex` (compiled on first use), literals
    /// looked up with `memchr` searchers built once.
    Many,
}

impl Workload {
    /// From this many logs on, a job is [`Workload::Many`]: about where
    /// compiling the patterns a batch of failing logs needs pays for itself.
    pub const MANY_LOGS: usize = 100;

    /// The workload of a job over `logs` logs.
    pub fn for_logs(logs: usize) -> Self {
        if logs >= Self::MANY_LOGS { Workload::Many } else { Workload::Few }
    }
}

/// A profile ready to match: its rules, the Aho-Corasick automata over their
/// required literals, and one regex per pattern.
#[derive(Debug)]
pub struct CompiledProfile {
    /// The profile.
    pub profile: Profile,
    /// Pattern index to rule index.
    pattern_rule: Vec<usize>,
    /// The patterns as compiled (with `(?i)` where asked).
    patterns: Vec<String>,
    /// Per pattern, its `regex-lite` form, if it runs on that engine.
    lite: Vec<Option<LiteForm>>,
    /// One regex per pattern: compiled at load for patterns from files (so size
    /// errors are load errors), on first use for built-in ones.
    regexes: Vec<OnceLock<Option<Engine>>>,
    /// The `regex` of a lite pattern, compiled on first need: for the lines
    /// where its lite form does not stand for it (word boundaries next to a
    /// non-ASCII word character), and for every search of a batch.
    full: Vec<OnceLock<Option<Engine>>>,
    workload: Workload,
    /// Literals of case-sensitive patterns, and of case-insensitive ones,
    /// with the patterns that require each: the searchers' input, taken when
    /// they are built.
    literal_maps: std::sync::Mutex<Option<[LiteralMap; 2]>>,
    /// Their searchers, built on the first text scan: a transcript, read as
    /// records, never needs them.
    literal_sets: OnceLock<Vec<LiteralSet>>,
    /// Patterns with no required literal: tried on every line.
    always: Vec<usize>,
    /// Per rule, its `after` framing, if it has one.
    framings: Vec<Option<Framing>>,
    /// The pane's structure, when the profile reads one.
    tool_output: Option<ToolCheck>,
    /// The profile's progress patterns, prepared on first need.
    progress: OnceLock<Option<Progress>>,
    /// Every progress pattern is a built-in one (checked when faultsift was
    /// built), so preparing them is bounded.
    builtin_progress: bool,
    /// Per rule, its patterns' indices.
    rule_patterns: Vec<std::ops::Range<usize>>,
    /// The indices of the rules over records, in profile order.
    record_rules: Vec<usize>,
    /// What a scan of records needs beyond the rules, worked out on first
    /// need (a text log never needs it).
    record_plan: OnceLock<RecordPlan>,
}

/// What a scan of records reads: the pointers of the record conditions and
/// fields as one [`records::Shape`], and each condition's and field's slot in it.
#[derive(Debug)]
struct RecordPlan {
    shape: records::Shape,
    /// Per rule, its conditions' slots (none for a text rule).
    conditions: Vec<Vec<usize>>,
    /// Per rule, its `field`'s slot.
    fields: Vec<Option<usize>>,
    /// Per `progress_records` entry, its conditions' slots.
    progress: Vec<Vec<usize>>,
    /// What a record must hold, as written, for some record rule to match it
    /// ([`RecordPlan::may_hit`]).
    needles: Needles,
}

/// The words a record's line must hold for a record rule to match it: per
/// rule, the keys its conditions name and the one string value a condition
/// accepts, each quoted as JSON writes it. A record that holds every word of
/// no rule is not parsed. Only words of ASCII letters, digits, `_`, `-` and
/// `.` are taken, which no JSON writer escapes; a rule with none is no filter
/// (every record is parsed).
#[derive(Debug, Default)]
struct Needles {
    words: Vec<Vec<u8>>,
    /// All the words in one searcher: one pass over a record.
    finder: Option<Finder>,
    /// Per record rule, the indices of its words in `words`; None: it reads
    /// every record.
    rules: Vec<Option<Vec<usize>>>,
}

impl Needles {
    fn new(conditions: impl Iterator<Item = Vec<Condition>>) -> Self {
        let mut needles = Needles::default();
        for cs in conditions {
            let mut mine = Vec::new();
            for c in &cs {
                // A condition that a missing value meets needs no word.
                if c.accepted.contains(&Scalar::Present(false)) {
                    continue;
                }
                let key = c.pointer.rsplit('/').next().filter(|k| !k.bytes().all(|b| b.is_ascii_digit()));
                let value = match c.accepted.as_slice() {
                    [Scalar::Str(v)] => Some(v.as_str()),
                    _ => None,
                };
                for word in key.into_iter().chain(value) {
                    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) {
                        continue;
                    }
                    let quoted = format!("\"{word}\"").into_bytes();
                    let at = match needles.words.iter().position(|w| *w == quoted) {
                        Some(at) => at,
                        None => {
                            needles.words.push(quoted);
                            needles.words.len() - 1
                        }
                    };
                    mine.push(at);
                }
            }
            needles.rules.push((!mine.is_empty()).then_some(mine));
        }
        // Quoted words never overlap in JSON (a key's closing quote is
        // followed by `:`, a value's by `,` or `}`), so a non-overlapping
        // search finds every one a record holds.
        needles.finder = (!needles.words.is_empty()).then(|| Finder::new(&needles.words, false)).flatten();
        needles
    }

    /// Whether some record rule may match the record `line`: it holds every
    /// word of some rule.
    fn may_hit(&self, line: &[u8]) -> bool {
        let mut held = vec![false; self.words.len()];
        if let Some(finder) = &self.finder {
            finder.each(line, |w, _| held[w] = true);
        }
        self.rules.iter().any(|r| r.as_ref().is_none_or(|ws| ws.iter().all(|&w| held[w])))
    }
}

/// A rule's `after` condition, its regex compiled on first need.
#[derive(Debug)]
struct Framing {
    pattern: String,
    within: usize,
    regex: OnceLock<Option<Regex>>,
}

impl Framing {
    /// Whether a line within reach above line `line` of `cleaned` holds the
    /// framing; adds the bytes searched to `searched`.
    fn frames(&self, cleaned: &Cleaned, line: usize, searched: &Cell<usize>) -> bool {
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
struct ToolCheck {
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
}

impl ToolCheck {
    /// Whether line `line` of `cleaned` is a row of the agent's own message
    /// (the model writing), or a tool's own output: the line, or
    /// the item its rows continue, is a tool's call or the first result below
    /// a call. A later result under the same call is the agent's own (a retry
    /// notice hangs there too), and a line that neither starts an item nor is
    /// a row breaks the chain (the agent's own line, or a row a pane cut), as
    /// a blank line does where `blank_ends_item` says so.
    /// Adds the bytes searched to `searched`.
    fn is_tool_output_or_model_text(
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
            Some(ToolRegexes { item: new(&t.item, 0)?, tool: new(&t.tool, 1)?, result, row: new(&t.row, 3)?, message })
        });
        let Some(ToolRegexes { item, tool, result, row, message }) = compiled else {
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
            return false;
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

/// The progress patterns: the literals each requires (so that lines holding
/// none are passed over without a regex), and the patterns as one set.
#[derive(Debug)]
struct Progress {
    /// Per pattern, the literals of which a matching line holds one; `None`
    /// when a pattern requires none (every line is then searched).
    literals: Option<Vec<String>>,
    /// Compiled when a line holds a literal.
    set: OnceLock<Option<regex::RegexSet>>,
    patterns: Vec<String>,
}

impl Progress {
    fn new(patterns: &[String]) -> Option<Self> {
        if patterns.is_empty() {
            return None;
        }
        let mut literals = Some(Vec::new());
        for p in patterns {
            let required = match crate::profile::builtin::progress_literals(p) {
                // A built-in pattern's were worked out when faultsift was built.
                Some(built) => built.map(|l| l.iter().map(|s| (*s).to_string()).collect()),
                None => Self::required(p),
            };
            match (required, literals.as_mut()) {
                (Some(l), Some(all)) => all.extend(l),
                _ => literals = None,
            }
        }
        Some(Progress { literals, set: OnceLock::new(), patterns: patterns.to_vec() })
    }

    /// The literals of which a line matching `pattern` holds one.
    fn required(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
        crate::profile::literal::required(&hir, false)
    }

    fn is_match(&self, line: &str) -> bool {
        if self.literals.as_ref().is_some_and(|ls| !ls.iter().any(|l| line.contains(l.as_str()))) {
            return false;
        }
        let set = self.set.get_or_init(|| {
            regex::RegexSetBuilder::new(&self.patterns)
                .size_limit(SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .ok()
        });
        set.as_ref().is_some_and(|s| stamp::readings(line).into_iter().flatten().any(|t| s.is_match(t)))
    }
}

/// Literals of one case mode, the patterns that require each, and a searcher
/// that finds the lines holding any of them.
#[derive(Debug)]
struct LiteralSet {
    literals: Vec<String>,
    patterns: Vec<Vec<usize>>,
    finder: Finder,
    /// One searcher per literal for the lines the set's search found, in a
    /// batch. `str::contains` sets up a search per literal and line, which is
    /// cheaper than building a `memchr` searcher for the few candidate lines
    /// of one log, and dearer over the thousands of a batch.
    each: Option<Vec<memchr::memmem::Finder<'static>>>,
    ascii_case_insensitive: bool,
}

/// Literals and, for each, the patterns that require it.
type LiteralMap = BTreeMap<String, Vec<usize>>;

/// Finds where some literal of a set occurs: Teddy (SIMD, built in
/// microseconds) where the CPU and the set allow, else an Aho-Corasick NFA.
/// Teddy takes at most [`TEDDY_LITERALS`] literals, so a larger set is searched
/// by several Teddy searchers, one pass each: a pass over a 64 KiB window costs
/// far less than building and running the NFA of a set that size.
#[derive(Debug)]
enum Finder {
    Packed(Vec<aho_corasick::packed::Searcher>),
    Automaton(AhoCorasick),
}

/// The most literals `aho_corasick`'s Teddy searcher takes.
const TEDDY_LITERALS: usize = 64;

impl Finder {
    /// A searcher for `literals`, whose indices are the ids its matches
    /// carry: Teddy, in chunks, for exact case where the CPU has it, else one
    /// automaton.
    fn new<L: AsRef<[u8]>>(literals: &[L], ascii_case_insensitive: bool) -> Option<Finder> {
        let packed = (!ascii_case_insensitive)
            .then(|| {
                literals
                    .chunks(TEDDY_LITERALS)
                    .map(|chunk| {
                        aho_corasick::packed::Config::new()
                            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                            .builder()
                            .extend(chunk)
                            .build()
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .flatten();
        Some(match packed {
            Some(searchers) => Finder::Packed(searchers),
            None => Finder::Automaton(
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                    .match_kind(MatchKind::LeftmostFirst)
                    .ascii_case_insensitive(ascii_case_insensitive)
                    .build(literals)
                    .ok()?,
            ),
        })
    }

    /// Calls `found(literal, start)` for the first literal of each
    /// searcher (in set order) that starts at each offset of `haystack`
    /// where one starts: leftmost-first, searched again from one byte after
    /// each match, so a literal that starts inside another's match is found.
    fn each_start(&self, haystack: &[u8], mut found: impl FnMut(usize, usize)) {
        match self {
            Finder::Packed(searchers) => {
                for (chunk, searcher) in searchers.iter().enumerate() {
                    let mut at = 0;
                    while let Some(m) = searcher.find_in(haystack, aho_corasick::Span::from(at..haystack.len())) {
                        found(chunk * TEDDY_LITERALS + m.pattern().as_usize(), m.start());
                        at = m.start() + 1;
                    }
                }
            }
            Finder::Automaton(a) => {
                let mut at = 0;
                while let Some(m) = a.find(aho_corasick::Input::new(haystack).span(at..haystack.len())) {
                    found(m.pattern().as_usize(), m.start());
                    at = m.start() + 1;
                }
            }
        }
    }

    /// Calls `found(literal, start)` for each match in `haystack`:
    /// leftmost-first and not overlapping (within a chunk, for Teddy).
    fn each(&self, haystack: &[u8], mut found: impl FnMut(usize, usize)) {
        match self {
            Finder::Packed(searchers) => {
                for (chunk, searcher) in searchers.iter().enumerate() {
                    for m in searcher.find_iter(haystack) {
                        found(chunk * TEDDY_LITERALS + m.pattern().as_usize(), m.start());
                    }
                }
            }
            Finder::Automaton(a) => a.find_iter(haystack).for_each(|m| found(m.pattern().as_usize(), m.start())),
        }
    }
}

impl LiteralSet {
    fn build(literals: BTreeMap<String, Vec<usize>>, ascii_case_insensitive: bool, workload: Workload) -> Option<Self> {
        if literals.is_empty() {
            return None;
        }
        let (literals, patterns): (Vec<String>, Vec<Vec<usize>>) = literals.into_iter().unzip();
        // `patterns_in` and `literals_at_starts` compare against the folded
        // line with `starts_with`, which holds only if the profile compiler
        // lowered every case-insensitive literal.
        debug_assert!(
            !ascii_case_insensitive || literals.iter().all(|l| !l.bytes().any(|b| b.is_ascii_uppercase())),
            "case-insensitive literals must be lowercase"
        );
        let finder = Finder::new(&literals, ascii_case_insensitive)?;
        let each = (workload == Workload::Many)
            .then(|| literals.iter().map(|l| memchr::memmem::Finder::new(l.as_bytes()).into_owned()).collect());
        Some(LiteralSet { literals, patterns, finder, each, ascii_case_insensitive })
    }

    /// Start offsets of literal occurrences in `text`, enough to find every
    /// line that holds one: the search is leftmost-first and not overlapping,
    /// but no literal holds a `\n`, so each such line yields at least one.
    fn starts(&self, text: &str) -> Vec<usize> {
        let mut starts = Vec::new();
        self.finder.each(text.as_bytes(), |_, at| starts.push(at));
        starts
    }

    /// Adds the patterns of every literal `line` holds.
    fn patterns_in(&self, line: &str, out: &mut Vec<usize>) {
        let folded;
        let hay = if self.ascii_case_insensitive {
            folded = line.to_ascii_lowercase();
            folded.as_str()
        } else {
            line
        };
        match &self.each {
            Some(finders) => {
                for (k, pats) in self.patterns.iter().enumerate() {
                    if finders[k].find(hay.as_bytes()).is_some() {
                        out.extend_from_slice(pats);
                    }
                }
            }
            None => self.literals_at_starts(hay, |k| out.extend_from_slice(&self.patterns[k])),
        }
    }

    /// Calls `found(k)` for each literal `k` that `hay` holds (a literal
    /// more than once when it occurs more than once). One search of the line
    /// per offset where a literal starts, instead of one per literal: a
    /// profile has hundreds of literals and a candidate line holds a few.
    /// The searcher reports, at each offset, the first literal in set order
    /// that starts there; the literals are sorted, so any other that starts
    /// there has it as a prefix and follows it in the set.
    fn literals_at_starts(&self, hay: &str, mut found: impl FnMut(usize)) {
        let chunk_end = |k: usize| match self.finder {
            Finder::Packed(_) => (k / TEDDY_LITERALS + 1) * TEDDY_LITERALS,
            Finder::Automaton(_) => usize::MAX,
        };
        self.finder.each_start(hay.as_bytes(), |k, at| {
            found(k);
            let first = &self.literals[k];
            let end = chunk_end(k).min(self.literals.len());
            let rest = &hay.as_bytes()[at..];
            for (j, longer) in self.literals.iter().enumerate().take(end).skip(k + 1) {
                if !longer.starts_with(first.as_str()) {
                    break;
                }
                if rest.starts_with(longer.as_bytes()) {
                    found(j);
                }
            }
        });
    }
}

/// The deadline passed before a search was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overdue;

/// A compiled pattern, on one engine or the other.
#[derive(Debug)]
enum Engine {
    Full(Regex),
    Lite(regex_lite::Regex),
}

impl Engine {
    fn compile(pattern: &str, lite: Option<LiteForm>) -> Option<Engine> {
        // A lite form was checked to compile when faultsift was built; should
        // it not, the pattern still runs, on `regex`.
        let lite = lite.and_then(|l| regex_lite::RegexBuilder::new(l.pattern).size_limit(SIZE_LIMIT).build().ok());
        match lite {
            Some(re) => Some(Engine::Lite(re)),
            None => build_regex(pattern).ok().map(Engine::Full),
        }
    }

    fn is_match(&self, line: &str) -> bool {
        match self {
            Engine::Full(re) => re.is_match(line),
            Engine::Lite(re) => re.is_match(line),
        }
    }

    fn find(&self, line: &str) -> Option<Found> {
        fn named<'a>(names: impl Iterator<Item = Option<&'a str>>, get: impl Fn(&str) -> Option<String>) -> Groups {
            names.flatten().filter_map(|name| Some((name.to_string(), get(name)?))).collect()
        }
        let ((start, end), groups) = match self {
            Engine::Full(re) => {
                let caps = re.captures(line)?;
                let whole = caps.get(0)?;
                ((whole.start(), whole.end()), named(re.capture_names(), |n| Some(caps.name(n)?.as_str().into())))
            }
            Engine::Lite(re) => {
                let caps = re.captures(line)?;
                let whole = caps.get(0)?;
                ((whole.start(), whole.end()), named(re.capture_names(), |n| Some(caps.name(n)?.as_str().into())))
            }
        };
        Some(Found { start, end, groups })
    }
}

type Groups = BTreeMap<String, String>;

/// The match of one pattern in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Byte span of the match in the line.
    pub start: usize,
    /// End (exclusive) of the match.
    pub end: usize,
    /// Named groups that took part in the match.
    pub groups: Groups,
}

/// The hit of one line: the first rule, in profile order, that matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineHit {
    /// Index into [`Cleaned::lines`].
    pub line: usize,
    /// Index into the profile's rules.
    pub rule: usize,
    /// Index of the rule's first pattern that matched (into the compiled
    /// list); none for a record rule without patterns.
    pub pattern: Option<usize>,
}

/// What one rule did over the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleHits {
    /// Index into the profile's rules.
    pub rule: usize,
    /// Lines it was the hit of.
    pub count: u64,
    /// Index of the last such line.
    pub last_line: usize,
}

/// The result of scanning a window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// The last line hit: the winner (recency).
    pub last: Option<LineHit>,
    /// Per rule that hit, in profile order.
    pub hits: Vec<RuleHits>,
    /// The deadline stopped the scan before the last line.
    pub timed_out: bool,
    /// A line that shows the agent working again after the winner, when the
    /// winner is an environment fault: for text, the first line after it
    /// matching a `progress` pattern; for records, the last record matching
    /// `progress_records` (and no rule). The session then recovered if it
    /// comes after the winner.
    pub progress: Option<usize>,
    /// Where, relative to the window, the progress line starts when that is
    /// not the start of line [`Scan::progress`]: a row glued inside a line
    /// joined from a pane's rows (`crate::pipeline::rejoin`).
    pub progress_offset: Option<usize>,
    /// The last line hit by a `fallback` rule, while no other rule has hit:
    /// it becomes [`Scan::last`] when the scan ends with no other hit.
    fallback: Option<LineHit>,
    /// Records only: lines shaped as records that did not parse as JSON,
    /// skipped ([`Records::unparsed`]).
    pub unparsed: usize,
}

fn build_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).size_limit(SIZE_LIMIT).dfa_size_limit(DFA_SIZE_LIMIT).build()
}

/// A `stall` screen pattern's regex: as [`build_regex`], but without the
/// literal prefilters `regex` derives for every pattern. Those pay for
/// themselves over a long haystack; a screen's lines are short and already
/// picked by [`screen`]'s own literal search, and deriving them costs a
/// one-shot tick more than searching its screen without them.
fn build_screen_regex(pattern: &str) -> Result<regex_automata::meta::Regex, RuleError> {
    use regex_automata::meta;
    let syntax = regex_automata::util::syntax::Config::new().utf8(true);
    meta::Builder::new()
        .syntax(syntax)
        .configure(
            meta::Config::new()
                .auto_prefilter(false)
                .nfa_size_limit(Some(SIZE_LIMIT))
                .hybrid_cache_capacity(DFA_SIZE_LIMIT),
        )
        .build(pattern)
        .map_err(|e| {
            let shown = crate::profile::schema::shown(pattern);
            match e.size_limit() {
                Some(limit) => RuleError::TooBig { pattern: shown, limit },
                None => RuleError::Regex { pattern: shown, message: e.to_string().replace('\n', " ") },
            }
        })
}

/// The most that the automata of a profile's patterns from files may take
/// together (their Thompson NFAs), and so what compiling them costs: about
/// twice the largest built-in profile (`ci`, 4.0 MiB loaded as a file), so
/// that a copy of it (`faultsift show ci`) has room for a user's own rules.
pub const MAX_PROFILE_AUTOMATA: usize = 8 << 20;

/// The most patterns a profile may have, inherited ones included.
pub const MAX_PATTERNS: usize = 1000;

/// Bounds a profile as a whole before its patterns are compiled for
/// matching: at most [`MAX_PATTERNS`]; then each pattern from a file, alone,
/// compiled to its automaton (a Thompson NFA) within [`SIZE_LIMIT`], and the
/// sizes of those automata within [`MAX_PROFILE_AUTOMATA`] together. One pattern at a
/// time, so no more than one pattern's parse is held at once, and the first
/// pattern over either limit stops the check (before, one `RegexSetBuilder`
/// parsed every pattern at once: gigabytes for the issue 19 attack). Each
/// regex has its own limit, so without the joint one an untrusted overlay of
/// many mid-sized patterns would cost gigabytes and minutes to load. Built-in
/// patterns were checked when faultsift was built. The clock counts against
/// the deadline of [`crate::profile::budget`] (`--timeout`).
fn check_profile_size(profile: &Profile, origin: &str) -> Result<(), ProfileError> {
    use crate::profile::budget;
    let total: usize = profile.rules.iter().map(|r| r.patterns.len()).sum();
    if total > MAX_PATTERNS {
        return Err(ProfileError::TooBig {
            origin: origin.to_string(),
            message: format!("the profile has {total} patterns; the limit is {MAX_PATTERNS}"),
        });
    }
    let too_big = |message: String| ProfileError::TooBig { origin: origin.to_string(), message };
    let mut left = MAX_PROFILE_AUTOMATA;
    for rule in profile.rules.iter().filter(|r| !r.builtin) {
        let rule_err = |cause| ProfileError::Rule { origin: origin.to_string(), rule: rule.id.clone(), cause };
        for pattern in rule.effective_patterns() {
            budget::check_deadline().map_err(|s| too_big(s.message()))?;
            let shown = crate::profile::schema::shown;
            let hir = regex_syntax::ParserBuilder::new()
                .build()
                .parse(&pattern)
                .map_err(|e| rule_err(RuleError::Regex { pattern: shown(&pattern), message: e.to_string() }))?;
            let config = regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)).shrink(false);
            let nfa = regex_automata::nfa::thompson::Compiler::new()
                .configure(config)
                .build_from_hir(&hir)
                .map_err(|_| rule_err(RuleError::TooBig { pattern: shown(&pattern), limit: SIZE_LIMIT }))?;
            drop(hir);
            let size = nfa.memory_usage();
            if size > MAX_PROFILE_AUTOMATA {
                return Err(rule_err(RuleError::TooBig { pattern: shown(&pattern), limit: MAX_PROFILE_AUTOMATA }));
            }
            if size > left {
                return Err(too_big(format!(
                    "rule `{}`: the profile's patterns up to this one compile to more than the \
                     {MAX_PROFILE_AUTOMATA}-byte limit together (use fewer or smaller patterns)",
                    rule.id
                )));
            }
            left -= size;
        }
    }
    Ok(())
}

impl CompiledProfile {
    /// Prepares the profile for matching. Patterns from files are compiled now,
    /// so a pattern over the size limits is an error naming its rule; built-in
    /// patterns wait until a line holds one of their literals.
    pub fn compile(profile: Profile, origin: &str) -> Result<Self, ProfileError> {
        Self::compile_for(profile, origin, Workload::Few)
    }

    /// [`CompiledProfile::compile`] for a job of the given size.
    pub fn compile_for(profile: Profile, origin: &str, workload: Workload) -> Result<Self, ProfileError> {
        check_profile_size(&profile, origin)?;
        let mut patterns = Vec::new();
        let mut pattern_rule = Vec::new();
        let mut regexes = Vec::new();
        let mut lite = Vec::new();
        let mut full = Vec::new();
        let mut exact: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut folded: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut always = Vec::new();
        let mut rule_patterns = Vec::with_capacity(profile.rules.len());
        for (r, rule) in profile.rules.iter().enumerate() {
            let first = patterns.len();
            for (i, p) in rule.effective_patterns().enumerate() {
                let index = patterns.len();
                let slot = OnceLock::new();
                if !rule.builtin {
                    crate::profile::budget::check_deadline()
                        .map_err(|s| ProfileError::TooBig { origin: origin.to_string(), message: s.message() })?;
                    let regex = build_regex(&p).map_err(|e| ProfileError::Rule {
                        origin: origin.to_string(),
                        rule: rule.id.clone(),
                        cause: compile_error(&p, e),
                    })?;
                    let _ = slot.set(Some(Engine::Full(regex)));
                }
                // A record rule's patterns search its field's text, never a line.
                match rule.literals.get(i).and_then(Option::as_ref) {
                    _ if rule.is_record_rule() => {}
                    Some(lits) => {
                        let map = if rule.case_insensitive { &mut folded } else { &mut exact };
                        for lit in lits {
                            map.entry(lit.clone()).or_default().push(index);
                        }
                    }
                    None => always.push(index),
                }
                patterns.push(p);
                pattern_rule.push(r);
                regexes.push(slot);
                lite.push(if rule.builtin { rule.lite.get(i).copied().flatten() } else { None });
                full.push(OnceLock::new());
            }
            rule_patterns.push(first..patterns.len());
        }
        let record_rules =
            profile.rules.iter().enumerate().filter(|(_, r)| r.is_record_rule()).map(|(i, _)| i).collect();
        let literal_maps = std::sync::Mutex::new(Some([exact, folded]));
        let framings = profile
            .rules
            .iter()
            .map(|r| {
                r.after.as_ref().map(|a| Framing {
                    pattern: if r.case_insensitive { format!("(?i){}", a.pattern) } else { a.pattern.clone() },
                    within: a.within,
                    regex: OnceLock::new(),
                })
            })
            .collect();
        let tool_output = profile.tool_output.clone().map(|spec| ToolCheck { spec, regexes: OnceLock::new() });
        let builtin_progress = profile
            .progress
            .iter()
            .all(|p| crate::profile::builtin::BUILTINS.iter().any(|b| b.progress.contains(&p.as_str())));
        let progress = OnceLock::new();
        if !builtin_progress {
            // Patterns from files are compiled now, so that one over the size
            // limits is a load error naming it, not a silent miss later.
            let prepared = Progress::new(&profile.progress);
            if let Some(p) = &prepared {
                let set = regex::RegexSetBuilder::new(&p.patterns)
                    .size_limit(SIZE_LIMIT)
                    .dfa_size_limit(DFA_SIZE_LIMIT)
                    .build()
                    .map_err(|e| ProfileError::Rule {
                        origin: origin.to_string(),
                        rule: "progress".into(),
                        cause: compile_error(&p.patterns.join(" | "), e),
                    })?;
                let _ = p.set.set(Some(set));
            }
            let _ = progress.set(prepared);
        }
        Ok(CompiledProfile {
            profile,
            pattern_rule,
            patterns,
            lite,
            regexes,
            full,
            workload,
            literal_maps,
            literal_sets: OnceLock::new(),
            always,
            framings,
            tool_output,
            progress,
            builtin_progress,
            rule_patterns,
            record_rules,
            record_plan: OnceLock::new(),
        })
    }

    /// The rule index of pattern `pattern`.
    pub fn rule_of(&self, pattern: usize) -> usize {
        self.pattern_rule[pattern]
    }

    /// The engine that runs pattern `pattern` on `line`.
    fn regex(&self, pattern: usize, line: &str) -> Option<&Engine> {
        let lite = *self.lite.get(pattern)?;
        let engine = self.regexes[pattern].get_or_init(|| Engine::compile(&self.patterns[pattern], lite)).as_ref()?;
        if !matches!(engine, Engine::Lite(_)) {
            return Some(engine);
        }
        let full = || self.full[pattern].get_or_init(|| build_regex(&self.patterns[pattern]).ok().map(Engine::Full));
        if lite.is_some_and(|l| l.ascii_words) && crate::profile::lite::needs_unicode_words(line) {
            return full().as_ref();
        }
        match self.workload {
            Workload::Few => Some(engine),
            // Both engines give the same answers (tests/integration/engines.rs).
            Workload::Many => full().as_ref().or(Some(engine)),
        }
    }

    /// Whether pattern `pattern` matches one of `readings` of a line (the
    /// line, and what follows a CI host's stamp: [`stamp::readings`]).
    fn is_match(&self, pattern: usize, readings: &[Option<&str>; 2]) -> bool {
        readings.iter().flatten().any(|t| self.matches_text(pattern, t))
    }

    fn matches_text(&self, pattern: usize, text: &str) -> bool {
        self.holds_also(pattern, text) && self.regex(pattern, text).is_some_and(|re| re.is_match(text))
    }

    /// Whether `line` holds a string of each of the pattern's other literal
    /// sets: if not, it cannot match, and its regex is not compiled for it.
    fn holds_also(&self, pattern: usize, line: &str) -> bool {
        // The sets stay in the rule (lowercased when it is case-insensitive):
        // copying them per pattern cost a one-shot run more than it saved.
        let r = self.pattern_rule[pattern];
        let rule = &self.profile.rules[r];
        let Some(sets) = rule.also.get(pattern - self.rule_patterns[r].start) else { return true };
        if sets.is_empty() {
            return true;
        }
        let lowered;
        let hay = if rule.case_insensitive {
            lowered = line.to_ascii_lowercase();
            lowered.as_str()
        } else {
            line
        };
        sets.iter().all(|set| set.iter().any(|s| hay.contains(s.as_str())))
    }

    /// The literal searchers of the text rules, built on first need.
    fn literal_sets(&self) -> &[LiteralSet] {
        self.literal_sets.get_or_init(|| {
            let maps = self.literal_maps.lock().ok().and_then(|mut m| m.take());
            let [exact, folded] = maps.unwrap_or_default();
            [LiteralSet::build(exact, false, self.workload), LiteralSet::build(folded, true, self.workload)]
                .into_iter()
                .flatten()
                .collect()
        })
    }

    /// Candidate patterns of one line, sorted and deduplicated: those whose
    /// literal the line holds, and those without a literal.
    fn line_candidates(&self, line: &str) -> Vec<usize> {
        let mut c = self.always.clone();
        for set in self.literal_sets() {
            set.patterns_in(line, &mut c);
        }
        c.sort_unstable();
        c.dedup();
        c
    }

    /// The first rule (in profile order) matching `line`, with the first of its
    /// patterns that matched.
    /// A rule with an `after` framing never matches a line on its own.
    pub fn first_rule(&self, line: &str) -> Option<(usize, usize)> {
        self.first_rule_framed(line, |_| false, |_| true)
    }

    /// The first rule matching line `line` of `cleaned`, with the first of its
    /// patterns that matched; a rule with `after` only when its framing is in
    /// reach above. Adds the bytes its framings searched to `searched`.
    /// A fault rule does not match a tool's own output (`tool_output`).
    pub fn first_rule_at(&self, cleaned: &Cleaned, line: usize, searched: &Cell<usize>) -> Option<(usize, usize)> {
        let text = cleaned.line_text(&cleaned.lines[line]);
        let tool = std::cell::OnceCell::new();
        let agent_s = |rule: usize| {
            !self.profile.rules[rule].action.is_env_fault()
                || !*tool.get_or_init(|| {
                    let is_fault = |head: &str| {
                        self.first_rule(head).is_some_and(|(r, _)| self.profile.rules[r].action.is_env_fault())
                    };
                    self.tool_output
                        .as_ref()
                        .is_some_and(|t| t.is_tool_output_or_model_text(cleaned, line, searched, &is_fault))
                })
        };
        self.first_rule_framed(text, |f| f.frames(cleaned, line, searched), agent_s)
    }

    fn first_rule_framed(
        &self,
        line: &str,
        framed: impl Fn(&Framing) -> bool,
        allowed: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize)> {
        // Patterns are numbered in rule order, so the lowest matching pattern
        // belongs to the first matching rule. The framing and the pane's
        // structure are searched last: they read lines above.
        let readings = stamp::readings(line);
        let p = self.line_candidates(line).into_iter().find(|&p| {
            let rule = self.pattern_rule[p];
            self.is_match(p, &readings) && self.framings[rule].as_ref().is_none_or(&framed) && allowed(rule)
        })?;
        Some((self.pattern_rule[p], p))
    }

    /// Whether some rule could match `line`: it holds a rule's literal, or a
    /// pattern has none. A line that could not is not worth a scan.
    pub fn may_match(&self, line: &str) -> bool {
        !self.always.is_empty() || self.literal_sets().iter().any(|set| !set.starts(line).is_empty())
    }

    /// How many lines below itself a line can frame a rule's match (the
    /// largest `after.within`; 0 without framings).
    pub fn framing_reach(&self) -> usize {
        self.framings.iter().flatten().map(|f| f.within).max().unwrap_or(0)
    }

    /// The first line after line `after` of `cleaned` that shows the agent
    /// working again (a `progress` pattern), searched up to `deadline`.
    pub fn progress_from(
        &self,
        cleaned: &Cleaned,
        after: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, Overdue> {
        self.progress_after(cleaned, after, &mut Pacer::default(), deadline).map_err(|()| Overdue)
    }

    /// Every pattern index that matches `line` (framings not considered).
    pub fn matching_patterns(&self, line: &str) -> Vec<usize> {
        let readings = stamp::readings(line);
        self.line_candidates(line).into_iter().filter(|&p| self.is_match(p, &readings)).collect()
    }

    /// The first line after line `after` that shows the agent working again,
    /// searched up to `deadline`: `Err(())` when the deadline passed first.
    fn progress_after(
        &self,
        cleaned: &Cleaned,
        after: usize,
        pacer: &mut Pacer,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, ()> {
        let Some(progress) = self.progress.get_or_init(|| Progress::new(&self.profile.progress)) else {
            return Ok(None);
        };
        for (i, line) in cleaned.lines.iter().enumerate().skip(after + 1) {
            let text = cleaned.line_text(line);
            if pacer.due(text.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(());
            }
            if progress.is_match(text) {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// The span (in `line`) and named groups of pattern `pattern` in `line`,
    /// read as the matcher reads it ([`stamp::readings`]).
    pub fn find(&self, pattern: usize, line: &str) -> Option<Found> {
        let [whole, rest] = stamp::readings(line);
        if let Some(found) = whole.and_then(|w| self.regex(pattern, w)?.find(w)) {
            return Some(found);
        }
        let rest = rest?;
        let n = line.len() - rest.len();
        let found = self.regex(pattern, rest)?.find(rest)?;
        Some(Found { start: found.start + n, end: found.end + n, ..found })
    }

    /// Whether scanning `cleaned` keeps to its deadline without a watchdog:
    /// every pattern is built in (and runs on `regex-lite`, or on `regex` for
    /// the Unicode word boundaries of its line or in a batch: built-in
    /// patterns compile in under a millisecond) and no line is longer than
    /// [`BOUNDED_LINE`]. Such a scan passes its deadline by the searches of at
    /// most `DEADLINE_BYTES` plus one line, well within the watchdog's grace
    /// for the slowest built-in profile on its own literals (`cargo bench
    /// --bench pipeline bounded` measures it). A pattern from a file has no
    /// such bound, nor does a long line.
    pub fn scan_is_bounded(&self, cleaned: &Cleaned) -> bool {
        self.lite.iter().all(Option::is_some)
            && self.builtin_progress
            && cleaned.lines.iter().all(|l| l.end - l.start <= BOUNDED_LINE)
    }

    /// Scans the window; the last line hit wins. One literal search over the
    /// cleaned text finds the lines that hold some rule's literal; only those
    /// lines (every line, when a pattern has no literal) meet the regexes of the
    /// rules whose literals they hold, in profile order. With a deadline, the
    /// scan stops (and says `timed_out`) once it has passed, checked before
    /// the first line and then every `DEADLINE_BYTES` of lines searched.
    pub fn scan(&self, cleaned: &Cleaned, deadline: Option<Instant>) -> Scan {
        let lines: Vec<usize> = if self.always.is_empty() {
            // Lines are separated by `\n` in the text, so a literal never spans two.
            let mut lines: Vec<usize> = self
                .literal_sets()
                .iter()
                .flat_map(|set| set.starts(&cleaned.text))
                .map(|at| cleaned.lines.partition_point(|l| l.end < at))
                .collect();
            lines.sort_unstable();
            lines.dedup();
            lines
        } else {
            (0..cleaned.lines.len()).collect()
        };

        let mut per_rule: Vec<Option<RuleHits>> = vec![None; self.profile.rules.len()];
        let mut scan = Scan::default();
        let mut pacer = Pacer::default();
        for &line in &lines {
            let Some(text) = cleaned.lines.get(line).map(|l| cleaned.line_text(l)) else { continue };
            if pacer.due(text.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                scan.timed_out = true;
                break;
            }
            let searched = Cell::new(0);
            let hit = self.first_rule_at(cleaned, line, &searched);
            pacer.spent(searched.get());
            let Some((rule, pattern)) = hit else { continue };
            let slot = per_rule[rule].get_or_insert(RuleHits { rule, count: 0, last_line: line });
            slot.count += 1;
            slot.last_line = line;
            scan.record(&self.profile.rules[rule], LineHit { line, rule, pattern: Some(pattern) });
        }
        scan.settle();
        scan.hits = per_rule.into_iter().flatten().collect();
        // A fault the session got past is not what it died of (SPEC §1.5).
        if let Some(last) = scan.last.filter(|l| !scan.timed_out && self.profile.rules[l.rule].action.is_env_fault()) {
            match self.progress_after(cleaned, last.line, &mut pacer, deadline) {
                Ok(at) => scan.progress = at,
                Err(()) => scan.timed_out = true,
            }
        }
        scan
    }
}

impl CompiledProfile {
    /// Whether the profile has rules over records.
    pub fn has_record_rules(&self) -> bool {
        !self.record_rules.is_empty()
    }

    /// The first record rule (in profile order) whose conditions hold for
    /// `record` and, when it has patterns, one of which matches its text;
    /// with the first of its patterns that matched. `record` holds what the
    /// rules read of the record ([`CompiledProfile::record_fields`]), `line`
    /// is the record as written (the text of a rule without `field`).
    pub fn first_record_rule(&self, record: &records::Fields, line: &[u8]) -> Option<(usize, Option<usize>)> {
        self.record_rules.iter().find_map(|&r| Some((r, self.record_rule_match(r, record, line)?)))
    }

    /// Whether record rule `rule` matches `record` (see
    /// [`CompiledProfile::first_record_rule`]): `Some` with the first of its
    /// patterns that matched, if it has any.
    pub fn record_rule_match(&self, rule: usize, record: &records::Fields, line: &[u8]) -> Option<Option<usize>> {
        let conditions = self.profile.rules.get(rule)?.record.as_deref()?;
        let slots = &self.record_plan().conditions[rule];
        if !conditions.iter().zip(slots).all(|(c, &slot)| holds(c, record.get(slot))) {
            return None;
        }
        // Without a pattern the conditions are the rule: they name the
        // record the program marked, whatever its message field holds.
        let range = self.rule_patterns[rule].clone();
        if range.is_empty() {
            return Some(None);
        }
        let text = self.record_text(rule, record, line)?;
        // A record's field is the program's own text: no host stamped it.
        range.into_iter().find(|&p| self.matches_text(p, &text)).map(Some)
    }

    /// The text of `record` that rule `rule` matches and shows: its `field`,
    /// cleaned of control characters and line breaks (a string as it is, a
    /// number or boolean as written, anything else as compact JSON), or the
    /// whole record line when the rule names no field. None when the field
    /// is missing or null.
    pub fn record_text(&self, rule: usize, record: &records::Fields, line: &[u8]) -> Option<String> {
        let text = match self.record_plan().fields.get(rule).copied().flatten() {
            None => String::from_utf8_lossy(line).into_owned(),
            Some(slot) => match record.get(slot)? {
                Value::Null => return None,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        };
        Some(clean_line(&text))
    }

    /// The text a hit of rule `rule` on the record `line` shows as evidence:
    /// [`Self::record_text`], or the whole record line when the record lacks
    /// the rule's field. A rule without a pattern hits on its conditions
    /// alone, and another release of the program may keep the message under
    /// another name (Qwen Code 0.5 and 0.8 wrote `error`, not 0.24's
    /// `error_message`): the record the program marked is still the cause,
    /// and an empty evidence line would hide it.
    pub fn record_evidence(&self, rule: usize, line: &[u8]) -> String {
        self.parse_record(line)
            .and_then(|fields| self.record_text(rule, &fields, line))
            .unwrap_or_else(|| clean_line(&String::from_utf8_lossy(line)))
    }

    fn record_plan(&self) -> &RecordPlan {
        self.record_plan.get_or_init(|| {
            let mut shape = records::Shape::default();
            let mut slots = |cs: &[Condition]| cs.iter().map(|c| shape.add(&c.pointer)).collect::<Vec<_>>();
            let conditions =
                self.profile.rules.iter().map(|r| r.record.as_deref().map(&mut slots).unwrap_or_default()).collect();
            let progress = self.profile.progress_records.iter().map(|cs| slots(cs)).collect();
            // A rule without `field` reads the record's line, not its value.
            let fields = self.profile.rules.iter().map(|r| r.field.as_deref().map(|f| shape.add(f))).collect();
            let needles = Needles::new(
                self.record_rules.iter().map(|&r| self.profile.rules[r].record.clone().unwrap_or_default()),
            );
            RecordPlan { shape, conditions, fields, progress, needles }
        })
    }

    /// Whether some record rule may match the record `line`, from the words
    /// its line holds: a record for which this is false is not parsed by the
    /// scan (see [`Needles`]).
    pub fn may_hit_record(&self, line: &[u8]) -> bool {
        self.record_plan().needles.may_hit(line)
    }

    /// Reads the record `line` as far as the record rules and
    /// `progress_records` read it ([`records::Shape::parse`]): the one way a
    /// record of a window is read, so that the scan, the verdict's evidence
    /// and `explain` agree on which lines are records.
    pub fn parse_record(&self, line: &[u8]) -> Option<records::Fields> {
        self.record_plan().shape.parse(line)
    }

    /// The values of `record` that the record rules and `progress_records` read.
    pub fn record_fields(&self, record: &Value) -> records::Fields {
        self.record_plan().shape.fields(record)
    }

    /// Whether `record` shows the agent working again (`progress_records`).
    pub fn is_progress(&self, record: &records::Fields) -> bool {
        let plan = &self.record_plan().progress;
        let holds_all = |(cs, slots): (&Vec<Condition>, &Vec<usize>)| {
            cs.iter().zip(slots).all(|(c, &slot)| holds(c, record.get(slot)))
        };
        self.profile.progress_records.iter().zip(plan).any(holds_all)
    }

    /// Whether scanning `records` keeps to its deadline without a watchdog:
    /// as for text ([`CompiledProfile::scan_is_bounded`]), every pattern built
    /// in and no record longer than [`BOUNDED_LINE`].
    pub fn records_are_bounded(&self, records: &Records) -> bool {
        self.lite.iter().all(Option::is_some) && records.lines.iter().all(|l| l.end - l.offset <= BOUNDED_LINE)
    }

    /// Scans the records of `window`; the last record hit wins, as for text.
    /// A record that holds every word of some rule ([`Needles`]) is parsed
    /// once, as far as the rules read it ([`records::Shape`]), matched, and
    /// dropped; the others cannot be hit and are passed over unparsed. Then,
    /// when the winner is an environment fault, the records after it are read
    /// for `progress_records`, last first. The deadline is looked at as for
    /// text, every `DEADLINE_BYTES` of records.
    pub fn scan_records(&self, window: &[u8], records: &Records, deadline: Option<Instant>) -> Scan {
        let mut per_rule: Vec<Option<RuleHits>> = vec![None; self.profile.rules.len()];
        let mut scan = Scan::default();
        let mut pacer = Pacer::default();
        // A record that holds no rule's words cannot be hit and is not parsed
        // (most of a transcript: the model's turns and tool results).
        for (line, span) in records.lines.iter().enumerate() {
            let bytes = records.bytes(window, span);
            if pacer.due(bytes.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                scan.timed_out = true;
                break;
            }
            if !self.may_hit_record(bytes) {
                continue;
            }
            let Some(record) = self.parse_record(bytes) else {
                scan.unparsed += 1;
                continue;
            };
            if let Some((rule, pattern)) = self.first_record_rule(&record, bytes) {
                let slot = per_rule[rule].get_or_insert(RuleHits { rule, count: 0, last_line: line });
                slot.count += 1;
                slot.last_line = line;
                scan.record(&self.profile.rules[rule], LineHit { line, rule, pattern });
            }
        }
        scan.settle();
        // A fault the session got past is not what it died of (SPEC §1.5):
        // the last record after the winner that shows the agent working.
        let winner = scan.last.filter(|l| !scan.timed_out && self.profile.rules[l.rule].action.is_env_fault());
        if let Some(winner) = winner.filter(|_| !self.profile.progress_records.is_empty()) {
            for (line, span) in records.lines.iter().enumerate().skip(winner.line + 1).rev() {
                let bytes = records.bytes(window, span);
                if pacer.due(bytes.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                    scan.timed_out = true;
                    break;
                }
                let Some(record) = self.parse_record(bytes) else { continue };
                if self.first_record_rule(&record, bytes).is_none() && self.is_progress(&record) {
                    scan.progress = Some(line);
                    break;
                }
            }
        }
        scan.hits = per_rule.into_iter().flatten().collect();
        scan
    }
}

impl Scan {
    /// Takes a hit of `rule`: the last hit wins, but a `fallback` rule's hit
    /// only while no other rule has hit.
    fn record(&mut self, rule: &crate::profile::Rule, hit: LineHit) {
        if rule.fallback {
            self.fallback = Some(hit);
        } else {
            self.last = Some(hit);
        }
    }

    /// At the end of a scan: a fallback hit wins when nothing else hit.
    fn settle(&mut self) {
        if self.last.is_none() {
            self.last = self.fallback.take();
        }
    }
}

/// Whether `found`, the value at the condition's pointer, is one of its
/// accepted values.
fn holds(c: &Condition, found: Option<&Value>) -> bool {
    c.accepted.iter().any(|a| match (a, found) {
        (Scalar::Present(want), found) => found.is_some_and(|v| !v.is_null()) == *want,
        (_, None) => false,
        (Scalar::Str(want), Some(Value::String(s))) => want == s,
        (Scalar::Bool(want), Some(Value::Bool(b))) => want == b,
        // 529 and 529.0 are the same number in JSON.
        (Scalar::Int(want), Some(Value::Number(n))) => n.as_i64() == Some(*want) || n.as_f64() == Some(*want as f64),
        _ => false,
    })
}

/// When the scan looks at the clock: before its first line, then before the
/// first line after [`DEADLINE_BYTES`] of lines searched.
struct Pacer {
    /// What the lines searched since the last look count.
    unchecked: usize,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer { unchecked: DEADLINE_BYTES }
    }
}

impl Pacer {
    /// Counts `len` bytes searched besides the lines themselves (framings).
    fn spent(&mut self, len: usize) {
        self.unchecked += len;
    }

    /// Whether to look at the clock before searching a line of `len` bytes.
    fn due(&mut self, len: usize) -> bool {
        let due = self.unchecked >= DEADLINE_BYTES;
        if due {
            self.unchecked = 0;
        }
        self.unchecked += len.max(LINE_COST);
        due
    }
}

/// A compile failure as the rule error that names it.
fn compile_error(pattern: &str, e: regex::Error) -> RuleError {
    let pattern = crate::profile::schema::shown(pattern);
    match e {
        regex::Error::CompiledTooBig(limit) => RuleError::TooBig { pattern, limit },
        other => RuleError::Regex { pattern, message: other.to_string().replace('\n', " ") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::clean::clean;
    use crate::profile::schema;
    use crate::profile::{Origin, Profile};

    /// Every literal a line holds is found, as `str::contains` finds it:
    /// literals that are prefixes of others, that start inside another's
    /// match, that sit in different Teddy chunks, or that occur twice.
    #[test]
    fn a_line_yields_every_literal_it_holds() {
        let mut words: Vec<String> =
            ["API", "API Error", "API Error: 5", "Error", "rror: 529", "529", "Error: 529 Over"]
                .iter()
                .chain(&["Falha temporária a resolver", "暫時無法解析", "無法", "ab", "abc", "abd", "abde"])
                .map(|w| w.to_string())
                .collect();
        // enough more to need several Teddy searchers, with prefix chains
        // that cross from one searcher's chunk to the next
        words.extend((0..150).map(|i| format!("w{i:03}")));
        words.extend((0..150).map(|i| format!("w{i:03}x")));
        let with_short: Vec<String> = words.iter().cloned().chain(["a".to_string(), "b".to_string()]).collect();
        let lines = [
            "● API Error: 529 Overloaded",
            "API Error: 529 Overloaded · Error: 529 Overloaded again",
            "  Falha temporária a resolver 'archive.ubuntu.com'",
            "x 暫時無法解析 y",
            "abd and abc and ab",
            "w063 w064x w127x w128 w149x",
            "nothing here",
            "",
        ];
        let mut packed = 0;
        // one-byte literals make `aho_corasick` refuse Teddy: the automaton
        for (words, insensitive) in [(&words, false), (&words, true), (&with_short, false)] {
            let map: LiteralMap = words
                .iter()
                .enumerate()
                .map(|(i, w)| (if insensitive { w.to_ascii_lowercase() } else { w.clone() }, vec![i]))
                .collect();
            let set = LiteralSet::build(map, insensitive, Workload::Few).unwrap();
            if let Finder::Packed(searchers) = &set.finder {
                packed = packed.max(searchers.len());
            }
            for line in lines.iter().map(|l| if insensitive { l.to_uppercase() } else { l.to_string() }) {
                let mut got = Vec::new();
                set.patterns_in(&line, &mut got);
                got.sort_unstable();
                got.dedup();
                let hay = if insensitive { line.to_ascii_lowercase() } else { line.clone() };
                let mut want: Vec<usize> = (0..words.len())
                    .filter(|&i| {
                        let w = if insensitive { words[i].to_ascii_lowercase() } else { words[i].clone() };
                        hay.contains(w.as_str())
                    })
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want, "{line:?} (case-insensitive: {insensitive})");
            }
        }
        assert!(packed >= 5, "the exact-case set was searched by {packed} Teddy searchers");
    }

    fn compiled(text: &str) -> Result<CompiledProfile, ProfileError> {
        let f = schema::parse("t.toml", "t", text)?;
        let p = Profile {
            name: f.name,
            description: None,
            carries_model_output: false,
            origin: Origin::Builtin,
            rules: f.rules,
            progress: f.progress,
            unknown_keys: Vec::new(),
            stall: Default::default(),
            texts: Vec::new(),
            progress_records: Vec::new(),
            tool_output: f.tool_output,
            banner: Vec::new(),
        };
        CompiledProfile::compile(p, "t.toml")
    }

    const TWO: &str =
        "[[rule]]\nid = \"a\"\npattern = 'alpha'\n[[rule]]\nid = \"b\"\npatterns = ['beta', 'alpha beta']\n";

    #[test]
    fn first_rule_in_profile_order_wins_within_a_line() {
        let c = compiled(TWO).unwrap();
        assert_eq!(c.first_rule("alpha beta"), Some((0, 0)));
        assert_eq!(c.first_rule("only beta"), Some((1, 1)));
        assert_eq!(c.first_rule("gamma"), None);
    }

    #[test]
    fn literals_are_found_alike_by_one_shot_and_batch_searchers() {
        let file = |w| {
            let c = compiled(TWO).unwrap();
            CompiledProfile::compile_for(c.profile, "t.toml", w).unwrap()
        };
        let (few, many) = (file(Workload::Few), file(Workload::Many));
        assert!(few.literal_sets().iter().all(|set| set.each.is_none()));
        assert!(many.literal_sets().iter().all(|set| set.each.is_some()));
        // "betalpha" holds both literals, overlapping.
        let lines =
            [("alpha beta", Some((0, 0))), ("only beta", Some((1, 1))), ("gamma", None), ("betalpha", Some((0, 0)))];
        for (line, want) in lines {
            assert_eq!(few.first_rule(line), want, "{line:?} one-shot");
            assert_eq!(many.first_rule(line), want, "{line:?} batch");
        }
    }

    #[test]
    fn a_record_is_parsed_only_when_it_holds_every_word_of_some_rule() {
        let c = |pointer: &str, accepted: Vec<Scalar>| Condition { pointer: pointer.into(), accepted };
        let s = |v: &str| Scalar::Str(v.into());
        let needles = Needles::new(
            [
                vec![c("/isApiErrorMessage", vec![Scalar::Bool(true)]), c("/error", vec![s("rate_limit")])],
                vec![c("/type", vec![s("system"), s("result")]), c("/message/content/0", vec![s("a b")])],
            ]
            .into_iter(),
        );
        let want: [&[u8]; 4] = [b"\"isApiErrorMessage\"", b"\"error\"", b"\"rate_limit\"", b"\"type\""];
        assert_eq!(needles.words, want, "keys and a lone safe string value; no index, no value with a blank");
        // The automaton (no Teddy on this CPU) finds the same words.
        let automaton = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&needles.words).unwrap();
        let other = Needles {
            words: needles.words.clone(),
            finder: Some(Finder::Automaton(automaton)),
            rules: needles.rules.clone(),
        };
        for n in [&needles, &other] {
            assert!(n.may_hit(br#"{"isApiErrorMessage":true,"error":"rate_limit"}"#));
            assert!(n.may_hit(br#"{"type":"assistant"}"#), "the second rule's one word");
            assert!(!n.may_hit(br#"{"isApiErrorMessage":true,"error":"server_error"}"#));
            assert!(!n.may_hit(br#"{"kind":"assistant","text":"API Error: 429"}"#));
        }
        // A rule with no word to look for reads every record.
        let open = Needles::new([vec![c("/0", vec![Scalar::Int(1)])]].into_iter());
        assert!(open.may_hit(b"{}"));
        // A key that must be missing is no word a record must hold.
        let absent = Needles::new(
            [vec![c("/type", vec![s("message")]), c("/message/metadata/inference", vec![Scalar::Present(false)])]]
                .into_iter(),
        );
        let want: [&[u8]; 2] = [b"\"type\"", b"\"message\""];
        assert_eq!(absent.words, want);
        assert!(absent.may_hit(br#"{"type":"message","message":{"metadata":{}}}"#));
    }

    #[test]
    fn a_presence_condition_asks_only_whether_a_value_is_there() {
        let c = |accepted| Condition { pointer: "/message/metadata/inference".into(), accepted: vec![accepted] };
        let (there, missing) = (c(Scalar::Present(true)), c(Scalar::Present(false)));
        let object = serde_json::json!({"provider": "openai"});
        for (found, is_there) in [(Some(&object), true), (Some(&Value::Null), false), (None, false)] {
            assert_eq!(holds(&there, found), is_there, "{found:?}");
            assert_eq!(holds(&missing, found), !is_there, "{found:?}");
        }
        // The other values still need a value of their own type.
        let flag = Condition { pointer: "/a".into(), accepted: vec![Scalar::Bool(true)] };
        assert!(!holds(&flag, None) && !holds(&flag, Some(&Value::Null)) && holds(&flag, Some(&Value::Bool(true))));
    }

    #[test]
    fn a_literal_set_larger_than_teddy_takes_finds_every_literal() {
        let n = TEDDY_LITERALS * 2 + 5;
        let literals: BTreeMap<String, Vec<usize>> = (0..n).map(|i| (format!("word{i:04}x"), vec![i])).collect();
        let set = LiteralSet::build(literals, false, Workload::Few).unwrap();
        // Teddy needs SSSE3 or NEON; without it the set is one automaton.
        if let Finder::Packed(searchers) = &set.finder {
            assert_eq!(searchers.len(), 3, "chunks of at most {TEDDY_LITERALS}");
        }
        let text: String = (0..n).rev().map(|i| format!("a line with word{i:04}x in it\n")).collect();
        let mut found = set.starts(&text);
        found.sort_unstable();
        assert_eq!(found.len(), n, "one start per line, every chunk searched");
        // Each match names its literal, whichever chunk found it.
        let mut named = 0;
        set.finder.each(text.as_bytes(), |k, at| {
            assert!(text[at..].starts_with(&set.literals[k]), "{k} at {at}");
            named += 1;
        });
        assert_eq!(named, n);
    }

    #[test]
    fn last_hit_in_the_window_wins_and_hits_are_counted() {
        let c = compiled(TWO).unwrap();
        let cleaned = clean(b"beta one\nalpha two\nnothing\nbeta three\n", false);
        let scan = c.scan(&cleaned, None);
        assert_eq!(scan.last, Some(LineHit { line: 3, rule: 1, pattern: Some(1) }));
        assert_eq!(
            scan.hits,
            [RuleHits { rule: 0, count: 1, last_line: 1 }, RuleHits { rule: 1, count: 2, last_line: 3 }]
        );
        assert!(!scan.timed_out);
    }

    #[test]
    fn find_gives_span_and_named_groups() {
        let c = compiled("[[rule]]\nid = \"q\"\npattern = 'resets (?P<resume_at>\\d+[ap]m)(?P<unused>!)?'\n").unwrap();
        let f = c.find(0, "limit · resets 3pm (UTC)").unwrap();
        // `·` is two bytes.
        assert_eq!((f.start, f.end), (9, 19));
        assert_eq!(f.groups.into_iter().collect::<Vec<_>>(), [("resume_at".to_string(), "3pm".to_string())]);
    }

    #[test]
    fn expired_deadline_stops_the_scan() {
        let c = compiled(TWO).unwrap();
        let cleaned = clean(b"alpha\n", false);
        let scan = c.scan(&cleaned, Some(Instant::now()));
        assert!(scan.timed_out && scan.last.is_none());
    }

    #[test]
    fn the_clock_is_read_before_the_first_line_then_every_deadline_bytes() {
        let mut p = Pacer::default();
        assert!(p.due(10));
        // Short lines count LINE_COST each: 32 of them make DEADLINE_BYTES.
        let short: Vec<bool> = (1..DEADLINE_BYTES / LINE_COST).map(|_| p.due(10)).collect();
        assert!(short.iter().all(|due| !due), "{short:?}");
        assert!(p.due(10));
        // One long line counts its length: the next line looks again.
        let mut p = Pacer::default();
        assert!(p.due(DEADLINE_BYTES + 1));
        assert!(p.due(1));
    }

    #[test]
    fn only_built_in_patterns_on_short_lines_scan_without_a_watchdog() {
        let resolver = crate::profile::Resolver::new(vec![crate::profile::Layer::Builtin]);
        let claude = CompiledProfile::compile(resolver.resolve_for_matching("claude").unwrap(), "builtin").unwrap();
        let line = |len: usize| format!("API Error: 529 {}\n", "x".repeat(len - 15));
        assert!(claude.scan_is_bounded(&clean(line(BOUNDED_LINE).as_bytes(), false)));
        assert!(!claude.scan_is_bounded(&clean(format!("ok\n{}", line(BOUNDED_LINE + 1)).as_bytes(), false)));
        let file = compiled(TWO).unwrap();
        assert!(!file.scan_is_bounded(&clean(b"alpha\n", false)));
    }

    #[test]
    fn a_batch_runs_built_in_patterns_on_regex_with_the_same_answers() {
        let resolver = crate::profile::Resolver::new(vec![crate::profile::Layer::Builtin]);
        let claude =
            |w| CompiledProfile::compile_for(resolver.resolve_for_matching("claude").unwrap(), "builtin", w).unwrap();
        let (few, many) = (claude(Workload::Few), claude(Workload::Many));
        let line = "⏺ Claude usage limit reached. Your limit will reset at 3pm (Europe/Berlin).";
        let (_, p) = few.first_rule(line).unwrap();
        let on_lite = few.find(p, line).unwrap();
        assert_eq!(on_lite.groups["resume_at"], "3pm (Europe/Berlin)");
        // A one-shot run stays on regex-lite however often it searches; a batch is on regex.
        for _ in 0..3 {
            assert!(matches!(few.regex(p, line), Some(Engine::Lite(_))));
            assert!(matches!(many.regex(p, line), Some(Engine::Full(_))));
        }
        assert_eq!(many.find(p, line), Some(on_lite));
        assert_eq!(many.first_rule(line), Some((few.rule_of(p), p)));
    }

    #[test]
    fn a_job_of_many_logs_is_a_batch() {
        assert_eq!(Workload::for_logs(1), Workload::Few);
        assert_eq!(Workload::for_logs(Workload::MANY_LOGS - 1), Workload::Few);
        assert_eq!(Workload::for_logs(Workload::MANY_LOGS), Workload::Many);
    }

    /// A rule for a JSON body's cause line, framed by the error's first line
    /// within three lines above; and a plain rule.
    const FRAMED: &str = r#"
progress = ['^\s*⏺ (?:Bash|Edit)\(']
[[rule]]
id = "body-503"
pattern = '"code": 503'
after = { pattern = '^✕ \[API Error: ', within = 3 }
[[rule]]
id = "retrying"
pattern = '^Retrying in \d+s'
"#;

    #[test]
    fn a_framed_rule_matches_only_below_its_framing_within_reach() {
        let c = compiled(FRAMED).unwrap();
        let scan = |text: &str| c.scan(&clean(text.as_bytes(), false), None).last.map(|h| (h.line, h.rule));
        assert_eq!(scan("✕ [API Error: {\n  \"error\": {\n    \"code\": 503,\n"), Some((2, 0)));
        // Three lines above is in reach; four is not.
        assert_eq!(scan("✕ [API Error: {\na\nb\n\"code\": 503\n"), Some((3, 0)));
        assert_eq!(scan("✕ [API Error: {\na\nb\nc\n\"code\": 503\n"), None);
        // The framing must be above, not below; and a line alone never matches.
        assert_eq!(scan("\"code\": 503\n✕ [API Error: {\n"), None);
        assert_eq!(c.first_rule("\"code\": 503"), None);
        assert_eq!(c.first_rule("Retrying in 4s"), Some((1, 1)));
    }

    #[test]
    fn progress_after_the_last_fault_is_recovery_and_chrome_is_not() {
        let c = compiled(FRAMED).unwrap();
        let scan = |text: &str| c.scan(&clean(text.as_bytes(), false), None);
        let recovered = scan("Retrying in 4s\n> \n⏺ Bash(cargo test)\nok\n");
        assert_eq!((recovered.last.map(|h| h.line), recovered.progress), (Some(0), Some(2)));
        // Only prompt and status lines after the fault: still the fault.
        assert_eq!(scan("Retrying in 4s\n> \n  ? for shortcuts\n").progress, None);
        // Progress before the fault does not count.
        assert_eq!(scan("⏺ Bash(ls)\nRetrying in 4s\n").progress, None);
    }

    #[test]
    fn built_in_progress_literals_are_those_of_the_patterns() {
        let mut seen = 0;
        for b in crate::profile::builtin::BUILTINS {
            assert_eq!(b.progress.len(), b.progress_literals.len(), "{}", b.name);
            for p in b.progress {
                let built = crate::profile::builtin::progress_literals(p).unwrap();
                assert_eq!(built.map(|l| l.iter().map(|s| s.to_string()).collect()), Progress::required(p), "{p}");
                seen += 1;
            }
        }
        assert!(seen > 0, "the built-in profiles have progress patterns");
        assert_eq!(crate::profile::builtin::progress_literals("not a built-in pattern"), None);
    }

    #[test]
    fn case_insensitive_rules_match_any_case() {
        let c = compiled("[[rule]]\nid = \"a\"\npattern = 'overloaded'\ncase_insensitive = true\n").unwrap();
        assert_eq!(c.first_rule("OVERLOADED"), Some((0, 0)));
    }

    #[test]
    fn oversized_pattern_is_rejected_naming_its_rule() {
        let e = compiled("[[rule]]\nid = \"big\"\npattern = '\\w{1000}{1000}'\n").unwrap_err().to_string();
        assert!(e.contains("rule `big`") && e.contains("limit"), "{e}");
    }
}
