//! Window stage: the bounded tail of a log (SPEC §1.1–1.2), read at its offset for
//! files and through a ring buffer for streams, plus the straddle-guard flag.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

/// The default window: the last 64 KiB of the log.
pub const DEFAULT_TAIL_BYTES: u64 = 64 * 1024;

/// The largest window `--tail-bytes` accepts; larger values are a usage error.
pub const MAX_TAIL_BYTES: u64 = 64 * 1024 * 1024;

/// Read size for streams; also the slack the ring buffer keeps above the window.
const CHUNK: usize = 64 * 1024;

/// One log to classify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogSource {
    /// Standard input (`-`, or no log with piped input), with the name
    /// verdicts give it (`--label`), or none for `-`.
    Stdin(Option<String>),
    /// A file (or FIFO, or device) by path.
    Path(PathBuf),
}

impl LogSource {
    /// The log as the verdict names it: the path as given, `-` for stdin.
    pub fn label(&self) -> String {
        match self {
            LogSource::Stdin(label) => label.clone().unwrap_or_else(|| "-".to_string()),
            LogSource::Path(p) => p.to_string_lossy().into_owned(),
        }
    }
}

/// Reads the window of one log: regular files at the window's offset, anything
/// else (standard input, FIFOs, devices) as a stream.
pub fn read(source: &LogSource, spec: WindowSpec) -> io::Result<Window> {
    match source {
        LogSource::Stdin(_) => read_stream(io::stdin().lock(), spec),
        LogSource::Path(path) => {
            let file = File::open(path)?;
            let meta = file.metadata()?;
            if meta.is_dir() {
                return Err(io::Error::other("is a directory"));
            }
            // A regular file that reports size 0 may still have content
            // (`/proc`, `/sys`): it is read as a stream, bounded the same way.
            if meta.is_file() && meta.len() > 0 { read_file(&file, meta.len(), spec) } else { read_stream(file, spec) }
        }
    }
}

/// Which bytes of a log to classify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowSpec {
    /// How many bytes of the log's end to keep.
    pub tail_bytes: u64,
    /// Ignore the bytes before this absolute offset (`--since`).
    pub since: Option<u64>,
}

impl Default for WindowSpec {
    fn default() -> Self {
        WindowSpec { tail_bytes: DEFAULT_TAIL_BYTES, since: None }
    }
}

/// The tail of one log, with where it sits in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The window's bytes, exactly as in the log.
    pub bytes: Vec<u8>,
    /// Absolute offset in the log of `bytes[0]`.
    pub start: u64,
    /// The log's length in bytes (for a stream: every byte read).
    pub log_bytes: u64,
    /// `--since` pointed past the end: the log was replaced, the plain tail is used.
    pub rotated: bool,
    /// The window starts inside a line, so its first line is a fragment
    /// (the straddle guard of SPEC §1.2 drops it unless it is the only line).
    pub starts_mid_line: bool,
}

impl Window {
    /// Absolute offset one past the window's last byte.
    pub fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// The window is not the whole log: bytes before it were left out.
    pub fn truncated(&self) -> bool {
        self.start > 0
    }
}

/// Where the window of a log of `size` bytes starts, decided before reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    start: u64,
    rotated: bool,
    /// The byte before `start` decides the straddle guard and must be read.
    check_prev: bool,
}

fn plan(size: u64, spec: WindowSpec) -> Plan {
    let (floor, rotated) = match spec.since {
        Some(since) if since > size => (0, true),
        Some(since) => (since, false),
        None => (0, false),
    };
    let start = floor.max(size.saturating_sub(spec.tail_bytes));
    // A window that starts where the caller said the session started (`--since`)
    // starts on a boundary the caller chose: nothing to guard.
    let at_since = spec.since.is_some() && !rotated && start == floor;
    Plan { start, rotated, check_prev: start > 0 && !at_since }
}

fn finish(plan: Plan, prev: Option<u8>, bytes: Vec<u8>, log_bytes: u64) -> Window {
    let starts_mid_line = plan.check_prev && !matches!(prev, Some(b'\n' | b'\r'));
    Window { bytes, start: plan.start, log_bytes, rotated: plan.rotated, starts_mid_line }
}

