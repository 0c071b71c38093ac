//! Required literals of a pattern: a set of strings such that every match
//! contains at least one of them. The match stage searches the window for these
//! with one Aho-Corasick pass and runs a rule's regex only on lines that hold
//! one, so a healthy log compiles no regex at all.
//!
//! This file depends on `regex-syntax` only: `build.rs` includes it too, to
//! precompute the literals of the built-in profiles.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Literals shorter than this (in bytes) select too many lines to be worth it.
pub const MIN_LEN: usize = 3;

/// The required literals of `hir`, lowercased when `case_insensitive` (then
/// ASCII-only, since the search folds ASCII case only). None when the pattern
/// has no useful set: its rule must be tried on every line.
pub fn required(hir: &Hir, case_insensitive: bool) -> Option<Vec<String>> {
    let set = best(hir, case_insensitive)?;
    let ok = set.iter().all(|s| s.len() >= MIN_LEN && (!case_insensitive || s.is_ascii()));
    ok.then_some(set)
}

/// The literals a `stall` screen pattern is looked up by: its
/// [`required`] ones, else the longest literal piece of it as a sequence
/// (`:` in a clock, `(` in an elapsed counter), however short: every match
/// holds each piece of a sequence, and even one byte spares the regex most
/// lines of a screen. None: every line is searched.
pub fn screen(hir: &Hir) -> Option<Vec<String>> {
    if let Some(set) = required(hir, false) {
        return Some(set);
    }
    let mut top = hir;
    while let HirKind::Capture(cap) = top.kind() {
        top = &cap.sub;
    }
    let HirKind::Concat(subs) = top.kind() else { return None };
    subs.iter()
        .filter_map(|s| match s.kind() {
            HirKind::Literal(l) => std::str::from_utf8(&l.0).ok(),
            _ => None,
        })
        .max_by_key(|l| l.len())
        .map(|l| vec![l.to_string()])
}

/// Every other set of literals a match of `hir` must hold, besides the one
/// [`required`] gives: the parts of a concatenation are all in every match, so
/// each part's set is required too. A line that holds the first set but not
/// all of these cannot match, and the pattern's regex need not be compiled
/// for it (a one-shot run compiles each candidate's regex on first use).
pub fn also_required(hir: &Hir, case_insensitive: bool) -> Vec<Vec<String>> {
    let first = required(hir, case_insensitive);
    let mut top = hir;
    while let HirKind::Capture(cap) = top.kind() {
        top = &cap.sub;
    }
    let HirKind::Concat(subs) = top.kind() else { return Vec::new() };
    let mut sets: Vec<Vec<String>> = Vec::new();
    let mut run = String::new();
    let push = |set: Vec<String>, sets: &mut Vec<Vec<String>>| {
        let ok = set.iter().all(|s| s.len() >= MIN_LEN && (!case_insensitive || s.is_ascii()));
        if ok && first.as_ref() != Some(&set) && !sets.contains(&set) {
            sets.push(set);
        }
    };
    for s in subs {
        match exact(s, case_insensitive) {
            Some(part) => run.push_str(&part),
            None => {
                if !run.is_empty() {
                    push(vec![std::mem::take(&mut run)], &mut sets);
                }
                if let Some(inner) = best(s, case_insensitive) {
                    push(inner, &mut sets);
                }
            }
        }
    }
    if !run.is_empty() {
        push(vec![run], &mut sets);
    }
    sets
}

/// The length of the longest string of `required`'s set for `hir` (its
/// weakest member's length), for the lint that wants a literal of a few
/// characters; 0 when there is none.
pub fn strength(hir: &Hir, case_insensitive: bool) -> usize {
    best(hir, case_insensitive).map_or(0, |set| set.iter().map(|s| s.chars().count()).min().unwrap_or(0))
}

/// A node that is one exact string (zero-width assertions are "").
fn exact(hir: &Hir, ci: bool) -> Option<String> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(String::new()),
        HirKind::Literal(lit) => {
            let s = std::str::from_utf8(&lit.0).ok()?;
            Some(if ci { s.to_lowercase() } else { s.to_string() })
        }
        HirKind::Class(Class::Unicode(u)) => {
            let chars: Vec<char> = u.ranges().iter().flat_map(|r| r.start()..=r.end()).take(3).collect();
            match chars.as_slice() {
                [c] => Some(c.to_string()),
                // A case-folded ASCII letter, [Aa], in a case-insensitive rule.
                [a, b] if ci && a.is_ascii_alphabetic() && a.eq_ignore_ascii_case(b) => {
                    Some(a.to_ascii_lowercase().to_string())
                }
                _ => None,
            }
        }
        HirKind::Capture(cap) => exact(&cap.sub, ci),
        HirKind::Repetition(rep) if rep.min == 1 && rep.max == Some(1) => exact(&rep.sub, ci),
        HirKind::Concat(subs) => subs.iter().map(|s| exact(s, ci)).collect(),
        _ => None,
    }
}

