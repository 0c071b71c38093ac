//! The profile file format (SPEC §4): TOML to a validated [`ProfileFile`], with
//! every rejection naming the profile, the rule and the cause.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use crate::error::{ProfileError, RuleError};
use crate::output::verdict::Action;
use crate::profile::define;
use crate::profile::record::{self, Condition};

/// The longest pattern accepted, in bytes: a cap before any parsing work.
pub const MAX_PATTERN_LEN: usize = 4096;

/// Nesting deeper than this is rejected by the regex parser.
const NEST_LIMIT: u32 = 64;

/// The most lines above its line that a rule's `after` framing may be: a
/// multi-line error (a JSON body, a `Caused by:` chain) is a few dozen lines
/// at most, and each hit searches that many lines again.
pub const MAX_AFTER_WITHIN: usize = 50;

/// A rule's framing condition: the rule matches a line only when a line
/// within `within` lines above it matches `pattern` (a multi-line error whose
/// cause is printed below its first line).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct After {
    /// The framing line's regex.
    pub pattern: String,
    /// How many lines above the matched line the framing may be (1 = the line
    /// just above).
    pub within: usize,
}

/// How far above a hit the search for its pane item goes: a tool's output
/// longer than this is read as it is.
pub const MAX_TOOL_OUTPUT_REACH: usize = 200;

/// The pane's structure (an extension of SPEC §4): which lines start an item
/// of the pane, which items are a tool's call, which hang below the item
/// above as its result, and which lines continue an item (its rows). A fault
/// rule's match on a tool's own output (the call's line, or the first result
/// item below the call, or a row under either) is the program under work
/// speaking, not the agent: it is not a hit. Nor is a match on a row of the
/// agent's own message (`message`, `message_row`): the model writing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOutput {
    /// A line that starts an item (a message, a tool call, a result).
    pub item: String,
    /// An item that is a tool's call.
    pub tool: String,
    /// An item that hangs below the item above it as its result; absent
    /// where a call's output hangs in the call's own rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// A line that continues the item above it (a tool output's indented
    /// rows); any other line ends the item.
    pub row: String,
    /// Whether a blank line ends an item (a pane whose blocks a blank line
    /// sets apart); otherwise an item goes on across blank lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blank_ends_item: bool,
    /// An item that is the agent's own message, the model's text (set with
    /// `message_row`): a line among its rows is the model writing, as a
    /// quotation of an error in its answer is, not a hit. The item's own line
    /// still is: the program's errors are items of their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A line that continues a message item (blank lines between its rows
    /// do not end it, since a message's paragraphs are set apart by them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_row: Option<String>,
    /// With `blank_ends_item`: the user's own prompt, drawn as a block of
    /// the same shape as the agent's error box (see [`Prompt`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<Prompt>,
    /// Built-in patterns only: each one's form for `regex-lite` (item, tool,
    /// result, row, message, message row, prompt row, prompt below), worked
    /// out when faultsift was built.
    #[serde(skip)]
    pub lite: [Option<super::builtin::LiteForm>; 8],
}

/// The user's prompt in a pane that draws it as a block of the same shape as
/// the agent's own error (opencode's bar at the left of both): a block of
/// `row` lines that a blank line sets apart is the prompt when the nearest
/// line above it that holds a letter or a digit matches `below` (the turn
/// before's footer, the session's header), or when no such line is above it
/// but the pane goes on below it (the first prompt, at the top). A fault
/// rule's `pause` or `retry` match on its rows is the user's words, not a
/// hit; any other such block is the agent's.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// A row of the prompt's block (its border).
    pub row: String,
    /// The line a prompt's block is drawn below.
    pub below: String,
}

