//! A profile's `busy` and `volatile` patterns (SPEC §4, §5), prepared to read
//! a screen for `faultsift stall`: each pattern on its own, with its required
//! literals, compiled by the match stage's screen regex builder (its rules'
//! settings and size limits, without the literal prefilters a screen's short
//! lines do not repay) when a line first holds one of them. One search of the cleaned text per literal finds the
//! lines each pattern may match, so a tick compiles only the patterns the
//! screen needs and runs a regex only on those lines.
//!
//! Patterns run on `regex`, never on `regex-lite`: a screen pattern without a
//! literal (a clock, an elapsed counter) is searched on every line, where
//! `regex-lite`'s slower search costs far more than `regex`'s compile.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex_automata::meta::Regex;

use super::engine::build_screen_regex;
use super::{MAX_PROFILE_AUTOMATA, Workload};
use crate::error::ProfileError;
use crate::output::evidence::evidence;
use crate::pipeline::clean::Cleaned;
use crate::profile::StallPatterns;

/// Stands in a screen's identity for what a `volatile` pattern matched: a
/// control character, which no cleaned line holds, so a mask never equals
/// text and a line made only of masks and blanks is all chrome.
pub const MASK: &str = "\u{0}";

/// A profile's `busy` and `volatile` patterns, ready to read screens.
#[derive(Debug)]
pub struct ScreenPatterns {
    busy: Vec<ScreenPattern>,
    volatile: Vec<ScreenPattern>,
}

/// One pattern: its required literals and its regex, compiled on first need.
#[derive(Debug)]
struct ScreenPattern {
    source: String,
    /// A line that matches holds one of these; None: any line may match.
    literals: Option<Vec<String>>,
    regex: OnceLock<Option<Regex>>,
}

impl ScreenPattern {
    /// A built-in pattern, its literals worked out when faultsift was built.
    fn builtin(source: &str, literals: Option<&[&str]>) -> Self {
        let literals = literals.map(|ls| ls.iter().map(|l| (*l).to_string()).collect());
        ScreenPattern { source: source.to_string(), literals, regex: OnceLock::new() }
    }

    fn new(source: &str) -> Self {
        let literals =
            regex_syntax::Parser::new().parse(source).ok().and_then(|hir| crate::profile::literal::screen(&hir));
        ScreenPattern { source: source.to_string(), literals, regex: OnceLock::new() }
    }

    /// Whether `line` holds one of the required literals (no regex needed).
    fn may_match(&self, line: &str) -> bool {
        self.literals.as_ref().is_none_or(|ls| {
            ls.iter().any(|l| match l.as_bytes() {
                [b] => memchr::memchr(*b, line.as_bytes()).is_some(),
                _ => line.contains(l.as_str()),
            })
        })
    }

    /// The regex, compiled on first use; None if it does not compile (a
    /// pattern from a file was compiled when the profile was prepared, so
    /// only a built-in one could get here, and they all compile).
    fn regex(&self) -> Option<&Regex> {
        self.regex.get_or_init(|| build_screen_regex(&self.source).ok()).as_ref()
    }

    /// Where the leftmost match in `line` starts.
    fn find_start(&self, line: &str) -> Option<usize> {
        if !self.may_match(line) {
            return None;
        }
        self.regex()?.find(line).map(|m| m.start())
    }

    /// Whether `line` holds a match (a forward search only).
    fn is_match(&self, line: &str) -> bool {
        self.may_match(line) && self.regex().is_some_and(|re| re.is_match(line))
    }

