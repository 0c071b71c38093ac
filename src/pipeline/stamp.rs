//! The stamp a CI host writes before every line of a job's log (GitHub
//! Actions' raw log and `gh run view --log`, `docker logs --timestamps`,
//! GitLab's timestamped logs, Jenkins' Timestamper), found by hand: a line
//! without one costs a look at its first bytes and, for the job and step
//! columns, a search for two tabs within its first [`COLUMNS_MAX`] bytes.
//!
//! An agent CLI run as a CI step prints the lines its profile reads, but the
//! log a user downloads has the host's stamp in front of each, where no rule
//! of the program's own grammar expects it. The matcher tries each rule on
//! the line as it is and, when the line is stamped, on what follows the stamp
//! (see `crate::pipeline::matcher`): a program's own timestamped log lines
//! (Codex's and goose's tracing) still match their rules whole.

/// The length in bytes of the CI host's stamp at the start of `line`, or 0.
///
/// Stamps, each at column 0 and followed by exactly one space:
///
/// - an RFC 3339 UTC time, `2026-11-30T12:00:00.1234567Z` (GitHub Actions,
///   `docker logs --timestamps`), or the same in brackets (Jenkins);
/// - that time after `gh run view --log`'s job and step columns
///   (`build<TAB>Run claude<TAB>2026-…Z `);
/// - that time followed by GitLab's stream marker (`00O `, `00E `, `00O+ `).
///
/// What follows the stamp keeps its own blanks: the program's indentation is
/// part of its grammar.
pub fn len(line: &str) -> usize {
    parse(line).0
}

/// The stamp's length, and whether it holds `gh run view --log`'s job and
/// step columns (no program prints its own lines so: such a line is read
/// only after its stamp).
fn parse(line: &str) -> (usize, bool) {
    let b = line.as_bytes();
    let Some(&first) = b.first() else { return (0, false) };
    if (first.is_ascii_digit() || first == b'[')
        && let Some(end) = time_at(b, 0)
    {
        return (gitlab_marker(b, end), false);
    }
    // `gh run view --log`: two columns without tabs (a job may be named
    // `3.12` or `[linux] test`), then the time.
    let head = &b[..b.len().min(COLUMNS_MAX)];
    let mut tabs = head.iter().enumerate().filter(|&(_, &c)| c == b'\t').map(|(i, _)| i);
    match (tabs.next(), tabs.next()) {
        (Some(a), Some(s)) if a > 0 && s > a + 1 => {
            time_at(b, s + 1).map_or((0, false), |end| (gitlab_marker(b, end), true))
        }
        _ => (0, false),
    }
}

/// The texts a rule reads of `line`: the line itself, unless a host's job
/// and step columns start it, and what follows its stamp, if it has one. A
/// bare time stays part of the line as well, as programs write their own log
/// lines after one (Codex's and goose's tracing).
pub fn readings(line: &str) -> [Option<&str>; 2] {
    match parse(line) {
        (0, _) => [Some(line), None],
        (n, columns) => [(!columns).then_some(line), line.get(n..)],
    }
}

/// How far into a line the job and step columns of `gh run view --log` may
/// reach: names of a job and a step are a line of a workflow file each, and
/// a line whose second tab comes later is taken for no such line.
pub const COLUMNS_MAX: usize = 1024;

/// The end (past its one trailing space) of an RFC 3339 UTC time that
/// starts at `at`, bare or in brackets.
fn time_at(b: &[u8], at: usize) -> Option<usize> {
    let bracketed = b.get(at) == Some(&b'[');
    let mut i = at + usize::from(bracketed);
    // YYYY-MM-DDTHH:MM:SS
    for (k, shape) in b"dddd-dd-ddTdd:dd:dd".iter().enumerate() {
        let c = *b.get(i + k)?;
        let ok = if *shape == b'd' { c.is_ascii_digit() } else { c == *shape };
        if !ok {
            return None;
        }
    }
    i += 19;
    if b.get(i) == Some(&b'.') {
        let digits = b[i + 1..].iter().take(10).take_while(|c| c.is_ascii_digit()).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        i += 1 + digits;
    }
    if b.get(i) != Some(&b'Z') {
        return None;
    }
    i += 1;
    if bracketed {
        if b.get(i) != Some(&b']') {
            return None;
        }
        i += 1;
    }
    (b.get(i) == Some(&b' ')).then_some(i + 1)
}

