//! Record stage (SPEC §1.7): a window of JSON Lines — an agent's session
//! transcript or the event stream of its headless mode — to its records, beside
//! [`crate::pipeline::clean`] for screen text.
//!
//! The stage decides how the window is read (`--input auto|text|jsonl`) and
//! finds the complete records; it keeps only their spans, so that memory stays
//! what the window costs. The match stage parses the records, one at a time,
//! as it scans ([`crate::pipeline::matcher::CompiledProfile::scan_records`]):
//! only those that hold the words some rule needs, and only as far as its
//! rules read them ([`Shape`]).
//!
//! Detection (`auto`): the window is JSON Lines when the first complete
//! non-blank line starts with `{` (a test that costs a text log one byte), or,
//! at the log's start, a record follows a few lines of the program's banner
//! (each holding one of the words the profile names in `banner`, and no
//! brace; the pipeline reads such a window as text when no rule reads its
//! records), and
//! at least nine in ten of its complete non-blank lines are shaped as JSON
//! objects: `{` first and `}` last, blanks aside. Blank lines are allowed; the
//! other lines are skipped and counted. Whether a record's line is valid JSON
//! is learnt once, when the match stage parses it: a line that does not parse
//! is skipped and counted then ([`Records::unparsed`]). Checking every line's
//! syntax here as well would read each record twice, and a line shaped as an
//! object that is not JSON is not what any program writes. A window whose
//! only line is the cut tail of a record (one record longer than the window) is
//! read as records too, when that tail ends with `}`: the verdict then says the
//! record was cut, instead of matching screen rules against JSON text.
//!
//! A line that is a JSON array of objects (`[{…},{…}]`) is read as its
//! objects, each a record of its own: the one-shot JSON output of Claude
//! Code's `-p --output-format json --verbose` and of Qwen Code's
//! `--output-format json` is every message of the session in one array, the
//! result last. Its objects are found from the array's end back
//! (`array_records`), where the scanner knows it is outside any string, so
//! that a window cut inside a long array still yields the complete objects at
//! its end; a record's offset is then where its object starts.

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
    /// Every line shaped as a JSON object, in window order.
    pub lines: Vec<RecordLine>,
    /// Non-blank lines not shaped as a JSON object: skipped.
    pub invalid: usize,
    /// Lines of [`Records::lines`] that the scan found not to be JSON: skipped
    /// too. Counted by the match stage, which parses each line; lines after a
    /// deadline are not counted.
    pub unparsed: usize,
    /// The window's only line is the tail of a record longer than the window.
    pub cut: bool,
    /// Lines of text read past before the first record at the log's start (a
    /// program's banner); when no rule reads the records, the window is read
    /// as text instead, as it was before the banner rule.
    pub banner: usize,
}

impl Records {
    /// How many lines were skipped: not shaped as a record, or not JSON.
    pub fn skipped(&self) -> usize {
        self.invalid + self.unparsed
    }

    /// The bytes of `line` in `window`.
    pub fn bytes<'a>(&self, window: &'a [u8], line: &RecordLine) -> &'a [u8] {
        window.get(line.offset..line.end).unwrap_or_default()
    }
}

/// At most one line in this many may be invalid for `auto` to read JSON Lines.
const INVALID_SHARE: usize = 10;

/// At most this many non-blank lines of a program's banner before the first
/// record, read past by `auto` when the window starts at the log's start and
/// the profile names the banner's words (`banner`): goose prints its banner
/// on standard output before the JSON Lines of `run --output-format
/// stream-json`. Only at the start of a log, where a program prints a banner;
/// the tail of a longer log is JSON Lines from its first complete line or text.
const MAX_PREAMBLE: usize = 8;

