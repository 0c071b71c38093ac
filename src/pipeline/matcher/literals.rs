//! The candidate-line prefilter: the literals the text rules require, in one
//! searcher per case mode, so that one pass over the window finds the lines
//! worth a regex, and the patterns each such line may match.

use std::borrow::Cow;
use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::Workload;

/// Literals of one case mode, the patterns that require each, and a searcher
/// that finds the lines holding any of them.
#[derive(Debug)]
pub(super) struct LiteralSet {
    literals: Vec<String>,
    patterns: Vec<Vec<usize>>,
    finder: Finder,
    /// One searcher per literal for the lines the set's search found, in a
    /// batch. `str::contains` sets up a search per literal and line, which is
    /// cheaper than building a `memchr` searcher for the few candidate lines
    /// of one log, and dearer over the thousands of a batch.
    pub(super) each: Option<Vec<memchr::memmem::Finder<'static>>>,
    ascii_case_insensitive: bool,
}

/// Literals and, for each, the patterns that require it.
pub(super) type LiteralMap = BTreeMap<String, Vec<usize>>;

/// Finds where some literal of a set occurs: Teddy (SIMD, built in
/// microseconds) where the CPU and the set allow, else an Aho-Corasick NFA.
/// Teddy takes at most [`TEDDY_LITERALS`] literals, so a larger set is searched
/// by several Teddy searchers, one pass each: a pass over a 64 KiB window costs
/// far less than building and running the NFA of a set that size.
#[derive(Debug)]
pub(super) enum Finder {
    Packed(Vec<aho_corasick::packed::Searcher>),
    Automaton(AhoCorasick),
}

/// The most literals `aho_corasick`'s Teddy searcher takes.
const TEDDY_LITERALS: usize = 64;

impl Finder {
    /// A searcher for `literals`, whose indices are the ids its matches
    /// carry: Teddy, in chunks, for exact case where the CPU has it, else one
    /// automaton.
    pub(super) fn new<L: AsRef<[u8]>>(literals: &[L], ascii_case_insensitive: bool) -> Option<Finder> {
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
    pub(super) fn each(&self, haystack: &[u8], mut found: impl FnMut(usize, usize)) {
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
    pub(super) fn build(
        literals: BTreeMap<String, Vec<usize>>,
        ascii_case_insensitive: bool,
        workload: Workload,
    ) -> Option<Self> {
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
    pub(super) fn starts(&self, text: &str) -> Vec<usize> {
        let mut starts = Vec::new();
        self.finder.each(text.as_bytes(), |_, at| starts.push(at));
        starts
    }

    /// Adds the patterns of every literal `line` holds.
    pub(super) fn patterns_in(&self, line: &str, out: &mut Vec<usize>) {
        let hay = &*folded(line, self.ascii_case_insensitive);
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

/// `line` as a case-insensitive literal search compares it: lowered (the
/// literals are lowered when the profile is compiled), or as it is.
pub(super) fn folded(line: &str, case_insensitive: bool) -> Cow<'_, str> {
    if case_insensitive { Cow::Owned(line.to_ascii_lowercase()) } else { Cow::Borrowed(line) }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
