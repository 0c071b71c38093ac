//! The checks of `faultsift test` (SPEC §5): examples, counterexamples, the bait
//! corpus, self-match, lints, and clean logs; and, for a profile named like a
//! built-in, its recall on the corpus of real fault lines, per split. Pure:
//! profiles and texts in, findings out.

use regex_syntax::hir::{Class, Hir, HirKind};
use serde::Serialize;

use crate::commands::bait::BaitLine;
use crate::commands::corpus::{self, Recall, Split};
use crate::pipeline::clean::{clean, clean_line};
use crate::pipeline::matcher::CompiledProfile;
use crate::pipeline::records;
use crate::profile::literal;

/// A literal shorter than this (in characters) cannot anchor a fast search.
pub const MIN_LITERAL: usize = 4;

/// Cause words that prove nothing on their own (SPEC §4 precision doctrine).
pub const BARE_CAUSES: &[&str] = &[
    "quota",
    "rate limit",
    "rate limited",
    "429",
    "too many requests",
    "usage limit reached",
    "overloaded",
    "api error",
];

/// A counted repetition of a class that compiles to more UTF-8 sequences than
/// this is flagged: the automaton holds one copy per count.
const MAX_REPEATED_CLASS_SEQUENCES: usize = 40;

/// Which check a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// An example that its rule does not match.
    Example,
    /// A counterexample that some rule matches.
    Counterexample,
    /// A bait line that a pause or retry rule matches.
    Bait,
    /// A line of the profile's own file that some rule matches.
    SelfMatch,
    /// A line of a `--clean-logs` log that some rule matches.
    CleanLog,
    /// A pattern with no literal of [`MIN_LITERAL`] characters.
    NoLiteral,
    /// A pattern that matches a bare cause word on its own.
    BareCause,
    /// A rule whose examples all go to an earlier rule.
    NeverWins,
    /// A counted repetition of a large Unicode class.
    UnicodeRepetition,
    /// A top-level key that is not part of the format (a warning).
    UnknownKey,
    /// A `train` line of the corpus that the profile does not classify as an
    /// environment fault (a warning; `test` lines are only counted).
    CorpusMiss,
    /// A rule whose examples or counterexamples quote held-out `test` lines
    /// of the corpus (a warning that names the rule, not the lines): those
    /// lines no longer measure it.
    QuotesTestLine,
    /// The profile has no rules: it can never classify anything (a warning).
    NoRules,
    /// The profile could not be loaded (an error; the others are still checked).
    Load,
    /// A `volatile` pattern that masks the whole of a healthy line: a
    /// streaming answer made of such lines would look like a frozen screen.
    VolatileMasksLine,
    /// A `busy` pattern that matches a bait line (a warning): a model that
    /// writes such a line holds the stall clock at zero.
    BusyMatchesBait,
}

/// One failed check (or warning).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The profile.
    pub profile: String,
    /// The rule concerned (`profile/id`), if one.
    pub rule: Option<String>,
    /// Which check.
    pub check: CheckKind,
    /// What is wrong, in a sentence.
    pub message: String,
    /// Where the offending text is (`file:line`), if it is in a file.
    pub location: Option<String>,
    /// The offending text (cleaned), if any.
    pub text: Option<String>,
}

/// What was checked for one profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// The profile.
    pub profile: String,
    /// Its origin (`builtin` or a path).
    pub origin: String,
    /// Rules.
    pub rules: usize,
    /// Examples checked.
    pub examples: usize,
    /// Counterexamples checked.
    pub counterexamples: usize,
    /// Bait lines checked (0 unless the profile carries model output).
    pub bait_lines: usize,
    /// Lines of its own files checked.
    pub self_lines: usize,
    /// Clean-log lines checked.
    pub clean_log_lines: usize,
    /// Recall on the corpus lines of the profile's program, `train` split,
    /// each classified as printed: below the earlier lines of its post.
    pub corpus_train: Recall,
    /// The same on the held-out `test` split.
    pub corpus_test: Recall,
    /// The same on the `test` lines that no example or counterexample of
    /// the profile quotes: a quoted line was in front of whoever wrote the
    /// rule, so only these were held out from it.
    pub corpus_test_unquoted: Recall,
    /// Recall on the `train` lines each classified alone (the stricter
    /// figure: a continuation line never counts).
    pub corpus_train_alone: Recall,
    /// The same on the `test` split.
    pub corpus_test_alone: Recall,
    /// Failures.
    pub failures: usize,
    /// Warnings.
    pub warnings: usize,
}

