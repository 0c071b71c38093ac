//! Match stage (SPEC §1.4): a profile's rules compiled once into a `RegexSet`
//! (which rules match a line, in one pass) and per-pattern regexes, built on
//! first use, for the winning match's span and captures; the scan under a deadline.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use crate::clean::Cleaned;
use crate::error::{ProfileError, RuleError};
use crate::profile::Profile;

/// Compiled-size limit, in bytes, of the profile's set and of each pattern's
/// own regex. One limit for both: a pattern that fits in the set always
/// compiles on its own, so a hit always has a span.
pub const SIZE_LIMIT: usize = 16 << 20;
/// Cache limit of the lazy DFA, per regex.
const DFA_SIZE_LIMIT: usize = 2 << 20;
/// The deadline is checked once per this many lines.
const DEADLINE_STRIDE: usize = 32;

/// A profile ready to match: its rules and their compiled patterns.
#[derive(Debug)]
pub struct CompiledProfile {
    /// The profile.
    pub profile: Profile,
    set: RegexSet,
    /// Pattern index to rule index.
    pattern_rule: Vec<usize>,
    /// The patterns as compiled (with `(?i)` where asked).
    patterns: Vec<String>,
    /// One regex per pattern, compiled the first time it is needed.
    regexes: Vec<OnceLock<Option<Regex>>>,
}

/// The match of one pattern in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Byte span of the match in the line.
    pub start: usize,
    /// End (exclusive) of the match.
    pub end: usize,
    /// Named groups that took part in the match.
    pub groups: BTreeMap<String, String>,
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

fn builder_limits(b: &mut RegexBuilder) -> &mut RegexBuilder {
    b.size_limit(SIZE_LIMIT).dfa_size_limit(DFA_SIZE_LIMIT)
}

impl CompiledProfile {
    /// Compiles the profile's patterns. A pattern over the size limits is an
    /// error naming its rule.
    pub fn compile(profile: Profile, origin: &str) -> Result<Self, ProfileError> {
        let mut patterns = Vec::new();
        let mut pattern_rule = Vec::new();
        for (i, rule) in profile.rules.iter().enumerate() {
            for p in rule.effective_patterns() {
                patterns.push(p);
                pattern_rule.push(i);
            }
        }
        let set = match RegexSetBuilder::new(&patterns).size_limit(SIZE_LIMIT).dfa_size_limit(DFA_SIZE_LIMIT).build() {
            Ok(set) => set,
            Err(e) => return Err(Self::culprit(&profile, &patterns, &pattern_rule, origin, &e)),
        };
        let regexes = patterns.iter().map(|_| OnceLock::new()).collect();
        Ok(CompiledProfile { profile, set, pattern_rule, patterns, regexes })
    }

    /// Finds the pattern behind a set compile error, for a message that names it.
    fn culprit(
        profile: &Profile,
        patterns: &[String],
        pattern_rule: &[usize],
        origin: &str,
        err: &regex::Error,
    ) -> ProfileError {
        for (p, &r) in patterns.iter().zip(pattern_rule) {
            if let Err(e) = builder_limits(&mut RegexBuilder::new(p)).build() {
                let cause = match e {
                    regex::Error::CompiledTooBig(limit) => RuleError::TooBig { pattern: shorten(p), limit },
                    other => RuleError::Regex { pattern: shorten(p), message: other.to_string().replace('\n', " ") },
                };
                return ProfileError::Rule { origin: origin.to_string(), rule: profile.rules[r].id.clone(), cause };
            }
        }
        let message = match err {
            regex::Error::CompiledTooBig(limit) => {
                format!("the profile's rules together compile to more than the {limit}-byte limit")
            }
            other => other.to_string().replace('\n', " "),
        };
        ProfileError::Extends { origin: origin.to_string(), message }
    }

    /// Number of compiled patterns.
    pub fn pattern_count(&self) -> usize {
        self.patterns.len()
    }

    /// The rule index of pattern `pattern`.
    pub fn rule_of(&self, pattern: usize) -> usize {
        self.pattern_rule[pattern]
    }

    /// The first rule (in profile order) matching `line`, with the first of its
    /// patterns that matched.
    pub fn first_rule(&self, line: &str) -> Option<(usize, usize)> {
        // Patterns are numbered in rule order, so the lowest matching pattern
        // belongs to the first matching rule.
        let first = self.set.matches(line).iter().next()?;
        Some((self.pattern_rule[first], first))
    }

    /// Every pattern index that matches `line`.
    pub fn matching_patterns(&self, line: &str) -> Vec<usize> {
        self.set.matches(line).into_iter().collect()
    }

    /// The span and named groups of pattern `pattern` in `line`.
    pub fn find(&self, pattern: usize, line: &str) -> Option<Found> {
        let regex = self
            .regexes
            .get(pattern)?
            .get_or_init(|| builder_limits(&mut RegexBuilder::new(&self.patterns[pattern])).build().ok());
        let regex = regex.as_ref()?;
        let caps = regex.captures(line)?;
        let whole = caps.get(0)?;
        let groups = regex
            .capture_names()
            .flatten()
            .filter_map(|name| Some((name.to_string(), caps.name(name)?.as_str().to_string())))
            .collect();
        Some(Found { start: whole.start(), end: whole.end(), groups })
    }

    /// Scans every line; the last line hit wins. With a deadline, the scan stops
    /// (and says `timed_out`) once it has passed.
    pub fn scan(&self, cleaned: &Cleaned, deadline: Option<Instant>) -> Scan {
        let mut per_rule: Vec<Option<RuleHits>> = vec![None; self.profile.rules.len()];
        let mut scan = Scan::default();
        for (i, line) in cleaned.lines.iter().enumerate() {
            if i % DEADLINE_STRIDE == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                scan.timed_out = true;
                break;
            }
            let Some((rule, pattern)) = self.first_rule(cleaned.line_text(line)) else { continue };
            let slot = per_rule[rule].get_or_insert(RuleHits { rule, count: 0, last_line: i });
            slot.count += 1;
            slot.last_line = i;
            scan.last = Some(LineHit { line: i, rule, pattern });
        }
        scan.hits = per_rule.into_iter().flatten().collect();
        scan
    }
}

fn shorten(p: &str) -> String {
    if p.chars().count() <= 80 { p.to_string() } else { format!("{}…", p.chars().take(79).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clean::clean;
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
