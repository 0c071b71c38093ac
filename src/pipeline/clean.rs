//! Clean stage (SPEC §1.3): window bytes to the lines a person saw — UTF-8 decoded
//! (invalid bytes as U+FFFD), split at `\n`, `\r\n`, lone `\r` and cursor moves to
//! another row, with every terminal control sequence removed. A TUI that draws
//! a row cell by cell (`ESC [4;59H┃ ESC [4;62HIncorrect API key…`) moves the
//! cursor along the row it is on: such a move forward is a gap in the row, as
//! on screen, not a new line.
//!
//! Plain runs are copied in bulk; from an ESC (or a raw C1 control) on, bytes go
//! through `vte`'s state machine until the sequence ends, so the sequence grammar
//! (CSI, OSC ended by BEL or ST, DCS/SOS/PM/APC strings, two-byte escapes, CAN/SUB
//! aborts) is the VT parser's, not a hand-written pattern's.

/// One cleaned line: its text lives in [`Cleaned::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Byte offset, relative to the start of the window, where the line began
    /// (the byte after the previous line break).
    pub offset: usize,
    /// Where the line's text is in [`Cleaned::text`].
    pub start: usize,
    /// End (exclusive) of the line's text in [`Cleaned::text`].
    pub end: usize,
    /// The line began on the row right below the previous kept line (never
    /// for the window's first line; the straddle guard may drop that line,
    /// leaving the next one's flag about a line no longer kept): one
    /// `\n` or `\r\n` after it, with no other break (a lone `\r`, a blank
    /// row dropped) and no cursor move between. Only such a line can be the
    /// rest of a row a pane cut at its width ([`crate::pipeline::rejoin`]).
    pub follows: bool,
}

/// The cleaned lines of a window. Lines that hold only whitespace are left out:
/// no rule can match them, and they carry no evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Every kept line's text, each followed by `\n` (so a search over the
    /// whole text never finds a literal that spans two lines).
    pub text: String,
    /// The kept lines, in window order.
    pub lines: Vec<Line>,
    /// What [`crate::pipeline::rejoin`] joined into these lines; None for
    /// lines as cleaned.
    pub rejoined: Option<Joins>,
}

/// Lines joined from the rows of a pane cut at its width.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Joins {
    /// The pane's width, in columns.
    pub width: usize,
    /// The indices of the lines joined from two rows or more, ascending.
    pub lines: Vec<usize>,
    /// Those of them joined only where the program wrapped its own line
    /// (no row of theirs was cut by the pane), ascending.
    pub wrapped: Vec<usize>,
}

impl Joins {
    /// Whether line `line` was joined from two rows or more.
    pub fn joined(&self, line: usize) -> bool {
        self.lines.binary_search(&line).is_ok()
    }
}

impl Cleaned {
    /// The text of `line`.
    pub fn line_text(&self, line: &Line) -> &str {
        self.text.get(line.start..line.end).unwrap_or("")
    }

    /// `(offset, text)` of every line, in order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.lines.iter().map(|l| (l.offset, self.line_text(l)))
    }
}

/// Cleans a window. `drop_first_fragment` applies the straddle guard: the first
/// line, when it starts at the window's first byte, is dropped unless it is the
/// only line.
pub fn clean(bytes: &[u8], drop_first_fragment: bool) -> Cleaned {
    // A line per 64 bytes: about what pane captures hold (1,000 kept lines in
    // 64 KiB), so the list is allocated once, not grown from 4 lines by
    // doubling (four allocations for each 2 KiB log of a batch). Pages it
    // leaves unused are never touched.
    let mut cleaner = Cleaner::new(bytes.len(), bytes.len() / 64 + 1);
    // A window that starts mid-line may start inside a character. Its trailing
    // bytes (0x80–0xBF) are no character, and must not be read as raw C1
    // controls: 0x9F (APC) is the second byte of every emoji U+1F000–U+1FFFF,
    // and as a string introducer it would hide the rest of the window.
    let cut_char =
        if drop_first_fragment { bytes.iter().take(3).take_while(|b| (0x80..0xC0).contains(*b)).count() } else { 0 };
    cleaner.run(bytes, cut_char);
    let mut cleaned = cleaner.sink.finish(bytes.len());
    if drop_first_fragment && cleaned.lines.len() > 1 && cleaned.lines[0].offset == 0 {
        cleaned.lines.remove(0);
    }
    cleaned
}

/// Removes control sequences and control characters from a string that is one
/// line already (profile example lines, captured values); line breaks become
/// spaces. Idempotent on clean text.
pub fn clean_line(text: &str) -> String {
    let mut cleaner = Cleaner::new(text.len(), 0);
    cleaner.sink.break_as_space = true;
    cleaner.run(text.as_bytes(), 0);
    let cleaned = cleaner.sink.finish(text.len());
    cleaned.text
}

struct Cleaner {
    parser: vte::Parser,
    sink: Sink,
    /// Where the next UTF-8-encoded C1 control (C2 80–C2 9F) is, at or after
    /// the text being copied (or the window's end when there is none):
    /// remembered across [`Cleaner::text`] calls, so each byte is searched once.
    next_c1: Option<usize>,
}