/// One rule, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Unique in its profile.
    pub id: String,
    /// The name of the profile that declared it (the `profile` of `profile/id`).
    pub profile: String,
    /// A lower_snake label: connection, quota, …
    pub kind: String,
    /// What a hit of this rule means.
    pub action: Action,
    /// The regexes; a line matches the rule when any of them matches.
    pub patterns: Vec<String>,
    /// Match without regard to case.
    pub case_insensitive: bool,
    /// What the rule is for.
    pub description: Option<String>,
    /// Where the matched line was captured.
    pub source: Option<String>,
    /// Lines this rule must match.
    pub examples: Vec<String>,
    /// Lines no rule of the profile may match.
    pub counterexamples: Vec<String>,
    /// The framing a line above must have, for multi-line errors.
    pub after: Option<After>,
    /// Per pattern, its required literals ([`crate::profile::literal::required`]).
    pub literals: Vec<Option<Vec<String>>>,
    /// Per pattern, the other literal sets a matching line holds one string
    /// of each ([`crate::profile::literal::also_required`]): built-in patterns
    /// only, so that a one-shot run compiles no regex for a line that cannot
    /// match. Empty for patterns from files, whose regexes are compiled at load.
    pub also: Vec<Vec<Vec<String>>>,
    /// Per pattern, its form for `regex-lite` ([`crate::profile::lite`]): built-in
    /// patterns only, worked out when faultsift was built. Patterns from files
    /// always run on `regex`, whose lazy DFA keeps an author's large pattern fast.
    pub lite: Vec<Option<super::builtin::LiteForm>>,
    /// Built in: validated when faultsift was built, so its patterns are
    /// compiled on first use rather than at load.
    pub builtin: bool,
    /// A rule over JSON Lines records (SPEC §1.7): every condition must hold.
    /// A rule with `record` applies only to records; one without, only to text.
    pub record: Option<Vec<Condition>>,
    /// The JSON pointer of the record's text that `patterns`, the evidence and
    /// the captures use (record rules only).
    pub field: Option<String>,
    /// A fallback rule decides only when no other rule hits in the window: a
    /// program's framing line that names no cause of its own (the cause, when
    /// there is one, is on another line that an ordinary rule reads).
    pub fallback: bool,
}

impl Rule {
    /// The rule matches records, not text lines.
    pub fn is_record_rule(&self) -> bool {
        self.record.is_some()
    }

    /// `profile/id`, as the verdict names the rule.
    pub fn qualified_id(&self) -> String {
        format!("{}/{}", self.profile, self.id)
    }

    /// The patterns as compiled: `(?i)` is prepended for case-insensitive rules.
    pub fn effective_patterns(&self) -> impl Iterator<Item = String> + '_ {
        self.patterns.iter().map(|p| if self.case_insensitive { format!("(?i){p}") } else { p.clone() })
    }
}

/// A profile file as written, before `extends` is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFile {
    /// `name`, or the file stem.
    pub name: String,
    /// What the profile is for.
    pub description: Option<String>,
    /// `carries_model_output`, when set.
    pub carries_model_output: Option<bool>,
    /// The profile it inherits from.
    pub extends: Option<String>,
    /// Inherited rules to drop, by id (`rule` or `profile/rule`).
    pub disable: Vec<String>,
    /// Its own rules, in order (`env_fault_patterns` first).
    pub rules: Vec<Rule>,
    /// Patterns of lines that show the agent working again (recovery).
    pub progress: Vec<String>,
    /// Top-level keys that are not part of the format (ignored by `classify`).
    pub unknown_keys: Vec<String>,
    /// `progress_records`: records that show the agent working again
    /// (recovery over records, SPEC §1.5), each a set of conditions.
    pub progress_records: Vec<Vec<Condition>>,
    /// `busy` and `volatile`, validated (compiled only by `stall`).
    pub stall: super::StallPatterns,
    /// `tool_output`: the pane's structure, when the profile reads one.
    pub tool_output: Option<ToolOutput>,
    /// `banner`: words of the program's banner, before its first record.
    pub banner: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct RawProfile {
    name: Option<String>,
    description: Option<String>,
    carries_model_output: Option<bool>,
    extends: Option<String>,
    #[serde(default)]
    disable: Vec<String>,
    #[serde(default)]
    env_fault_patterns: Vec<String>,
    #[serde(default)]
    progress: Vec<String>,
    #[serde(default)]
    rule: Vec<toml::Table>,
    #[serde(default)]
    progress_records: Vec<toml::Table>,
    #[serde(default)]
    busy: Vec<String>,
    #[serde(default)]
    volatile: Vec<String>,
    tool_output: Option<ToolOutput>,
    banner: Option<Vec<String>>,
    #[serde(flatten)]
    other: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    #[serde(default = "default_kind")]
    kind: String,
    action: Option<String>,
    pattern: Option<String>,
    patterns: Option<Vec<String>>,
    #[serde(default)]
    case_insensitive: bool,
    description: Option<String>,
    source: Option<String>,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    counterexamples: Vec<String>,
    after: Option<After>,
    record: Option<toml::Table>,
    field: Option<String>,
    #[serde(default)]
    fallback: bool,
}

