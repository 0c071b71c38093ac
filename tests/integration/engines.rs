//! The two regex engines agree (`src/lite.rs`): every built-in profile,
//! compiled as `classify` compiles it (patterns on `regex-lite` where they have
//! a lite form), finds on each line exactly what `regex` finds with the
//! patterns as written — which patterns match, the span, the named groups —
//! over the corpus, the bait (but the profile files' own text), the fixture
//! logs, every rule's examples and counterexamples, and variants of those
//! lines with Unicode spaces, digits and word characters placed where the
//! engines would part.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use faultsift::CompiledProfile;
use faultsift::pipeline::matcher::Found;
use faultsift::profile::{Layer, Resolver, builtin};

use crate::util::testdata;

#[test]
fn every_built_in_pattern_has_a_lite_form() {
    let missing: Vec<&str> = builtin::BUILTINS
        .iter()
        .flat_map(|b| b.rules.iter().flat_map(|r| r.patterns.iter()))
        .filter(|p| p.lite.is_none())
        .map(|p| p.source)
        .collect();
    assert!(missing.is_empty(), "patterns left on `regex`: {missing:#?}");
}

#[test]
fn lite_and_regex_agree_on_every_line() {
    let lines = corpus_lines();
    assert!(lines.len() > 10_000, "{} lines", lines.len());
    // One thread per profile: the reference side runs every pattern on every
    // line, the longest test of the suite, and the profiles are independent.
    let counts: Vec<(usize, usize)> = std::thread::scope(|scope| {
        let workers: Vec<_> = builtin::BUILTINS.iter().map(|b| scope.spawn(|| compare(b, &lines))).collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let (compared, matched) = counts.iter().fold((0, 0), |(c, m), &(dc, dm)| (c + dc, m + dm));
    // The comparison means something only if many lines do match.
    assert!(matched > 500, "{matched} of {compared} lines matched some pattern");
}

/// Compares the engines on `lines` and the examples and counterexamples of
/// built-in `b`: how many lines were compared, and how many matched a pattern.
fn compare(b: &builtin::Builtin, lines: &[String]) -> (usize, usize) {
    let resolver = Resolver::new(vec![Layer::Builtin]);
    let (mut compared, mut matched) = (0usize, 0usize);
    let profile = resolver.resolve_for_matching(b.name).unwrap();
    // Pattern indices of a compiled profile run over the rules in order.
    let reference: Vec<regex::Regex> = profile
        .rules
        .iter()
        .flat_map(|r| r.effective_patterns().collect::<Vec<_>>())
        .map(|p| regex::Regex::new(&p).unwrap())
        .collect();
    // A record rule's patterns search a record's field, never a line.
    let on_lines: Vec<bool> =
        profile.rules.iter().flat_map(|r| std::iter::repeat_n(!r.is_record_rule(), r.patterns.len())).collect();
    let compiled = CompiledProfile::compile(profile, "builtin").unwrap();
    let examples: Vec<String> = resolver
        .resolve(b.name)
        .unwrap()
        .rules
        .iter()
        .flat_map(|r| r.examples.iter().chain(&r.counterexamples).cloned())
        .flat_map(|l| variants(&l))
        .collect();
    let check = |line: &str| {
        // The stamp is read once per line and a pattern's groups
        // resolved only where it matches: the reference side runs every
        // pattern on every line, which took two minutes of CI when each
        // pattern read the stamp again and resolved its groups.
        let stamp = stamp_len(line);
        let expected: Vec<usize> =
            (0..reference.len()).filter(|&p| on_lines[p] && matches(&reference[p], line, stamp)).collect();
        assert_eq!(compiled.matching_patterns(line), expected, "profile {}, line {line:?}", b.name);
        let mut spans = Vec::new();
        for &p in &expected {
            let want = found(&reference[p], line, stamp);
            assert_eq!(compiled.find(p, line), want, "profile {}, pattern {p}, line {line:?}", b.name);
            spans.extend(want.map(|f| (f.start, f.end)));
        }
        spans
    };
    for line in lines.iter().chain(&examples) {
        let spans = check(line);
        compared += 1;
        matched += usize::from(!spans.is_empty());
        // A word character outside ASCII against either edge of a match:
        // where a word boundary there holds for one engine only.
        for (start, end) in spans {
            for at in [start, end] {
                check(&format!("{}é{}", &line[..at], &line[at..]));
            }
        }
    }
    (compared, matched)
}

/// The match of `re` in `line` as the matcher reads a line: as it is
/// (unless a host's job and step columns start it), else after a CI host's
/// stamp, its span in `line` (`stamp` is what [`stamp_len`] reads of it).
fn found(re: &regex::Regex, line: &str, (stamp, columns): (usize, bool)) -> Option<Found> {
    let whole = if columns { None } else { found_in(re, line) };
    whole.or_else(|| {
        let f = found_in(re, line.get(stamp..).filter(|_| stamp > 0)?)?;
        Some(Found { start: f.start + stamp, end: f.end + stamp, ..f })
    })
}

/// Whether [`found`] finds `re` in `line`, without resolving where.
fn matches(re: &regex::Regex, line: &str, (stamp, columns): (usize, bool)) -> bool {
    (!columns && re.is_match(line)) || (stamp > 0 && re.is_match(&line[stamp..]))
}

/// The stamp `faultsift::pipeline::stamp` reads past, written apart from it
/// (as regexes) so that a slip there shows here as a disagreement: an RFC
/// 3339 UTC time at column 0, bare or bracketed, and GitLab's stream marker;
/// failing that, the same after `gh run view --log`'s job and step columns
/// (and then true).
fn stamp_len(line: &str) -> (usize, bool) {
    static TIME: LazyLock<regex::Regex> = LazyLock::new(|| {
        let t = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?Z";
        regex::Regex::new(&format!("^(?:{t}|\\[{t}\\]) (?:[0-9]{{2}}[OE]\\+? )?")).unwrap()
    });
    static COLUMNS: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new("^[^\t]+\t[^\t]+\t").unwrap());
    if let Some(m) = TIME.find(line) {
        return (m.end(), false);
    }
    COLUMNS
        .find(line)
        .and_then(|c| TIME.find(&line[c.end()..]).map(|t| (c.end() + t.end(), true)))
        .unwrap_or((0, false))
}

fn found_in(re: &regex::Regex, line: &str) -> Option<Found> {
    let caps = re.captures(line)?;
    let whole = caps.get(0)?;
    let groups: BTreeMap<String, String> = re
        .capture_names()
        .flatten()
        .filter_map(|n| Some((n.to_string(), caps.name(n)?.as_str().to_string())))
        .collect();
    Some(Found { start: whole.start(), end: whole.end(), groups })
}

/// Each corpus, bait and fixture line, with its variants.
fn corpus_lines() -> Vec<String> {
    let mut base = Vec::new();
    // The `line` column of each corpus file.
    for (tsv, column) in [("corpus/real.tsv", 2), ("corpus/not-faults.tsv", 1)] {
        let text = std::fs::read_to_string(testdata(tsv)).unwrap();
        base.extend(text.lines().skip(1).filter_map(|l| l.split('\t').nth(column)).map(str::to_string));
    }
    // Not the profiles' own text: its examples and counterexamples are
    // compared apart (with their variants), and the rest of it (patterns,
    // descriptions, sources) is 21,000 lines that doubled this test's time,
    // the longest of CI, for no line a log would hold.
    for (file, text) in faultsift::commands::bait::FILES {
        if *file != "profile-files.txt" {
            base.extend(text.lines().map(str::to_string));
        }
    }
    for entry in std::fs::read_dir(testdata("logs")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let cleaned = faultsift::pipeline::clean::clean(&bytes, false);
        base.extend(cleaned.lines.iter().map(|l| cleaned.line_text(l).to_string()));
    }
    // A line quoted in two files is compared once.
    let mut seen = std::collections::HashSet::new();
    base.retain(|l| seen.insert(l.clone()));
    base.iter().flat_map(|l| variants(l)).collect()
}

/// `line` and copies with the characters where `\s`, `\d`, `\w` and `\b` differ
/// between ASCII and Unicode: no-break spaces, Arabic-Indic digits, and word
/// characters outside ASCII against each word's edges.
fn variants(line: &str) -> Vec<String> {
    vec![
        line.to_string(),
        line.replace(' ', "\u{a0}"),
        line.replace(|c: char| c.is_ascii_digit(), "٣"),
        line.replace(' ', " ß"),
        format!("\u{2003}{line}"),
    ]
}