/// A valid UTF-8 stretch of the window: the first is validated in one pass
/// over the whole window, and text runs inside it are sliced from it, not
/// validated one by one (a pane capture has a short run every few words, and
/// validating each costs more than copying it). Past an invalid sequence, the
/// next stretch starts with the next run and doubles while the text stays
/// valid, so one broken character early in a window costs a few validations,
/// not one per run.
struct Valid<'a> {
    bytes: &'a [u8],
    /// The window's bytes `base..base + text.len()`: up to the first invalid
    /// sequence, or up to the end of what was validated.
    text: &'a str,
    base: usize,
    /// How many bytes to validate at least when a run starts past `text`.
    reach: usize,
}

impl<'a> Valid<'a> {
    /// Validates `bytes[base..end]` up to its first invalid sequence.
    fn new(bytes: &'a [u8], base: usize, end: usize) -> Self {
        let run = &bytes[base..end];
        // Text that was valid to the end suggests more of it: look twice as far
        // next time (a character cut by the end is no invalid sequence). After
        // an invalid sequence, validate run by run: a window of broken text has
        // one every few bytes, and validating far past each would cost a block
        // of SIMD work per character.
        let (text, reach) = match simdutf8::compat::from_utf8(run) {
            Ok(text) => (text, 2 * run.len()),
            Err(e) => (
                simdutf8::basic::from_utf8(&run[..e.valid_up_to()]).unwrap_or_default(),
                if e.error_len().is_none() { 2 * run.len() } else { 0 },
            ),
        };
        Valid { bytes, text, base, reach }
    }

    /// The text of window bytes `at..end` up to its first invalid sequence.
    fn get(&mut self, at: usize, end: usize) -> &'a str {
        if at >= self.base + self.text.len() {
            let to = at.saturating_add(self.reach).max(end).min(self.bytes.len());
            *self = Valid::new(self.bytes, at, to);
        }
        let end = end.min(self.base + self.text.len());
        // Run ends are ASCII control bytes, C1 controls or the stretch's end:
        // character boundaries. `at` may not be one after a sequence that
        // ended inside a character; that byte is then decoded on its own.
        let (Some(from), Some(to)) = (at.checked_sub(self.base), end.checked_sub(self.base)) else { return "" };
        self.text.get(from..to.max(from)).unwrap_or("")
    }
}

/// Collects text and line boundaries; also the `vte` performer for sequences.
struct Sink {
    out: String,
    lines: Vec<Line>,
    /// Where the current line's text starts in `out`.
    line_text_start: usize,
    /// Window offset where the current line started.
    line_offset: usize,
    /// `vte` is inside a sequence: feed it bytes until it says it is done.
    in_sequence: bool,
    /// That sequence is a string (OSC, DCS, SOS, PM, APC).
    in_string: bool,
    /// A callback asked `vte` to stop after the current byte.
    stop: bool,
    /// The sequence ended (set with `stop`).
    done: bool,
    /// A line break happened at the current byte (set with `stop`).
    pending_break: bool,
    /// `vte` printed: it was back in the ground state.
    printed: bool,
    /// For [`clean_line`]: a line break is a space, not a new line.
    break_as_space: bool,
    /// Since the last kept line: how many `\n` or `\r\n` breaks, and
    /// whether any other break (a lone `\r`, a cursor move) came.
    newlines: u32,
    other_break: bool,
    /// The pending break is a cursor move (or the like), not a line feed.
    pending_move: bool,
    /// Where the last absolute cursor move (`CUP`) put the cursor, while
    /// nothing else has moved it: its row and column (1-based), and where in
    /// `out` the text written since starts (`usize::MAX`: at the start of the
    /// line the move began). The column now is that column plus the
    /// characters written since.
    cursor: Option<(u16, u16, usize)>,
    /// How far right of the row's start the cursor sits while nothing is
    /// written on the line, as relative moves put it: a carriage return,
    /// then a forward move (`CUF`), kept by a move up or down as a
    /// terminal keeps it. A renderer that draws a tool's indented output
    /// this way (`\r ESC[5C ESC[1B text`: Claude Code 2.1.337) leaves the
    /// row indented on screen, and the text written next starts that far
    /// in (at most [`MAX_INDENT`] blanks).
    indent: u16,
}

/// The most blanks a relative move at a line's start stands for: enough to
/// tell an indented row from one at the edge, and a hostile stream of far
/// moves cannot multiply the text it leaves.
const MAX_INDENT: u16 = 8;

impl Cleaner {
    /// A cleaner with room for `text` bytes of text and `lines` lines.
    fn new(text: usize, lines: usize) -> Self {
        Cleaner {
            parser: vte::Parser::new(),
            sink: Sink {
                out: String::with_capacity(text),
                lines: Vec::with_capacity(lines),
                line_text_start: 0,
                line_offset: 0,
                in_sequence: false,
                in_string: false,
                stop: false,
                done: false,
                pending_break: false,
                newlines: 0,
                other_break: false,
                pending_move: false,
                cursor: None,
                indent: 0,
                printed: false,
                break_as_space: false,
            },
            next_c1: None,
        }
    }