fn default_kind() -> String {
    "env_fault".to_string()
}

/// Parses and validates one profile file. `origin` names it in errors (a path or
/// `builtin:NAME`); `stem` is the default name.
pub fn parse(origin: &str, stem: &str, text: &str) -> Result<ProfileFile, ProfileError> {
    let raw: RawProfile = match toml::from_str::<RawProfile>(text) {
        Err(e) => return Err(toml_error(origin, text, &e)),
        Ok(raw) if !raw.other.contains_key(define::KEY) => raw,
        // Fragments are expanded on the table, then it is read again: only a
        // profile that defines some pays for the second pass.
        Ok(_) => {
            let mut table: toml::Table = toml::from_str(text).map_err(|e| toml_error(origin, text, &e))?;
            let limits = define::Limits { pattern: MAX_PATTERN_LEN, total: define::MAX_EXPANDED_TOTAL };
            define::expand(&mut table, limits).map_err(|e| ProfileError::Define {
                origin: origin.to_string(),
                at: e.at,
                message: e.message,
            })?;
            RawProfile::deserialize(table).map_err(|e| toml_error(origin, text, &e))?
        }
    };
    let name = raw.name.unwrap_or_else(|| stem.to_string());
    // Names are printed in verdicts, reports and CI pages (SECURITY.md).
    if name.is_empty() || name.contains('/') || name.chars().any(crate::output::safe::is_unsafe) {
        return Err(ProfileError::BadName { origin: origin.to_string(), name: crate::output::safe::line(&name) });
    }
    let rule_err = |rule: String, cause: RuleError| ProfileError::Rule { origin: origin.to_string(), rule, cause };

    let mut rules = Vec::with_capacity(raw.env_fault_patterns.len() + raw.rule.len());
    for (i, pattern) in raw.env_fault_patterns.into_iter().enumerate() {
        let id = format!("env_fault_patterns[{i}]");
        let literals = check_pattern(&pattern, false).map_err(|c| rule_err(id.clone(), c))?;
        rules.push(Rule {
            id,
            profile: name.clone(),
            kind: "env_fault".into(),
            action: Action::Pause,
            patterns: vec![pattern],
            case_insensitive: false,
            description: None,
            source: None,
            examples: Vec::new(),
            counterexamples: Vec::new(),
            after: None,
            literals: vec![literals],
            also: Vec::new(),
            lite: Vec::new(),
            builtin: false,
            record: None,
            field: None,
            fallback: false,
        });
    }

    let mut seen = HashSet::new();
    for (i, table) in raw.rule.into_iter().enumerate() {
        let label = table.get("id").and_then(|v| v.as_str()).map_or_else(|| format!("#{}", i + 1), str::to_string);
        let rule = rule_from_table(&name, table).map_err(|c| rule_err(label.clone(), c))?;
        if !seen.insert(rule.id.clone()) {
            return Err(rule_err(label, RuleError::DuplicateId));
        }
        rules.push(rule);
    }

    for (i, pattern) in raw.progress.iter().enumerate() {
        check_pattern(pattern, false).map_err(|c| rule_err(format!("progress[{i}]"), c))?;
    }
    let progress_records = raw
        .progress_records
        .iter()
        .enumerate()
        .map(|(index, table)| {
            record::conditions(table).map_err(|message| ProfileError::ProgressRecord {
                origin: origin.to_string(),
                index,
                message,
            })
        })
        .collect::<Result<_, _>>()?;
    // `busy` and `volatile` are named in errors as `env_fault_patterns` are:
    // by key and position, as the rule they stand in for.
    for (key, patterns) in [("busy", &raw.busy), ("volatile", &raw.volatile)] {
        for (i, pattern) in patterns.iter().enumerate() {
            check_pattern(pattern, false).map_err(|c| rule_err(format!("{key}[{i}]"), c))?;
        }
    }

    if let Some(t) = &raw.tool_output {
        let patterns = [
            ("item", Some(&t.item)),
            ("tool", Some(&t.tool)),
            ("result", t.result.as_ref()),
            ("row", Some(&t.row)),
            ("message", t.message.as_ref()),
            ("message_row", t.message_row.as_ref()),
            ("prompt.row", t.prompt.as_ref().map(|p| &p.row)),
            ("prompt.below", t.prompt.as_ref().map(|p| &p.below)),
        ];
        for (key, pattern) in patterns.into_iter().filter_map(|(k, p)| Some((k, p?))) {
            check_pattern(pattern, false).map_err(|c| rule_err(format!("tool_output.{key}"), c))?;
        }
        if t.message.is_some() != t.message_row.is_some() {
            return Err(rule_err(
                "tool_output.message".into(),
                RuleError::Field("`message` and `message_row` are set together".into()),
            ));
        }
        if t.prompt.is_some() && !t.blank_ends_item {
            return Err(rule_err(
                "tool_output.prompt".into(),
                RuleError::Field(
                    "`prompt` needs `blank_ends_item = true`: a block is what a blank line sets apart".into(),
                ),
            ));
        }
    }

    if let Some(i) = raw.banner.iter().flatten().position(|w| w.trim().is_empty()) {
        return Err(rule_err(
            format!("banner[{i}]"),
            RuleError::Field("a banner word must not be empty or blank".into()),
        ));
    }

    Ok(ProfileFile {
        name,
        description: raw.description,
        carries_model_output: raw.carries_model_output,
        extends: raw.extends,
        disable: raw.disable,
        rules,
        progress: raw.progress,
        unknown_keys: raw.other.into_keys().collect(),
        progress_records,
        stall: super::StallPatterns { busy: raw.busy, volatile: raw.volatile },
        tool_output: raw.tool_output,
        banner: raw.banner,
    })
}

