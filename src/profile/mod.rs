//! Profiles: the TOML schema ([`schema`]), the built-ins ([`builtin`]), the
//! layered resolution with `extends`/`disable` ([`resolve`]), and what a
//! pattern requires of a line ([`literal`]) and its `regex-lite` form ([`lite`]).

pub mod budget;
pub mod builtin;
pub mod define;
pub mod lite;
pub mod literal;
pub mod record;
pub mod resolve;
pub mod schema;

use std::fmt;
use std::path::PathBuf;

pub use resolve::{BUILTIN_PREFIX, Layer, Resolver, shadow_note};
pub use schema::{After, MAX_PATTERN_LEN, ProfileFile, Prompt, Rule, ToolOutput};

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

/// The patterns `faultsift stall` reads a screen with (SPEC §4, §5): validated
/// like rule patterns at load, compiled only by `stall`. An `extends` chain
/// accumulates them, base first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StallPatterns {
    /// A line matching one of these shows the session busy (a spinner, an
    /// `esc to interrupt` hint); it is left out of the screen's identity.
    pub busy: Vec<String>,
    /// Chrome that changes while nothing happens (a clock, a token or elapsed
    /// counter): each match is masked in the screen's identity.
    pub volatile: Vec<String>,
}

impl StallPatterns {
    /// No pattern of either kind.
    pub fn is_empty(&self) -> bool {
        self.busy.is_empty() && self.volatile.is_empty()
    }

    /// Appends `other`'s patterns after these.
    pub fn extend(&mut self, other: StallPatterns) {
        self.busy.extend(other.busy);
        self.volatile.extend(other.volatile);
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
    /// Its `busy` and `volatile` patterns (`faultsift stall` only). Empty when
    /// a built-in is resolved for matching ([`Resolver::resolve_for_matching`]):
    /// `classify` never reads them.
    pub stall: StallPatterns,
    /// Every file it was built from, base first: `(origin label, TOML text)`.
    /// `test` checks that no rule matches a line of them. Empty when resolved
    /// for matching only ([`Resolver::resolve_for_matching`]).
    pub texts: Vec<(String, String)>,
    /// Records that show the agent working again (SPEC §1.5 over records):
    /// inherited first, then its own.
    pub progress_records: Vec<Vec<record::Condition>>,
    /// The pane's structure: its own, or else inherited.
    pub tool_output: Option<ToolOutput>,
    /// Words of the program's banner (an extension of SPEC §1.7): a log may
    /// open with a few lines, each holding one of them, before its first
    /// record. Its own, or else inherited.
    pub banner: Vec<String>,
}