    /// Cleans `bytes` from index `start` on (offsets stay relative to `bytes`).
    fn run(&mut self, bytes: &[u8], start: usize) {
        let mut valid = Valid::new(bytes, start, bytes.len());
        let mut i = start;
        // The end of the text run `i` is in (a control byte, or the window's
        // end), remembered: a run that `text` consumes a few bytes at a time
        // (broken characters, 8-bit controls) is measured once, not once per
        // call, which would be quadratic; and the control that ends a run is
        // not measured again as a run of its own (a pane capture ends a run
        // every few words).
        let mut run_end = start + text_run_len(&bytes[start..]);
        while i < bytes.len() {
            if self.sink.in_sequence {
                i += self.feed(bytes, i);
                continue;
            }
            if run_end < i {
                run_end = i + text_run_len(&bytes[i..]);
            }
            if run_end > i {
                i += self.text(&bytes[i..run_end], i, &mut valid);
                continue;
            }
            match bytes[i] {
                b'\n' => {
                    self.sink.cursor = None;
                    self.sink.indent = 0;
                    self.sink.line_break(i + 1, Break::Newline);
                    i += 1;
                }
                b'\r' => {
                    self.sink.cursor = None;
                    self.sink.indent = 0;
                    let crlf = bytes.get(i + 1) == Some(&b'\n');
                    self.sink.line_break(i + 1 + usize::from(crlf), if crlf { Break::Newline } else { Break::Other });
                    i += 1 + usize::from(crlf);
                }
                0x1B => match self.plain_csi(&bytes[i..]) {
                    Some(len) => {
                        self.sink.settle(i + len);
                        i += len;
                    }
                    None => {
                        self.sink.in_sequence = true;
                        // OSC, DCS, SOS, PM and APC are strings, ended by BEL or ST.
                        self.sink.in_string = matches!(bytes.get(i + 1), Some(b']' | b'P' | b'X' | b'^' | b'_'));
                        i += self.feed(bytes, i);
                    }
                },
                // Other C0 controls and DEL are removed.
                _ => i += 1,
            }
        }
    }

    /// Feeds `vte` from `at` until the sequence ends or a line break happens in
    /// it; returns the bytes consumed.
    ///
    /// A string sequence (OSC, DCS, SOS, PM, APC) also ends at a line feed:
    /// titles and hyperlinks hold none, and one stray `ESC ]` must not hide the
    /// rest of the log.
    fn feed(&mut self, bytes: &[u8], at: usize) -> usize {
        let rest = &bytes[at..];
        let end = if self.sink.in_string {
            rest.get(1..).and_then(|r| memchr::memchr2(0x1B, b'\n', r)).map_or(rest.len(), |j| j + 1)
        } else {
            // Up to the next line break or ESC, and at most 64 bytes (so that
            // a storm of sequences is not searched again and again): a
            // sequence `vte` ends without a callback (an ignored CSI such as
            // `ESC [ SP 1 m`) would otherwise go on to print the text after
            // it, line breaks and all, in one call, and glue its lines.
            let ahead = &rest[1.min(rest.len())..rest.len().min(64)];
            memchr::memchr3(b'\n', b'\r', 0x1B, ahead).map_or(1 + ahead.len(), |j| j + 1).min(rest.len())
        };
        let n = self.parser.advance_until_terminated(&mut self.sink, &rest[..end]).max(1);
        // `vte` can leave a sequence without a callback (an ignored CSI) and
        // then print a plain run up to the next ESC, which it consumes: it is
        // then inside that next sequence, not done.
        if self.sink.printed && rest[n - 1] == 0x1B {
            self.sink.done = false;
            self.sink.in_string = matches!(rest.get(n), Some(b']' | b'P' | b'X' | b'^' | b'_'));
        }
        self.sink.settle(at + n);
        if self.sink.in_sequence && self.sink.in_string && rest.get(n) == Some(&b'\n') {
            self.parser = vte::Parser::new();
            self.sink.in_sequence = false;
            self.sink.in_string = false;
        }
        n
    }

    /// The common case without the state machine: a complete CSI of parameter
    /// and intermediate bytes and a final byte (`ESC [ 38;5;246 m`), acted on at
    /// once. Returns its length; None for anything else (other sequences, a C0
    /// control inside, a cut end), which `vte` then parses.
    fn plain_csi(&mut self, bytes: &[u8]) -> Option<usize> {
        if bytes.get(1) != Some(&b'[') {
            return None;
        }
        let params = bytes[2..].iter().position(|b| !(0x30..=0x3F).contains(b))? + 2;
        let finals = bytes[params..].iter().position(|b| !(0x20..=0x2F).contains(b))? + params;
        let action = *bytes.get(finals).filter(|b| (0x40..=0x7E).contains(*b))?;
        let number = |digits: &[u8]| {
            digits
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .fold(0u16, |n, &d| n.saturating_mul(10).saturating_add(u16::from(d - b'0')))
        };
        let first = number(&bytes[2..params]);
        // Only a cursor position reads its second parameter (the column).
        let second = match action {
            b'H' | b'f' => bytes[2..params].split(|&b| b == b';').nth(1).map_or(0, number),
            _ => 0,
        };
        self.sink.csi(char::from(action), first, second);
        Some(finals + 1)
    }