    /// The lines of `cleaned` that may match: every line when the pattern
    /// has no literal, else those holding one (one search of the text per
    /// literal: lines are separated by `\n`, which no literal holds).
    fn candidates(&self, cleaned: &Cleaned) -> Candidates {
        let Some(literals) = &self.literals else { return Candidates::All };
        // A short piece occurs on most lines: [`ScreenPattern::may_match`]
        // checks each line for it instead.
        if literals.iter().any(|l| l.len() < crate::profile::literal::MIN_LEN) {
            return Candidates::All;
        }
        let mut lines = vec![false; cleaned.lines.len()];
        for literal in literals {
            // Hits come in text order: the line they fall in only moves on.
            let mut line = 0;
            for at in memchr::memmem::find_iter(cleaned.text.as_bytes(), literal.as_bytes()) {
                while cleaned.lines.get(line).is_some_and(|l| l.end < at) {
                    line += 1;
                }
                if let Some(hit) = lines.get_mut(line) {
                    *hit = true;
                }
            }
        }
        Candidates::Lines(lines)
    }
}

/// The lines a pattern may match on one screen.
enum Candidates {
    All,
    Lines(Vec<bool>),
}

impl Candidates {
    fn holds(&self, line: usize) -> bool {
        match self {
            Candidates::All => true,
            Candidates::Lines(lines) => lines.get(line).copied().unwrap_or(false),
        }
    }
}

/// What one screen shows, for the decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    /// The hash of the screen's lines, busy lines left out and volatile spans
    /// masked, as 16 hex digits.
    pub identity: String,
    /// The first busy line on screen (a spinner sits above the footer hint
    /// and says more), as evidence: cleaned, windowed around the match,
    /// redacted.
    pub busy_line: Option<String>,
}

impl ScreenPatterns {
    /// Prepares `patterns` for a job of `workload`; `origin` names the profile
    /// in errors. Patterns from files, and every pattern of a batch
    /// (`faultsift test`), are compiled now, so a pattern over the size limit
    /// is an error naming it (`busy[0]`); the built-in patterns of a tick wait
    /// until a line holds one of their literals. The patterns were parsed and
    /// checked when the profile was loaded. Each regex has its own size limit,
    /// so the patterns from files together are held to
    /// [`MAX_PROFILE_AUTOMATA`], as a profile's rules are: an untrusted file of
    /// many mid-sized patterns must not cost gigabytes.
    pub fn compile(patterns: &StallPatterns, origin: &str, workload: Workload) -> Result<Self, ProfileError> {
        // A built-in pattern: its required literals, from the table.
        let builtin = |key: &str, p: &str| {
            crate::profile::builtin::BUILTINS.iter().find_map(|b| {
                let (list, literals) = match key {
                    "busy" => (b.busy, b.busy_literals),
                    _ => (b.volatile, b.volatile_literals),
                };
                list.iter().position(|q| *q == p).map(|i| literals.get(i).copied().flatten())
            })
        };
        let mut left = MAX_PROFILE_AUTOMATA;
        let mut prepare = |key: &str, list: &[String]| -> Result<Vec<ScreenPattern>, ProfileError> {
            let mut out = Vec::with_capacity(list.len());
            for (i, p) in list.iter().enumerate() {
                let table = builtin(key, p);
                let pattern = match table {
                    Some(literals) => ScreenPattern::builtin(p, literals),
                    None => ScreenPattern::new(p),
                };
                if workload == Workload::Many || table.is_none() {
                    let regex = build_screen_regex(p).map_err(|cause| ProfileError::Rule {
                        origin: origin.to_string(),
                        rule: format!("{key}[{i}]"),
                        cause,
                    })?;
                    if table.is_none() {
                        left = left.checked_sub(regex.memory_usage()).ok_or_else(|| ProfileError::TooBig {
                            origin: origin.to_string(),
                            message: format!(
                                "`{key}[{i}]`: the profile's `busy` and `volatile` patterns up to this one compile \
                                 to more than the {MAX_PROFILE_AUTOMATA}-byte limit together (use fewer or smaller \
                                 patterns)"
                            ),
                        })?;
                    }
                    let _ = pattern.regex.set(Some(regex));
                }
                out.push(pattern);
            }
            Ok(out)
        };
        Ok(ScreenPatterns {
            busy: prepare("busy", &patterns.busy)?,
            volatile: prepare("volatile", &patterns.volatile)?,
        })
    }

