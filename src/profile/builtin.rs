//! The built-in profiles, compiled into the binary from `profiles/` by
//! `build.rs`: each as TOML text, and as a rule table with the required
//! literals precomputed, so that classifying with a built-in profile parses
//! neither TOML nor regex syntax.

use crate::verdict::Action;

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
    /// Each pattern with its required literals (see [`crate::literal`]).
    pub patterns: &'static [(&'static str, Option<&'static [&'static str]>)],
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The built-in profile named `name`.
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}