/// Reads `bytes` (a window; `starts_mid_line` is the straddle guard's flag) as
/// records: always for [`InputMode::Jsonl`], when it holds JSON Lines for
/// [`InputMode::Auto`], never for [`InputMode::Text`]. `banner`: the words of
/// the program's banner, when the window starts at the log's start (none
/// elsewhere): `auto` reads past up to `MAX_PREAMBLE` lines, each holding
/// one of them, before the first record.
pub fn read(bytes: &[u8], starts_mid_line: bool, mode: InputMode, banner: &[String]) -> Option<Records> {
    if mode == InputMode::Text {
        return None;
    }
    let auto = mode == InputMode::Auto;
    // A text log is told apart before anything is split or parsed: its first
    // complete non-blank line does not start with `{`, and no record follows
    // a short banner at the log's start.
    let mut preamble = (0, 0);
    if auto && !first_line_opens_object(bytes, starts_mid_line) {
        match (!starts_mid_line && !banner.is_empty()).then(|| preamble_end(bytes, banner)).flatten() {
            Some(found) => preamble = found,
            None => return None,
        }
    }
    let mut lines = split(bytes, preamble.0);
    let mut cut = false;
    // The complete objects at the end of a cut array's tail.
    let mut head = Vec::new();
    if starts_mid_line && !lines.is_empty() {
        let first = lines.remove(0);
        let tail = trim(&bytes[first.offset..first.end]);
        let array = array_records(bytes, first, &mut head);
        if lines.is_empty() && head.is_empty() {
            // One record longer than the window: its tail is all there is.
            cut = true;
            if auto && !(tail.ends_with(b"}") || array && tail.ends_with(b"}]")) {
                return None;
            }
        }
    }
    let first = lines.first().map(|l| &bytes[l.offset..l.end]);
    if auto && first.is_some_and(|l| !opens_record(trim(l))) {
        return None;
    }
    let allowed = lines.len() / INVALID_SHARE;
    let mut records = Records { lines: head, invalid: 0, unparsed: 0, cut, banner: 0 };
    records.lines.reserve(lines.len());
    for line in lines {
        let body = trim(&bytes[line.offset..line.end]);
        if shaped_as_object(body) {
            records.lines.push(line);
        } else if !(opens_array_of_objects(body) && array_records(bytes, line, &mut records.lines)) {
            records.invalid += 1;
            if auto && records.invalid > allowed {
                return None;
            }
        }
    }
    records.banner = preamble.1;
    Some(records)
}

/// Where the first record starts, and how many non-blank lines come before
/// it, when at most [`MAX_PREAMBLE`] do and each holds one of the banner's
/// words and no brace (a banner, not the cut end of a record); reads no
/// further than that.
fn preamble_end(bytes: &[u8], banner: &[String]) -> Option<(usize, usize)> {
    let mut start = 0;
    let mut text = 0;
    while start < bytes.len() && text <= MAX_PREAMBLE {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let body = trim(&bytes[start..end]);
        if body.starts_with(b"{") {
            return Some((start, text));
        }
        let banner_line = body.is_empty()
            || banner.iter().any(|w| memchr::memmem::find(body, w.as_bytes()).is_some())
                && memchr::memchr2(b'{', b'}', body).is_none();
        if !banner_line {
            return None;
        }
        text += usize::from(!body.is_empty());
        start = end + 1;
    }
    None
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
    let start = rest.iter().position(|b| !b.is_ascii_whitespace());
    start.is_none_or(|i| opens_record(&rest[i..]))
}

/// Whether `line` (leading blanks skipped) opens a line of records: an
/// object, or an array whose first item is one.
fn opens_record(line: &[u8]) -> bool {
    line.starts_with(b"{") || opens_array_of_objects(line)
}