    /// Whether `line` is a busy line.
    pub fn is_busy(&self, line: &str) -> bool {
        self.busy.iter().any(|p| p.is_match(line))
    }

    /// Where the leftmost busy match in `line` starts, trying only the
    /// patterns `candidate` names; a match at the line's start ends the
    /// search (the patterns after it are not compiled for it).
    fn busy_start(&self, line: &str, candidate: impl Fn(usize) -> bool) -> Option<usize> {
        let mut first: Option<usize> = None;
        for (k, p) in self.busy.iter().enumerate() {
            if first == Some(0) {
                break;
            }
            if let Some(at) = candidate(k).then(|| p.find_start(line)).flatten() {
                first = Some(first.map_or(at, |f| f.min(at)));
            }
        }
        first
    }

    /// `line` as the identity sees it: trailing blanks (a pane's padding to
    /// its width) dropped, and what each `volatile` pattern matches, in
    /// profile order, replaced by [`MASK`].
    pub fn masked<'a>(&self, line: &'a str) -> Cow<'a, str> {
        self.masked_where(line, |_| true)
    }

    /// Whether the `volatile` patterns mask all of a non-blank `line`: a line
    /// of streaming output like it would look like a frozen screen
    /// (`faultsift test` fails such a pattern).
    pub fn masks_all(&self, line: &str) -> bool {
        !line.trim().is_empty() && self.masked(line).split(MASK).all(|rest| rest.trim().is_empty())
    }

    /// [`ScreenPatterns::masked`], trying only the patterns `candidate` names.
    fn masked_where<'a>(&self, line: &'a str, candidate: impl Fn(usize) -> bool) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(line.trim_end());
        for (k, p) in self.volatile.iter().enumerate() {
            if !candidate(k) || !p.may_match(&out) {
                continue;
            }
            let Some(re) = p.regex() else { continue };
            let mut masked = String::new();
            let mut last = None;
            for m in re.find_iter(out.as_ref()) {
                masked.push_str(&out[last.unwrap_or(0)..m.start()]);
                masked.push_str(MASK);
                last = Some(m.end());
            }
            if let Some(last) = last {
                masked.push_str(&out[last..]);
                out = Cow::Owned(masked);
            }
        }
        out
    }

    /// Reads one cleaned screen: its identity (FNV-1a over the lines that are
    /// not busy, masked) and its first busy line.
    pub fn screen(&self, cleaned: &Cleaned) -> Screen {
        let (busy, volatile) = self.candidates(cleaned);
        let mut hash = Fnv::new();
        let mut busy_line = None;
        for (i, line) in cleaned.lines.iter().enumerate() {
            let text = cleaned.line_text(line);
            // Evidence is the first busy line, where the match starts; after
            // it, whether a line is busy is enough.
            let is_busy = if busy_line.is_none() {
                let at = self.busy_start(text, |k| busy[k].holds(i));
                busy_line = at.map(|at| evidence(text, at, false));
                at.is_some()
            } else {
                self.busy.iter().zip(&busy).any(|(p, c)| c.holds(i) && p.is_match(text))
            };
            if is_busy {
                continue;
            }
            hash.write(self.masked_where(text, |k| volatile[k].holds(i)).as_bytes());
            hash.write(b"\n");
        }
        Screen { identity: format!("{:016x}", hash.0), busy_line }
    }
}

impl ScreenPatterns {
    /// Each pattern's candidate lines on `cleaned`, busy then volatile. A
    /// list costs a byte per line, so together they may cost what the text
    /// does: past that (many patterns from a file over many short lines) a
    /// pattern's lines are each checked for its literals instead, which
    /// gives the same lines.
    fn candidates(&self, cleaned: &Cleaned) -> (Vec<Candidates>, Vec<Candidates>) {
        let mut room = cleaned.text.len();
        let mut pick = |p: &ScreenPattern| {
            if room < cleaned.lines.len() {
                return Candidates::All;
            }
            let c = p.candidates(cleaned);
            if let Candidates::Lines(lines) = &c {
                room -= lines.len();
            }
            c
        };
        let busy = self.busy.iter().map(&mut pick).collect();
        let volatile = self.volatile.iter().map(&mut pick).collect();
        (busy, volatile)
    }
}

