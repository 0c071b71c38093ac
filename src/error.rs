//! Typed errors: profile loading and rule validation, each carrying the context
//! (profile origin, rule id) that its one-line message names.

use std::io;
use std::path::PathBuf;

/// Why a profile could not be loaded, resolved or compiled.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The profile file could not be read.
    // The I/O failure is part of this message, and so not also its `source`:
    // an error chain printed whole would say it twice.
    #[error("{}: cannot read profile: {cause}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        cause: io::Error,
    },
    /// The file is not valid TOML, or a top-level key has the wrong type.
    #[error("{origin}:{line}:{column}: invalid profile: {message}")]
    Toml {
        /// Where the profile came from (a path, or `builtin:NAME`).
        origin: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column (in characters) of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// One rule is invalid.
    #[error("{origin}: rule `{rule}`: {cause}")]
    Rule {
        /// Where the profile came from.
        origin: String,
        /// The rule's id (or its position when it has none).
        rule: String,
        /// What is wrong with it.
        cause: RuleError,
    },
    /// `extends` names a profile that does not resolve, or loops.
    #[error("{origin}: {message}")]
    Extends {
        /// Where the profile came from.
        origin: String,
        /// What went wrong.
        message: String,
    },
    /// The profile as a whole is over a limit (too many patterns, or patterns
    /// that compile too big together).
    #[error("{origin}: {message}")]
    TooBig {
        /// Where the profile came from.
        origin: String,
        /// Which limit, and by how much.
        message: String,
    },
    /// `[define]` or a `{{name}}` reference to it is not valid.
    #[error("{origin}: {at}: {message}")]
    Define {
        /// Where the profile came from.
        origin: String,
        /// Which fragment, rule or key.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// `progress_records` holds a condition that is not valid.
    #[error("{origin}: progress_records[{index}]: {message}")]
    ProgressRecord {
        /// Where the profile came from.
        origin: String,
        /// Which entry (0-based).
        index: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The profile's name (its `name`, or the file stem) is empty, holds a
    /// `/`, or characters that are not printable.
    #[error(
        "{origin}: profile name `{name}` must be non-empty and hold no `/` or control, invisible or bidirectional characters"
    )]
    BadName {
        /// Where the profile came from.
        origin: String,
        /// The name, made printable.
        name: String,
    },
    /// `disable` names a rule that the profile does not inherit.
    #[error("{origin}: disable: no inherited rule `{rule}`")]
    UnknownDisable {
        /// Where the profile came from.
        origin: String,
        /// The id that matched nothing.
        rule: String,
    },
    /// `--profile NAME` matched no profile.
    #[error("no profile named `{name}` (profiles that resolve here: {available})")]
    NotFound {
        /// The name asked for.
        name: String,
        /// Comma-separated names that do resolve.
        available: String,
    },
    /// Neither `--profile` nor `FAULTSIFT_PROFILE` was given.
    #[error(
        "no profile given: use --profile NAME|PATH or set FAULTSIFT_PROFILE (profiles that resolve here: {available})"
    )]
    NoneGiven {
        /// Comma-separated names that resolve.
        available: String,
    },
}

/// What is wrong with one rule.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// A field is missing, has the wrong type, or is not a rule field.
    #[error("{0}")]
    Field(String),
    /// Two rules of one profile share an id.
    #[error("duplicate rule id")]
    DuplicateId,
    /// `action` is not one of the rule actions.
    #[error("unknown action `{0}` (expected pause, retry or charge)")]
    UnknownAction(String),
    /// `kind` is not a lower_snake label.
    #[error("kind `{0}` is not a lower_snake label (a-z, 0-9, _)")]
    BadKind(String),
    /// The id holds characters that would make `profile/id` ambiguous.
    #[error("id `{0}` must be non-empty and hold no `/`, whitespace or control characters")]
    BadId(String),
    /// `after.within` is outside 1 to the limit.
    #[error("after.within is {within}; it must be 1 to {max}")]
    AfterWithin {
        /// The value given.
        within: usize,
        /// The largest allowed.
        max: usize,
    },
    /// Neither `pattern` nor `patterns` was given, or both were.
    #[error("give exactly one of `pattern` or `patterns` (non-empty; optional with `record`)")]
    Patterns,
    /// `record` or `field` is not valid (a JSON pointer, a condition value).
    #[error("{0}")]
    Record(String),
    /// The regex does not parse.
    #[error("invalid regex {pattern:?}: {message}")]
    Regex {
        /// The pattern as written.
        pattern: String,
        /// The regex parser's explanation, on one line.
        message: String,
    },
    /// Look-around or a back-reference: the linear-time engine cannot run them.
    #[error(
        "invalid regex {pattern:?}: {construct} is not supported: faultsift's regex engine runs in linear time and has no look-around or back-references (match the text itself instead)"
    )]
    Unsupported {
        /// The pattern as written.
        pattern: String,
        /// `look-around` or `a back-reference`.
        construct: &'static str,
    },
    /// The pattern can match the empty string, so it would match every line.
    #[error("pattern {pattern:?} can match the empty string, so it would match every line")]
    MatchesEmpty {
        /// The pattern as written.
        pattern: String,
    },
    /// The pattern is longer than [`crate::profile::MAX_PATTERN_LEN`].
    #[error("pattern is {len} bytes long; the limit is {max}")]
    PatternTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The compiled automaton would exceed the size limit.
    #[error(
        "pattern {pattern:?} compiles to more than the {limit}-byte limit (large counted repetitions or Unicode classes such as \\w{{n}} grow it: prefer ASCII classes like [A-Za-z0-9_])"
    )]
    TooBig {
        /// The pattern as written (possibly shortened).
        pattern: String,
        /// The limit in bytes.
        limit: usize,
    },
}