    /// Copies a run of text (no C0 control but tab, no DEL) starting at window
    /// offset `at`, up to its first invalid UTF-8 sequence or C1 control, which
    /// it handles; returns how many bytes it consumed.
    fn text(&mut self, run: &[u8], at: usize, valid: &mut Valid) -> usize {
        // Each call must cost what it consumes, or a run of many broken
        // characters or 8-bit controls is quadratic (a storm of raw CSI bytes
        // took minutes): the next C1 control is searched for from `at` to
        // the window's end, once until it is passed (U+0080–U+009F are encoded
        // C2 80–C2 9F; a C2 is never a continuation byte; searching each run
        // anew costs a search set-up per short run of a pane capture), and
        // validation stops at the first invalid sequence.
        let next_c1 = match self.next_c1 {
            Some(p) if p >= at => p,
            _ => {
                let rest = &valid.bytes[at..];
                let p = memchr::memchr_iter(0xC2, rest)
                    .find(|&k| rest.get(k + 1).is_some_and(|b| (0x80..=0x9F).contains(b)))
                    .map_or(valid.bytes.len(), |k| at + k);
                self.next_c1 = Some(p);
                p
            }
        };
        let head = valid.get(at, next_c1.min(at + run.len()));
        let upto = head.len();
        self.sink.indent_text();
        self.sink.out.push_str(head);
        if upto == run.len() {
            return upto;
        }
        let (code, len) = match decode_one(&run[upto..]) {
            Decoded::C1(code, len) => (code, len),
            Decoded::Char(c, len) => {
                self.sink.out.push(c);
                return upto + len;
            }
            Decoded::Invalid(len) => {
                self.sink.out.push('\u{FFFD}');
                return upto + len;
            }
        };
        // An 8-bit C1 control acts as ESC followed by (code - 0x40) (ECMA-48
        // §5.3) — CSI 0x9B is `ESC [`, NEL 0x85 is `ESC E` — except the string
        // introducers (DCS, SOS, OSC, PM, APC): in a UTF-8 log a lone 0x90–0x9F
        // is far likelier a stray byte of a broken character than a string,
        // which would hide the rest of the window.
        if !matches!(code, 0x90 | 0x98 | 0x9D | 0x9E | 0x9F) {
            self.sink.in_sequence = true;
            self.sink.in_string = false;
            self.parser.advance(&mut self.sink, &[0x1B, code - 0x40]);
            self.sink.settle(at + upto + len);
        }
        upto + len
    }
}

/// Length of the leading run of text bytes: anything but C0 controls (tab
/// excepted) and DEL. The first 16 bytes are tested a word at a time (runs in
/// a pane capture are short, and most end there); past them, 16 bytes at a
/// time (the compiler vectorises the check), and the chunk that holds the stop
/// a word at a time again, without a loop over its bytes.
#[inline]
fn text_run_len(bytes: &[u8]) -> usize {
    if let Some(at) = first_stop_of_block(bytes, 0) {
        return at;
    }
    let text = |b: u8| b >= 0x20 && b != 0x7F || b == b'\t';
    let mut n = 16.min(bytes.len());
    for chunk in bytes[n..].chunks_exact(16) {
        if !chunk.iter().fold(true, |ok, &b| ok & text(b)) {
            break;
        }
        n += 16;
    }
    first_stop_of_block(bytes, n).unwrap_or(bytes.len())
}

/// The first stop byte (see [`text_run_len`]) of the 16 bytes from `at`, read
/// as two words; bytes past the end read as spaces.
// Always inlined: it is called once a run, and the call itself showed in
// the cleaning's instruction count.
#[inline(always)]
fn first_stop_of_block(bytes: &[u8], at: usize) -> Option<usize> {
    let word = |w: &[u8]| stop_bytes(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
    let [low, high] = match bytes.get(at..at + 16) {
        Some(block) => [word(&block[..8]), word(&block[8..])],
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            let mut last = [b' '; 16];
            last[..rest.len()].copy_from_slice(rest);
            [word(&last[..8]), word(&last[8..])]
        }
    };
    match (low, high) {
        (0, 0) => None,
        (0, high) => Some(at + 8 + high.trailing_zeros() as usize / 8),
        (low, _) => Some(at + low.trailing_zeros() as usize / 8),
    }
}

/// The high bit of each byte of `word` that is not text (a C0 control other
/// than tab, or DEL). Exact per byte: no sum carries into the next byte.
#[inline]
fn stop_bytes(word: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // High bit set where a byte is 0x00: its low seven bits plus 0x7F do not
    // reach 0x80, and its own high bit is clear.
    let zero = |w: u64| !(((w & LOW7) + LOW7) | w) & HIGH;
    // High bit set where a byte is 0x20 or more.
    let at_least_space = (((word & LOW7) + ONES * (0x80 - 0x20)) | word) & HIGH;
    (!at_least_space & HIGH & !zero(word ^ (ONES * u64::from(b'\t')))) | zero(word ^ (ONES * 0x7F))
}

enum Decoded {
    Char(char, usize),
    /// A C1 control (raw byte, or U+0080–U+009F), with its code 0x80–0x9F.
    C1(u8, usize),
    Invalid(usize),
}