fn score(set: &[String]) -> (usize, std::cmp::Reverse<usize>) {
    (set.iter().map(String::len).min().unwrap_or(0), std::cmp::Reverse(set.len()))
}

fn best(hir: &Hir, ci: bool) -> Option<Vec<String>> {
    if let Some(s) = exact(hir, ci) {
        return (!s.is_empty()).then(|| vec![s]);
    }
    match hir.kind() {
        HirKind::Capture(cap) => best(&cap.sub, ci),
        HirKind::Repetition(rep) if rep.min >= 1 => best(&rep.sub, ci),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for s in subs {
                all.extend(best(s, ci)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        HirKind::Concat(subs) => {
            let mut options: Vec<Vec<String>> = Vec::new();
            let mut run = String::new();
            for s in subs {
                match exact(s, ci) {
                    Some(part) => run.push_str(&part),
                    None => {
                        if !run.is_empty() {
                            options.push(vec![std::mem::take(&mut run)]);
                        }
                        if let Some(inner) = best(s, ci) {
                            options.push(inner);
                        }
                    }
                }
            }
            if !run.is_empty() {
                options.push(vec![run]);
            }
            options.into_iter().max_by_key(|o| score(o))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &str, ci: bool) -> Option<Vec<String>> {
        let hir = regex_syntax::ParserBuilder::new().case_insensitive(ci).build().parse(p).unwrap();
        required(&hir, ci)
    }

    #[test]
    fn longest_run_of_a_concatenation() {
        assert_eq!(
            req(r"^\s*(?:[⎿⏺]\s*){0,2}API Error \(Connection error\.\) · Retrying in \d+", false).unwrap(),
            ["API Error (Connection error.) · Retrying in "]
        );
    }

    #[test]
    fn alternations_give_one_literal_per_branch() {
        assert_eq!(req(r"(?:OAuth error|API Error): The socket", false).unwrap(), [": The socket"]);
        assert_eq!(
            req(r"(?:lost|closed) connection|reset by peer", false).unwrap(),
            [" connection".to_string(), "reset by peer".to_string()]
        );
    }

    #[test]
    fn case_insensitive_literals_are_lowercase_ascii() {
        assert_eq!(req("Rate Limit Exceeded", true).unwrap(), ["rate limit exceeded"]);
        // Ü folds outside ASCII and `s` to ſ too: they end the literal runs.
        assert_eq!(req("Überlastet", true).unwrap(), ["berla"]);
        assert_eq!(req("Größe", true), None);
    }

    #[test]
    fn vague_patterns_have_none() {
        assert_eq!(req(r"[A-Z]+ [0-9]+", false), None);
        assert_eq!(req(r"(?:abc)?x", false), None);
        assert_eq!(req(r"ab|cdef", false), None, "a branch too short spoils the set");
    }

    #[test]
    fn every_part_of_a_concatenation_is_also_required() {
        let also = |p: &str| {
            let hir = regex_syntax::Parser::new().parse(p).unwrap();
            also_required(&hir, false)
        };
        // The longest run is the first set; the others are required too.
        assert_eq!(
            also(r"^\s*(?:⎿\s*)?API Error: (?:429|Rate limit reached) \{.*rate_limit_error"),
            [vec!["API Error: ".to_string()], vec!["429".to_string(), "Rate limit reached".to_string()]]
        );
        // Parts shorter than MIN_LEN, or optional ones, are not.
        assert_eq!(also(r"ab+c (?:optional)? tail here"), Vec::<Vec<String>>::new());
        // Not a concatenation: nothing besides the first set.
        assert!(also(r"foo|barbaz").is_empty());
    }

    #[test]
    fn strength_is_the_weakest_member() {
        let hir = regex_syntax::Parser::new().parse(r"foo|barbaz").unwrap();
        assert_eq!(strength(&hir, false), 3);
        let hir = regex_syntax::Parser::new().parse(r"\d+ ms").unwrap();
        assert_eq!(strength(&hir, false), 3);
    }
}