/// Whether `line` (leading blanks skipped) opens a JSON array whose first
/// item is an object: `[{`, blanks allowed between.
fn opens_array_of_objects(line: &[u8]) -> bool {
    let rest = line.strip_prefix(b"[").unwrap_or_default();
    rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Pushes onto `out`, in window order, the spans of the objects of the JSON
/// array that `line` ends (its last byte `]`), and says whether the line is
/// such an array as far as it goes: objects with only blanks and commas
/// between them (an item of another kind, or text before an object, as in a
/// `[API Error: {…}]` line, makes it none, and nothing is pushed). The scan
/// runs from the array's end back, where it is outside any string, so it
/// knows at every byte whether it is in one (a quote is escaped when an odd
/// run of backslashes comes before it) even when the line is the cut tail of
/// an array: an object whose opening brace the line lacks is not pushed. The
/// objects' syntax is checked when the scan parses them.
fn array_records(bytes: &[u8], line: RecordLine, out: &mut Vec<RecordLine>) -> bool {
    // A record line's span ends at its last non-blank byte.
    let body = &bytes[line.offset..line.end];
    let Some(close) = body.len().checked_sub(1).filter(|&c| body[c] == b']') else { return false };
    let mut found = Vec::new();
    // Brackets and braces open inside the object being read, and where it ends.
    let mut depth = 0usize;
    let mut end = 0;
    let mut in_string = false;
    let mut i = close;
    while i > 0 {
        i -= 1;
        let b = body[i];
        if depth == 0 {
            match b {
                b'}' => {
                    depth = 1;
                    end = i + 1;
                }
                // The array's own `[`: every item is read.
                b'[' => break,
                b',' => {}
                _ if b.is_ascii_whitespace() => {}
                _ => return false,
            }
            continue;
        }
        if b == b'"' {
            let backslashes = body[..i].iter().rev().take_while(|&&c| c == b'\\').count();
            if backslashes % 2 == 0 {
                in_string = !in_string;
            }
            continue;
        }
        if in_string {
            continue;
        }
        match b {
            b'}' | b']' => depth += 1,
            b'{' | b'[' => {
                depth -= 1;
                if depth == 0 {
                    if b == b'[' {
                        return false;
                    }
                    found.push(RecordLine { offset: line.offset + i, end: line.offset + end });
                }
            }
            _ => {}
        }
    }
    out.extend(found.into_iter().rev());
    true
}

/// Non-blank lines from `from` on, split at `\n`, each without its line
/// break (`\r\n` too) and with leading blanks skipped.
fn split(bytes: &[u8], from: usize) -> Vec<RecordLine> {
    let mut out = Vec::with_capacity((bytes.len() - from) / 256 + 1);
    let mut start = from;
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

/// Shaped as a JSON object: `{` first and `}` last, blanks aside. Its syntax
/// is checked when the scan parses it.
fn shaped_as_object(line: &[u8]) -> bool {
    let line = trim(line);
    line.starts_with(b"{") && line.ends_with(b"}")
}

/// Parses one record (its bytes were checked by [`read`]).
pub fn parse(line: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(line).ok()
}

/// The JSON pointers a profile reads in a record (its record conditions and
/// fields), as a tree of their tokens. [`Shape::parse`] takes from a record
/// the value at each pointer and nothing else, so that a scan builds no tree
/// of every message and tool result only to look at a few fields, and looks
/// each pointer up once per record however many rules read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// The slot of the pointer that ends here, if one does.
    slot: Option<usize>,
    /// The tokens that pointers go on with, each with the array index it
    /// names (if it names one): a few, so a list is quicker than a map.
    children: Vec<(String, Option<usize>, Shape)>,
    /// How many slots (distinct pointers) the whole shape has (root only).
    slots: usize,
}

/// The values a record holds at a [`Shape`]'s pointers, by slot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields(Vec<Option<serde_json::Value>>);

impl Fields {
    /// The value at the pointer of `slot`, if the record has one.
    pub fn get(&self, slot: usize) -> Option<&serde_json::Value> {
        self.0.get(slot)?.as_ref()
    }
}

impl Shape {
    /// Adds `pointer` (RFC 6901; empty for the whole record) and gives its
    /// slot (the same for the same pointer). A pointer that does not start
    /// with `/` leads nowhere: its slot is never filled.
    pub fn add(&mut self, pointer: &str) -> usize {
        let Some(rest) = pointer.strip_prefix('/').or(pointer.is_empty().then_some("")) else {
            self.slots += 1;
            return self.slots - 1;
        };
        let next = self.slots;
        let mut node = &mut *self;
        for token in rest.split('/').filter(|_| !pointer.is_empty()) {
            let token =
                if token.contains('~') { token.replace("~1", "/").replace("~0", "~") } else { token.to_string() };
            let at = match node.children.iter().position(|(t, _, _)| *t == token) {
                Some(at) => at,
                None => {
                    let index = index(&token);
                    node.children.push((token, index, Shape::default()));
                    node.children.len() - 1
                }
            };
            node = &mut node.children[at].2;
        }
        if let Some(slot) = node.slot {
            return slot;
        }
        node.slot = Some(next);
        self.slots += 1;
        next
    }

    /// The values of `record` at the shape's pointers, as `Value::pointer`
    /// finds them.
    pub fn fields(&self, record: &serde_json::Value) -> Fields {
        let mut fields = Fields(vec![None; self.slots]);
        self.fill(record, &mut fields);
        fields
    }

    fn fill(&self, value: &serde_json::Value, fields: &mut Fields) {
        if let Some(slot) = self.slot {
            fields.0[slot] = Some(value.clone());
        }
        self.fill_below(value, fields);
    }

    fn fill_below(&self, value: &serde_json::Value, fields: &mut Fields) {
        for (token, index, child) in &self.children {
            let below = match value {
                serde_json::Value::Object(map) => map.get(token),
                serde_json::Value::Array(items) => index.and_then(|i| items.get(i)),
                _ => None,
            };
            if let Some(below) = below {
                child.fill(below, fields);
            }
        }
    }

    /// Empties the slots of this shape and the shapes below it.
    fn clear(&self, fields: &mut Fields) {
        if let Some(slot) = self.slot {
            fields.0[slot] = None;
        }
        self.children.iter().for_each(|(_, _, child)| child.clear(fields));
    }

    /// Parses `line` as one JSON value and gives what [`Shape::fields`] gives
    /// for it. Members and items off every pointer's path are checked for
    /// syntax only and dropped unbuilt: unlike [`parse`], no nesting limit or
    /// number range applies to them (they are skipped without recursion), so
    /// a line this accepts may be one [`parse`] rejects.
    pub fn parse(&self, line: &[u8]) -> Option<Fields> {
        let mut fields = Fields(vec![None; self.slots]);
        let mut de = serde_json::Deserializer::from_slice(line);
        serde::de::DeserializeSeed::deserialize(Fill { shape: self, fields: &mut fields }, &mut de).ok()?;
        de.end().ok()?;
        Some(fields)
    }
}

/// Deserializes a value into the slots of `shape` and the shapes below it.
struct Fill<'a> {
    shape: &'a Shape,
    fields: &'a mut Fields,
}

