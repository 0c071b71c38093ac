//! Rejoin stage: the rows of a pane captured without `-J`, joined back into
//! the lines that were printed, for a second look at a text window.
//!
//! `tmux capture-pane` without `-J` ends every row with a line break, so a
//! line longer than the pane is cut into rows exactly as wide as the pane, and
//! a fault whose cause fell past the edge is missed on its first row, while a
//! row that starts mid-line may read like a fault's first words. The capture
//! does not say how wide the pane was: the widest row stands for it. A row
//! that fills it, whose row below follows it directly (the cleaner's
//! [`Line::follows`]) and does not start alike, is taken to go on in that row.
//! That reading is wrong for a whole line exactly as wide as the pane: the
//! joined line then starts with it, and the rules anchor the start, so a fault
//! on the row below is not seen in the joined lines (see
//! `crate::pipeline`'s second look for where that matters).
//!
//! A program with a TUI wraps its own lines instead, at a blank before the
//! edge, and indents the rows that go on to the column where the line's text
//! started (after its blanks and glyph). In the pane of such a program (a
//! profile that carries model output), a row is taken to go on in the row
//! below when that row is indented so (by at least one column, and starts
//! with no glyph) and its first word would not have fitted on the row above
//! within the pane (`word_wraps`); the rows are joined with one blank, the
//! indent dropped. A CI log is read for a terminal's cuts only: a tool's
//! indented output there is no wrap (pip's `  Downloading …` over its
//! `  ERROR: …`).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::pipeline::clean::{Cleaned, Joins, Line};
use crate::pipeline::matcher::BOUNDED_LINE;

/// The narrowest pane whose rows are re-joined. Narrower "panes" are mostly
/// short logs whose longest line is short; tmux's default is 80.
pub const MIN_WIDTH: usize = 60;
/// The widest: a row wider than any terminal is a plain log's line.
pub const MAX_WIDTH: usize = 500;

/// How many rows cut flush at the edge show a window to be a pane captured
/// without `-J`. A plain log, or a capture joined by `-J`, seldom holds two
/// lines exactly as wide as its widest, each followed directly by another,
/// but for one record printed again (`pane_cuts` tells them apart).
pub const PANE_CUTS: usize = 2;

/// Lines re-joined from a pane's rows.
#[derive(Debug)]
pub struct Rejoined {
    /// Every line, joined or not, with [`Cleaned::rejoined`] set.
    pub cleaned: Cleaned,
    /// For each line, the index of its first row; one past the last row at
    /// the end, so line `j` holds rows `first_row[j]..first_row[j + 1]`.
    pub first_row: Vec<usize>,
    /// The indices, among the rows, of those that start mid-line: joined to
    /// the row above, or cut from it where a joined line reached its bound.
    pub cut: Vec<usize>,
    /// For each row, where its text starts in the joined lines' text.
    pub row_start: Vec<usize>,
    /// The window showed itself a pane captured without `-J`: it holds at
    /// least [`PANE_CUTS`] rows that fill it to the last column, each followed
    /// directly by another, as `pane_cuts` counts them. Only then is a row
    /// one column short taken as cut after a blank, and a row's start as no
    /// line's start.
    pub pane: bool,
    /// The indices, among the rows, of those that go on a line the program
    /// wrapped itself (`word_wraps`): their start is no line's start.
    /// Each is joined to the row above, or, where the joined line reached
    /// [`BOUNDED_LINE`], starts the next line (mid-line all the same).
    pub wrapped: Vec<usize>,
}

impl Rejoined {
    /// Whether row `row` (an index into the rows re-joined) is a piece of a
    /// line the pane cut, in a window that showed itself a cut pane: it goes
    /// on from the row above (its start is no line's start) or into the row
    /// below (its end is no line's end).
    ///
    /// A row that goes on a line the program wrapped is a piece in any
    /// window; the row that starts such a line is not, as its start is the
    /// line's, and a rule that reads it may end where the program wrapped.
    pub fn is_piece(&self, row: usize) -> bool {
        self.wrapped.binary_search(&row).is_ok()
            || self.pane && (self.cut.binary_search(&row).is_ok() || self.cut.binary_search(&(row + 1)).is_ok())
    }

    /// Whether row `row` starts a line the program wrapped: the row below
    /// goes on it ([`Rejoined::wrapped`]) and its own start is the line's.
    pub fn starts_wrapped(&self, row: usize) -> bool {
        self.wrapped.binary_search(&(row + 1)).is_ok() && !self.is_piece(row)
    }

    /// The index of the line that holds row `row`.
    pub fn line_of(&self, row: usize) -> usize {
        self.first_row.partition_point(|&first| first <= row).saturating_sub(1)
    }

    /// The rows line `line` was joined from.
    pub fn rows_of(&self, line: usize) -> std::ops::Range<usize> {
        self.first_row[line]..self.first_row[line + 1]
    }

