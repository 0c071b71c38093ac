//! Rules over records (JSONL transcripts and event streams, SPEC §3): which
//! records are worth parsing, what of them the rules read, and the scan that
//! matches them, last hit winning as for text.

use std::time::Instant;

use serde_json::Value;

use super::literals::Finder;
use super::{BOUNDED_LINE, CompiledProfile, LineHit, Pacer, RuleHits, Scan};
use crate::pipeline::clean::clean_line;
use crate::pipeline::records::{self, Records};
use crate::profile::record::{Condition, Scalar};

/// What a scan of records reads: the pointers of the record conditions and
/// fields as one [`records::Shape`], and each condition's and field's slot in it.
#[derive(Debug)]
pub(super) struct RecordPlan {
    shape: records::Shape,
    /// Per rule, its conditions' slots (none for a text rule).
    conditions: Vec<Vec<usize>>,
    /// Per rule, its `field`'s slot.
    fields: Vec<Option<usize>>,
    /// Per `progress_records` entry, its conditions' slots.
    progress: Vec<Vec<usize>>,
    /// What a record must hold, as written, for some record rule to match it
    /// ([`Needles::may_hit`]).
    needles: Needles,
}

/// The words a record's line must hold for a record rule to match it: per
/// rule, the keys its conditions name and the one string value a condition
/// accepts, each quoted as JSON writes it. A record that holds every word of
/// no rule is not parsed. Only words of ASCII letters, digits, `_`, `-` and
/// `.` are taken, which no JSON writer escapes; a rule with none is no filter
/// (every record is parsed).
#[derive(Debug, Default)]
struct Needles {
    words: Vec<Vec<u8>>,
    /// All the words in one searcher: one pass over a record.
    finder: Option<Finder>,
    /// Per record rule, the indices of its words in `words`; None: it reads
    /// every record.
    rules: Vec<Option<Vec<usize>>>,
}

impl Needles {
    fn new(conditions: impl Iterator<Item = Vec<Condition>>) -> Self {
        let mut needles = Needles::default();
        for cs in conditions {
            let mut mine = Vec::new();
            for c in &cs {
                // A condition that a missing value meets needs no word.
                if c.accepted.contains(&Scalar::Present(false)) {
                    continue;
                }
                let key = c.pointer.rsplit('/').next().filter(|k| !k.bytes().all(|b| b.is_ascii_digit()));
                let value = match c.accepted.as_slice() {
                    [Scalar::Str(v)] => Some(v.as_str()),
                    _ => None,
                };
                for word in key.into_iter().chain(value) {
                    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) {
                        continue;
                    }
                    let quoted = format!("\"{word}\"").into_bytes();
                    let at = match needles.words.iter().position(|w| *w == quoted) {
                        Some(at) => at,
                        None => {
                            needles.words.push(quoted);
                            needles.words.len() - 1
                        }
                    };
                    mine.push(at);
                }
            }
            needles.rules.push((!mine.is_empty()).then_some(mine));
        }
        // Quoted words never overlap in JSON (a key's closing quote is
        // followed by `:`, a value's by `,` or `}`), so a non-overlapping
        // search finds every one a record holds.
        needles.finder = (!needles.words.is_empty()).then(|| Finder::new(&needles.words, false)).flatten();
        needles
    }

    /// Whether some record rule may match the record `line`: it holds every
    /// word of some rule.
    fn may_hit(&self, line: &[u8]) -> bool {
        let mut held = vec![false; self.words.len()];
        if let Some(finder) = &self.finder {
            finder.each(line, |w, _| held[w] = true);
        }
        self.rules.iter().any(|r| r.as_ref().is_none_or(|ws| ws.iter().all(|&w| held[w])))
    }
}

impl CompiledProfile {
    /// Whether the profile has rules over records.
    pub fn has_record_rules(&self) -> bool {
        !self.record_rules.is_empty()
    }

