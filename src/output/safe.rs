//! The one sanitiser for every human-facing string: file names, profile names,
//! rule ids, statuses, evidence, reasons and context lines pass through
//! [`line()`] before any terminal, Markdown, GitHub or text output (and the
//! verdict's `evidence`, `reason` and captures, which `jq -r` prints raw).

/// Characters that become a blank: control characters (escapes, BEL, line
/// breaks, tab), bidirectional marks and overrides, zero-width characters, and
/// the line and paragraph separators. They could drive the terminal that shows
/// the text, split a line, reorder it, or hide what it says.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'              // Arabic letter mark
            | '\u{180E}'            // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}' // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // bidirectional isolates
            | '\u{FEFF}'            // zero-width no-break space (BOM)
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
        )
}

/// One char for one char: an unsafe character becomes a blank, so positions
/// counted in characters stay valid.
pub fn blank(c: char) -> char {
    if is_unsafe(c) { ' ' } else { c }
}

/// `text` made safe to print as (part of) one line: unsafe characters become
/// blanks, and CI command openers are neutralised — `##[` anywhere (GitHub's
/// legacy commands, Azure's logging commands) and `::` at the start, after
/// blanks (workflow commands) — by a blank after their first character.
/// `--format github` writes its own commands around text that went through
/// this, so nothing of the input can open one.
pub fn line(text: &str) -> String {
    let mut out: String = text.chars().map(blank).collect();
    if out.contains("##[") {
        out = out.replace("##[", "# #[");
    }
    let lead = out.len() - out.trim_start().len();
    if out[lead..].starts_with("::") {
        out.insert(lead + 1, ' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_invisibles_become_blanks() {
        for c in [
            '\x1b', '\x07', '\n', '\r', '\t', '\u{85}', '\u{200B}', '\u{200F}', '\u{061C}', '\u{FEFF}', '\u{2028}',
            '\u{2029}', '\u{202E}', '\u{2066}',
        ] {
            assert_eq!(line(&format!("a{c}b")), "a b", "{:x}", u32::from(c));
        }
    }

    #[test]
    fn command_openers_are_neutralised() {
        assert_eq!(line("##[set-output name=action;]pause"), "# #[set-output name=action;]pause");
        assert_eq!(line("x ##[error]y"), "x # #[error]y");
        assert_eq!(line("  ::set-output name=a::b"), "  : :set-output name=a::b");
        assert_eq!(line("a::b"), "a::b");
        assert_eq!(line("\u{1b}::warning::x"), " : :warning::x");
    }

    #[test]
    fn ordinary_text_is_unchanged() {
        for t in ["API Error: 529 {\"type\":\"overloaded_error\"}", "⎿  héllo 漢字 — ok", "std::io::Error"] {
            assert_eq!(line(t), t);
        }
    }
}
