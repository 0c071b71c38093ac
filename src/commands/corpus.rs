//! The corpus of real fault lines (`testdata/corpus/real.tsv`), compiled in:
//! lines that the agent CLIs and CI tools printed when their environment
//! failed, each with its source, its date and its split. For each program the
//! newest third by date is `test`, the rest `train`: rules are written from
//! `train`, and `test` measures how they do on lines nobody tuned them to.
//! `older.tsv` holds lines found after that split was drawn in posts older
//! than their program's `test` lines: they are `train`, and stand apart
//! because adding them to the newest-third count would move lines that rules
//! were written from into `test`.

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

use serde::Serialize;

/// Which part of the corpus a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Rules may be written from it.
    Train,
    /// Held out: it only measures.
    Test,
}

/// One line of the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusLine {
    /// The program that printed it (`claude-code`, `npm`, …).
    pub cli: &'static str,
    /// The fault's kind as the collector judged it.
    pub kind: &'static str,
    /// The line, verbatim.
    pub line: &'static str,
    /// Where it was captured.
    pub source: &'static str,
    /// The date of the post that quotes it (`YYYY-MM-DD`), or empty.
    pub date: &'static str,
    /// Its split.
    pub split: Split,
}

/// Every corpus line: `real.tsv` in file order, then `older.tsv`. A row
/// without its seven columns is skipped (the files are checked by the tests).
pub fn lines() -> impl Iterator<Item = CorpusLine> {
    rows(REAL).chain(rows(OLDER))
}

/// The rows of one corpus file (header skipped).
fn rows(file: &'static str) -> impl Iterator<Item = CorpusLine> {
    file.lines().skip(1).filter_map(|row| {
        let mut cols = row.split('\t');
        let mut next = || cols.next();
        let (cli, kind, line, source, date, split) = (next()?, next()?, next()?, next()?, next()?, next()?);
        let split = match split {
            "train" => Split::Train,
            "test" => Split::Test,
            _ => return None,
        };
        Some(CorpusLine { cli, kind, line, source, date, split })
    })
}

/// The built-in profile that reads the logs of `cli`: each agent CLI its own,
/// every CI tool `ci`.
pub fn profile_for(cli: &str) -> &'static str {
    match cli {
        "claude-code" => "claude",
        "codex" => "codex",
        "gemini-cli" => "gemini",
        "qwen-code" => "qwen",
        "opencode" => "opencode",
        "aider" => "aider",
        "copilot-cli" => "copilot",
        "goose" => "goose",
        "cursor-agent" => "cursor",
        "openhands" => "openhands",
        _ => "ci",
    }
}

/// The corpus lines of the profile named `profile`.
pub fn for_profile(profile: &str) -> impl Iterator<Item = CorpusLine> + '_ {
    lines().filter(move |l| profile_for(l.cli) == profile)
}

/// Each corpus line of `profile` with the text its program printed up to and
/// including it: the earlier lines of the same post (same program and
/// source, in file order), then the line. A continuation line (a JSON
/// body's `"status": "INTERNAL"`, a wrapped tail) names no cause alone; in
/// a real log it sits below the line that does, and this is how a session
/// that printed it is classified.
pub fn as_printed(profile: &str) -> impl Iterator<Item = (CorpusLine, String)> + '_ {
    let mut printed: std::collections::HashMap<(&str, &str), String> = Default::default();
    for_profile(profile).map(move |l| {
        let text = printed.entry((l.cli, l.source)).or_default();
        text.push_str(l.line);
        text.push('\n');
        (l, text.clone())
    })
}

/// Lines caught out of lines tried, on one split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Recall {
    /// Lines classified as an environment fault.
    pub caught: usize,
    /// Lines tried.
    pub lines: usize,
}

impl Recall {
    /// Counts one line.
    pub fn add(&mut self, caught: bool) {
        self.lines += 1;
        self.caught += usize::from(caught);
    }

    /// The share caught (1 when there is nothing to catch).
    pub fn share(&self) -> f64 {
        if self.lines == 0 { 1.0 } else { self.caught as f64 / self.lines as f64 }
    }
}

/// Two counts together (profiles summed, as the agent profiles are).
impl std::ops::Add for Recall {
    type Output = Recall;

    fn add(self, other: Recall) -> Recall {
        Recall { caught: self.caught + other.caught, lines: self.lines + other.lines }
    }
}

impl std::fmt::Display for Recall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} ({:.0}%)", self.caught, self.lines, self.share() * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_its_source() {
        let rows = REAL.lines().skip(1).count() + OLDER.lines().skip(1).count();
        let parsed: Vec<_> = lines().collect();
        assert_eq!(parsed.len(), rows, "a row lost its columns or has an unknown split");
        assert!(parsed.iter().all(|l| !l.line.is_empty() && !l.source.is_empty()));
    }

    #[test]
    fn the_newest_third_of_each_program_is_the_test_split() {
        let mut by_cli: std::collections::BTreeMap<&str, Vec<CorpusLine>> = Default::default();
        for l in rows(REAL) {
            by_cli.entry(l.cli).or_default().push(l);
        }
        for (cli, mut rows) in by_cli {
            // File order breaks ties between lines of one date.
            rows.sort_by_key(|l| l.date);
            let held = rows.len() / 3;
            let (train, test) = rows.split_at(rows.len() - held);
            assert!(train.iter().all(|l| l.split == Split::Train), "{cli}: a train line among the oldest");
            assert!(test.iter().all(|l| l.split == Split::Test), "{cli}: a test line is not among the newest third");
        }
    }

    #[test]
    fn an_older_line_is_train_and_predates_its_program_s_test_lines() {
        let mut first_test: std::collections::HashMap<&str, &str> = Default::default();
        for l in rows(REAL).filter(|l| l.split == Split::Test) {
            let d = first_test.entry(l.cli).or_insert(l.date);
            *d = (*d).min(l.date);
        }
        let older: Vec<_> = rows(OLDER).collect();
        assert!(!older.is_empty());
        for l in older {
            assert_eq!(l.split, Split::Train, "{}", l.source);
            assert!(
                l.date.len() == 10 && l.date <= first_test[l.cli],
                "{}: newer than a test line of {}",
                l.source,
                l.cli
            );
        }
    }

    #[test]
    fn a_line_is_printed_below_the_earlier_lines_of_its_post() {
        let mut seen: std::collections::HashMap<(&str, &str), usize> = Default::default();
        for (l, text) in as_printed("gemini") {
            let n = seen.entry((l.cli, l.source)).or_default();
            *n += 1;
            assert!(text.ends_with(&format!("{}\n", l.line)));
            assert_eq!(text.lines().count(), *n, "{}: the block holds the post's lines so far", l.source);
        }
        assert!(seen.values().any(|&n| n > 1), "some post gives more than one line");
    }

    #[test]
    fn recall_counts_and_shares() {
        let mut r = Recall::default();
        assert_eq!(r.share(), 1.0);
        r.add(true);
        r.add(false);
        r.add(true);
        assert_eq!((r.caught, r.lines), (2, 3));
        assert_eq!(r.to_string(), "2/3 (67%)");
        assert_eq!(r + Recall { caught: 1, lines: 4 }, Recall { caught: 3, lines: 7 });
    }
}
