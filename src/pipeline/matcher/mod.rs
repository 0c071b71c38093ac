//! Match stage (SPEC §1.4): a profile's rules prepared once — an Aho-Corasick
//! automaton over their required literals that finds candidate lines in one
//! pass, and one regex per pattern for the line's verdict, span and captures
//! (on `regex`, or, for built-in patterns in a one-shot run, on `regex-lite`:
//! see [`crate::profile::lite`] and [`Workload`]) — and the scan under a deadline.
//! Its parts: `literals` (the candidate-line prefilter), `engine` (the two
//! regex engines), `limits` (the size bounds), `around` (framings, the
//! pane's structure, progress), `record_rules` (the scan of records).
//! [`screen`] prepares the `busy` and `volatile` patterns of `stall`, with the
//! rules' size limits but a builder of their own (no literal prefilters).

mod around;
mod engine;
mod limits;
mod literals;
mod record_rules;
pub mod screen;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

use crate::error::ProfileError;
use crate::pipeline::clean::Cleaned;
use crate::pipeline::stamp;
use crate::profile::Profile;
use crate::profile::builtin::LiteForm;

use around::{Framing, Progress, ToolCheck};
use engine::{Engine, build_regex, compile_error};
use limits::check_profile_size;
pub use limits::{MAX_PATTERNS, MAX_PROFILE_AUTOMATA, SIZE_LIMIT};
use literals::{LiteralMap, LiteralSet};
use record_rules::RecordPlan;

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

/// The deadline passed before a search was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overdue;

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
    /// skipped ([`crate::pipeline::records::Records::unparsed`]).
    pub unparsed: usize,
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
                r.after.as_ref().map(|a| {
                    let pattern = if r.case_insensitive { format!("(?i){}", a.pattern) } else { a.pattern.clone() };
                    Framing::new(pattern, a.within)
                })
            })
            .collect();
        let tool_output = profile.tool_output.clone().map(ToolCheck::new);
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
                p.compile_all().map_err(|(pattern, e)| ProfileError::Rule {
                    origin: origin.to_string(),
                    rule: "progress".into(),
                    cause: compile_error(pattern, e),
                })?;
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
        let hay = &*literals::folded(line, rule.case_insensitive);
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
                        .is_some_and(|t| t.is_not_the_agent_speaking(cleaned, line, searched, &is_fault))
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
    fn a_block_below_the_prompt_s_line_or_first_in_the_pane_is_the_user_s() {
        let c = compiled(concat!(
            "tool_output = { item = '^[$>]', tool = '^[$]', row = '^┃(?:[^\\n]*[^┃ \\n])? *$', blank_ends_item = true, ",
            "prompt = { row = '^┃', below = '^▣ ' } }\n",
            "[[rule]]\nid = \"o\"\naction = \"retry\"\npattern = 'Overloaded'\n",
        ))
        .unwrap();
        let hit = |log: &str| c.scan(&clean(log.as_bytes(), false), None).last.map(|h| h.line);
        // The first prompt, with the pane going on below it; a prompt below
        // the turn before's footer: the user's words.
        assert_eq!(hit("┃\n┃ Overloaded\n┃\n\n▣ Build\n"), None);
        assert_eq!(hit("▣ Build · 3s\n\n┃\n┃ Overloaded\n┃\n"), None);
        // The box below the prompt is the agent's; so is a row pasted alone.
        assert_eq!(hit("┃ hi\n┃\n\n┃\n┃ Overloaded\n┃\n\n▣ Build\n"), Some(3));
        assert_eq!(hit("┃ Overloaded\n"), Some(0));
        // A toast over the prompt's row (a bar at each side) is no row of it.
        assert_eq!(hit("┃ hi ┃ Overloaded ┃\n\n▣ Build\n"), Some(0));
    }

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
    fn a_profile_file_s_oversized_progress_pattern_is_rejected_naming_it() {
        let e = compiled("progress = ['^ok', '\\w{1000}{1000}']\n[[rule]]\nid = \"a\"\npattern = 'boom'\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("progress") && e.contains("{1000}{1000}") && !e.contains("^ok"), "{e}");
    }

    #[test]
    fn oversized_pattern_is_rejected_naming_its_rule() {
        let e = compiled("[[rule]]\nid = \"big\"\npattern = '\\w{1000}{1000}'\n").unwrap_err().to_string();
        assert!(e.contains("rule `big`") && e.contains("limit"), "{e}");
    }
}