    /// The row that holds byte `at` of line `line`'s text (a position in
    /// the joined line, as a match's span gives it).
    pub fn row_at(&self, line: usize, at: usize) -> usize {
        let pos = self.cleaned.lines[line].start + at;
        self.row_start.partition_point(|&start| start <= pos).saturating_sub(1)
    }
}

/// The lines of `cleaned` with the rows that fill the pane joined to the rows
/// below them, and, when `tui` (the pane of a program that wraps its own
/// lines), the rows it word-wrapped joined too; None when no row was joined.
/// A joined line starts at its first row's offset, and stops growing at
/// [`BOUNDED_LINE`] bytes so that the scan stays bounded.
pub fn rejoin(cleaned: &Cleaned, tui: bool) -> Option<Rejoined> {
    let lines = &cleaned.lines;
    let width = pane_width(cleaned)?;
    // A row the program wrapped may fill the pane too (it is the widest):
    // its row below, indented to its text, reads as the wrap, not a cut.
    let wraps = if tui { word_wraps(cleaned, width) } else { Vec::new() };
    // The rows that may go on in the row below, with how, in one pass: a row
    // shorter in bytes than the pane less a column is passed over at once.
    let candidates: Vec<(usize, Joint)> = (0..lines.len().saturating_sub(1))
        .filter(|&i| text_len(&lines[i]) + 1 >= width && lines[i + 1].follows && wraps.binary_search(&i).is_err())
        .filter_map(|i| {
            let (row, below) = (cleaned.line_text(&lines[i]), cleaned.line_text(&lines[i + 1]));
            let joint = cut_joint(row, below, width)?;
            (!same_start(row, below)).then_some((i, joint))
        })
        .collect();
    let pane = pane_cuts(cleaned, &candidates, tui) >= PANE_CUTS;
    // A row one column short lost a blank only in a window shown to be a cut pane.
    let cuts: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|(i, j)| match j {
            Joint::Flush => Some((i, "")),
            Joint::Blank => pane.then_some((i, " ")),
        })
        .collect();
    if cuts.is_empty() && wraps.is_empty() {
        return None;
    }
    // How row `i` goes on in the row below, if it does: the joint, and
    // whether the row below loses its indent (a program's own wrap).
    let cut_at = |i: usize| match cuts.binary_search_by_key(&i, |&(at, _)| at) {
        Ok(k) => Some((cuts[k].1, false)),
        Err(_) => wraps.binary_search(&i).is_ok().then_some((" ", true)),
    };

    let mut out = Cleaned {
        text: String::with_capacity(cleaned.text.len() + cuts.len()),
        lines: Vec::with_capacity(lines.len()),
        rejoined: None,
    };
    let (mut joined, mut cut, mut first_row) = (Vec::new(), Vec::new(), Vec::with_capacity(lines.len() + 1));
    let (mut wrapped, mut wrapped_lines) = (Vec::new(), Vec::new());
    let mut row_start = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let (start, top) = (out.text.len(), i);
        row_start.push(out.text.len());
        out.text.push_str(cleaned.line_text(&lines[i]));
        let mut by_cut = cut.binary_search(&top).is_ok();
        while let Some((joint, unindent)) = cut_at(i) {
            i += 1;
            if unindent {
                wrapped.push(i)
            } else {
                cut.push(i);
                by_cut = true;
            }
            let text = cleaned.line_text(&lines[i]);
            let text = if unindent {
                // The program's blank at the wrap is the joint: padding goes.
                out.text.truncate(start + out.text[start..].trim_end_matches(' ').len());
                text.trim_start_matches(' ')
            } else {
                text
            };
            if out.text.len() - start + joint.len() + text.len() > BOUNDED_LINE {
                // The row starts the next line, mid-line all the same.
                i -= 1;
                break;
            }
            out.text.push_str(joint);
            row_start.push(out.text.len());
            out.text.push_str(text);
        }
        // A line that starts with a row cut from the one above is a piece too.
        if i > top || cut.binary_search(&top).is_ok() || wrapped.binary_search(&top).is_ok() {
            if !by_cut {
                wrapped_lines.push(out.lines.len());
            }
            joined.push(out.lines.len());
        }
        first_row.push(top);
        out.lines.push(Line { offset: lines[top].offset, start, end: out.text.len(), follows: lines[top].follows });
        out.text.push('\n');
        i += 1;
    }
    first_row.push(lines.len());
    out.rejoined = Some(Joins { width, lines: joined, wrapped: wrapped_lines });
    Some(Rejoined { cleaned: out, first_row, cut, row_start, pane, wrapped })
}