/// FNV-1a, 64 bits: a hash whose value is fixed by its definition, so a state
/// file written by one build of faultsift means the same to the next (the
/// standard library's hasher may change between Rust releases). Screens are
/// compared with the session's own earlier screens, not with an adversary's.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::clean::clean;
    use crate::pipeline::matcher::build_regex;
    use crate::profile::{Layer, Resolver};

    fn patterns(busy: &[&str], volatile: &[&str]) -> StallPatterns {
        StallPatterns {
            busy: busy.iter().map(|s| (*s).to_string()).collect(),
            volatile: volatile.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    fn claude(workload: Workload) -> ScreenPatterns {
        let profile = Resolver::new(vec![Layer::Builtin]).resolve_for_stall("claude").unwrap();
        ScreenPatterns::compile(&profile.stall, "builtin:claude", workload).unwrap()
    }

    fn compiled(list: &[ScreenPattern]) -> Vec<bool> {
        list.iter().map(|p| p.regex.get().is_some()).collect()
    }

    #[test]
    fn a_tick_compiles_only_the_patterns_its_screen_needs() {
        let r = claude(Workload::Few);
        assert!(compiled(&r.busy).iter().chain(&compiled(&r.volatile)).all(|c| !c), "nothing compiled up front");
        // No spinner, no hint, no token counter on screen: their regexes are
        // never built; the clock and the elapsed counter have no literal and
        // are searched on every line.
        let s = r.screen(&clean("❯ fix the tests\n● I will run them now (3 files).\n".as_bytes(), false));
        assert!(s.busy_line.is_none());
        assert_eq!(compiled(&r.busy), [false, false]);
        // The clock needs a `:`, the counter a `(`: only the counter's regex.
        assert_eq!(compiled(&r.volatile), [false, false, true]);
        let s = r.screen(&clean("✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)\n".as_bytes(), false));
        assert_eq!(s.busy_line.as_deref(), Some("✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)"));
        // The spinner's pattern matched at the line's start: the hint's
        // pattern could not start earlier, and is not built for it.
        assert_eq!(compiled(&r.busy), [true, false]);
        let s = r.screen(&clean("  12 files changed\n  esc to interrupt\n".as_bytes(), false));
        assert_eq!(s.busy_line.as_deref(), Some("esc to interrupt"));
        assert_eq!(compiled(&r.busy), [true, true]);
        // A batch compiles everything at once.
        let r = claude(Workload::Many);
        assert!(compiled(&r.busy).iter().chain(&compiled(&r.volatile)).all(|c| *c));
        // So does a tick for patterns from a file: a size error is a load error.
        let r = ScreenPatterns::compile(&patterns(&["esc to go"], &["[0-9]+s"]), "t.toml", Workload::Few).unwrap();
        assert!(compiled(&r.busy).iter().chain(&compiled(&r.volatile)).all(|c| *c));
    }

    #[test]
    fn the_literal_search_finds_every_line_the_regexes_match() {
        // For every built-in profile, over the bait corpus and the stall
        // fixtures: the prefiltered reading of a screen equals running every
        // regex on every line.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/stall");
        let mut text: String = crate::commands::bait::lines().map(|b| format!("{}\n", b.text)).collect();
        for entry in std::fs::read_dir(dir).unwrap() {
            text.push_str(&String::from_utf8_lossy(&std::fs::read(entry.unwrap().path()).unwrap()));
            text.push('\n');
        }
        let cleaned = clean(text.as_bytes(), false);
        let resolver = Resolver::new(vec![Layer::Builtin]);
        let (mut busy, mut masked) = (0, 0);
        for b in crate::profile::builtin::BUILTINS {
            let profile = resolver.resolve_for_stall(b.name).unwrap();
            let r = ScreenPatterns::compile(&profile.stall, b.name, Workload::Few).unwrap();
            let regexes =
                |list: &[String]| -> Vec<regex::Regex> { list.iter().map(|p| build_regex(p).unwrap()).collect() };
            let (busy_res, volatile_res) = (regexes(&profile.stall.busy), regexes(&profile.stall.volatile));
            let mut hash = Fnv::new();
            let mut first_busy = None;
            for (_, line) in cleaned.iter() {
                let at = busy_res.iter().filter_map(|re| re.find(line).map(|m| m.start())).min();
                assert_eq!(r.is_busy(line), at.is_some(), "{}: {line}", b.name);
                if let Some(at) = at {
                    first_busy = first_busy.or_else(|| Some(evidence(line, at, false)));
                    busy += 1;
                    continue;
                }
                let mut plain = line.trim_end().to_string();
                for re in &volatile_res {
                    plain = re.replace_all(&plain, MASK).into_owned();
                }
                assert_eq!(r.masked(line), plain, "{}: {line}", b.name);
                masked += usize::from(plain.contains(MASK));
                hash.write(plain.as_bytes());
                hash.write(b"\n");
            }
            let screen = r.screen(&cleaned);
            assert_eq!(screen, Screen { identity: format!("{:016x}", hash.0), busy_line: first_busy }, "{}", b.name);
        }
        assert!(busy > 20 && masked > 100, "the corpus exercises both kinds: {busy} busy, {masked} masked");
    }

    #[test]
    fn patterns_from_a_file_together_stay_within_the_automata_limit() {
        // Each pattern is well within the per-regex limit; many of them are not
        // within the joint one, which stops the compile at the first over it.
        let one = r"\w{5}x";
        assert!(ScreenPatterns::compile(&patterns(&[one], &[]), "t.toml", Workload::Few).is_ok());
        let many = patterns(&[one], &[one; 100]);
        let e = ScreenPatterns::compile(&many, "t.toml", Workload::Few).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: `volatile["), "{e}");
        assert!(e.contains("together"), "{e}");
        // Built-in patterns are trusted: a batch compiles them all, uncounted.
        claude(Workload::Many);
    }

    #[test]
    fn candidate_lists_together_cost_no_more_than_the_text() {
        let listed = |c: &[Candidates]| -> usize {
            c.iter().map(|c| if let Candidates::Lines(l) = c { l.len() } else { 0 }).sum()
        };
        let busy: Vec<String> = (0..50).map(|i| format!("busy{i:03}")).collect();
        let busy: Vec<&str> = busy.iter().map(String::as_str).collect();
        let r = ScreenPatterns::compile(&patterns(&busy, &["tokens"]), "t.toml", Workload::Few).unwrap();
        // Short lines: a list per pattern would be 25 times the text.
        let text: String = std::iter::once("⠸ busy049\n".to_string())
            .chain((0..1000).map(|i| format!("busy{:03}\n", i % 60)))
            .collect();
        let cleaned = clean(text.as_bytes(), false);
        let (b, v) = r.candidates(&cleaned);
        let total = listed(&b) + listed(&v);
        assert!(total > 0 && total <= cleaned.text.len(), "{total} list bytes for {} of text", cleaned.text.len());
        // The patterns past the budget still find their lines: the last one's
        // is the first busy line.
        assert!(matches!(b[49], Candidates::All));
        assert_eq!(r.screen(&cleaned).busy_line.as_deref(), Some("⠸ busy049"));
        assert!(r.is_busy("busy049") && !r.is_busy("busy055"));
    }

    #[test]
    fn an_oversized_pattern_is_a_profile_error_naming_it() {
        let huge = patterns(&["esc", r"\w{100}{100}"], &[]);
        let e = ScreenPatterns::compile(&huge, "t.toml", Workload::Few).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: rule `busy[1]`:"), "{e}");
    }
}
