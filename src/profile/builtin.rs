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
    /// `busy` patterns (`faultsift stall` only).
    pub busy: &'static [&'static str],
    /// `volatile` patterns (`faultsift stall` only).
    pub volatile: &'static [&'static str],
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
}

/// A built-in pattern with what `build.rs` worked out from its syntax tree.
#[derive(Debug, Clone, Copy)]
pub struct LeanPattern {
    /// As written in the profile.
    pub source: &'static str,
    /// Its required literals (see [`crate::profile::literal`]).
    pub literals: Option<&'static [&'static str]>,
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

/// The built-in profile named `name`.
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}