/// The rows (ascending) that go on in the row below by the program's own
/// word wrap, in a pane `width` columns wide. Row `i` goes on in row `i + 1`
/// when row `i + 1` follows it directly, does not start as it does, starts
/// with no glyph, is indented by exactly the column where row `i`'s line has
/// its text (after its blanks and glyph; at least one), and its first word
/// would not have fitted on row `i` within the pane: a program that wraps at
/// a blank moves a word to the next row only then. A program that wraps
/// short of the edge has some of its rows left apart, never a row joined
/// that it did not wrap.
fn word_wraps(cleaned: &Cleaned, width: usize) -> Vec<usize> {
    let lines = &cleaned.lines;
    let mut wraps: Vec<usize> = Vec::new();
    for i in 0..lines.len().saturating_sub(1) {
        let below_line = &lines[i + 1];
        let below = cleaned.line_text(below_line);
        if !below_line.follows || !below.starts_with(' ') {
            continue;
        }
        let indent = below.bytes().take_while(|&b| b == b' ').count();
        let word_len = below.as_bytes()[indent..].iter().take_while(|&&b| b != b' ' && b != b'\t').count();
        // Bytes are never fewer than columns: most rows are passed over here.
        if word_len == 0 || text_len(&lines[i]) + 1 + word_len <= width {
            continue;
        }
        let (row, word) = (cleaned.line_text(&lines[i]).trim_end(), &below[indent..indent + word_len]);
        // A row that goes on a wrapped line has its text at its indent.
        let goes_on = i > 0 && wraps.last() == Some(&(i - 1));
        let column = if goes_on { row.len() - row.trim_start_matches(' ').len() } else { lead_columns(row) };
        if column != indent
            || ends_as_border(row)
            || laid_out(row, width)
            || same_start(row, below)
            || columns(row) + 1 + columns(word) <= width
        {
            continue;
        }
        wraps.push(i);
    }
    wraps
}

/// The columns of `row`'s lead: its blanks, glyphs and the blanks after them.
fn lead_columns(row: &str) -> usize {
    let lead = row.len() - row.trim_start_matches(|c: char| c == ' ' || c == '\u{fe0f}' || GLYPHS.contains(&c)).len();
    columns(&row[..lead])
}

fn text_len(line: &Line) -> usize {
    line.end - line.start
}

/// The widest row's display width, when it is within a pane's bounds. A row
/// is never wider in columns than [`columns_at_most`] says, nor than its
/// bytes: rows are measured longest first, and the rest passed over once no
/// row left can be wider than the widest found.
fn pane_width(cleaned: &Cleaned) -> Option<usize> {
    let mut rows: Vec<(usize, usize)> = (cleaned.lines.iter().enumerate())
        .map(|(i, l)| (text_len(l), i))
        .filter(|&(len, _)| len + 1 >= MIN_WIDTH)
        .collect();
    rows.sort_unstable_by(|a, b| b.cmp(a));
    let mut widest = 0;
    for (len, i) in rows {
        if len <= widest {
            break;
        }
        let text = cleaned.line_text(&cleaned.lines[i]);
        if columns_at_most(text) > widest {
            widest = widest.max(columns(text));
        }
    }
    (MIN_WIDTH..=MAX_WIDTH).contains(&widest).then_some(widest)
}

fn columns(text: &str) -> usize {
    if text.is_ascii() { text.len() } else { text.width() }
}

/// An upper bound on `text`'s columns, in one cheap pass over its bytes: a
/// character of one or two bytes takes at most one column, and one of three
/// or four at most three (two for a wide character, three for the one sign
/// `unicode-width` gives three). Most rows of a pane are ruled out by it
/// without looking their characters up.
fn columns_at_most(text: &str) -> usize {
    text.bytes().map(|b| usize::from(b & 0xC0 != 0x80) + 2 * usize::from(b >= 0xE0)).sum()
}

/// How a row was cut at the pane's edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Joint {
    /// At the last column: the row below goes on where it stopped.
    Flush,
    /// One column short: after a blank, which `capture-pane` trimmed.
    Blank,
}

/// How `row` was cut at the edge of a pane `width` columns wide, if it may
/// have been, `next` being the row below:
///
/// - [`Joint::Flush`] when `row` fills the pane to the last column, or to the
///   one before and the character that starts `next` is two columns wide (the
///   terminal moves a wide character that does not fit to the next row);
/// - [`Joint::Blank`] when `row` stops one column short otherwise:
///   `capture-pane` trims a cut row's trailing blanks, so a row cut just after
///   a blank lost it.
///
/// A row that ends like a border was not cut ([`ends_as_border`]), nor was
/// a status bar's ([`laid_out`]).
fn cut_joint(row: &str, next: &str, width: usize) -> Option<Joint> {
    if row.len() + 1 < width || ends_as_border(row) || columns_at_most(row) + 1 < width || laid_out(row, width) {
        return None;
    }
    match columns(row) {
        w if w == width => Some(Joint::Flush),
        w if w + 1 == width && next.chars().next().and_then(|c| c.width()) == Some(2) => Some(Joint::Flush),
        w if w + 1 == width => Some(Joint::Blank),
        _ => None,
    }
}

