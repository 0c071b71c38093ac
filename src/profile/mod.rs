//! Profiles: the TOML schema ([`schema`]), the built-ins ([`builtin`]), the
//! layered resolution with `extends`/`disable` ([`resolve`]), and what a
//! pattern requires of a line ([`literal`]) and its `regex-lite` form ([`lite`]).

pub mod budget;
pub mod builtin;
pub mod lite;
pub mod literal;
pub mod record;
pub mod resolve;
pub mod schema;

use std::fmt;
use std::path::PathBuf;

pub use resolve::{BUILTIN_PREFIX, Layer, Resolver, shadow_note};
pub use schema::{After, MAX_PATTERN_LEN, ProfileFile, Rule};

/// Where a profile came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Compiled into the binary.
    Builtin,
    /// A file on disk.
    File(PathBuf),
}

impl Origin {
    /// `builtin` or the path, as the verdict's `profile_origin` says it.
    pub fn label(&self) -> String {
        match self {
            Origin::Builtin => "builtin".to_string(),
            Origin::File(p) => p.display().to_string(),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// A resolved profile: `extends` applied, `disable`d rules dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// The logs it reads hold the model's own words (pane captures).
    pub carries_model_output: bool,
    /// Where its top file came from.
    pub origin: Origin,
    /// Its rules in match order: inherited first, then its own.
    pub rules: Vec<Rule>,
    /// Patterns of lines that show the agent working again after a fault
    /// (SPEC §1.5): inherited first, then its own.
    pub progress: Vec<String>,
    /// Unknown top-level keys of its files (reported by `test`).
    pub unknown_keys: Vec<String>,
    /// Every file it was built from, base first: `(origin label, TOML text)`.
    /// `test` checks that no rule matches a line of them. Empty when resolved
    /// for matching only ([`Resolver::resolve_for_matching`]).
    pub texts: Vec<(String, String)>,
    /// Records that show the agent working again (SPEC §1.5 over records):
    /// inherited first, then its own.
    pub progress_records: Vec<Vec<record::Condition>>,
}
