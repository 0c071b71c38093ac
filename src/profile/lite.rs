//! Which built-in patterns run on `regex-lite`, and in what form.
//!
//! faultsift runs once per log, so a regex is compiled for one search or two.
//! `regex` compiles a pattern with a Unicode class (`\s`, `\d`, `[⎿●]`, all
//! over the built-in profiles) through a UTF-8 automaton builder whose table
//! is a lot of fresh memory: page faults that cost a one-shot process as much
//! as the rest of classifying a log. `regex-lite` compiles the same pattern in
//! microseconds and also searches in linear time, but several times slower:
//! a batch of many logs runs the patterns on `regex` instead
//! (`matcher::Workload`).
//!
//! The engines differ only where `regex-lite` is ASCII-only: the `\s`, `\d`
//! and `\w` classes, case folding and word boundaries. The lite form of a
//! pattern is its syntax tree printed back: `regex-syntax` prints every class
//! as explicit ranges and case folding as explicit alternatives, so those
//! agree. Word boundaries are printed as ASCII ones, which agree with Unicode
//! ones on a line without non-ASCII word characters (`é`, `ß`, `٣`): where a
//! line holds one, the matcher runs `regex` instead ([`needs_unicode_words`]).
//! `tests/integration/engines.rs` checks the engines agree on every corpus,
//! bait and fixture line and every rule's examples for every built-in
//! pattern (the bait's copy of the profile files aside).
//!
//! This file depends on `regex-syntax` and `regex-lite` only: `build.rs`
//! includes it too, and stores the forms in the built-in rule tables.

use regex_syntax::hir::{Capture, Hir, HirKind, Look, Repetition};

/// A pattern as `regex-lite` runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// The pattern for `regex-lite`.
    pub pattern: String,
    /// It has word boundaries, so it stands for the original only on lines
    /// where [`needs_unicode_words`] is false.
    pub ascii_words: bool,
}

/// The form for `regex-lite` of the pattern parsed as `hir`, or None when
/// `regex-lite` does not take the printed form (then the pattern stays on
/// `regex`).
pub fn form(hir: &Hir) -> Option<Form> {
    let ascii_words = hir.properties().look_set().contains_word_unicode();
    let tree = if ascii_words { ascii_word_boundaries(hir) } else { hir.clone() };
    let pattern = tree.to_string();
    // The printer writes a repetition of a repetition without a group, so
    // `(?:x{1,3})?` comes out as the lazy `x{1,3}?`, which needs an `x`: a
    // form that does not parse back to the same tree is not the pattern.
    if regex_syntax::Parser::new().parse(&pattern).ok()? != tree {
        return None;
    }
    regex_lite::Regex::new(&pattern).ok()?;
    Some(Form { pattern, ascii_words })
}

/// A line where a Unicode word boundary may fall elsewhere than an ASCII one:
/// it holds a word character outside ASCII.
pub fn needs_unicode_words(line: &str) -> bool {
    !line.is_ascii() && line.chars().any(|c| !c.is_ascii() && regex_syntax::is_word_character(c))
}

/// `hir` with each Unicode word-boundary assertion made its ASCII twin.
fn ascii_word_boundaries(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => *other,
        }),
        HirKind::Repetition(r) => {
            Hir::repetition(Repetition { sub: Box::new(ascii_word_boundaries(&r.sub)), ..r.clone() })
        }
        HirKind::Capture(c) => Hir::capture(Capture { sub: Box::new(ascii_word_boundaries(&c.sub)), ..c.clone() }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(ascii_word_boundaries).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(ascii_word_boundaries).collect()),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => hir.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lite(pattern: &str) -> Form {
        form(&regex_syntax::Parser::new().parse(pattern).unwrap()).unwrap()
    }

    fn lite_matches(pattern: &str, line: &str) -> bool {
        regex_lite::Regex::new(&lite(pattern).pattern).unwrap().is_match(line)
    }

    #[test]
    fn unicode_classes_are_spelled_out() {
        // U+00A0 is whitespace and ٣ a digit to `regex`; plain `regex-lite`
        // knows neither, the lite form knows both.
        assert!(!regex_lite::Regex::new(r"^\s*\d+ ms").unwrap().is_match("\u{a0}٣ ms"));
        assert!(lite_matches(r"^\s*\d+ ms", "\u{a0}\u{a0}٣ ms"));
        assert!(!lite(r"^\s*\d+ ms").ascii_words);
    }

    #[test]
    fn case_folding_is_spelled_out() {
        let hir = regex_syntax::ParserBuilder::new().case_insensitive(true).build().parse("straße").unwrap();
        let re = regex_lite::Regex::new(&form(&hir).unwrap().pattern).unwrap();
        // U+1E9E folds to ß under Unicode simple case folding.
        assert!(re.is_match("STRAẞE"));
    }

    #[test]
    fn word_boundaries_become_ascii_and_say_so() {
        let f = lite(r"usually\b");
        assert!(f.ascii_words);
        let re = regex_lite::Regex::new(&f.pattern).unwrap();
        assert!(re.is_match("usually temporary") && !re.is_match("usuallyx"));
        // Where the engines part: `é` is a word character to `regex` only.
        assert!(re.is_match("usuallyé") && !regex::Regex::new(r"usually\b").unwrap().is_match("usuallyé"));
        assert!(!lite(r"(?-u:\b)quota").ascii_words);
    }

    #[test]
    fn a_form_that_means_another_pattern_is_refused() {
        // Printed back, `(?:x{1,3})?` is the lazy `x{1,3}?`: it would need one `x`.
        let nested = regex_syntax::Parser::new().parse("a(?:`{1,3})?b").unwrap();
        assert_eq!(form(&nested), None);
        // A repetition inside a group with more in it keeps its form.
        assert!(lite_matches("a(?:`{1,3}b)?c", "ac") && lite_matches("a(?:`{1,3}b)?c", "a``bc"));
    }

    #[test]
    fn only_lines_with_non_ascii_word_characters_need_regex() {
        assert!(!needs_unicode_words("⎿  API Error: 529 Overloaded — usually · …"));
        assert!(needs_unicode_words("usuallyé"));
        assert!(needs_unicode_words("٣"));
        assert!(!needs_unicode_words("plain ascii"));
    }
}