/// Whether `row` ends as a row drawn to the pane's edge does, not as text
/// cut there: in a blank (`capture-pane` keeps trailing blanks only with `-J`
/// or `-N`, where a full-width row is a padded one), in a box-drawing or
/// block character, in the `|` or `+` of a table row that starts with it
/// too, or in a run of four or more of
/// one fill character (`====`, `----`, `____`, `####`, `****`, `~~~~`,
/// `....`, `++++`), as test runners draw their separators as wide as the
/// terminal.
fn ends_as_border(row: &str) -> bool {
    let Some(last) = row.chars().next_back() else { return true };
    if last.is_whitespace() || ('\u{2500}'..='\u{259f}').contains(&last) {
        return true;
    }
    if matches!(last, '|' | '+') {
        return row.trim_start().starts_with(last);
    }
    matches!(last, '=' | '-' | '_' | '#' | '*' | '~' | '.')
        && row.bytes().rev().take(4).filter(|&b| b == last as u8).count() == 4
}

/// The run of blanks inside a row that shows it laid out rather than
/// flowed: a status bar's gap before the part it aligns to the right
/// (Claude Code 2.0's `? for shortcuts … Thinking on (tab to toggle)`,
/// Codex's `… ? for shortcuts … ⚠ 2 warnings · f2 to view`). A program
/// that wraps its text at a blank leaves single blanks.
const LAID_OUT_GAP: &str = "          ";

/// The columns a status bar leaves after its right-aligned text (Claude
/// Code's two, Codex's one).
const RIGHT_MARGIN: usize = 2;

/// The widest right-aligned part a status bar holds after its gap (a model's
/// name, `⚠ 2 warnings · f2 to view`, `Thinking on (tab to toggle)`). A log
/// line cut at the edge after a gap (a spinner's row with a record glued on)
/// runs on for longer.
const RIGHT_PART: usize = 40;

/// Whether `row` is laid out by its program rather than a line it wrapped
/// or a pane cut: after its indent it holds a gap of [`LAID_OUT_GAP`]
/// blanks, the part after its last such gap is at most [`RIGHT_PART`]
/// columns, and its text runs to within [`RIGHT_MARGIN`] columns of the edge
/// of a pane `width` wide. The row below it (a fault printed under the
/// status bar) starts a line of its own.
fn laid_out(row: &str, width: usize) -> bool {
    let text = row.trim_start();
    columns(row) + RIGHT_MARGIN >= width
        && text.rfind(LAID_OUT_GAP).is_some_and(|at| columns(text[at..].trim_start()) <= RIGHT_PART)
}

/// How many of the rows cut flush at the edge (`candidates`, each with the
/// row below it) show the window to be a pane captured without `-J`: all of
/// them, but for the copies of one row (the same but for its digits: a
/// record a plain log printed again with another stamp, as wide each time)
/// whose rows below are not copies of each other as well. A pane that cut a
/// line printed twice cut it the same way twice, and the two rows below go
/// on alike; a copy followed by another line than the others was a whole
/// line (Codex 0.98's `ERROR codex_api::…` records of 311 columns on its
/// standard error, the last above `ERROR: unexpected status 401 …`), and so
/// were the others. Outside a TUI's pane (`tui` false: a CI log), the copies
/// of one row count once, however the rows below go on: a tool's retry loop
/// prints its widest row again over the same error each time (Playwright
/// 1.65's `Downloading … from {url}` over its download's `Error: …`, five
/// tries), and a plain log is the common case there. The first
/// [`COPY_GROUPS`] distinct rows are tracked, so the count stays linear in
/// the rows.
fn pane_cuts(cleaned: &Cleaned, candidates: &[(usize, Joint)], tui: bool) -> usize {
    struct Copies<'a> {
        row: &'a str,
        below: &'a str,
        count: usize,
        whole: bool,
    }
    let text = |i: usize| cleaned.line_text(&cleaned.lines[i]);
    let mut groups: Vec<Copies> = Vec::new();
    let mut others = 0;
    for &(i, joint) in candidates {
        if joint != Joint::Flush {
            continue;
        }
        let (row, below) = (text(i), text(i + 1));
        if let Some(g) = groups.iter_mut().find(|g| copies(g.row, row, |b| b.is_ascii_digit())) {
            g.count += 1;
            g.whole |= !copies(g.below, below, |b| b.is_ascii_alphanumeric());
        } else if groups.len() < COPY_GROUPS {
            groups.push(Copies { row, below, count: 1, whole: false });
        } else {
            others += 1;
        }
    }
    others + groups.iter().filter(|g| !g.whole).map(|g| if tui { g.count } else { 1 }).sum::<usize>()
}

/// How many distinct full-width rows [`pane_cuts`] compares the others with.
const COPY_GROUPS: usize = 16;

