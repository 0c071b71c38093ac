//! Match stage (SPEC §1.4): a profile's rules prepared once — an Aho-Corasick
//! automaton over their required literals that finds candidate lines in one
//! pass, and one regex per pattern for the line's verdict, span and captures
//! (on `regex`, or, for built-in patterns in a one-shot run, on `regex-lite`:
//! see [`crate::profile::lite`] and [`Workload`]) — and the scan under a deadline.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexBuilder};

use crate::error::{ProfileError, RuleError};
use crate::pipeline::clean::Cleaned;
use crate::profile::Profile;
use crate::profile::builtin::LiteForm;

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
    /// Literals of case-sensitive patterns, and of case-insensitive ones.
    literal_sets: Vec<LiteralSet>,
    /// Patterns with no required literal: tried on every line.
    always: Vec<usize>,
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

/// Finds where some literal of a set occurs: Teddy (SIMD, built in
/// microseconds) where the CPU and the set allow, else an Aho-Corasick NFA.
#[derive(Debug)]
enum Finder {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl LiteralSet {
    fn build(literals: BTreeMap<String, Vec<usize>>, ascii_case_insensitive: bool, workload: Workload) -> Option<Self> {
        if literals.is_empty() {
            return None;
        }
        let (literals, patterns): (Vec<String>, Vec<Vec<usize>>) = literals.into_iter().unzip();
        let packed = (!ascii_case_insensitive)
            .then(|| {
                aho_corasick::packed::Config::new()
                    .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                    .builder()
                    .extend(&literals)
                    .build()
            })
            .flatten();
        let finder = match packed {
            Some(searcher) => Finder::Packed(searcher),
            None => Finder::Automaton(
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                    .match_kind(MatchKind::LeftmostFirst)
                    .ascii_case_insensitive(ascii_case_insensitive)
                    .build(&literals)
                    .ok()?,
            ),
        };
        let each = (workload == Workload::Many)
            .then(|| literals.iter().map(|l| memchr::memmem::Finder::new(l.as_bytes()).into_owned()).collect());
        Some(LiteralSet { literals, patterns, finder, each, ascii_case_insensitive })
    }

    /// Start offsets of literal occurrences in `text`, enough to find every
    /// line that holds one: the search is leftmost-first and not overlapping,
    /// but no literal holds a `\n`, so each such line yields at least one.
    fn starts(&self, text: &str) -> Vec<usize> {
        match &self.finder {
            Finder::Packed(s) => s.find_iter(text).map(|m| m.start()).collect(),
            Finder::Automaton(a) => a.find_iter(text).map(|m| m.start()).collect(),
        }
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
        for (k, pats) in self.patterns.iter().enumerate() {
            let holds = match &self.each {
                Some(finders) => finders[k].find(hay.as_bytes()).is_some(),
                None => hay.contains(self.literals[k].as_str()),
            };
            if holds {
                out.extend_from_slice(pats);
            }
        }
    }
}

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
    /// Index of the rule's first pattern that matched (into the compiled list).
    pub pattern: usize,
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
}

fn build_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).size_limit(SIZE_LIMIT).dfa_size_limit(DFA_SIZE_LIMIT).build()
}

/// The most patterns a profile may have, inherited ones included.
pub const MAX_PATTERNS: usize = 1000;

