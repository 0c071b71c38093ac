//! The built-in profiles, compiled into the binary from `profiles/` by
//! `build.rs`: each as TOML text, and as a rule table with the required
//! literals precomputed, so that classifying with a built-in profile parses
//! neither TOML nor regex syntax.

use crate::output::verdict::Action;

/// One built-in profile.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// The profile's name (its file stem in `profiles/`).
    pub name: &'static str,
    /// The TOML text.
    pub text: &'static str,
    /// `carries_model_output`, when set.
    pub carries_model_output: Option<bool>,
    /// The profile it extends.
    pub extends: Option<&'static str>,
    /// Inherited rules it drops.
    pub disable: &'static [&'static str],
    /// The rules, ready to match.
    pub rules: &'static [LeanRule],
    /// Patterns of lines that show the agent working again.
    pub progress: &'static [&'static str],
    /// Per progress pattern, its required literals (see
    /// [`crate::profile::literal`]).
    pub progress_literals: &'static [Option<&'static [&'static str]>],
    /// `progress_records`, each a set of conditions.
    pub progress_records: &'static [&'static [LeanCondition]],
    /// `busy` patterns (`faultsift stall` only).
    pub busy: &'static [&'static str],
    /// `volatile` patterns (`faultsift stall` only).
    pub volatile: &'static [&'static str],
    /// Per `busy` pattern, the literals `stall` looks it up by
    /// ([`crate::profile::literal::screen`]).
    pub busy_literals: &'static [Option<&'static [&'static str]>],
    /// Per `volatile` pattern, the same.
    pub volatile_literals: &'static [Option<&'static [&'static str]>],
    /// `tool_output`, when set.
    pub tool_output: Option<BuiltToolOutput>,
    /// `banner`: words of the program's banner.
    pub banner: &'static [&'static str],
}

/// A built-in pattern with its form for `regex-lite`, worked out when
/// faultsift was built.
pub type BuiltPattern = (&'static str, Option<LiteForm>);

/// A built-in profile's `tool_output` ([`crate::profile::ToolOutput`]).
#[derive(Debug, Clone, Copy)]
pub struct BuiltToolOutput {
    /// `item`.
    pub item: BuiltPattern,
    /// `tool`.
    pub tool: BuiltPattern,
    /// `result`, when set.
    pub result: Option<BuiltPattern>,
    /// `row`.
    pub row: BuiltPattern,
    /// `blank_ends_item`.
    pub blank_ends_item: bool,
    /// `message`, when set.
    pub message: Option<BuiltPattern>,
    /// `message_row`, when set.
    pub message_row: Option<BuiltPattern>,
    /// `prompt`'s `row` and `below`, when set.
    pub prompt: Option<(BuiltPattern, BuiltPattern)>,
}

/// A built-in rule as matching needs it (no examples, no prose).
#[derive(Debug, Clone, Copy)]
pub struct LeanRule {
    /// Its id.
    pub id: &'static str,
    /// Its kind.
    pub kind: &'static str,
    /// Its action.
    pub action: Action,
    /// Case-insensitive matching.
    pub case_insensitive: bool,
    /// Its patterns.
    pub patterns: &'static [LeanPattern],
    /// The framing a line above must have.
    pub after: Option<LeanAfter>,
    /// Its record conditions: a rule over records when present.
    pub record: Option<&'static [LeanCondition]>,
    /// The JSON pointer of the record's text.
    pub field: Option<&'static str>,
    /// It decides only when no other rule hits.
    pub fallback: bool,
}

/// A built-in rule's `after`.
#[derive(Debug, Clone, Copy)]
pub struct LeanAfter {
    /// The framing line's regex.
    pub pattern: &'static str,
    /// How many lines above it may be.
    pub within: usize,
}

/// A built-in record condition (see [`crate::profile::record::Condition`]).
#[derive(Debug, Clone, Copy)]
pub struct LeanCondition {
    /// The JSON pointer.
    pub pointer: &'static str,
    /// The accepted values.
    pub accepted: &'static [LeanScalar],
}

/// A built-in accepted value (see [`crate::profile::record::Scalar`]).
#[derive(Debug, Clone, Copy)]
pub enum LeanScalar {
    /// A string.
    Str(&'static str),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A value is there (not null), or none is.
    Present(bool),
}

impl LeanCondition {
    /// The condition as a profile holds it.
    pub fn to_condition(&self) -> crate::profile::record::Condition {
        use crate::profile::record::Scalar;
        let accepted = self
            .accepted
            .iter()
            .map(|s| match *s {
                LeanScalar::Str(v) => Scalar::Str(v.to_string()),
                LeanScalar::Int(v) => Scalar::Int(v),
                LeanScalar::Bool(v) => Scalar::Bool(v),
                LeanScalar::Present(v) => Scalar::Present(v),
            })
            .collect();
        crate::profile::record::Condition { pointer: self.pointer.to_string(), accepted }
    }
}

/// A built-in pattern with what `build.rs` worked out from its syntax tree.
#[derive(Debug, Clone, Copy)]
pub struct LeanPattern {
    /// As written in the profile.
    pub source: &'static str,
    /// Its required literals (see [`crate::profile::literal`]).
    pub literals: Option<&'static [&'static str]>,
    /// The other literal sets a matching line holds one string of each (see
    /// [`crate::profile::literal::also_required`]).
    pub also: &'static [&'static [&'static str]],
    /// Its form for `regex-lite`, when it has one.
    pub lite: Option<LiteForm>,
}

/// A built-in pattern's form for `regex-lite` (see [`crate::profile::lite::Form`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiteForm {
    /// The pattern for `regex-lite`.
    pub pattern: &'static str,
    /// It stands for the original only on lines without non-ASCII word characters.
    pub ascii_words: bool,
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The required literals of `pattern` when it is a built-in progress
/// pattern (worked out when faultsift was built); None when it is not one.
pub fn progress_literals(pattern: &str) -> Option<Option<&'static [&'static str]>> {
    BUILTINS.iter().find_map(|b| {
        let i = b.progress.iter().position(|p| *p == pattern)?;
        b.progress_literals.get(i).copied()
    })
}

/// The built-in profile named `name`.
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}
