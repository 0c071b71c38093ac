//! The state file of `faultsift stall`: one small JSON record per session,
//! updated under a lock and replaced atomically, so that two overlapping
//! ticks neither tear it nor lose each other's update.
//!
//! - The lock is `FILE.lock`, beside the state file and never replaced (a lock
//!   on the state file itself would be lost when the new file is renamed over
//!   it). A tick waits for it at most [`LOCK_WAIT`], then fails: a tick that
//!   hangs must not hang the next one.
//! - The new record goes to `FILE.tmp` in the same directory (so the rename
//!   stays on one file system) and is renamed over `FILE`. It is not synced:
//!   after a power loss the file may be empty or stale, and an empty, corrupt
//!   or future-dated file starts the clock afresh, which never gives a stall.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Prior;

/// The value of the state file's `schema` field.
pub const STATE_SCHEMA: &str = "faultsift/stall-state/v1";
/// The largest state file read: a record is a few hundred bytes.
const MAX_STATE_BYTES: u64 = 64 << 10;
/// How long a tick waits for another tick's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// What one tick leaves for the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The session it belongs to.
    pub session: String,
    /// The profile its screen identities were made with.
    pub profile: String,
    /// The screen identity last seen; null after `--idle`.
    pub screen: Option<String>,
    /// When the static clock started (seconds since the Unix epoch).
    pub since: u64,
    /// When the last tick ran.
    pub tick: u64,
    /// The last tick was busy (a busy line, or `--busy`).
    pub busy: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    schema: String,
    session: String,
    profile: String,
    screen: Option<String>,
    since: u64,
    tick: u64,
    busy: bool,
}

/// Reads a state file's bytes: a record, or why it cannot be used.
pub fn parse(bytes: &[u8]) -> Prior {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Prior::Unusable("the state file is empty".to_string());
    }
    match serde_json::from_slice::<OnDisk>(bytes) {
        Ok(d) if d.schema == STATE_SCHEMA => Prior::Record(Record {
            session: d.session,
            profile: d.profile,
            screen: d.screen,
            since: d.since,
            tick: d.tick,
            busy: d.busy,
        }),
        Ok(d) => Prior::Unusable(format!("the state file has schema `{}`, not `{STATE_SCHEMA}`", d.schema)),
        Err(e) => Prior::Unusable(format!("the state file is not a stall state ({e})")),
    }
}

/// A record as the state file holds it: one JSON line.
pub fn to_bytes(record: &Record) -> Vec<u8> {
    let d = OnDisk {
        schema: STATE_SCHEMA.to_string(),
        session: record.session.clone(),
        profile: record.profile.clone(),
        screen: record.screen.clone(),
        since: record.since,
        tick: record.tick,
        busy: record.busy,
    };
    let mut out = serde_json::to_vec(&d).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Runs one tick's update of the state file at `path`: under the lock, reads
/// the record (or why there is none), hands it to `decide`, and writes the
/// record `decide` returns atomically. Fails on I/O errors other than a
/// missing state file, and when the lock is not had within [`LOCK_WAIT`].
pub fn update<T>(path: &Path, decide: impl FnOnce(Prior) -> (T, Record)) -> io::Result<T> {
    let lock = OpenOptions::new().create(true).truncate(false).write(true).open(sibling(path, ".lock"))?;
    acquire(&lock)?;
    let prior = read(path)?;
    let (out, record) = decide(prior);
    let tmp = sibling(path, ".tmp");
    let written =
        File::create(&tmp).and_then(|mut f| f.write_all(&to_bytes(&record))).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    // The lock is released when `lock` is closed.
    drop(lock);
    Ok(out)
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Takes the lock, waiting at most [`LOCK_WAIT`].
fn acquire(lock: &File) -> io::Result<()> {
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!("another tick has held the state file's lock for over {}s", LOCK_WAIT.as_secs()),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// The record at `path`; a missing file is no record, said as a reason.
fn read(path: &Path) -> io::Result<Prior> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Prior::Unusable("the state file does not exist yet (the session's first tick)".to_string()));
        }
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(MAX_STATE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return Ok(Prior::Unusable(format!("the state file is over {} KiB", MAX_STATE_BYTES >> 10)));
    }
    Ok(parse(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record {
            session: "s".into(),
            profile: "claude".into(),
            screen: Some("00ff".into()),
            since: 10,
            tick: 40,
            busy: false,
        }
    }

    #[test]
    fn records_round_trip() {
        assert_eq!(parse(&to_bytes(&record())), Prior::Record(record()));
        let cleared = Record { screen: None, ..record() };
        assert_eq!(parse(&to_bytes(&cleared)), Prior::Record(cleared));
    }

    #[test]
    fn bad_files_are_unusable_and_say_why() {
        let why = |bytes: &[u8]| match parse(bytes) {
            Prior::Unusable(w) => w,
            Prior::Record(r) => panic!("{r:?}"),
        };
        assert!(why(b"").contains("empty"));
        assert!(why(b" \n").contains("empty"));
        assert!(why(b"{\"schema\":").contains("not a stall state"));
        assert!(why(&[0xff, 0xfe, 0x00]).contains("not a stall state"));
        let other = String::from_utf8(to_bytes(&record())).unwrap().replace(STATE_SCHEMA, "faultsift/stall-state/v9");
        assert!(why(other.as_bytes()).contains("stall-state/v9"));
        let extra = String::from_utf8(to_bytes(&record())).unwrap().replace("\"busy\"", "\"x\":1,\"busy\"");
        assert!(why(extra.as_bytes()).contains("not a stall state"));
    }

    #[test]
    fn update_reads_decides_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.state");
        let first = update(&path, |prior| (prior, record())).unwrap();
        assert!(matches!(first, Prior::Unusable(w) if w.contains("does not exist")));
        let second = update(&path, |prior| (prior, Record { tick: 70, ..record() })).unwrap();
        assert_eq!(second, Prior::Record(record()));
        assert_eq!(parse(&std::fs::read(&path).unwrap()), Prior::Record(Record { tick: 70, ..record() }));
        assert!(!sibling(&path, ".tmp").exists(), "the temporary file was renamed");
    }

    #[test]
    fn a_held_lock_is_waited_for_then_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.state");
        let held = OpenOptions::new().create(true).truncate(false).write(true).open(sibling(&path, ".lock")).unwrap();
        held.lock().unwrap();
        let started = Instant::now();
        let e = update(&path, |_| ((), record())).unwrap_err();
        assert!(started.elapsed() >= LOCK_WAIT, "waited for the lock");
        assert!(e.to_string().contains("lock"), "{e}");
        assert!(!path.exists(), "nothing written without the lock");
    }
}