    /// The first record rule (in profile order) whose conditions hold for
    /// `record` and, when it has patterns, one of which matches its text;
    /// with the first of its patterns that matched. `record` holds what the
    /// rules read of the record ([`CompiledProfile::record_fields`]), `line`
    /// is the record as written (the text of a rule without `field`).
    pub fn first_record_rule(&self, record: &records::Fields, line: &[u8]) -> Option<(usize, Option<usize>)> {
        self.record_rules.iter().find_map(|&r| Some((r, self.record_rule_match(r, record, line)?)))
    }

    /// Whether record rule `rule` matches `record` (see
    /// [`CompiledProfile::first_record_rule`]): `Some` with the first of its
    /// patterns that matched, if it has any.
    pub fn record_rule_match(&self, rule: usize, record: &records::Fields, line: &[u8]) -> Option<Option<usize>> {
        let conditions = self.profile.rules.get(rule)?.record.as_deref()?;
        let slots = &self.record_plan().conditions[rule];
        if !conditions.iter().zip(slots).all(|(c, &slot)| holds(c, record.get(slot))) {
            return None;
        }
        // Without a pattern the conditions are the rule: they name the
        // record the program marked, whatever its message field holds.
        let range = self.rule_patterns[rule].clone();
        if range.is_empty() {
            return Some(None);
        }
        let text = self.record_text(rule, record, line)?;
        // A record's field is the program's own text: no host stamped it.
        range.into_iter().find(|&p| self.matches_text(p, &text)).map(Some)
    }