fn decode_one(bytes: &[u8]) -> Decoded {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
        Err(e) => {
            // A lone byte 0x80–0x9F is a raw (8-bit) C1 control.
            if e.error_len() == Some(1) && (0x80..=0x9F).contains(&head[0]) {
                return Decoded::C1(head[0], 1);
            }
            return Decoded::Invalid(e.error_len().unwrap_or(head.len()).max(1));
        }
    };
    match valid.chars().next() {
        Some(c) if ('\u{80}'..='\u{9F}').contains(&c) => Decoded::C1(c as u8, c.len_utf8()),
        Some(c) => Decoded::Char(c, c.len_utf8()),
        None => Decoded::Invalid(1),
    }
}

/// What ended a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// `\n` or `\r\n`: the next row.
    Newline,
    /// A lone `\r`, a cursor move, an erase or scroll: not simply the next row.
    Other,
}

impl Sink {
    /// Ends the current line with `why`; the next one starts at window offset
    /// `next`.
    fn line_break(&mut self, next: usize, why: Break) {
        if self.break_as_space {
            self.space();
            return;
        }
        let text = &self.out.as_bytes()[self.line_text_start..];
        if text.iter().any(|b| !b.is_ascii_whitespace()) {
            let follows = self.newlines == 1 && !self.other_break && !self.lines.is_empty();
            self.lines.push(Line {
                offset: self.line_offset,
                start: self.line_text_start,
                end: self.out.len(),
                follows,
            });
            self.out.push('\n');
            self.line_text_start = self.out.len();
            (self.newlines, self.other_break) = (0, false);
        } else {
            // Whitespace-only lines are dropped and their bytes reused.
            self.out.truncate(self.line_text_start);
        }
        match why {
            Break::Newline => self.newlines += 1,
            Break::Other => self.other_break = true,
        }
        self.line_offset = next;
    }

    /// A cursor move along the row stands for the blank it leaves on screen.
    fn space(&mut self) {
        if self.out.len() > self.line_text_start && !self.out.ends_with(|c: char| c.is_ascii_whitespace()) {
            self.out.push(' ');
        }
    }

    /// Before text: the blanks a forward move left at the line's start.
    fn indent_text(&mut self) {
        if self.indent > 0 {
            if self.out.len() == self.line_text_start {
                self.out.extend(std::iter::repeat_n(' ', usize::from(self.indent)));
            }
            self.indent = 0;
        }
    }

    fn finish(mut self, len: usize) -> Cleaned {
        if !self.break_as_space {
            self.line_break(len, Break::Other);
        }
        Cleaned { text: self.out, lines: self.lines, rejoined: None }
    }

    /// A CSI's effect on lines: `first` and `second` are its first two
    /// parameters (0 if none).
    fn csi(&mut self, action: char, first: u16, second: u16) {
        if matches!(action, 'H' | 'f') {
            self.cursor_to(first.max(1), second.max(1));
            self.sequence_done();
            return;
        }
        match action {
            // Moves to another row, erases the screen, scrolls, restores the
            // cursor: what follows is not on the same line.
            // A move up or down keeps the cursor's column (`indent`).
            'A' | 'B' | 'd' | 'e' => {
                let column = self.indent;
                self.break_here();
                self.indent = column;
            }
            'E' | 'F' | 'k' | 'J' | 'S' | 'T' | 'u' => self.break_here(),
            // To column 1 is a carriage return; elsewhere along the row, a gap.
            'G' | '`' if first <= 1 => self.break_here(),
            // A forward move on a line with nothing written yet: the blanks
            // it leaves before the text.
            'C' | 'a' if self.out.len() == self.line_text_start => {
                self.indent = self.indent.saturating_add(first.max(1)).min(MAX_INDENT);
            }
            // A relative move along the row: a column this sink does not follow.
            'C' | 'G' | '`' | 'a' => {
                self.cursor = None;
                self.space();
            }
            _ => {}
        }
        self.sequence_done();
    }

    /// An absolute cursor move to `row`, `col`: along the row the cursor is on,
    /// two columns or more forward of where it is, a gap (the blanks a layout
    /// leaves: a panel's border and its padding), or right where it is, no
    /// gap; anywhere else a break, as before. A jump over exactly one cell is
    /// a break too: a diff renderer that streams prose word by word skips the
    /// one unchanged blank between two words (Codex's TUI), and a line joined
    /// from those words would start mid-sentence, where no rule's anchor
    /// belongs.
    fn cursor_to(&mut self, row: u16, col: u16) {
        let here = self.cursor.and_then(|(r, c, from)| {
            let from = if from == usize::MAX { self.line_text_start } else { from };
            let written = self.out.get(from..)?.chars().count();
            (r == row && !self.pending_break).then(|| usize::from(c).saturating_add(written))
        });
        match here {
            Some(now) if usize::from(col) > now + 1 => self.space(),
            Some(now) if usize::from(col) == now => {}
            _ => {
                self.break_here();
                self.cursor = Some((row, col, usize::MAX));
                return;
            }
        }
        self.cursor = Some((row, col, self.out.len()));
    }

