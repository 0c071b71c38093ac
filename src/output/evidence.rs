//! Evidence: the winning line made safe to print — at most [`MAX_CHARS`]
//! characters windowed around the match, `…` at each cut end, no control
//! characters, secrets redacted.

use crate::output::{redact, safe};

/// The longest evidence, in characters, `…` marks included.
pub const MAX_CHARS: usize = 240;
/// Characters of context kept before the match, when the line must be cut.
pub const LEFT_CONTEXT: usize = 40;
/// Bytes kept around the match, so a huge line costs no more than a short one;
/// far beyond what the evidence can show.
const REGION: usize = 4 * MAX_CHARS * 4;
/// Bytes redacted beyond each end of the region before it is cut to it, so a
/// cut cannot leave part of a secret too short for its shape to see.
const MARGIN: usize = 1024;
const CUT: char = '…';

/// The evidence for a match starting at byte `match_start` of `line`.
/// `fragment` says the line's beginning was cut off by the window.
pub fn evidence(line: &str, match_start: usize, fragment: bool) -> String {
    let match_start = floor_boundary(line, match_start.min(line.len()));
    let a = floor_boundary(line, match_start.saturating_sub(REGION));
    let b = floor_boundary(line, match_start.saturating_add(REGION).min(line.len()));
    // Redaction first, over the region and a margin; then the cut to the
    // region, in redacted coordinates (a cut inside a secret falls at the
    // start of its mark, so none of it shows).
    let wa = floor_boundary(line, a.saturating_sub(MARGIN));
    let wb = floor_boundary(line, b.saturating_add(MARGIN).min(line.len()));
    let redacted = redact::redact(&line[wa..wb]);
    let (ra, rb) = (redacted.map(a - wa), redacted.map(b - wa));
    let region = redacted.text.get(ra..rb.max(ra)).unwrap_or("");
    let mark = redacted.map(match_start - wa).clamp(ra, rb.max(ra)) - ra;
    let chars: Vec<char> = region.chars().map(safe::blank).collect();
    let m = region.get(..mark).map_or(0, |s| s.chars().count());

    // Surrounding blanks carry nothing; trimming them is not a cut.
    let lead = chars.iter().take_while(|c| c.is_whitespace()).count();
    let trail = chars.iter().rev().take_while(|c| c.is_whitespace()).count();
    let body = if lead >= chars.len() { &[][..] } else { &chars[lead..chars.len() - trail] };
    let m = m.saturating_sub(lead).min(body.len());
    // Command openers are neutralised after the cut: the cut decides what
    // is at the start. Neutralising inserts a blank into each (`# #[`,
    // `: :`), so a window that grew past the bound is cut again, shorter by
    // what it grew: fewer characters hold no more openers.
    let (cut_left, cut_right) = (fragment || a > 0, b < line.len());
    let mut budget = MAX_CHARS;
    loop {
        let out = safe::line(&window(body, m, cut_left, cut_right, budget));
        let n = out.chars().count();
        if n <= MAX_CHARS || budget <= MIN_BUDGET {
            return out;
        }
        budget = budget.saturating_sub(n - MAX_CHARS).max(MIN_BUDGET);
    }
}

/// The smallest window [`evidence`] cuts to make room for neutralised
/// openers: a third of it at most can grow, far under the bound.
const MIN_BUDGET: usize = 16;

/// Cuts `chars` to at most `budget` characters around `m`, marks included.
/// `cut_left` and `cut_right` say the text was already cut before it got here.
fn window(chars: &[char], m: usize, cut_left: bool, cut_right: bool, budget: usize) -> String {
    let n = chars.len();
    let (start, end) = if n + usize::from(cut_left) + usize::from(cut_right) <= budget {
        (0, n)
    } else {
        let start = m.saturating_sub(LEFT_CONTEXT.min(budget / 2));
        let left = usize::from(start > 0 || cut_left);
        if n - start + left + usize::from(cut_right) <= budget {
            // Near the end of the line: slide left to fill the budget. The line is
            // too long to fit whole, so this start is past 0 and the left is cut.
            (n - (budget - 1 - usize::from(cut_right)), n)
        } else {
            (start, start + budget - left - 1)
        }
    };
    let mut out = String::with_capacity(MAX_CHARS * 2);
    if start > 0 || cut_left {
        out.push(CUT);
    }
    out.extend(&chars[start..end]);
    if end < n || cut_right {
        out.push(CUT);
    }
    out
}