/// Bounds a profile as a whole before its patterns are compiled one by one:
/// at most [`MAX_PATTERNS`], and its patterns from files, compiled together as
/// one set, within [`SIZE_LIMIT`]. Each regex has its own limit, so without
/// this an untrusted overlay of many mid-sized patterns would cost gigabytes
/// and minutes to load. Built-in patterns were checked when faultsift was built.
fn check_profile_size(profile: &Profile, origin: &str) -> Result<(), ProfileError> {
    let total: usize = profile.rules.iter().map(|r| r.patterns.len()).sum();
    if total > MAX_PATTERNS {
        return Err(ProfileError::TooBig {
            origin: origin.to_string(),
            message: format!("the profile has {total} patterns; the limit is {MAX_PATTERNS}"),
        });
    }
    let own: Vec<(usize, String)> = profile
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.builtin)
        .flat_map(|(i, r)| r.effective_patterns().map(move |p| (i, p)))
        .collect();
    let fits = |k: usize| {
        regex::RegexSetBuilder::new(own[..k].iter().map(|(_, p)| p))
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .is_ok()
    };
    if own.is_empty() || fits(own.len()) {
        return Ok(());
    }
    // The first pattern at which the set stops fitting, by bisection: a few
    // bounded set builds, not one build per pattern.
    let (mut lo, mut hi) = (0, own.len());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    let (rule, pattern) = &own[lo];
    let rule = profile.rules[*rule].id.clone();
    let cause = match build_regex(pattern) {
        Err(e) => compile_error(pattern, e),
        Ok(_) => {
            return Err(ProfileError::TooBig {
                origin: origin.to_string(),
                message: format!(
                    "rule `{rule}`: the profile's patterns up to this one compile to more than the \
                     {SIZE_LIMIT}-byte limit together (use fewer or smaller patterns)"
                ),
            });
        }
    };
    Err(ProfileError::Rule { origin: origin.to_string(), rule, cause })
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
        for (r, rule) in profile.rules.iter().enumerate() {
            for (i, p) in rule.effective_patterns().enumerate() {
                let index = patterns.len();
                let slot = OnceLock::new();
                if !rule.builtin {
                    let regex = build_regex(&p).map_err(|e| ProfileError::Rule {
                        origin: origin.to_string(),
                        rule: rule.id.clone(),
                        cause: compile_error(&p, e),
                    })?;
                    let _ = slot.set(Some(Engine::Full(regex)));
                }
                match rule.literals.get(i).cloned().flatten() {
                    Some(lits) => {
                        let map = if rule.case_insensitive { &mut folded } else { &mut exact };
                        for lit in lits {
                            map.entry(lit).or_default().push(index);
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
        }
        let literal_sets = [LiteralSet::build(exact, false, workload), LiteralSet::build(folded, true, workload)]
            .into_iter()
            .flatten()
            .collect();
        Ok(CompiledProfile { profile, pattern_rule, patterns, lite, regexes, full, workload, literal_sets, always })
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

    fn is_match(&self, pattern: usize, line: &str) -> bool {
        self.regex(pattern, line).is_some_and(|re| re.is_match(line))
    }

    /// Candidate patterns of one line, sorted and deduplicated: those whose
    /// literal the line holds, and those without a literal.
    fn line_candidates(&self, line: &str) -> Vec<usize> {
        let mut c = self.always.clone();
        for set in &self.literal_sets {
            set.patterns_in(line, &mut c);
        }
        c.sort_unstable();
        c.dedup();
        c
    }

    /// The first rule (in profile order) matching `line`, with the first of its
    /// patterns that matched.
    pub fn first_rule(&self, line: &str) -> Option<(usize, usize)> {
        // Patterns are numbered in rule order, so the lowest matching pattern
        // belongs to the first matching rule.
        let p = self.line_candidates(line).into_iter().find(|&p| self.is_match(p, line))?;
        Some((self.pattern_rule[p], p))
    }

    /// Every pattern index that matches `line`.
    pub fn matching_patterns(&self, line: &str) -> Vec<usize> {
        self.line_candidates(line).into_iter().filter(|&p| self.is_match(p, line)).collect()
    }

    /// The span and named groups of pattern `pattern` in `line`.
    pub fn find(&self, pattern: usize, line: &str) -> Option<Found> {
        self.regex(pattern, line)?.find(line)
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
        self.lite.iter().all(Option::is_some) && cleaned.lines.iter().all(|l| l.end - l.start <= BOUNDED_LINE)
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
                .literal_sets
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
            let Some((rule, pattern)) = self.first_rule(text) else { continue };
            let slot = per_rule[rule].get_or_insert(RuleHits { rule, count: 0, last_line: line });
            slot.count += 1;
            slot.last_line = line;
            scan.last = Some(LineHit { line, rule, pattern });
        }
        scan.hits = per_rule.into_iter().flatten().collect();
        scan
    }
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

    fn compiled(text: &str) -> Result<CompiledProfile, ProfileError> {
        let f = schema::parse("t.toml", "t", text)?;
        let p = Profile {
            name: f.name,
            description: None,
            carries_model_output: false,
            origin: Origin::Builtin,
            rules: f.rules,
            unknown_keys: Vec::new(),
            stall: Default::default(),
            texts: Vec::new(),
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
        assert!(few.literal_sets.iter().all(|set| set.each.is_none()));
        assert!(many.literal_sets.iter().all(|set| set.each.is_some()));
        // "betalpha" holds both literals, overlapping.
        let lines =
            [("alpha beta", Some((0, 0))), ("only beta", Some((1, 1))), ("gamma", None), ("betalpha", Some((0, 0)))];
        for (line, want) in lines {
            assert_eq!(few.first_rule(line), want, "{line:?} one-shot");
            assert_eq!(many.first_rule(line), want, "{line:?} batch");
        }
    }

    #[test]
    fn last_hit_in_the_window_wins_and_hits_are_counted() {
        let c = compiled(TWO).unwrap();
        let cleaned = clean(b"beta one\nalpha two\nnothing\nbeta three\n", false);
        let scan = c.scan(&cleaned, None);
        assert_eq!(scan.last, Some(LineHit { line: 3, rule: 1, pattern: 1 }));
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