    fn sequence_done(&mut self) {
        self.done = true;
        self.stop = true;
    }

    /// A break inside a sequence: its position is known once `vte` returns.
    /// A cursor move, erase or scroll, unless [`Sink::newline_here`] says
    /// otherwise.
    fn break_here(&mut self) {
        // Whatever moved the cursor off its line, its position is not known
        // now (an absolute move sets it again after this).
        self.cursor = None;
        self.indent = 0;
        self.pending_break = true;
        self.pending_move = true;
        self.stop = true;
    }

    /// A line feed inside a sequence (`vte` executes it): a break to the
    /// next row, unless a move came with it.
    fn newline_here(&mut self) {
        let moved = self.pending_break && self.pending_move;
        self.break_here();
        self.pending_move = moved;
    }

    /// Applies what the callbacks asked for, now that `next` (the offset after
    /// the last byte `vte` consumed) is known.
    fn settle(&mut self, next: usize) {
        if self.pending_break {
            self.line_break(next, if self.pending_move { Break::Other } else { Break::Newline });
        }
        if self.done {
            self.in_sequence = false;
            self.in_string = false;
        }
        self.stop = false;
        self.done = false;
        self.pending_break = false;
        self.pending_move = false;
        self.printed = false;
    }
}

impl vte::Perform for Sink {
    fn terminated(&self) -> bool {
        self.stop
    }

    fn print(&mut self, c: char) {
        // Only reached in the ground state, after a sequence `vte` left without
        // a dispatch (e.g. an ignored CSI): the sequence is over.
        if !c.is_control() {
            self.indent_text();
            self.out.push(c);
        }
        self.printed = true;
        self.sequence_done();
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            // Inside a sequence a CR cannot be paired with its LF here; a CRLF
            // then gives an empty line, which is dropped.
            b'\n' => self.newline_here(),
            b'\r' => self.break_here(),
            b'\t' => self.out.push('\t'),
            // CAN and SUB abort the sequence.
            0x18 | 0x1A => self.sequence_done(),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &vte::Params, _intermediates: &[u8], _ignore: bool, action: char) {
        let mut fields = params.iter().map(|p| p.first().copied().unwrap_or(0));
        let first = fields.next().unwrap_or(0);
        let second = fields.next().unwrap_or(0);
        self.csi(action, first, second);
    }

    fn esc_dispatch(&mut self, _intermediates: &[u8], _ignore: bool, byte: u8) {
        match byte {
            // IND, NEL, RI, DECRC, RIS.
            b'D' | b'E' | b'M' | b'8' | b'c' => self.break_here(),
            _ => {}
        }
        self.sequence_done();
    }

