//! The size limits every pattern is compiled under, and the check that bounds
//! a profile from a file as a whole before any of its patterns is compiled
//! for matching (SECURITY.md, "Limits").

use crate::error::{ProfileError, RuleError};
use crate::profile::Profile;

/// Compiled-size limit of each pattern's regex, in bytes.
pub const SIZE_LIMIT: usize = 16 << 20;
/// Cache limit of the lazy DFA, per regex.
pub(super) const DFA_SIZE_LIMIT: usize = 2 << 20;

/// The most that the automata of a profile's patterns from files may take
/// together (their Thompson NFAs), and so what compiling them costs: about
/// twice the largest built-in profile (`ci`, 7.7 MiB loaded as a file), so
/// that a copy of it (`faultsift show ci`) has room for a user's own rules.
pub const MAX_PROFILE_AUTOMATA: usize = 16 << 20;

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
pub(super) fn check_profile_size(profile: &Profile, origin: &str) -> Result<(), ProfileError> {
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
