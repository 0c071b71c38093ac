//! The bait corpus, compiled in from `testdata/bait/`: healthy-session output
//! that carries the vocabulary of faults (tests, docs, diffs, grep output, the
//! profile files). No `carries_model_output` profile may match any of it.

include!(concat!(env!("OUT_DIR"), "/bait.rs"));

/// One bait line and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaitLine {
    /// The file under `testdata/bait/`.
    pub file: &'static str,
    /// 1-based line number.
    pub line: usize,
    /// The line.
    pub text: &'static str,
}

/// Every bait line. Blank lines are skipped, and so are lines starting with `#`
/// except in `profile-files.txt`, where TOML comments are bait too.
pub fn lines() -> impl Iterator<Item = BaitLine> {
    FILES.iter().flat_map(|&(file, text)| {
        text.lines().enumerate().filter_map(move |(i, line)| {
            let comment = line.starts_with('#') && file != "profile-files.txt";
            (!line.trim().is_empty() && !comment).then_some(BaitLine { file, line: i + 1, text: line })
        })
    })
}