fn rule_from_table(profile: &str, table: toml::Table) -> Result<Rule, RuleError> {
    let raw: RawRule =
        toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| RuleError::Field(one_line(e.message())))?;
    // Ids are printed in verdicts, reports and CI pages: no control characters
    // (escapes) or bidirectional overrides either.
    let unprintable = |c: char| c.is_whitespace() || crate::output::safe::is_unsafe(c);
    if raw.id.is_empty() || raw.id.contains('/') || raw.id.chars().any(unprintable) {
        return Err(RuleError::BadId(raw.id));
    }
    if raw.kind.is_empty() || !raw.kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        return Err(RuleError::BadKind(raw.kind));
    }
    let action = match raw.action.as_deref() {
        None | Some("pause") => Action::Pause,
        Some("retry") => Action::Retry,
        Some("charge") => Action::Charge,
        Some(other) => return Err(RuleError::UnknownAction(other.to_string())),
    };
    let record = raw.record.as_ref().map(record::conditions).transpose().map_err(RuleError::Record)?;
    match (&raw.field, &record) {
        (Some(_), None) => return Err(RuleError::Record("`field` needs `record` (a rule over records)".into())),
        (Some(field), Some(_)) => record::check_pointer(field).map_err(|e| RuleError::Record(format!("field: {e}")))?,
        _ => {}
    }
    let patterns = match (raw.pattern, raw.patterns) {
        (Some(p), None) => vec![p],
        (None, Some(ps)) if !ps.is_empty() => ps,
        (None, None) if record.is_some() => Vec::new(),
        _ => return Err(RuleError::Patterns),
    };
    let literals = patterns.iter().map(|p| check_pattern(p, raw.case_insensitive)).collect::<Result<_, _>>()?;
    if let Some(after) = &raw.after {
        check_pattern(&after.pattern, raw.case_insensitive)?;
        if !(1..=MAX_AFTER_WITHIN).contains(&after.within) {
            return Err(RuleError::AfterWithin { within: after.within, max: MAX_AFTER_WITHIN });
        }
    }
    Ok(Rule {
        id: raw.id,
        profile: profile.to_string(),
        kind: raw.kind,
        action,
        patterns,
        case_insensitive: raw.case_insensitive,
        description: raw.description,
        source: raw.source,
        examples: raw.examples,
        counterexamples: raw.counterexamples,
        after: raw.after,
        literals,
        also: Vec::new(),
        lite: Vec::new(),
        builtin: false,
        record,
        field: raw.field,
        fallback: raw.fallback,
    })
}