/// The findings for one profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProfileReport {
    /// What was checked.
    pub counts: Counts,
    /// Failed checks.
    pub failures: Vec<Finding>,
    /// Findings that do not fail the run (unknown top-level keys).
    pub warnings: Vec<Finding>,
}

/// A healthy session's log for `--clean-logs`.
#[derive(Debug, Clone)]
pub struct CleanLog {
    /// Its name, as reported.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The lines of a profile's examples and counterexamples, blanks collapsed,
/// each with its rule: what the rule's author had in front of them.
fn quoted_lines(profile: &crate::profile::Profile) -> Vec<(usize, String)> {
    let examples = profile.rules.iter().enumerate().flat_map(|(i, r)| {
        r.examples.iter().chain(&r.counterexamples).flat_map(|e| e.lines()).map(move |l| (i, collapse_blanks(l)))
    });
    examples.collect()
}

/// The first rule whose quoted lines hold `line` (blanks collapsed). Lines of
/// a few words are too common to say that anyone saw this one.
fn quoted_by(quoted: &[(usize, String)], line: &str) -> Option<usize> {
    let line = collapse_blanks(line);
    if line.chars().count() <= 20 {
        return None;
    }
    quoted.iter().find(|(_, q)| q.contains(&line)).map(|(rule, _)| *rule)
}

fn collapse_blanks(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The report of a profile that could not be loaded: one `load` failure,
/// so that `test` goes on to the next profile and still prints its report.
pub fn load_failure(selector: &str, message: String) -> ProfileReport {
    let mut r = ProfileReport::default();
    r.counts.profile = selector.to_string();
    r.counts.origin = "-".to_string();
    r.counts.failures = 1;
    r.failures.push(Finding {
        profile: selector.to_string(),
        rule: None,
        check: CheckKind::Load,
        message,
        location: None,
        text: None,
    });
    r
}

/// Runs every check on one profile.
pub fn check_profile(compiled: &CompiledProfile, bait: &[BaitLine], clean_logs: &[CleanLog]) -> ProfileReport {
    let profile = &compiled.profile;
    let mut r = ProfileReport::default();
    let c = &mut r.counts;
    c.profile = profile.name.clone();
    c.origin = profile.origin.label();
    c.rules = profile.rules.len();
    let finding = |rule: Option<String>, check, message: String, location: Option<String>, text: Option<String>| {
        Finding { profile: profile.name.clone(), rule, check, message, location, text }
    };
    if profile.rules.is_empty() {
        r.warnings.push(finding(
            None,
            CheckKind::NoRules,
            "the profile has no rules: every log would be charged".to_string(),
            None,
            None,
        ));
    }
    let first_text_rule = |text: &str| compiled.first_rule(&clean_line(text)).map(|(rule, _)| rule);
    let qid = |i: usize| profile.rules[i].qualified_id();

    for (i, rule) in profile.rules.iter().enumerate() {
        // A record rule's examples and counterexamples are record lines, read
        // as `classify` reads a JSON Lines window.
        let is_record = rule.is_record_rule();
        let as_record = |text: &str| records::parse(text.trim().as_bytes()).filter(serde_json::Value::is_object);
        let first_rule = |text: &str| match is_record {
            false => first_text_rule(text),
            true => as_record(text)
                .and_then(|v| compiled.first_record_rule(&compiled.record_fields(&v), text.trim().as_bytes()))
                .map(|h| h.0),
        };
        for example in &rule.examples {
            c.examples += 1;
            let line = clean_line(example);
            if is_record && as_record(example).is_none() {
                r.failures.push(finding(
                    Some(qid(i)),
                    CheckKind::Example,
                    "example of a record rule is not a JSON object on one line".into(),
                    None,
                    Some(line),
                ));
                continue;
            }
            // A rule with `after` is shown a multi-line example: the framing
            // above, its own line last, which must be the window's last hit.
            let matched = if is_record {
                as_record(example).is_some_and(|v| {
                    compiled.record_rule_match(i, &compiled.record_fields(&v), example.trim().as_bytes()).is_some()
                })
            } else if rule.after.is_some() {
                let cleaned = clean(example.as_bytes(), false);
                let last = cleaned.lines.len().checked_sub(1);
                compiled.scan(&cleaned, None).last.is_some_and(|h| h.rule == i && Some(h.line) == last)
            } else {
                compiled.matching_patterns(&line).into_iter().any(|p| compiled.rule_of(p) == i)
            };
            if !matched {
                r.failures.push(finding(
                    Some(qid(i)),
                    CheckKind::Example,
                    "example is not matched by its rule".into(),
                    None,
                    Some(line),
                ));
            }
        }
        for counter in &rule.counterexamples {
            c.counterexamples += 1;
            if is_record && as_record(counter).is_none() {
                r.failures.push(finding(
                    Some(qid(i)),
                    CheckKind::Counterexample,
                    "counterexample of a record rule is not a JSON object on one line".into(),
                    None,
                    Some(clean_line(counter)),
                ));
                continue;
            }
            // A multi-line counterexample is scanned as a window: no line of it
            // may be a hit.
            let hit = if counter.contains('\n') {
                compiled.scan(&clean(counter.as_bytes(), false), None).last.map(|h| h.rule)
            } else {
                first_rule(counter)
            };
            if let Some(hit) = hit {
                r.failures.push(finding(
                    Some(qid(i)),
                    CheckKind::Counterexample,
                    format!("counterexample is matched by rule {}", qid(hit)),
                    None,
                    Some(clean_line(counter)),
                ));
            }
        }
        // Examples of a rule with `after` hold their framing lines: joined into
        // one line, they say nothing about which rule wins.
        if rule.after.is_none()
            && !rule.examples.is_empty()
            && rule.examples.iter().all(|e| first_rule(e).is_some_and(|w| w < i))
        {
            let earlier = rule.examples.first().and_then(|e| first_rule(e)).map(qid).unwrap_or_default();
            r.failures.push(finding(
                Some(qid(i)),
                CheckKind::NeverWins,
                format!("can never win: an earlier rule ({earlier}) matches all its examples"),
                None,
                None,
            ));
        }
        for pattern in rule.effective_patterns() {
            r.failures.extend(
                lint_pattern(&pattern, rule.case_insensitive)
                    .into_iter()
                    // A record rule's pattern searches a field the program
                    // wrote, chosen by its conditions: no literal prefilter, no
                    // quoting risk.
                    .filter(|(check, _)| !(is_record && matches!(check, CheckKind::NoLiteral | CheckKind::BareCause)))
                    .map(|(check, message)| finding(Some(qid(i)), check, message, None, Some(pattern.clone()))),
            );
        }
    }

    if profile.carries_model_output {
        for b in bait {
            c.bait_lines += 1;
            // A `charge` rule may name a bait line (the corpus holds the work's
            // own failures too): the verdict is still `charge`. Only a pause or
            // retry would stop a healthy session.
            if let Some(hit) = first_text_rule(b.text).filter(|&r| profile.rules[r].action.is_env_fault()) {
                r.failures.push(finding(
                    Some(qid(hit)),
                    CheckKind::Bait,
                    "classifies a bait line (healthy-session output) as an environment fault".into(),
                    Some(format!("testdata/bait/{}:{}", b.file, b.line)),
                    Some(clean_line(b.text)),
                ));
            }
        }
    }

    for (origin, text) in &profile.texts {
        for (n, line) in text.lines().enumerate() {
            c.self_lines += 1;
            if let Some(hit) = first_text_rule(line) {
                r.failures.push(finding(
                    Some(qid(hit)),
                    CheckKind::SelfMatch,
                    "matches a line of its own profile file (a session that prints the profile would pause itself)"
                        .into(),
                    Some(format!("{origin}:{}", n + 1)),
                    Some(clean_line(line)),
                ));
            }
        }
    }

    for log in clean_logs {
        let line_no =
            |offset: usize| log.bytes[..offset.min(log.bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
        // A healthy transcript is read as `classify` reads it: as records,
        // and a log that opens with its program's banner as text too when
        // its records hold no hit.
        let banner = &compiled.profile.banner;
        if let Some(records) = records::read(&log.bytes, false, records::InputMode::Auto, banner) {
            let before = r.failures.len();
            for span in &records.lines {
                c.clean_log_lines += 1;
                let bytes = records.bytes(&log.bytes, span);
                let Some(fields) = compiled.parse_record(bytes) else { continue };
                if let Some((hit, _)) = compiled.first_record_rule(&fields, bytes) {
                    r.failures.push(finding(
                        Some(qid(hit)),
                        CheckKind::CleanLog,
                        "matches a record of a healthy session's log".into(),
                        Some(format!("{}:{}", log.name, line_no(span.offset))),
                        Some(clean_line(&String::from_utf8_lossy(bytes))),
                    ));
                }
            }
            if records.banner == 0 || r.failures.len() > before {
                continue;
            }
        }
        let cleaned = clean(&log.bytes, false);
        for (offset, line) in cleaned.iter() {
            c.clean_log_lines += 1;
            if let Some((hit, _)) = compiled.first_rule(line) {
                r.failures.push(finding(
                    Some(qid(hit)),
                    CheckKind::CleanLog,
                    "matches a line of a healthy session's log".into(),
                    Some(format!("{}:{}", log.name, line_no(offset))),
                    Some(line.to_string()),
                ));
            }
        }
    }

    // A line of the corpus counts twice: as printed (the session's log ends
    // with its post's lines up to it, classified by the whole pipeline) and
    // alone (its first rule pauses or retries, as the bait is checked).
    let quoted = quoted_lines(profile);
    let mut quoting: std::collections::BTreeMap<usize, usize> = Default::default();
    for (line, printed) in corpus::as_printed(&profile.name) {
        let alone = first_text_rule(line.line).is_some_and(|r| profile.rules[r].action.is_env_fault());
        let caught = crate::pipeline::classify_text(compiled, &printed).action.is_env_fault();
        let (split, split_alone) = match line.split {
            Split::Train => (&mut c.corpus_train, &mut c.corpus_train_alone),
            Split::Test => (&mut c.corpus_test, &mut c.corpus_test_alone),
        };
        split.add(caught);
        split_alone.add(alone);
        if line.split == Split::Test {
            match quoted_by(&quoted, line.line) {
                None => c.corpus_test_unquoted.add(caught),
                Some(rule) => *quoting.entry(rule).or_default() += 1,
            }
        }
        if !caught && line.split == Split::Train {
            r.warnings.push(finding(
                None,
                CheckKind::CorpusMiss,
                format!("a real {} fault line ({}) is not an environment fault", line.cli, line.kind),
                Some(line.source.to_string()),
                Some(clean_line(line.line)),
            ));
        }
    }

    // The held-out lines are not shown: a warning that printed them would
    // put them in front of the next author.
    for (rule, n) in quoting {
        r.warnings.push(finding(
            Some(qid(rule)),
            CheckKind::QuotesTestLine,
            format!("its examples quote held-out `test` corpus lines ({n}): they are counted apart, not as held out"),
            None,
            None,
        ));
    }

    for key in &profile.unknown_keys {
        r.warnings.push(finding(
            None,
            CheckKind::UnknownKey,
            format!("unknown top-level key `{key}` (ignored by classify)"),
            None,
            None,
        ));
    }
    r.counts.failures = r.failures.len();
    r.counts.warnings = r.warnings.len();
    r
}

/// The checks of a profile's `busy` and `volatile` patterns (`stall`):
/// failures (a volatile pattern that masks all of a bait or clean-log line)
/// and warnings (a busy pattern that matches a bait line), appended to
/// `report`.
pub fn check_stall(
    profile: &crate::profile::Profile,
    rules: &crate::pipeline::matcher::screen::ScreenPatterns,
    bait: &[BaitLine],
    clean_logs: &[CleanLog],
    report: &mut ProfileReport,
) {
    if profile.stall.is_empty() {
        return;
    }
    let finding = |check, message: &str, location: String, text: &str| Finding {
        profile: profile.name.clone(),
        rule: None,
        check,
        message: message.to_string(),
        location: Some(location),
        text: Some(text.to_string()),
    };
    let all_masked = |line: &str| rules.masks_all(line);
    let masks = "`volatile` masks the whole line: streaming output like it would look like a frozen screen";
    for b in bait {
        let line = clean_line(b.text);
        let location = format!("testdata/bait/{}:{}", b.file, b.line);
        if all_masked(&line) {
            report.failures.push(finding(CheckKind::VolatileMasksLine, masks, location.clone(), &line));
        }
        if rules.is_busy(&line) {
            report.warnings.push(finding(
                CheckKind::BusyMatchesBait,
                "`busy` matches a bait line: a model that writes it holds the stall clock at zero",
                location,
                &line,
            ));
        }
    }
    for log in clean_logs {
        for (offset, line) in clean(&log.bytes, false).iter() {
            if all_masked(line) {
                let line_no = log.bytes[..offset.min(log.bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
                report.failures.push(finding(
                    CheckKind::VolatileMasksLine,
                    masks,
                    format!("{}:{line_no}", log.name),
                    line,
                ));
            }
        }
    }
    report.counts.failures = report.failures.len();
    report.counts.warnings = report.warnings.len();
}

/// Lint findings for one pattern.
fn lint_pattern(pattern: &str, case_insensitive: bool) -> Vec<(CheckKind, String)> {
    let mut out = Vec::new();
    // The pattern compiled, so it parses; a parse failure here only skips lints.
    let Ok(hir) = regex_syntax::ParserBuilder::new().case_insensitive(case_insensitive).build().parse(pattern) else {
        return out;
    };
    let literal = literal::strength(&hir, case_insensitive);
    if literal < MIN_LITERAL {
        out.push((
            CheckKind::NoLiteral,
            format!("no literal of {MIN_LITERAL} characters (longest: {literal}): the pattern is vague and slow"),
        ));
    }
    let Ok(re) = regex::Regex::new(pattern) else { return out };
    for word in BARE_CAUSES {
        let forms = [word.to_string(), capitalize(word), word.to_uppercase()];
        if forms.iter().any(|f| re.is_match(f)) {
            out.push((CheckKind::BareCause, format!("matches the bare cause `{word}` on its own")));
        }
    }
    if let Some(seqs) = worst_repeated_class(&hir) {
        out.push((
            CheckKind::UnicodeRepetition,
            format!(
                "counted repetition of a class of {seqs} UTF-8 sequences inflates the automaton: use an ASCII class or an unbounded repetition"
            ),
        ));
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The size (in UTF-8 sequences) of the largest class inside a counted
/// repetition, when it is over the limit.
fn worst_repeated_class(hir: &Hir) -> Option<usize> {
    fn class_sequences(hir: &Hir) -> usize {
        match hir.kind() {
            HirKind::Class(Class::Unicode(u)) => {
                u.ranges().iter().map(|r| regex_syntax::utf8::Utf8Sequences::new(r.start(), r.end()).count()).sum()
            }
            HirKind::Capture(c) => class_sequences(&c.sub),
            HirKind::Repetition(r) => class_sequences(&r.sub),
            HirKind::Concat(s) | HirKind::Alternation(s) => s.iter().map(class_sequences).max().unwrap_or(0),
            _ => 0,
        }
    }
    match hir.kind() {
        HirKind::Repetition(rep) => {
            let counted = rep.min > 1 || rep.max.is_some_and(|m| m > 1);
            let inner = class_sequences(&rep.sub);
            if counted && inner > MAX_REPEATED_CLASS_SEQUENCES { Some(inner) } else { worst_repeated_class(&rep.sub) }
        }
        HirKind::Capture(c) => worst_repeated_class(&c.sub),
        HirKind::Concat(s) | HirKind::Alternation(s) => s.iter().filter_map(worst_repeated_class).max(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_test_line_is_quoted_when_an_example_line_holds_it() {
        let quoted = vec![
            (3, super::collapse_blanks("  ⎿  API Error: 529 {\"type\":\"error\"}  · Retrying")),
            (5, super::collapse_blanks("Overloaded")),
        ];
        let by = |l| super::quoted_by(&quoted, l);
        assert_eq!(by("API Error: 529   {\"type\":\"error\"}"), Some(3), "held, blanks collapsed");
        assert_eq!(by("API Error: 503 {\"type\":\"error\"}"), None, "another status is another line");
        assert_eq!(by("Overloaded"), None, "a few words prove nobody saw this line");
    }

    use super::*;

    #[test]
    fn large_unicode_classes_in_counted_repetitions() {
        let worst = |p: &str| worst_repeated_class(&regex_syntax::Parser::new().parse(p).unwrap());
        assert!(worst(r"\w{2,40}").is_some());
        assert!(worst(r"(?:x\w){3}").is_some());
        assert_eq!(worst(r"\w+"), None, "unbounded repetition is a loop, not copies");
        assert_eq!(worst(r"[A-Za-z0-9_]{1,40}"), None);
        assert_eq!(worst(r"(?:[⎿⏺●■]\s*){0,2}"), None, "a handful of glyphs is small");
    }

    #[test]
    fn capitalize_first_letter() {
        assert_eq!(capitalize("rate limit"), "Rate limit");
        assert_eq!(capitalize(""), "");
    }
}