/// `end`, or past GitLab's stream marker (two digits, `O` or `E`, an
/// optional `+`, one space) when one follows the time.
fn gitlab_marker(b: &[u8], end: usize) -> usize {
    let rest = &b[end..];
    let marker = match rest {
        [d1, d2, s, b'+', b' ', ..] if d1.is_ascii_digit() && d2.is_ascii_digit() && matches!(s, b'O' | b'E') => 5,
        [d1, d2, s, b' ', ..] if d1.is_ascii_digit() && d2.is_ascii_digit() && matches!(s, b'O' | b'E') => 4,
        _ => 0,
    };
    end + marker
}

#[cfg(test)]
mod tests {
    use super::{len, readings};

    fn strip(line: &str) -> Option<&str> {
        readings(line)[1]
    }

    #[test]
    fn each_host_s_stamp_is_taken_off_and_the_program_s_blanks_kept() {
        let cases = [
            ("2026-11-30T12:00:00.1234567Z API Error: 529", "API Error: 529"),
            ("2026-11-30T12:00:00Z   ⎿  API Error: 529", "  ⎿  API Error: 529"),
            ("agent\tRun claude\t2026-11-30T12:00:00.1234567Z ■ stream error", "■ stream error"),
            ("2025-05-01T16:54:54.391328056Z 16:54:54 - openhands:ERROR", "16:54:54 - openhands:ERROR"),
            ("[2026-11-30T12:00:00.123Z] ✕ [API Error: 503]", "✕ [API Error: 503]"),
            ("2026-11-30T12:00:00.123456Z 00O+ Error: 429", "Error: 429"),
            ("2026-11-30T12:00:00.123456Z 01E npm ERR! network", "npm ERR! network"),
            ("3.12\ttest\t2026-11-30T12:00:00.1234567Z API Error: 529", "API Error: 529"),
            ("[linux] test\tRun claude\t2026-11-30T12:00:00.1234567Z ⎿  API Error", "⎿  API Error"),
        ];
        for (line, rest) in cases {
            assert_eq!(strip(line), Some(rest), "{line:?}");
        }
    }

    #[test]
    fn a_bare_time_may_be_the_program_s_own_and_the_job_s_columns_never_are() {
        let tracing = "2026-06-03T04:59:43.895480Z ERROR codex_api::endpoint: failed to connect";
        assert_eq!(readings(tracing), [Some(tracing), Some("ERROR codex_api::endpoint: failed to connect")]);
        let gh = "agent\tRun the agent\t2026-11-30T12:00:00.1234567Z Too Many Requests";
        assert_eq!(readings(gh), [None, Some("Too Many Requests")]);
        assert_eq!(readings("plain"), [Some("plain"), None]);
    }

    #[test]
    fn lines_without_a_whole_stamp_are_left_alone() {
        for line in [
            "",
            "API Error: 529",
            "  2026-11-30T12:00:00Z API Error: 529",
            "2026-11-30 12:00:00 API Error: 529",
            "2026-11-30T12:00:00+01:00 API Error: 529",
            "2026-11-30T12:00:00.Z API Error",
            "2026-11-30T12:00:00.1234567890Z API Error",
            "2026-11-30T12:00:00Z",
            "2026-11-30T12:00:00ZAPI Error",
            "[2026-11-30T12:00:00Z API Error",
            "\tstep\t2026-11-30T12:00:00Z x",
            "job\t\t2026-11-30T12:00:00Z x",
            "job\tstep\tnot a time",
            "2026-11-30T1",
            "2026-11-30T12:00:00.1234567890123Z API Error",
        ] {
            assert_eq!(len(line), 0, "{line:?}");
        }
    }
}