/// Syntax-level checks of one pattern: length cap, parse (with plain words for
/// look-around and back-references), and no match of the empty string. The
/// size limits are checked when the profile is compiled. Returns the pattern's
/// required literals, from the same parse.
pub fn check_pattern(pattern: &str, case_insensitive: bool) -> Result<Option<Vec<String>>, RuleError> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(RuleError::PatternTooLong { len: pattern.len(), max: MAX_PATTERN_LEN });
    }
    let estimate = crate::profile::budget::estimate(pattern, case_insensitive);
    crate::profile::budget::admit(estimate).map_err(|s| RuleError::Field(s.message()))?;
    let hir = regex_syntax::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .map_err(|e| syntax_error(&shown(pattern), &e))?;
    crate::profile::budget::charge_parse(&hir, estimate).map_err(|s| RuleError::Field(s.message()))?;
    if hir.properties().minimum_len() == Some(0) {
        return Err(RuleError::MatchesEmpty { pattern: shown(pattern) });
    }
    Ok(crate::profile::literal::required(&hir, case_insensitive))
}

fn syntax_error(pattern: &str, err: &regex_syntax::Error) -> RuleError {
    use regex_syntax::ast::ErrorKind;
    if let regex_syntax::Error::Parse(e) = err {
        let construct = match e.kind() {
            ErrorKind::UnsupportedLookAround => Some("look-around"),
            ErrorKind::UnsupportedBackreference => Some("a back-reference"),
            _ => None,
        };
        if let Some(construct) = construct {
            return RuleError::Unsupported { pattern: pattern.to_string(), construct };
        }
        return RuleError::Regex {
            pattern: pattern.to_string(),
            message: format!("{} (at byte {})", e.kind(), e.span().start.offset),
        };
    }
    RuleError::Regex { pattern: pattern.to_string(), message: one_line(&err.to_string()) }
}

fn toml_error(origin: &str, text: &str, err: &toml::de::Error) -> ProfileError {
    let at = err.span().map_or(0, |s| s.start).min(text.len());
    let before = text.get(..at).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    ProfileError::Toml { origin: origin.to_string(), line, column, message: one_line(err.message()) }
}