impl<'de> serde::de::DeserializeSeed<'de> for Fill<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if let Some(slot) = self.shape.slot {
            // A pointer ends here: the value whole, and those below it from it.
            let value: serde_json::Value = serde::Deserialize::deserialize(d)?;
            self.shape.fill_below(&value, self.fields);
            self.fields.0[slot] = Some(value);
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Fill<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    // A scalar where pointers go on: none of them leads anywhere.
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(child) = map.next_key_seed(Key(self.shape))? {
            match child {
                Some(shape) => {
                    // A repeated key counts with its last value only, as in a full parse.
                    shape.clear(self.fields);
                    map.next_value_seed(Fill { shape, fields: &mut *self.fields })?;
                }
                None => drop(map.next_value::<serde::de::IgnoredAny>()?),
            }
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let child = self.shape.children.iter().find(|(_, index, _)| *index == Some(i)).map(|(_, _, c)| c);
            let more = match child {
                Some(shape) => seq.next_element_seed(Fill { shape, fields: &mut *self.fields })?.is_some(),
                None => seq.next_element::<serde::de::IgnoredAny>()?.is_some(),
            };
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }
}

/// The array index a JSON pointer token names: digits, no leading zero.
fn index(token: &str) -> Option<usize> {
    let canonical = token.len() == 1 || !token.starts_with('0');
    let digits = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    if digits && canonical { token.parse().ok() } else { None }
}

/// An object key, deserialized as the shape below it (if some pointer goes
/// on with it), without allocating it.
struct Key<'s>(&'s Shape);