    fn osc_dispatch(&mut self, _params: &[&[u8]], bell_terminated: bool) {
        // An OSC ended by ESC leaves `vte` in the escape state, waiting for the
        // `\` of ST: the sequence goes on until then.
        if bell_terminated {
            self.sequence_done();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<String> {
        let c = clean(bytes, false);
        c.iter().map(|(_, t)| t.to_string()).collect()
    }

    fn offsets(bytes: &[u8]) -> Vec<(usize, String)> {
        clean(bytes, false).iter().map(|(o, t)| (o, t.to_string())).collect()
    }

    #[test]
    fn splits_lf_crlf_and_lone_cr() {
        assert_eq!(lines(b"a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(offsets(b"a\nb\r\nc\rd"), [(0, "a".into()), (2, "b".into()), (5, "c".into()), (7, "d".into())]);
    }

    #[test]
    fn progress_repaints_are_separate_lines() {
        assert_eq!(lines(b"10%\r20%\r\x1b[2K100% done\r\n"), ["10%", "20%", "100% done"]);
    }

    #[test]
    fn sgr_colours_leave_no_parameter_bytes() {
        assert_eq!(lines(b"\x1b[1;31mAPI Error\x1b[0m: \x1b[38;5;208mboom\x1b[m"), ["API Error: boom"]);
    }

    #[test]
    fn word_boundary_survives_a_colour_code() {
        let text = clean(b"\x1b[31mRate limited\x1b[0m", false).text;
        assert!(regex::Regex::new(r"\bRate\b").unwrap().is_match(&text), "{text:?}");
    }

    #[test]
    fn cursor_moves_to_another_row_end_the_line() {
        assert_eq!(lines(b"left\x1b[5;1Hright\x1b[2Adown"), ["left", "right", "down"]);
        assert_eq!(offsets(b"ab\x1b[Hcd"), [(0, "ab".into()), (5, "cd".into())]);
    }

    #[test]
    fn a_tui_drawing_a_row_cell_by_cell_gives_one_line() {
        // opencode's error panel in a raw stream: each cell placed with an
        // absolute move along its row.
        let raw = b"\x1b[3;59H\x1b[31m\xe2\x94\x83\x1b[0m\x1b[3;118H\xe2\x94\x83\x1b[4;59H\xe2\x94\x83\x1b[4;62HIncorrect API key provided. \x1b[4;118H\xe2\x94\x83";
        assert_eq!(lines(raw), ["\u{2503} \u{2503}", "\u{2503} Incorrect API key provided. \u{2503}"]);
        // Right after what was written, no gap; back over it, a repaint.
        assert_eq!(lines(b"\x1b[39;4H#\x1b[39;5H#\x1b[39;4H*"), ["##", "*"]);
        // Over one blank cell: words streamed one by one, each its own line.
        assert_eq!(lines(b"\x1b[9;3Hstream\x1b[9;10Hdisconnected"), ["stream", "disconnected"]);
        // A move to the same row after a line feed is not followed.
        assert_eq!(lines(b"\x1b[2;1Ha\nb\x1b[2;9Hc"), ["a", "b", "c"]);
        // Other moves in between leave the position unknown: a break.
        assert_eq!(lines(b"\x1b[2;1Ha\x1b[1Cb\x1b[2;9Hc"), ["a b", "c"]);
    }

    #[test]
    fn cursor_forward_is_a_gap_and_column_one_a_carriage_return() {
        assert_eq!(lines(b"Unable\x1b[1Cto\x1b[3Gconnect\x1b[Gagain"), ["Unable to connect", "again"]);
    }

    #[test]
    fn a_forward_move_at_a_line_s_start_indents_it_and_a_move_down_keeps_that() {
        // Claude Code 2.1.337 draws a tool's output rows five columns in.
        let raw = b"  \xe2\x8e\xbf  Error: Exit code 1\r\x1b[5C\x1b[1BAPI Error: 529 Overloaded\r\x1b[5C\x1b[1Bdone";
        assert_eq!(lines(raw), ["  \u{23bf}  Error: Exit code 1", "     API Error: 529 Overloaded", "     done"]);
        // A carriage return, a line feed or an absolute move starts at the edge again.
        assert_eq!(lines(b"\x1b[3C\ra\n\x1b[2C\x1b[5;1Hb"), ["a", "b"]);
        // Far moves stand for a bounded indent.
        assert_eq!(lines(b"\x1b[60000C\x1b[60000Cx")[0].len(), usize::from(MAX_INDENT) + 1);
    }

    #[test]
    fn osc_titles_ended_by_bel_and_by_st() {
        assert_eq!(lines(b"\x1b]0;title one\x07visible\x1b]2;title two\x1b\\ text"), ["visible text"]);
    }

    #[test]
    fn dcs_sos_pm_apc_strings_are_removed() {
        assert_eq!(lines(b"a\x1bPq#0;1;2\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_apc\x1b\\e"), ["abcde"]);
    }

    #[test]
    fn two_byte_escapes_are_removed() {
        assert_eq!(lines(b"\x1b=\x1b>\x1b(Bplain\x1b7"), ["plain"]);
    }

    #[test]
    fn raw_c1_controls_act_as_their_escape_forms() {
        // 0x9B is CSI: its parameters must not leak. 0x85 is NEL: a new line.
        assert_eq!(lines(b"\x9b31mred\x9b0m ok \x85next"), ["red ok ", "next"]);
        // U+009B written as UTF-8 behaves the same.
        assert_eq!(lines("\u{9b}1mbold".as_bytes()), ["bold"]);
    }

    #[test]
    fn raw_string_introducers_are_dropped_alone() {
        // A stray 0x9F (the second byte of every emoji) must not open an APC
        // string that hides the rest of the window.
        assert_eq!(lines(b"broken \x9f char\nUnable to connect\n"), ["broken  char", "Unable to connect"]);
        assert_eq!(lines(b"\x9d0;title\x07 shown"), ["0;title shown"]);
    }

    #[test]
    fn an_unterminated_string_ends_at_the_line_feed() {
        assert_eq!(lines(b"a\x1b]0;never ends\nnext line\n"), ["a", "next line"]);
        // Terminated strings still hide their contents, over several chunks.
        assert_eq!(lines(b"x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\ y"), ["xlink y"]);
    }

    #[test]
    fn c0_controls_other_than_tab_are_removed() {
        assert_eq!(lines(b"a\x00b\x07c\x08d\te\x7f"), ["abcd\te"]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(lines(b"ok \xff\xfe done \xe2\x82"), ["ok \u{FFFD}\u{FFFD} done \u{FFFD}"]);
        assert_eq!(lines("caf\u{e9} \u{23bf} ok".as_bytes()), ["caf\u{e9} \u{23bf} ok"]);
    }

    #[test]
    fn text_run_len_stops_at_the_first_control_but_tab() {
        let naive = |b: &[u8]| b.iter().position(|&c| (c < 0x20 && c != b'\t') || c == 0x7F).unwrap_or(b.len());
        // Every byte value at every position of runs up to 20 bytes long, and
        // of runs either side of the 16-byte blocks after the first, in text
        // of each kind (ASCII, tab, UTF-8 bytes, the values either side of the
        // limits).
        for fill in [b'a', b'\t', 0x20, 0x7E, 0x80, 0xC2, 0xFF] {
            for len in (0..20).chain([31, 32, 33, 47, 48, 49, 64, 65]) {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut run = vec![fill; len];
                        run[at] = b;
                        assert_eq!(text_run_len(&run), naive(&run), "{run:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn text_around_invalid_bytes_and_c1_controls_is_kept_whole() {
        // Valid text, an invalid byte, more text with a colour and a C1 CSI
        // (U+009B) in it, then a character cut by the window's end: the text
        // before and after each is copied, and nothing of the sequences leaks.
        let input = b"\xe2\x94\x80ok \xff\xc3\xa9\x1b[1mmore\xc2\x9b31mred \xe2\x94";
        assert_eq!(lines(input), ["\u{2500}ok \u{FFFD}\u{e9}morered \u{FFFD}"]);
        assert_eq!(lines(&input[4..]), ["k \u{FFFD}\u{e9}morered \u{FFFD}"]);
    }

    #[test]
    fn text_after_an_early_broken_character_is_kept_whole() {
        // Past the invalid byte, stretches validated further and further may
        // end inside a character of any length or inside a sequence.
        let mut input = vec![0xFF];
        input.extend("\u{e9}\u{2500}x\u{1F600}\x1b[0m".repeat(700).bytes());
        assert_eq!(lines(&input), [format!("\u{FFFD}{}", "\u{e9}\u{2500}x\u{1F600}".repeat(700))]);
    }

    #[test]
    fn stretches_past_an_invalid_sequence_double_while_the_text_stays_valid() {
        let mut bytes = b"\xff".to_vec();
        bytes.extend([b'a'; 59]);
        bytes.extend("\u{2500}".repeat(10).bytes());
        bytes.extend(b"\xffabcdefghij");
        let mut v = Valid::new(&bytes, 0, bytes.len());
        assert_eq!(v.text, "");
        let mut stretch = |at: usize, end: usize| {
            v.get(at, end);
            (v.base, v.base + v.text.len())
        };
        assert_eq!(stretch(1, 6), (1, 6));
        assert_eq!(stretch(6, 8), (6, 16));
        assert_eq!(stretch(16, 18), (16, 36));
        // Ends at 76, inside the U+2500 (E2 94 80) at 75: cut, still doubling.
        assert_eq!(stretch(36, 40), (36, 75));
        assert_eq!(stretch(75, 78), (75, 90));
        // The invalid byte at 90: run by run after it.
        assert_eq!(stretch(91, 93), (91, 93));
    }

    #[test]
    fn sequences_cut_at_the_window_end_leak_nothing() {
        assert_eq!(lines(b"done\n\x1b[38;5"), ["done"]);
        assert_eq!(lines(b"done\n\x1b]0;never ending title"), ["done"]);
    }

    #[test]
    fn sequence_cut_at_the_window_start_is_dropped_with_the_fragment() {
        // The window began inside `ESC [31m`: its tail is in the first fragment.
        let c = clean(b"1mfragment\nwhole line\n", true);
        assert_eq!(c.iter().map(|(_, t)| t).collect::<Vec<_>>(), ["whole line"]);
    }

    #[test]
    fn straddle_guard_keeps_an_only_line() {
        let c = clean(b"tail of a long line", true);
        assert_eq!(c.iter().collect::<Vec<_>>(), [(0, "tail of a long line")]);
    }

    #[test]
    fn huge_line_without_newline() {
        let mut big = vec![b'x'; 65_536];
        big.extend_from_slice(b" fault");
        let c = clean(&big, false);
        assert_eq!(c.lines.len(), 1);
        assert!(c.line_text(&c.lines[0]).ends_with("x fault"));
    }

    #[test]
    fn control_characters_inside_sequences_still_break_lines() {
        // The LF is executed inside the CSI; the `m` after it is still its final byte.
        assert_eq!(lines(b"one\x1b[1\nmtwo"), ["one", "two"]);
    }

    #[test]
    fn an_ignored_csi_then_text_then_a_colour() {
        // `ESC [ 1 < 2 m` is malformed (CSI ignore): vte leaves it silently,
        // prints the run, and is inside the next sequence at the next ESC.
        assert_eq!(lines(b"\x1b[1<2mplain \x1b[31mred\x1b[0m end"), ["plain red end"]);
    }

    #[test]
    fn can_aborts_a_sequence() {
        assert_eq!(lines(b"a\x1b[12\x18b"), ["ab"]);
    }

    #[test]
    fn text_after_an_ignored_csi_keeps_its_line_breaks() {
        let got = lines(b"x\x1b[ 1mr1\nr2\n\nr3\rr4\nr5\x1b[0m\nlast\n");
        assert_eq!(got, ["xr1", "r2", "r3", "r4", "r5", "last"]);
        let c = clean(b"x\x1b[ 1mr1\nr2\n\nr3\n", false);
        assert_eq!(c.lines.iter().map(|l| l.follows).collect::<Vec<_>>(), [false, true, false]);
    }

    #[test]
    fn clean_line_is_idempotent_and_flattens_breaks() {
        let once = clean_line("\x1b[1mAPI Error\x1b[0m:\tnope\r\nnext");
        assert_eq!(once, "API Error:\tnope next");
        assert_eq!(clean_line(&once), once);
    }

    #[test]
    fn matches_strip_ansi_escapes_on_simple_colour() {
        let input = b"\x1b[32mok\x1b[0m plain \x1b[1mbold\x1b[22m";
        let theirs = String::from_utf8(strip_ansi_escapes::strip(input)).unwrap();
        assert_eq!(lines(input), [theirs]);
    }
}