/// Error messages are one line on stderr.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A pattern as an error message quotes it: at most 80 characters, so the
/// reason after it is not pushed kilobytes to the right.
pub(crate) fn shown(pattern: &str) -> String {
    if pattern.chars().count() <= 80 {
        pattern.to_string()
    } else {
        format!("{}…", pattern.chars().take(79).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<ProfileFile, String> {
        parse("t.toml", "t", text).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_rules_and_defaults() {
        let p = parse_str(
            r#"
description = "d"
[[rule]]
id = "r1"
kind = "connection"
pattern = 'Unable to connect'
examples = ["Unable to connect"]
[[rule]]
id = "r2"
action = "retry"
patterns = ['a+b', 'c+d']
case_insensitive = true
"#,
        )
        .unwrap();
        assert_eq!(p.name, "t");
        assert_eq!(p.rules.len(), 2);
        assert_eq!((p.rules[0].action, p.rules[0].kind.as_str()), (Action::Pause, "connection"));
        assert_eq!((p.rules[1].action, p.rules[1].kind.as_str()), (Action::Retry, "env_fault"));
        assert_eq!(p.rules[1].effective_patterns().collect::<Vec<_>>(), ["(?i)a+b", "(?i)c+d"]);
        assert_eq!(p.rules[0].qualified_id(), "t/r1");
    }

    #[test]
    fn foreign_orchestrator_profile_loads_with_shorthand() {
        let p = parse_str(
            r#"
binary = "claude"
bypass_args = ["--dangerously-skip-permissions"]
env_fault_patterns = ['API Error: 5\d\d', 'Unable to connect to API']
[env]
FOO = "1"
[hooks]
pre = "echo hi"
"#,
        )
        .unwrap();
        assert_eq!(p.rules.len(), 2);
        assert_eq!(p.rules[1].id, "env_fault_patterns[1]");
        assert_eq!((p.rules[1].kind.as_str(), p.rules[1].action), ("env_fault", Action::Pause));
        assert_eq!(p.unknown_keys, ["binary", "bypass_args", "env", "hooks"]);
    }

    #[test]
    fn toml_error_has_line_and_column() {
        let e = parse_str("name = \"x\"\n[[rule]\nid = 1\n").unwrap_err();
        assert!(e.starts_with("t.toml:2:"), "{e}");
    }

    #[test]
    fn tool_output_is_read_and_checked() {
        let f = parse(
            "t.toml",
            "t",
            "tool_output = { item = '^[●⎿]', tool = '^● Bash\\(', result = '^ *⎿', row = '^ {4}' }\n",
        )
        .unwrap();
        assert_eq!(f.tool_output.map(|t| t.tool), Some("^● Bash\\(".to_string()));
        let e = parse_str("tool_output = { item = '^x', tool = '(?=y)', result = '^z', row = '^ ' }\n").unwrap_err();
        assert!(e.starts_with("t.toml: rule `tool_output.tool`: ") && e.contains("look-around"), "{e}");
        let e = parse_str("tool_output = { item = '^x', tool = '^y', result = '^z' }\n").unwrap_err();
        assert!(e.contains("row"), "{e}");
        // `result` may be left out; blank lines go on an item unless told.
        let f = parse_str("tool_output = { item = '^x', tool = '^y', row = '^ ' }\n").unwrap();
        assert_eq!(f.tool_output.map(|t| (t.result, t.blank_ends_item)), Some((None, false)));
        let f = parse_str("tool_output = { item = '^x', tool = '^y', row = '^ ', blank_ends_item = true }\n").unwrap();
        assert_eq!(f.tool_output.map(|t| t.blank_ends_item), Some(true));
        let f =
            parse_str("tool_output = { item = '^x', tool = '^y', row = '^ ', message = '^m ', message_row = '^  ' }\n")
                .unwrap();
        assert_eq!(f.tool_output.and_then(|t| t.message), Some("^m ".to_string()));
        let e = parse_str("tool_output = { item = '^x', tool = '^y', row = '^ ', message = '^m ' }\n").unwrap_err();
        assert!(e.starts_with("t.toml: rule `tool_output.message`: ") && e.contains("together"), "{e}");
        // A prompt block is what a blank line sets apart; its patterns are checked.
        let prompt = "prompt = { row = '^ ┃', below = '^▣ ' }";
        let f = parse_str(&format!(
            "tool_output = {{ item = '^x', tool = '^y', row = '^ ', blank_ends_item = true, {prompt} }}\n"
        ))
        .unwrap();
        assert_eq!(f.tool_output.and_then(|t| t.prompt).map(|p| p.below), Some("^▣ ".to_string()));
        let e =
            parse_str(&format!("tool_output = {{ item = '^x', tool = '^y', row = '^ ', {prompt} }}\n")).unwrap_err();
        assert!(e.starts_with("t.toml: rule `tool_output.prompt`: ") && e.contains("blank_ends_item"), "{e}");
        let bad = "prompt = { row = '^ ┃', below = '(?<=x)' }";
        let e = parse_str(&format!(
            "tool_output = {{ item = '^x', tool = '^y', row = '^ ', blank_ends_item = true, {bad} }}\n"
        ))
        .unwrap_err();
        assert!(e.starts_with("t.toml: rule `tool_output.prompt.below`: ") && e.contains("look-around"), "{e}");
        let e = parse_str(
            "tool_output = { item = '^x', tool = '^y', row = '^ ', blank_ends_item = true, prompt = { row = '^ ' } }\n",
        )
        .unwrap_err();
        assert!(e.contains("below"), "{e}");
        let e = parse_str("tool_output = { item = '^\\s*$|^x', tool = '^y', row = '^ ' }\n").unwrap_err();
        assert!(e.starts_with("t.toml: rule `tool_output.item`: ") && e.contains("empty"), "{e}");
    }

    #[test]
    fn unknown_rule_key_names_rule_and_key() {
        let e = parse_str("[[rule]]\nid = \"r\"\npatern = 'x'\n").unwrap_err();
        assert!(e.contains("rule `r`") && e.contains("patern"), "{e}");
    }

    #[test]
    fn rejections_name_the_rule_and_cause() {
        let cases = [
            ("[[rule]]\nid = \"a\"\npattern = '(?<=x)y'\n", "look-around"),
            ("[[rule]]\nid = \"a\"\npattern = '(x)\\1'\n", "back-reference"),
            ("[[rule]]\nid = \"a\"\npattern = 'x*'\n", "empty string"),
            ("[[rule]]\nid = \"a\"\npattern = '(unclosed'\n", "invalid regex"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\naction = \"panic\"\n", "unknown action `panic`"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\n[[rule]]\nid = \"a\"\npattern = 'y'\n", "duplicate rule id"),
            ("[[rule]]\nid = \"a\"\nkind = \"Conn\"\npattern = 'x'\n", "lower_snake"),
            ("[[rule]]\nid = \"a\"\n", "exactly one of"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\nafter = { pattern = 'y', within = 0 }\n", "must be 1 to 50"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\nafter = { pattern = 'y', within = 51 }\n", "must be 1 to 50"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\nafter = { pattern = 'y*', within = 2 }\n", "empty string"),
            ("[[rule]]\nid = \"a\"\npattern = 'x'\nafter = { pattern = 'y', within = 2, lines = 3 }\n", "lines"),
        ];
        for (text, needle) in cases {
            let e = parse_str(text).unwrap_err();
            assert!(e.starts_with("t.toml: rule `a`: ") && e.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn overlong_and_too_deep_patterns_are_rejected() {
        let long = format!("[[rule]]\nid = \"a\"\npattern = '{}'\n", "x".repeat(MAX_PATTERN_LEN + 1));
        assert!(parse_str(&long).unwrap_err().contains("the limit is 4096"));
        let deep = format!("[[rule]]\nid = \"a\"\npattern = '{}x{}'\n", "(".repeat(200), ")".repeat(200));
        assert!(parse_str(&deep).unwrap_err().contains("rule `a`: invalid regex"));
    }

    #[test]
    fn progress_patterns_are_checked_like_rule_patterns() {
        let f = parse("t.toml", "t", "progress = ['^⏺ Bash\\(']\n").unwrap();
        assert_eq!(f.progress, ["^⏺ Bash\\("]);
        let e = parse_str("progress = ['ok', '(?=x)y']\n").unwrap_err();
        assert!(e.starts_with("t.toml: rule `progress[1]`: ") && e.contains("look-around"), "{e}");
    }

    #[test]
    fn record_rules_parse_and_are_checked() {
        let p = parse_str(
            "progress_records = [{ \"/type\" = \"assistant\" }]\n[[rule]]\nid = \"a\"\nrecord = { \"/isApiErrorMessage\" = true, \"/apiErrorStatus\" = [429, 529] }\nfield = \"/message/content/0/text\"\n",
        )
        .unwrap();
        let rule = &p.rules[0];
        assert!(rule.is_record_rule() && rule.patterns.is_empty());
        assert_eq!(rule.field.as_deref(), Some("/message/content/0/text"));
        assert_eq!(rule.record.as_ref().map(Vec::len), Some(2));
        assert_eq!(p.progress_records.len(), 1);
        let cases = [
            ("[[rule]]\nid = \"a\"\nfield = \"/x\"\npattern = 'x'\n", "`field` needs `record`"),
            ("[[rule]]\nid = \"a\"\nrecord = { \"type\" = \"x\" }\n", "must start with `/`"),
            ("[[rule]]\nid = \"a\"\nrecord = { \"/t\" = 1.5 }\n", "a float is not accepted"),
            ("[[rule]]\nid = \"a\"\nrecord = {}\nfield = \"/a~2\"\n", "field: JSON pointer"),
            ("[[rule]]\nid = \"a\"\nrecord = { \"/t\" = 1 }\nrecords = 1\n", "unknown field `records`"),
        ];
        for (text, needle) in cases {
            let e = parse_str(text).unwrap_err();
            assert!(e.starts_with("t.toml: rule `a`: ") && e.contains(needle), "{needle}: {e}");
        }
        let e = parse_str("progress_records = [{ \"/t\" = [] }]\n").unwrap_err();
        assert!(e.contains("progress_records[0]") && e.contains("empty"), "{e}");
    }

    #[test]
    fn busy_and_volatile_are_read_and_validated() {
        let p = parse_str("busy = ['esc to interrupt']\nvolatile = ['\\d+s']\n").unwrap();
        assert_eq!(p.stall.busy, ["esc to interrupt"]);
        assert_eq!(p.stall.volatile, ["\\d+s"]);
        assert!(p.unknown_keys.is_empty(), "{:?}", p.unknown_keys);
        let e = parse_str("busy = ['ok', '(unclosed']\n").unwrap_err();
        assert!(e.starts_with("t.toml: rule `busy[1]`: invalid regex"), "{e}");
        let e = parse_str("volatile = ['x*']\n").unwrap_err();
        assert!(e.contains("`volatile[0]`") && e.contains("empty string"), "{e}");
        let e = parse_str("busy = 'not a list'\n").unwrap_err();
        assert!(e.starts_with("t.toml:1:"), "{e}");
    }

    #[test]
    fn missing_id_is_named_by_position() {
        let e = parse_str("[[rule]]\npattern = 'x'\n").unwrap_err();
        assert!(e.contains("rule `#1`") && e.contains("id"), "{e}");
    }
}
