//! Record stage (SPEC §1.7): a window of JSON Lines — an agent's session
//! transcript or the event stream of its headless mode — to its records, beside
//! [`crate::pipeline::clean`] for screen text.
//!
//! The stage decides how the window is read (`--input auto|text|jsonl`) and
//! finds the complete records; it keeps only their spans, so that memory stays
//! what the window costs. The match stage parses each record again, one at a
//! time, as it scans ([`crate::pipeline::matcher::CompiledProfile::scan_records`]).
//!
//! Detection (`auto`): the window is JSON Lines when the first complete
//! non-blank line starts with `{` (a test that costs a text log one byte) and
//! at least nine in ten of its complete non-blank lines are JSON objects. Blank
//! lines are allowed; the other lines are skipped and counted. A window whose
//! only line is the cut tail of a record (one record longer than the window) is
//! read as records too, when that tail ends with `}`: the verdict then says the
//! record was cut, instead of matching screen rules against JSON text.

/// How a log's window is read (`--input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InputMode {
    /// JSON Lines when the window's complete lines are JSON objects, else text.
    #[default]
    Auto,
    /// Screen text (a pane capture, a CI log).
    Text,
    /// JSON Lines records (a transcript, an event stream).
    Jsonl,
}

pub use crate::output::verdict::Input;

/// Where one record is in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLine {
    /// Byte offset, relative to the window, of the record's line start.
    pub offset: usize,
    /// End (exclusive) of the record's bytes (line break not included).
    pub end: usize,
}

/// The complete records of a window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// Every line that holds a JSON object, in window order.
    pub lines: Vec<RecordLine>,
    /// Non-blank lines that are not a JSON object: skipped.
    pub invalid: usize,
    /// The window's only line is the tail of a record longer than the window.
    pub cut: bool,
}

impl Records {
    /// The bytes of `line` in `window`.
    pub fn bytes<'a>(&self, window: &'a [u8], line: &RecordLine) -> &'a [u8] {
        window.get(line.offset..line.end).unwrap_or_default()
    }
}

/// At most one line in this many may be invalid for `auto` to read JSON Lines.
const INVALID_SHARE: usize = 10;

/// Reads `bytes` (a window; `starts_mid_line` is the straddle guard's flag) as
/// records: always for [`InputMode::Jsonl`], when it holds JSON Lines for
/// [`InputMode::Auto`], never for [`InputMode::Text`].
pub fn read(bytes: &[u8], starts_mid_line: bool, mode: InputMode) -> Option<Records> {
    if mode == InputMode::Text {
        return None;
    }
    let auto = mode == InputMode::Auto;
    // A text log is told apart before anything is split or parsed: its first
    // complete non-blank line does not start with `{`.
    if auto && !first_line_opens_object(bytes, starts_mid_line) {
        return None;
    }
    let mut lines = split(bytes);
    let mut cut = false;
    if starts_mid_line && !lines.is_empty() {
        let first = lines.remove(0);
        if lines.is_empty() {
            // One record longer than the window: its tail is all there is.
            cut = true;
            if auto && !trim(&bytes[first.offset..first.end]).ends_with(b"}") {
                return None;
            }
        }
    }
    let first = lines.first().map(|l| &bytes[l.offset..l.end]);
    if auto && first.is_some_and(|l| !l.starts_with(b"{")) {
        return None;
    }
    let allowed = lines.len() / INVALID_SHARE;
    let mut records = Records { lines: Vec::with_capacity(lines.len()), invalid: 0, cut };
    for line in lines {
        if is_object(&bytes[line.offset..line.end]) {
            records.lines.push(line);
        } else {
            records.invalid += 1;
            if auto && records.invalid > allowed {
                return None;
            }
        }
    }
    Some(records)
}

/// Whether the first non-blank line after the straddle guard starts with `{`
/// (blanks before it allowed), or the window holds no such line. Looks at a
/// few bytes of a text log.
fn first_line_opens_object(bytes: &[u8], starts_mid_line: bool) -> bool {
    let mut rest = bytes;
    if starts_mid_line {
        match memchr::memchr(b'\n', rest) {
            Some(i) => rest = &rest[i + 1..],
            // The only line is a fragment: [`read`] decides on its end.
            None => return true,
        }
    }
    match rest.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(&b) => b == b'{',
        None => true,
    }
}

/// Non-blank lines, split at `\n`, each without its line break (`\r\n` too)
/// and with leading blanks skipped.
fn split(bytes: &[u8]) -> Vec<RecordLine> {
    let mut out = Vec::with_capacity(bytes.len() / 256 + 1);
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let lead = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let body = trim(line);
        if !body.is_empty() {
            out.push(RecordLine { offset: start, end: start + lead + body.len() });
        }
        start = end + 1;
    }
    out
}

fn trim(bytes: &[u8]) -> &[u8] {
    let lead = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let rest = &bytes[lead..];
    let trail = rest.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    &rest[..rest.len() - trail]
}

/// A JSON object, checked without building it.
fn is_object(line: &[u8]) -> bool {
    trim(line).starts_with(b"{") && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

/// Parses one record (its bytes were checked by [`read`]).
pub fn parse(line: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(r: &Records) -> Vec<usize> {
        r.lines.iter().map(|l| l.offset).collect()
    }

    #[test]
    fn auto_reads_json_lines_and_text_apart() {
        let jsonl = b"{\"type\":\"a\"}\n\n{\"type\":\"b\"}\r\n";
        let r = read(jsonl, false, InputMode::Auto).unwrap();
        assert_eq!((offsets(&r), r.invalid, r.cut), (vec![0, 14], 0, false));
        assert_eq!(r.bytes(jsonl, &r.lines[1]), b"{\"type\":\"b\"}");
        assert!(read(b"API Error: 529\n{\"a\":1}\n", false, InputMode::Auto).is_none());
        assert!(read(b"", false, InputMode::Auto).unwrap().lines.is_empty());
        assert!(read(jsonl, false, InputMode::Text).is_none());
    }

    #[test]
    fn a_small_share_of_invalid_lines_is_skipped_and_counted() {
        let mut log = "{\"n\":1}\n".repeat(10);
        log.push_str("not json\n");
        let r = read(log.as_bytes(), false, InputMode::Auto).unwrap();
        assert_eq!((r.lines.len(), r.invalid), (10, 1));
        log.push_str("[1,2]\n");
        assert!(read(log.as_bytes(), false, InputMode::Auto).is_none(), "two in twelve is too many");
        let forced = read(log.as_bytes(), false, InputMode::Jsonl).unwrap();
        assert_eq!((forced.lines.len(), forced.invalid), (10, 2), "arrays are not records");
    }

    #[test]
    fn the_straddle_guard_drops_the_partial_first_record() {
        let r = read(b"e\":1}\n{\"a\":2}\n", true, InputMode::Auto).unwrap();
        assert_eq!((offsets(&r), r.invalid), (vec![6], 0));
        // Without the guard the fragment is an invalid line, and `auto` declines.
        assert!(read(b"e\":1}\n{\"a\":2}\n", false, InputMode::Auto).is_none());
    }

    #[test]
    fn a_record_longer_than_the_window_is_said_cut() {
        let r = read(b"xt\":\"long\"}\n", true, InputMode::Auto).unwrap();
        assert!(r.cut && r.lines.is_empty());
        assert!(read(b"just a long line of text\n", true, InputMode::Auto).is_none());
        assert!(read(b"just a long line of text\n", true, InputMode::Jsonl).unwrap().cut);
    }
}