/// The window of a log held entirely in memory. Files and streams give the same
/// window for the same bytes; this is the reference they are tested against.
pub fn from_bytes(log: &[u8], spec: WindowSpec) -> Window {
    let plan = plan(log.len() as u64, spec);
    // `plan.start <= log.len()` by construction, so the conversions are lossless.
    let start = usize::try_from(plan.start).unwrap_or(log.len());
    let prev = plan.check_prev.then(|| log[start - 1]);
    finish(plan, prev, log[start..].to_vec(), log.len() as u64)
}

/// Reads the window of a regular file at its offset: the cost does not depend
/// on the file's size, nor on where the file's cursor is. `size` is its length
/// as the caller found it (callers stat the file anyway, to tell files from
/// directories and streams). A file that shrinks while it is read gives a
/// shorter window.
pub fn read_file(file: &File, size: u64, spec: WindowSpec) -> io::Result<Window> {
    let plan = plan(size, spec);
    let prev = if plan.check_prev {
        let mut byte = [0u8];
        (retry(|| read_at(file, &mut byte, plan.start - 1))? == 1).then_some(byte[0])
    } else {
        None
    };
    // Bounded by the size seen at stat time: a log still being appended to does
    // not make the window grow past `tail_bytes`.
    let mut buf = vec![0; usize::try_from(size - plan.start).unwrap_or(0)];
    // One read for the usual window, where `read_to_end` through `take` made
    // four of growing sizes and a fifth to find the end.
    let mut filled = 0;
    while filled < buf.len() {
        match retry(|| read_at(file, &mut buf[filled..], plan.start + filled as u64))? {
            0 => break,
            n => filled += n,
        }
    }
    buf.truncate(filled);
    Ok(finish(plan, prev, buf, size))
}

/// Reads at `offset` without the file's cursor: one system call (`pread`),
/// where seeking and reading took two — a fifth of the calls a batch makes
/// per log.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

#[cfg(not(any(unix, windows)))]
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read(buf)
}

/// Makes a read again when a signal interrupts it.
fn retry(mut read: impl FnMut() -> io::Result<usize>) -> io::Result<usize> {
    loop {
        match read() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            done => return done,
        }
    }
}