    /// The text of `record` that rule `rule` matches and shows: its `field`,
    /// cleaned of control characters and line breaks (a string as it is, a
    /// number or boolean as written, anything else as compact JSON), or the
    /// whole record line when the rule names no field. None when the field
    /// is missing or null.
    pub fn record_text(&self, rule: usize, record: &records::Fields, line: &[u8]) -> Option<String> {
        let text = match self.record_plan().fields.get(rule).copied().flatten() {
            None => String::from_utf8_lossy(line).into_owned(),
            Some(slot) => match record.get(slot)? {
                Value::Null => return None,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        };
        Some(clean_line(&text))
    }

    /// The text a hit of rule `rule` on the record `line` shows as evidence:
    /// [`Self::record_text`], or the whole record line when the record lacks
    /// the rule's field. A rule without a pattern hits on its conditions
    /// alone, and another release of the program may keep the message under
    /// another name (Qwen Code 0.5 and 0.8 wrote `error`, not 0.24's
    /// `error_message`): the record the program marked is still the cause,
    /// and an empty evidence line would hide it.
    pub fn record_evidence(&self, rule: usize, line: &[u8]) -> String {
        self.parse_record(line)
            .and_then(|fields| self.record_text(rule, &fields, line))
            .unwrap_or_else(|| clean_line(&String::from_utf8_lossy(line)))
    }

    fn record_plan(&self) -> &RecordPlan {
        self.record_plan.get_or_init(|| {
            let mut shape = records::Shape::default();
            let mut slots = |cs: &[Condition]| cs.iter().map(|c| shape.add(&c.pointer)).collect::<Vec<_>>();
            let conditions =
                self.profile.rules.iter().map(|r| r.record.as_deref().map(&mut slots).unwrap_or_default()).collect();
            let progress = self.profile.progress_records.iter().map(|cs| slots(cs)).collect();
            // A rule without `field` reads the record's line, not its value.
            let fields = self.profile.rules.iter().map(|r| r.field.as_deref().map(|f| shape.add(f))).collect();
            let needles = Needles::new(
                self.record_rules.iter().map(|&r| self.profile.rules[r].record.clone().unwrap_or_default()),
            );
            RecordPlan { shape, conditions, fields, progress, needles }
        })
    }

    /// Whether some record rule may match the record `line`, from the words
    /// its line holds: a record for which this is false is not parsed by the
    /// scan (see `Needles`).
    pub fn may_hit_record(&self, line: &[u8]) -> bool {
        self.record_plan().needles.may_hit(line)
    }

    /// Reads the record `line` as far as the record rules and
    /// `progress_records` read it ([`records::Shape::parse`]): the one way a
    /// record of a window is read, so that the scan, the verdict's evidence
    /// and `explain` agree on which lines are records.
    pub fn parse_record(&self, line: &[u8]) -> Option<records::Fields> {
        self.record_plan().shape.parse(line)
    }

    /// The values of `record` that the record rules and `progress_records` read.
    pub fn record_fields(&self, record: &Value) -> records::Fields {
        self.record_plan().shape.fields(record)
    }

    /// Whether `record` shows the agent working again (`progress_records`).
    pub fn is_progress(&self, record: &records::Fields) -> bool {
        let plan = &self.record_plan().progress;
        let holds_all = |(cs, slots): (&Vec<Condition>, &Vec<usize>)| {
            cs.iter().zip(slots).all(|(c, &slot)| holds(c, record.get(slot)))
        };
        self.profile.progress_records.iter().zip(plan).any(holds_all)
    }

    /// Whether scanning `records` keeps to its deadline without a watchdog:
    /// as for text ([`CompiledProfile::scan_is_bounded`]), every pattern built
    /// in and no record longer than [`BOUNDED_LINE`].
    pub fn records_are_bounded(&self, records: &Records) -> bool {
        self.lite.iter().all(Option::is_some) && records.lines.iter().all(|l| l.end - l.offset <= BOUNDED_LINE)
    }

    /// Scans the records of `window`; the last record hit wins, as for text.
    /// A record that holds every word of some rule (`Needles`) is parsed
    /// once, as far as the rules read it ([`records::Shape`]), matched, and
    /// dropped; the others cannot be hit and are passed over unparsed. Then,
    /// when the winner is an environment fault, the records after it are read
    /// for `progress_records`, last first. The deadline is looked at as for
    /// text, every `DEADLINE_BYTES` of records.
    pub fn scan_records(&self, window: &[u8], records: &Records, deadline: Option<Instant>) -> Scan {
        let mut per_rule: Vec<Option<RuleHits>> = vec![None; self.profile.rules.len()];
        let mut scan = Scan::default();
        let mut pacer = Pacer::default();
        // A record that holds no rule's words cannot be hit and is not parsed
        // (most of a transcript: the model's turns and tool results).
        for (line, span) in records.lines.iter().enumerate() {
            let bytes = records.bytes(window, span);
            if pacer.due(bytes.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                scan.timed_out = true;
                break;
            }
            if !self.may_hit_record(bytes) {
                continue;
            }
            let Some(record) = self.parse_record(bytes) else {
                scan.unparsed += 1;
                continue;
            };
            if let Some((rule, pattern)) = self.first_record_rule(&record, bytes) {
                let slot = per_rule[rule].get_or_insert(RuleHits { rule, count: 0, last_line: line });
                slot.count += 1;
                slot.last_line = line;
                scan.record(&self.profile.rules[rule], LineHit { line, rule, pattern });
            }
        }
        scan.settle();
        // A fault the session got past is not what it died of (SPEC §1.5):
        // the last record after the winner that shows the agent working.
        let winner = scan.last.filter(|l| !scan.timed_out && self.profile.rules[l.rule].action.is_env_fault());
        if let Some(winner) = winner.filter(|_| !self.profile.progress_records.is_empty()) {
            for (line, span) in records.lines.iter().enumerate().skip(winner.line + 1).rev() {
                let bytes = records.bytes(window, span);
                if pacer.due(bytes.len()) && deadline.is_some_and(|d| Instant::now() >= d) {
                    scan.timed_out = true;
                    break;
                }
                let Some(record) = self.parse_record(bytes) else { continue };
                if self.first_record_rule(&record, bytes).is_none() && self.is_progress(&record) {
                    scan.progress = Some(line);
                    break;
                }
            }
        }
        scan.hits = per_rule.into_iter().flatten().collect();
        scan
    }
}

/// Whether `found`, the value at the condition's pointer, is one of its
/// accepted values.
fn holds(c: &Condition, found: Option<&Value>) -> bool {
    c.accepted.iter().any(|a| match (a, found) {
        (Scalar::Present(want), found) => found.is_some_and(|v| !v.is_null()) == *want,
        (_, None) => false,
        (Scalar::Str(want), Some(Value::String(s))) => want == s,
        (Scalar::Bool(want), Some(Value::Bool(b))) => want == b,
        // 529 and 529.0 are the same number in JSON.
        (Scalar::Int(want), Some(Value::Number(n))) => n.as_i64() == Some(*want) || n.as_f64() == Some(*want as f64),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, MatchKind};

    #[test]
    fn a_record_is_parsed_only_when_it_holds_every_word_of_some_rule() {
        let c = |pointer: &str, accepted: Vec<Scalar>| Condition { pointer: pointer.into(), accepted };
        let s = |v: &str| Scalar::Str(v.into());
        let needles = Needles::new(
            [
                vec![c("/isApiErrorMessage", vec![Scalar::Bool(true)]), c("/error", vec![s("rate_limit")])],
                vec![c("/type", vec![s("system"), s("result")]), c("/message/content/0", vec![s("a b")])],
            ]
            .into_iter(),
        );
        let want: [&[u8]; 4] = [b"\"isApiErrorMessage\"", b"\"error\"", b"\"rate_limit\"", b"\"type\""];
        assert_eq!(needles.words, want, "keys and a lone safe string value; no index, no value with a blank");
        // The automaton (no Teddy on this CPU) finds the same words.
        let automaton = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&needles.words).unwrap();
        let other = Needles {
            words: needles.words.clone(),
            finder: Some(Finder::Automaton(automaton)),
            rules: needles.rules.clone(),
        };
        for n in [&needles, &other] {
            assert!(n.may_hit(br#"{"isApiErrorMessage":true,"error":"rate_limit"}"#));
            assert!(n.may_hit(br#"{"type":"assistant"}"#), "the second rule's one word");
            assert!(!n.may_hit(br#"{"isApiErrorMessage":true,"error":"server_error"}"#));
            assert!(!n.may_hit(br#"{"kind":"assistant","text":"API Error: 429"}"#));
        }
        // A rule with no word to look for reads every record.
        let open = Needles::new([vec![c("/0", vec![Scalar::Int(1)])]].into_iter());
        assert!(open.may_hit(b"{}"));
        // A key that must be missing is no word a record must hold.
        let absent = Needles::new(
            [vec![c("/type", vec![s("message")]), c("/message/metadata/inference", vec![Scalar::Present(false)])]]
                .into_iter(),
        );
        let want: [&[u8]; 2] = [b"\"type\"", b"\"message\""];
        assert_eq!(absent.words, want);
        assert!(absent.may_hit(br#"{"type":"message","message":{"metadata":{}}}"#));
    }

    #[test]
    fn a_presence_condition_asks_only_whether_a_value_is_there() {
        let c = |accepted| Condition { pointer: "/message/metadata/inference".into(), accepted: vec![accepted] };
        let (there, missing) = (c(Scalar::Present(true)), c(Scalar::Present(false)));
        let object = serde_json::json!({"provider": "openai"});
        for (found, is_there) in [(Some(&object), true), (Some(&Value::Null), false), (None, false)] {
            assert_eq!(holds(&there, found), is_there, "{found:?}");
            assert_eq!(holds(&missing, found), !is_there, "{found:?}");
        }
        // The other values still need a value of their own type.
        let flag = Condition { pointer: "/a".into(), accepted: vec![Scalar::Bool(true)] };
        assert!(!holds(&flag, None) && !holds(&flag, Some(&Value::Null)) && holds(&flag, Some(&Value::Bool(true))));
    }
}