impl<'de, 's> serde::de::DeserializeSeed<'de> for Key<'s> {
    type Value = Option<&'s Shape>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 's> serde::de::Visitor<'de> for Key<'s> {
    type Value = Option<&'s Shape>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.children.iter().find(|(k, _, _)| k == key).map(|(_, _, shape)| shape))
    }
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
        let r = read(jsonl, false, InputMode::Auto, &[]).unwrap();
        assert_eq!((offsets(&r), r.invalid, r.cut), (vec![0, 14], 0, false));
        assert_eq!(r.bytes(jsonl, &r.lines[1]), b"{\"type\":\"b\"}");
        assert!(read(b"API Error: 529\n{\"a\":1}\n", false, InputMode::Auto, &[]).is_none());
        assert!(read(b"", false, InputMode::Auto, &[]).unwrap().lines.is_empty());
        assert!(read(jsonl, false, InputMode::Text, &[]).is_none());
    }

    #[test]
    fn a_banner_before_the_first_record_is_read_past_at_the_log_s_start_only() {
        let goose: Vec<String> = ["__( O)>", "\\____)", "L L "].map(String::from).to_vec();
        let stream = b"\n    __( O)>  new session\n   \\____)    20261203_1\n     L L     goose is ready\n{\"type\":\"message\"}\n{\"type\":\"complete\"}\n";
        let r = read(stream, false, InputMode::Auto, &goose).unwrap();
        assert_eq!((r.lines.len(), r.invalid, r.banner), (2, 0, 3));
        assert_eq!(r.bytes(stream, &r.lines[0]), b"{\"type\":\"message\"}");
        // A profile that names no banner, or a window that is not the log's
        // start (the caller passes no words then), reads the same bytes as text.
        assert!(read(stream, false, InputMode::Auto, &[]).is_none());
        assert!(read(stream, true, InputMode::Auto, &goose).is_none());
        // Only the banner's own lines are read past: a model's or a tool's
        // line before the records makes the log text.
        let reply = b"    __( O)>  new session\nHere is the fixture:\n{\"type\":\"message\"}\n";
        assert!(read(reply, false, InputMode::Auto, &goose).is_none());
        let long = format!("{}{{\"a\":1}}\n", "L L goose\n".repeat(MAX_PREAMBLE + 1));
        assert!(read(long.as_bytes(), false, InputMode::Auto, &goose).is_none());
        let short = format!("{}{{\"a\":1}}\n", "L L goose\n".repeat(MAX_PREAMBLE));
        assert_eq!(read(short.as_bytes(), false, InputMode::Auto, &goose).unwrap().banner, MAX_PREAMBLE);
        // A banner line that holds a brace is no banner.
        assert!(read(b"L L {x\n{\"a\":1}\n", false, InputMode::Auto, &goose).is_none());
    }

    #[test]
    fn a_small_share_of_invalid_lines_is_skipped_and_counted() {
        let mut log = "{\"n\":1}\n".repeat(10);
        log.push_str("not json\n");
        let r = read(log.as_bytes(), false, InputMode::Auto, &[]).unwrap();
        assert_eq!((r.lines.len(), r.invalid), (10, 1));
        log.push_str("[1,2]\n");
        assert!(read(log.as_bytes(), false, InputMode::Auto, &[]).is_none(), "two in twelve is too many");
        let forced = read(log.as_bytes(), false, InputMode::Jsonl, &[]).unwrap();
        assert_eq!((forced.lines.len(), forced.invalid), (10, 2), "arrays are not records");
    }

    #[test]
    fn the_straddle_guard_drops_the_partial_first_record() {
        let r = read(b"e\":1}\n{\"a\":2}\n", true, InputMode::Auto, &[]).unwrap();
        assert_eq!((offsets(&r), r.invalid), (vec![6], 0));
        // Without the guard the fragment is an invalid line, and `auto` declines.
        assert!(read(b"e\":1}\n{\"a\":2}\n", false, InputMode::Auto, &[]).is_none());
    }

    #[test]
    fn a_shaped_parse_finds_what_a_full_parse_finds_at_its_pointers() {
        let pointers = [
            "/type",
            "/message/content/0/text",
            "/message/content/2/text",
            "/message",
            "/error",
            "/error/status",
            "/a~1b/~0c",
            "/n/01",
            "/n/1",
            "/deep/x/y",
            "/missing",
            "no-slash",
        ];
        let mut shape = Shape::default();
        let slots: Vec<usize> = pointers.iter().map(|p| shape.add(p)).collect();
        assert_eq!(shape.add("/type"), slots[0], "one slot per pointer");
        let records = [
            r#"{"type":"assistant","message":{"content":[{"text":"a"},{"text":"b"},{"text":"c","x":[1]}]}}"#,
            r#"{"type":"user","message":{"content":"plain text"},"error":{"status":529,"more":[1,{"k":null}]}}"#,
            r#"{"a/b":{"~c":true,"d":1},"n":[0,1,2],"deep":{"x":3},"error":"rate_limit","type":1.5}"#,
            r#"{"type":"a","type":"b","deep":{"x":{"y":1}},"deep":[{"x":{"y":false}}],"n":{"01":"key"}}"#,
            r#"{"message":{"content":[]},"error":null,"\u0074ype":"escaped key"}"#,
        ];
        for line in records {
            let full = parse(line.as_bytes()).unwrap();
            let shaped = shape.parse(line.as_bytes()).unwrap();
            assert_eq!(shaped, shape.fields(&full), "{line}");
            for (p, &slot) in pointers.iter().zip(&slots) {
                assert_eq!(shaped.get(slot), full.pointer(p), "{p} in {line}");
            }
        }
        for bad in [r#"{"type":"a""#, r#"{"x":[1,}"#, r#"{"type":"a"} trailing"#, r#"{"x":tru}"#] {
            assert!(shape.parse(bad.as_bytes()).is_none(), "{bad}");
        }
        // The whole record, and the pointers below it taken from it.
        let slot = shape.add("");
        for line in records {
            let shaped = shape.parse(line.as_bytes()).unwrap();
            assert_eq!(shaped.get(slot), parse(line.as_bytes()).as_ref(), "{line}");
            assert_eq!(shaped, shape.fields(&parse(line.as_bytes()).unwrap()), "{line}");
        }
    }

    #[test]
    fn a_line_that_is_an_array_of_objects_is_read_as_its_objects() {
        // Qwen Code's `--output-format json`: the session's messages, the
        // result last; strings hold brackets, braces, escaped quotes and
        // backslashes that must not end an object.
        let log = concat!(
            r#"[{"type":"system","tools":["a","b"]},{"type":"assistant","text":"} ] \" { [ \\"},"#,
            r#"{"type":"result","is_error":true,"error":{"message":"[API Error: 429]\\"}}]"#,
            "\n"
        )
        .as_bytes();
        let r = read(log, false, InputMode::Auto, &[]).unwrap();
        let got: Vec<&[u8]> = r.lines.iter().map(|l| r.bytes(log, l)).collect();
        assert_eq!(
            got,
            [
                br#"{"type":"system","tools":["a","b"]}"#.as_slice(),
                br#"{"type":"assistant","text":"} ] \" { [ \\"}"#,
                br#"{"type":"result","is_error":true,"error":{"message":"[API Error: 429]\\"}}"#,
            ]
        );
        assert_eq!(r.invalid, 0);
        for record in got {
            assert!(parse(record).is_some(), "{}", String::from_utf8_lossy(record));
        }
        // Beside records, with blanks; an array holding anything but objects
        // is no record, nor is its line.
        let mixed = b"{\"a\":1}\n  [ {\"b\":2} , {\"c\":[{}]} ]  \n[{\"d\":1}, 7]\n[{\"e\":1}, [2]]\n[1,2]\n";
        let r = read(mixed, false, InputMode::Jsonl, &[]).unwrap();
        let got: Vec<&[u8]> = r.lines.iter().map(|l| r.bytes(mixed, l)).collect();
        assert_eq!(got, [b"{\"a\":1}".as_slice(), b"{\"b\":2}", b"{\"c\":[{}]}"]);
        assert_eq!(r.invalid, 3);
        // A text log whose lines open with a bracket stays text.
        assert!(read(b"[API Error: 529 Overloaded]\n{\"a\":1}\n", false, InputMode::Auto, &[]).is_none());
        assert!(read(b"[{x} is a placeholder\n", false, InputMode::Auto, &[]).is_none());
    }

    #[test]
    fn the_tail_of_an_array_longer_than_the_window_yields_its_complete_objects() {
        // Cut inside a string of the first object, which holds `"},{"`.
        let tail = br#"ong text \"},{\" more"},{"type":"result","error":{"message":"x"}}]"#;
        let r = read(tail, true, InputMode::Auto, &[]).unwrap();
        assert!(!r.cut);
        let got: Vec<&[u8]> = r.lines.iter().map(|l| r.bytes(tail, l)).collect();
        assert_eq!(got, [br#"{"type":"result","error":{"message":"x"}}"#.as_slice()]);
        // No complete object in the tail: the record was cut.
        let r = read(br#"ong text"}]"#, true, InputMode::Auto, &[]).unwrap();
        assert!(r.cut && r.lines.is_empty());
        // The cut tail of a long text line that ends in an object and a
        // bracket (an agent's `[API Error: {…}]`) is text.
        assert!(read(br#"x: [API Error: {"error":{"code":503}}]"#, true, InputMode::Auto, &[]).is_none());
        assert!(read(br#"s: [{"a":1}] and more {"b":2}]"#, true, InputMode::Auto, &[]).is_none());
    }

    #[test]
    fn a_record_longer_than_the_window_is_said_cut() {
        let r = read(b"xt\":\"long\"}\n", true, InputMode::Auto, &[]).unwrap();
        assert!(r.cut && r.lines.is_empty());
        assert!(read(b"just a long line of text\n", true, InputMode::Auto, &[]).is_none());
        assert!(read(b"just a long line of text\n", true, InputMode::Jsonl, &[]).unwrap().cut);
    }
}