/// A captured value or a context line made safe: secrets redacted, then
/// [`safe::line`].
pub fn safe_text(text: &str) -> String {
    safe::line(redact::redact_str(text).trim()).trim().to_string()
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn neutralised_openers_do_not_push_evidence_past_the_bound() {
        for line in [format!(":: {}", "a".repeat(600)), "##[".repeat(300), format!(":: {}", "##[x".repeat(200))] {
            for at in [0, 18, 300, line.len()] {
                let e = evidence(&line, at, false);
                assert!(count(&e) <= MAX_CHARS, "{} chars at {at}", count(&e));
                assert!(!e.contains("##[") && !e.trim_start_matches('…').starts_with("::"), "{e}");
            }
        }
    }

    #[test]
    fn short_line_is_whole_and_trimmed() {
        assert_eq!(evidence("  ⎿  API Error: boom  ", 5, false), "⎿  API Error: boom");
    }

    #[test]
    fn long_line_keeps_forty_chars_of_left_context() {
        let line = format!("{}MATCH{}", "a".repeat(100), "b".repeat(400));
        let e = evidence(&line, 100, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.starts_with('…') && e.ends_with('…'));
        assert_eq!(e.chars().skip(1).take(40).collect::<String>(), "a".repeat(40));
        assert!(e.contains("MATCH"));
    }

    #[test]
    fn match_near_the_end_slides_left() {
        let line = format!("{}MATCH!", "x".repeat(500));
        let e = evidence(&line, 500, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.starts_with('…') && e.ends_with("MATCH!"));
    }

    #[test]
    fn match_at_the_start_cuts_only_the_right() {
        let line = format!("MATCH{}", "y".repeat(500));
        let e = evidence(&line, 0, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.starts_with("MATCH") && e.ends_with('…'));
    }

    #[test]
    fn exactly_240_chars_is_not_cut() {
        let line = "z".repeat(MAX_CHARS);
        assert_eq!(evidence(&line, 200, false), line);
        let e = evidence(&"z".repeat(MAX_CHARS + 1), 200, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.starts_with('…') && !e.ends_with('…'));
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let line = format!("{}⎿ MATCH {}", "é".repeat(300), "漢".repeat(300));
        let start = line.find("⎿").unwrap();
        let e = evidence(&line, start, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.contains("⎿ MATCH"));
    }

    #[test]
    fn fragment_is_marked_at_the_left() {
        assert_eq!(evidence("tail of a cut line", 0, true), "…tail of a cut line");
    }

    #[test]
    fn control_characters_and_bidi_overrides_are_blanked() {
        assert_eq!(evidence("a\tb\u{202E}c\u{7}d", 0, false), "a b c d");
    }

    #[test]
    fn secrets_are_redacted_and_the_window_follows_the_match() {
        let line = format!("{} key=supersecretvalue then the MATCH {}", "p".repeat(300), "q".repeat(300));
        let at = line.find("MATCH").unwrap();
        let e = evidence(&line, at, false);
        assert!(!e.contains("supersecret"), "{e}");
        assert!(e.contains("key=[REDACTED] then the MATCH"), "{e}");
    }

    #[test]
    fn huge_line_costs_a_region_and_marks_the_cut() {
        let line = format!("{}API Error: boom", "w".repeat(10_000_000));
        let e = evidence(&line, 10_000_000, false);
        assert_eq!(count(&e), MAX_CHARS);
        assert!(e.starts_with('…') && e.ends_with("API Error: boom"));
    }

    #[test]
    fn redaction_comes_before_any_cut() {
        // A long secret shrinks to its mark, so the window reaches the
        // region's end, where a token was cut too short for its shape.
        let head = "API Error: boom key=";
        let token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let value = "v".repeat(REGION - 23 - head.len() - 1);
        let line = format!("{head}{value} {token} tail");
        let e = evidence(&line, 0, false);
        assert!(!e.contains("ghp_A1b2"), "{e}");
        assert!(e.starts_with("API Error: boom key=[REDACTED]"), "{e}");
    }
}