/// Reads a stream to its end, keeping only the last window (plus the byte before
/// it) in memory: the window and one read's worth, whatever the stream's length.
/// Offsets count from the stream's first byte.
pub fn read_stream(mut reader: impl Read, spec: WindowSpec) -> io::Result<Window> {
    // `tail_bytes` is capped at MAX_TAIL_BYTES by the caller; the fallback only
    // keeps a hostile value from overflowing.
    let keep = usize::try_from(spec.tail_bytes).unwrap_or(usize::MAX / 4) + 1;
    // A ring of `keep + CHUNK` bytes: each read lands at the write position,
    // which wraps to the front, so no byte is copied twice and the buffer
    // stays small enough to stay in cache while a long stream goes through.
    let capacity = keep + CHUNK;
    let mut ring: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    let mut wrapped = false;
    let mut total: u64 = 0;
    loop {
        let end = (pos + CHUNK).min(capacity);
        if end > ring.len() {
            // Grown on demand: a short stream never allocates the whole capacity.
            ring.resize(end.max(ring.len() * 2).min(capacity), 0);
        }
        let n = retry(|| reader.read(&mut ring[pos..end]))?;
        if n == 0 {
            break;
        }
        pos += n;
        total += n as u64;
        if pos == capacity {
            pos = 0;
            wrapped = true;
        }
    }
    if wrapped {
        ring.rotate_left(pos);
    } else {
        ring.truncate(pos);
    }
    // `ring` now ends at `total` and holds at least `keep` bytes unless the stream
    // was shorter; the plan never starts earlier than `total - keep + 1`.
    let ring_start = total - ring.len() as u64;
    let plan = plan(total, spec);
    let rel = usize::try_from(plan.start - ring_start).unwrap_or(ring.len()).min(ring.len());
    let prev = if plan.check_prev && rel > 0 { Some(ring[rel - 1]) } else { None };
    ring.drain(..rel);
    Ok(finish(plan, prev, ring, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tail: u64, since: Option<u64>) -> WindowSpec {
        WindowSpec { tail_bytes: tail, since }
    }

    #[test]
    fn small_log_is_whole_window() {
        let w = from_bytes(b"abc\ndef\n", spec(64, None));
        assert_eq!(w.bytes, b"abc\ndef\n");
        assert_eq!((w.start, w.end(), w.log_bytes), (0, 8, 8));
        assert!(!w.truncated() && !w.rotated && !w.starts_mid_line);
    }

    #[test]
    fn tail_cut_inside_a_line_is_flagged() {
        let w = from_bytes(b"hello world\nbye\n", spec(8, None));
        assert_eq!(w.bytes, b"rld\nbye\n");
        assert_eq!(w.start, 8);
        assert!(w.truncated() && w.starts_mid_line);
    }

    #[test]
    fn tail_cut_after_newline_or_cr_is_not_flagged() {
        assert!(!from_bytes(b"hello\nbye\n", spec(4, None)).starts_mid_line);
        assert!(!from_bytes(b"hello\rbye\n", spec(4, None)).starts_mid_line);
    }

    #[test]
    fn since_inside_the_log_starts_there_without_guard() {
        let w = from_bytes(b"old line\nnew line\n", spec(64, Some(4)));
        assert_eq!(w.bytes, b"line\nnew line\n");
        assert_eq!(w.start, 4);
        assert!(!w.starts_mid_line && !w.rotated);
    }

    #[test]
    fn since_before_the_tail_uses_the_tail_and_guards_it() {
        let w = from_bytes(b"0123456789abcdef", spec(4, Some(2)));
        assert_eq!((w.start, w.bytes.as_slice()), (12, &b"cdef"[..]));
        assert!(w.starts_mid_line);
    }

    #[test]
    fn since_past_the_end_means_rotated() {
        let w = from_bytes(b"fresh log\n", spec(64, Some(1000)));
        assert!(w.rotated);
        assert_eq!((w.start, w.bytes.as_slice()), (0, &b"fresh log\n"[..]));
    }

    #[test]
    fn since_at_the_end_is_an_empty_window() {
        let w = from_bytes(b"abc", spec(64, Some(3)));
        assert!(w.bytes.is_empty() && !w.rotated);
    }

    #[test]
    fn stream_matches_in_memory_for_many_sizes() {
        let log: Vec<u8> = (0..300_000u32).map(|i| if i % 97 == 0 { b'\n' } else { b'a' + (i % 26) as u8 }).collect();
        for tail in [1, 2, 97, 4096, 65_536, 1_000_000] {
            for since in [None, Some(0), Some(150_000), Some(299_999), Some(300_000), Some(400_000)] {
                let s = spec(tail, since);
                let expected = from_bytes(&log, s);
                let got = read_stream(&log[..], s).unwrap();
                assert_eq!(got, expected, "tail {tail} since {since:?}");
            }
        }
    }

    #[test]
    fn stream_in_small_reads_matches_in_memory() {
        // A reader that returns a few bytes at a time wraps the ring at odd places.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(7).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let log: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let s = spec(1000, None);
        assert_eq!(read_stream(Trickle(&log), s).unwrap(), from_bytes(&log, s));
    }

    #[test]
    fn file_matches_in_memory() {
        use std::io::Write;
        let mut f = tempfile::tempfile().unwrap();
        let log: Vec<u8> = (0..100_000u32).map(|i| if i % 50 == 0 { b'\r' } else { b'x' }).collect();
        f.write_all(&log).unwrap();
        for (tail, since) in [(65_536, None), (10, None), (50, None), (100, Some(99_990)), (64, Some(200_000))] {
            let s = spec(tail, since);
            assert_eq!(read_file(&f, log.len() as u64, s).unwrap(), from_bytes(&log, s), "tail {tail} since {since:?}");
        }
    }

    #[test]
    fn a_read_interrupted_by_a_signal_is_made_again() {
        /// Interrupted before each read that returns data.
        struct Jumpy<'a>(&'a [u8], bool);
        impl Read for Jumpy<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.1 = !self.1;
                if self.1 && !self.0.is_empty() {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                let n = buf.len().min(self.0.len()).min(3);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let log = b"abc\ndef\nghi\n";
        let w = read_stream(Jumpy(log, false), spec(65_536, None)).unwrap();
        assert_eq!(w.bytes, log);
        let mut buf = [0; 8];
        let mut jumpy = Jumpy(log, false);
        assert_eq!(retry(|| jumpy.read(&mut buf)).unwrap(), 3);
    }

    #[test]
    fn a_file_shorter_than_its_stat_gives_what_it_holds() {
        use std::io::Write;
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"abc\ndef\n").unwrap();
        // Stat'ed at 20 bytes, truncated to 8 before the read.
        let w = read_file(&f, 20, spec(65_536, None)).unwrap();
        assert_eq!(w.bytes, b"abc\ndef\n");
    }
}