/// Whether `b` is `a` again: as long in bytes, and apart only where both
/// bytes pass `may_differ`, at no more than a quarter of them.
fn copies(a: &str, b: &str, may_differ: impl Fn(u8) -> bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut apart = 0;
    for (x, y) in a.bytes().zip(b.bytes()) {
        if x != y {
            if !(may_differ(x) && may_differ(y)) {
                return false;
            }
            apart += 1;
        }
    }
    apart * 4 <= a.len()
}

/// How many characters two rows must share at their start to be two lines
/// of one kind (a repeated line, two log records with the same date).
const SAME_START: usize = 8;

/// The glyphs programs start their lines with (a result's `⎿`, a message's
/// `●`, Claude Code's error `∷`, a failure's `✗`, a prompt's `❯`, a box's
/// side, the `└` Codex draws before a call's output and an error's detail).
const GLYPHS: &[char] = &[
    '⎿', '⏺', '●', '∷', '■', '✕', '✗', '✘', '×', '⚠', '✻', '✶', '✳', '✢', '✦', '❯', '›', '▸', '▶', '•', '◆', '◇', '✓',
    '✔', '╭', '╰', '│', '┃', '└',
];

/// Whether `below` starts a line of its own rather than going on from
/// `row`: it starts as `row` does (a line printed again, the next record of a
/// log whose lines all start alike), or, after its blanks, with a glyph a
/// program puts at the start of its lines (`⎿`, `●`, `✗`, a prompt's `❯`, a
/// box's side), which a cut lands right before only by chance.
fn same_start(row: &str, below: &str) -> bool {
    if below.trim_start().starts_with(GLYPHS) {
        return true;
    }
    below.chars().nth(SAME_START - 1).is_some() && row.chars().zip(below.chars()).take(SAME_START).all(|(a, b)| a == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::clean::clean;

    /// The lines `rejoin` makes of `bytes`, or None.
    fn joined(bytes: &str) -> Option<Vec<String>> {
        let cleaned = clean(bytes.as_bytes(), false);
        rejoin(&cleaned, true).map(|r| r.cleaned.iter().map(|(_, t)| t.to_string()).collect())
    }

    fn row(c: char, n: usize) -> String {
        std::iter::repeat_n(c, n).collect()
    }

    #[test]
    fn a_row_that_fills_the_pane_goes_on_in_the_next() {
        let (a, b) = (row('a', 80), row('b', 80));
        let log = format!("short\n{a}\n{b}\nend of it\nlast\n");
        let lines = joined(&log).unwrap();
        assert_eq!(lines, vec!["short".to_string(), format!("{a}{b}end of it"), "last".to_string()]);
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        assert_eq!(out.cut, vec![2, 3]);
        assert!(out.is_piece(1) && out.is_piece(2) && out.is_piece(3) && !out.is_piece(0) && !out.is_piece(4));
    }

    #[test]
    fn the_offset_is_the_first_rows() {
        let log = format!("x\r\n{}\r\ncause\r\n", row('a', 70));
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        assert_eq!(out.cleaned.rejoined.as_ref().unwrap().lines, vec![1]);
        assert_eq!(out.first_row, vec![0, 1, 3]);
        assert_eq!(out.cut, vec![2]);
        // One cut row is not enough to show a pane.
        assert!(!out.is_piece(2) && !out.is_piece(1));
        assert_eq!(out.cleaned.lines.len(), 2);
        assert_eq!(out.cleaned.lines[1].offset, 3);
        assert_eq!(out.cleaned.rejoined.as_ref().unwrap().width, 70);
    }

    #[test]
    fn nothing_is_joined_without_a_full_row_followed_directly() {
        // Too narrow to be a pane.
        assert_eq!(joined(&format!("{}\nnext\n", row('a', 40))), None);
        // Wider than a terminal.
        assert_eq!(joined(&format!("{}\nnext\n", row('a', 600))), None);
        // The widest row is the last.
        assert_eq!(joined(&format!("first\n{}\n", row('a', 80))), None);
        // A blank row between: the row ended at the edge.
        assert_eq!(joined(&format!("{}\n\nnext\n", row('a', 80))), None);
        assert_eq!(joined(&format!("{}\n   \nnext\n", row('a', 80))), None);
        // The cursor moved to another row.
        assert_eq!(joined(&format!("{}\x1b[5;1Hnext\n", row('a', 80))), None);
        assert_eq!(joined(&format!("{}\n\x1b[Anext\n", row('a', 80))), None);
    }

    #[test]
    fn a_row_one_column_short_lost_a_blank_once_the_pane_shows_its_cuts() {
        let (a, b, short) = (row('a', 80), row('b', 80), row('c', 79));
        // Two flush cuts show a cut pane: the short row lost a blank.
        let log = format!("{a}\n{b}\nend\nalone\n{short}\ncause\n");
        assert_eq!(joined(&log).unwrap(), vec![format!("{a}{b}end"), "alone".into(), format!("{short} cause")]);
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        assert!(out.pane);
        assert_eq!((0..6).map(|r| out.is_piece(r)).collect::<Vec<_>>(), [true, true, true, false, true, true]);
        // One flush cut does not: the short row is a line of its own.
        let log = format!("{a}\nend\n{short}\ncause\n");
        assert_eq!(joined(&log).unwrap(), vec![format!("{a}end"), short.clone(), "cause".to_string()]);
        // Nor do short rows alone.
        assert_eq!(joined(&format!("{short}\ncause\n{short}\ncause\n{}\n", row('d', 80))), None);
    }

    #[test]
    fn lines_that_start_alike_are_lines_of_their_own() {
        // The same line printed again and again, as wide as the widest.
        let line = "  ⎿  API Error (Connection error.) · Retrying in 4 seconds… (attempt 4/10)";
        assert_eq!(joined(&format!("{line}\n{line}\n{line}\n")), None);
        // Log records that start with the date.
        let record = |m: &str| format!("2026-12-01T05:16:19Z {m:.<59}");
        assert_eq!(joined(&format!("{}\n{}\n", record("a"), record("b"))), None);
        // A row that starts with a program's glyph starts a line.
        let fault = format!("  ⎿  Can't reach the API server {}", row('x', 49));
        assert_eq!(joined(&format!("{fault}\n  ⎿  Interrupted · What should Claude do instead?\n")), None);
    }

    #[test]
    fn a_record_printed_again_as_a_whole_line_shows_no_cut() {
        // A retry loop's error line, stamped, three times as wide as the
        // widest, each followed directly by another line: a plain log.
        let record =
            |stamp: &str| format!("2026-12-04T23:40:{stamp}Z ERROR api: error=http 401 Unauthorized {}", row('x', 60));
        let log = format!(
            "{}\nReconnecting... 1/2\n{}\nReconnecting... 2/2\n{}\nERROR: unexpected status 401 Unauthorized\n",
            record("13.054317"),
            record("13.321224"),
            record("13.781821")
        );
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        assert!(!out.pane);
        // The last line starts a line: a rule anchored at its start reads it.
        assert!(!out.is_piece(5));
        // Two different lines as wide do show a pane.
        let other = format!(
            "{:y<width$}",
            "2026-12-04T23:40:13.999999Z WARN other: a different line ",
            width = record("0").len() + 8
        );
        assert_eq!(other.len(), record("13.054317").len());
        let log = format!(
            "{}\nReconnecting... 1/2\n{other}\nERROR: unexpected status 401 Unauthorized\n",
            record("13.054317")
        );
        let out = rejoin(&clean(log.as_bytes(), false), true).unwrap();
        assert!(out.pane && out.is_piece(3));
        // A pane that cut one record printed again cut it alike each time:
        // the rows below go on alike, and the window is still a cut pane.
        let log = format!(
            "{}\nreq_0a1b2c and the rest of the record as the pane cut it\n{}\nreq_3d4e5f and the rest of the record as the pane cut it\nAPI Error: 529 after a cut\n",
            record("13.054317"),
            record("13.321224")
        );
        let out = rejoin(&clean(log.as_bytes(), false), true).unwrap();
        assert!(out.pane && out.is_piece(1) && out.is_piece(3));
    }

    #[test]
    fn a_ci_log_s_retries_of_its_widest_row_show_no_pane() {
        // A downloader's five tries, each printing the widest row of the log
        // over the same error (Playwright 1.65's `Downloading …` rows).
        let tries = format!("Downloading Chrome from https://cdn.example.net/{}.zip", row('c', 60));
        let log = format!("{tries}\nError: connect ECONNREFUSED 104.16.1.35:443\n").repeat(5);
        let cleaned = clean(log.as_bytes(), false);
        // Not a pane in a CI log: the error row starts a line of its own.
        let out = rejoin(&cleaned, false).unwrap();
        assert!(!out.pane && !out.is_piece(9));
        // A TUI's pane that cut one line printed again cut it alike each
        // time: there the copies still show the cut.
        let out = rejoin(&cleaned, true).unwrap();
        assert!(out.pane && out.is_piece(9));
    }

    #[test]
    fn padded_rows_and_borders_were_not_cut() {
        // A row padded with blanks to the edge (a TUI's, captured with `-J`).
        assert_eq!(joined(&format!("{} \nnext\n", row('a', 79))), None);
        // A border, and a row closed by one.
        assert_eq!(joined(&format!("{}\nnext\n", row('─', 80))), None);
        assert_eq!(joined(&format!("│ {}│\nnext\n", row('a', 77))), None);
    }

    #[test]
    fn colours_between_rows_do_not_part_them() {
        let log = format!("\x1b[31m{}\x1b[0m\r\n\x1b[31mcause\x1b[0m\r\n", row('a', 80));
        assert_eq!(joined(&log).unwrap(), vec![format!("{}cause", row('a', 80))]);
    }

    #[test]
    fn width_is_counted_in_columns() {
        // 40 wide characters fill 80 columns.
        let wide = row('界', 40);
        assert_eq!(
            joined(&format!("{wide}\nnext\n{}\n", row('a', 79))).unwrap(),
            vec![format!("{wide}next"), row('a', 79)]
        );
        // A wide character that would not fit was moved to the next row.
        let short = row('a', 79);
        let log = format!("{short}\n界 cause\n{}\n", row('b', 80));
        assert_eq!(joined(&log).unwrap()[0], format!("{short}界 cause"));
        // Not when the next row starts narrow.
        let log = format!("{short}\nb cause\n{}\n", row('b', 80));
        assert_eq!(joined(&log), None);
    }

    #[test]
    fn the_cheap_bound_is_a_bound() {
        let signs =
            ["", "ascii", "⎿  API Error · Retrying…", "界界 wide", "🖐 emoji", "e\u{301} combining", "⚠\u{fe0f} warn"];
        // U+17D8 (Khmer sign beyyal) is three columns in three bytes.
        for text in signs.into_iter().chain(["\u{17D8}"]) {
            assert!(columns(text) <= columns_at_most(text), "{text:?}");
        }
        assert_eq!(columns_at_most("ab界"), 5);
    }

    #[test]
    fn rows_join_in_a_chain_up_to_the_bound() {
        let rows: Vec<String> = (0..100).map(|k| format!("{k:08}{}", row('a', 72))).collect();
        let lines = joined(&format!("{}\nend\n", rows.join("\n"))).unwrap();
        assert!(
            lines.iter().all(|l| l.len() <= BOUNDED_LINE),
            "{:?}",
            lines.iter().map(String::len).collect::<Vec<_>>()
        );
        assert_eq!(lines.concat().len(), 80 * 100 + 3);
        assert_eq!(lines.len(), 2, "51 rows of 80 bytes fill a line's 4 KiB");
    }

    /// The cleaner says which rows follow directly: rows it parts by a cursor
    /// move, a second line feed or a lone CR are never joined.
    #[test]
    fn rows_parted_by_more_than_one_line_feed_are_not_joined() {
        let full = row('a', 80);
        for gap in
            ["\x1bM\n", "\n\u{9b}H", "\n\x1b[u", "\n\x1b[2J", "\n\x1b[S", "\n\x1b[1G", "\x1b[\n1m\n", "\n\u{85}", "\r"]
        {
            assert_eq!(joined(&format!("{full}{gap}next\n")), None, "{gap:?}");
        }
        // A CRLF is one row; a tty's CR CR LF (onlcr applied to a CRLF) holds
        // a lone CR, which is no row advance.
        assert_eq!(joined(&format!("{full}\r\ncause\r\n")).unwrap(), vec![format!("{full}cause")]);
        assert_eq!(joined(&format!("{full}\r\r\ncause\r\r\n")), None);
    }

    #[test]
    fn rows_drawn_to_the_edge_were_not_cut() {
        let edges = [
            row('=', 80),
            format!("{} FAILURES {}", row('=', 35), row('=', 35)),
            format!("| a{}|", row(' ', 76)),
            format!("+{}+", row('-', 78)),
            format!("{}....", row('x', 76)),
        ];
        for edge in edges {
            assert_eq!(edge.len(), 80, "{edge}");
            assert_eq!(joined(&format!("{edge}\ncurl: (6) Could not resolve host: github.com\n")), None, "{edge}");
        }
        // Fewer than four of a fill character end ordinary text.
        let text = format!("{}...", row('x', 77));
        assert!(joined(&format!("{text}\nmore\n")).is_some());
    }

    #[test]
    fn a_line_the_program_wrapped_is_joined_at_its_blanks() {
        let log = "> fix the build\r\n  ⎿  Error: Error during compaction: API Error: 504 Gateway Time-out. This is a\r\n     server-side issue, usually temporary — try again in a moment. If it\r\n     persists, check status.claude.com.\r\n> \r\n";
        let lines = joined(log).unwrap();
        assert_eq!(
            lines[1],
            "  ⎿  Error: Error during compaction: API Error: 504 Gateway Time-out. This is a server-side issue, usually temporary — try again in a moment. If it persists, check status.claude.com."
        );
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        assert_eq!(out.wrapped, vec![2, 3]);
        assert!(!out.pane && !out.is_piece(1) && out.is_piece(2) && out.is_piece(3));
        assert_eq!(out.cleaned.rejoined.as_ref().unwrap().wrapped, vec![1]);
    }

    #[test]
    fn only_a_tui_s_lines_are_read_as_wrapped() {
        let wrapped = "● Failed to get response from the AI model; retried 5 times (total retry wait\n  time: 55.75 seconds) Last error: 429 Too Many Requests\n";
        let log = format!("{wrapped}{}\n", "─".repeat(80));
        assert!(
            joined(&log).unwrap()[0].ends_with("retry wait time: 55.75 seconds) Last error: 429 Too Many Requests")
        );
        // Not in a log no TUI drew (a CI job's, read by a profile without
        // model output: a tool's indented output, pip's `  Downloading …`
        // over its `  ERROR: …`).
        let cleaned = clean(log.as_bytes(), false);
        assert!(rejoin(&cleaned, false).is_none());
        let pip =
            format!("  Downloading {}\n  ERROR: Could not install packages\n{}\n", "a".repeat(64), "=".repeat(80));
        assert!(rejoin(&clean(pip.as_bytes(), false), false).is_none());
    }

    #[test]
    fn the_blank_a_program_leaves_at_its_wrap_is_the_joint() {
        let log = format!(
            "● Rate limit reached for fake-model-1 in organization org-fake-9. Please try \n  again in 2s.\n{}\n",
            "─".repeat(80)
        );
        assert_eq!(
            joined(&log).unwrap()[0],
            "● Rate limit reached for fake-model-1 in organization org-fake-9. Please try again in 2s."
        );
    }

    #[test]
    fn a_status_bar_s_row_is_no_line_its_program_wrapped() {
        // Claude Code 2.0.50's status row, two columns short of a 120-column
        // pane, and a notice printed below it.
        let bar = format!("  ? for shortcuts{}Thinking on (tab to toggle)", " ".repeat(118 - 17 - 27));
        let notice = "  You've hit your limit · resets 2pm (America/New_York)";
        let log = format!("{}\n{bar}\n{notice}\n", "─".repeat(120));
        assert_eq!(joined(&log), None);
        // Text the program wrapped three columns short of the edge, a gap
        // in it, still goes on below.
        let head = format!("  The table: name{}count and", " ".repeat(10));
        let text = format!("{head} {}", row('w', 117 - head.len() - 1));
        let wrapped = format!("{}\n{text}\n  continues here.\n", "─".repeat(120));
        assert!(joined(&wrapped).is_some_and(|l| l[1].ends_with("w continues here.")), "{:?}", joined(&wrapped));
    }

    #[test]
    fn a_status_bar_s_row_is_no_cut() {
        // Copilot CLI 1.0.102's status bar, a column short of 120, above a
        // fault line the pane cut into rows, its first character two
        // columns wide (the kind a terminal moves whole to the next row).
        let bar = format!(
            " ← open sidebar · Interactive · Manual Approval · / commands · ? help · tab next tab{}fake-model-1",
            " ".repeat(23)
        );
        let words: String = (0..60).map(|n| format!("w{n:03}")).collect();
        let fault = format!("❌ Error: (query) Execution failed: {words}");
        let at = |n: usize| fault.char_indices().nth(n).unwrap().0;
        let log = format!("{bar}\n{}\n{}\n{}\n", &fault[..at(119)], &fault[at(119)..at(239)], &fault[at(239)..]);
        assert_eq!(joined(&log).unwrap(), [bar.as_str(), fault.as_str()]);
        // A spinner's row with a log record glued on runs on after its gap
        // for longer than a status bar's right part: still read as cut.
        let record =
            format!("◓  Building response chains...{}2026-03-01T10:00:00Z ERROR {}", " ".repeat(22), row('r', 80));
        let at = record.char_indices().nth(120).unwrap().0;
        let log = format!("{}\n{}\n{}\n{}\n", &record[..at], &record[at..], &fault[..20], row('x', 120));
        assert!(joined(&log).unwrap().contains(&record), "{:?}", joined(&log));
    }

    #[test]
    fn codex_s_detail_row_starts_a_line() {
        let full = format!("  ↳ for agents · ? for shortcuts{}", row('x', 88));
        let log = format!("{full}\n{}\n  └ Stream disconnected before completion: idle timeout\n", row('y', 120));
        // The row of `x` goes on in the row of `y` (two cuts show a pane);
        // the `└` row stays a line of its own.
        let lines = joined(&log).unwrap();
        assert!(lines[0].ends_with('y') && lines[1].starts_with("  └ Stream"), "{lines:?}");
    }

    #[test]
    fn a_row_cut_at_the_bound_still_starts_mid_line() {
        // Each row its own text: rows the same but for digits, whose last
        // goes on into a line unlike the rows below the others (`end`), are
        // copies of a plain log's record (`pane_cuts`).
        let rows: Vec<String> =
            (0..60).map(|k| format!("{k:08}{}", row(char::from(b'a' + k as u8 % 26), 72))).collect();
        let log = format!("{}\nend\n", rows.join("\n"));
        let cleaned = clean(log.as_bytes(), false);
        let out = rejoin(&cleaned, true).unwrap();
        // 4,096 bytes hold 51 rows of 80: row 51 starts the second line.
        assert_eq!(out.first_row, vec![0, 51, 61]);
        assert!(out.cut.contains(&51) && out.is_piece(51));
        assert_eq!((out.line_of(50), out.line_of(51), out.line_of(60)), (0, 1, 1));
        assert_eq!(out.rows_of(1), 51..61);
    }
}
