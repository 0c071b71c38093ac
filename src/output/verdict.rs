//! The verdict wire format, `faultsift/verdict/v1`: the types that `classify`
//! prints and `schema` describes.
//!
//! # Wire format
//!
//! `classify` prints one JSON object per log, one per line (JSON Lines), in the
//! order the logs were given. Field names are a contract: fields may be added,
//! never renamed or removed. Every field is always present; "absent" values are
//! `null`.
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `schema` | string | always `"faultsift/verdict/v1"` |
//! | `log` | string | the path as given, `"-"` for standard input |
//! | `profile` | string | the resolved profile's name |
//! | `profile_origin` | string | `"builtin"` or the profile file's path |
//! | `status` | string or null | `--status` as given |
//! | `action` | `"pause"`, `"retry"`, `"charge"`, `"skip"` | what the orchestrator should do |
//! | `env_fault` | bool | `action` is `pause` or `retry` |
//! | `kind`, `rule` | string or null | the winning rule's kind and `profile/id` |
//! | `evidence` | string or null | the winning line, cleaned, redacted, at most 240 characters |
//! | `offset` | integer or null | absolute byte offset of the winning line in the log |
//! | `reason` | string | one sentence for an alert |
//! | `hits` | array | every rule that matched in the window, in profile order |
//! | `captures` | object | named groups of the winning match (redacted), plus `retry_after_s` |
//! | `window` | object or null | the bytes classified; null when nothing was read |
//! | `timed_out` | bool | the deadline stopped the scan |
//! | `error` | string or null | why the log could not be read |
//! | `elapsed_us` | integer | microseconds spent on this log |
//! | `input` | `"text"`, `"jsonl"` | how the window was read: screen text, or JSON Lines records |
//! | `recovered` | bool | the winning fault was followed by progress: the session got past it, and the verdict is `charge` |

use std::collections::BTreeMap;

use schemars::JsonSchema;

/// How a window was read, as the verdict says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Input {
    /// As screen text: cleaned lines.
    #[default]
    Text,
    /// As JSON Lines records.
    Jsonl,
}

impl Input {
    /// `text` or `jsonl`.
    pub fn as_str(self) -> &'static str {
        match self {
            Input::Text => "text",
            Input::Jsonl => "jsonl",
        }
    }
}
use serde::{Deserialize, Serialize};

/// The value of [`Verdict::schema`].
pub const SCHEMA_ID: &str = "faultsift/verdict/v1";

/// What the orchestrator should do with the attempt (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Environment fault that needs a person or an outage to pass: do not charge.
    Pause,
    /// Transient environment fault: retry after a backoff, do not charge.
    Retry,
    /// No environment fault found (or classification declined): charge the attempt.
    Charge,
    /// Status not eligible: nothing was classified.
    Skip,
}

impl Action {
    /// `pause` and `retry` are environment faults.
    pub fn is_env_fault(self) -> bool {
        matches!(self, Action::Pause | Action::Retry)
    }

    /// The lowercase name used on the wire and in profiles.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Pause => "pause",
            Action::Retry => "retry",
            Action::Charge => "charge",
            Action::Skip => "skip",
        }
    }
}

/// One JSON object per log (schema `faultsift/verdict/v1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "faultsift verdict", description = "The classification of one log (schema faultsift/verdict/v1).")]
pub struct Verdict {
    /// Always `faultsift/verdict/v1`.
    pub schema: String,
    /// The log as given on the command line, or `-` for standard input.
    pub log: String,
    /// The resolved profile's name.
    pub profile: String,
    /// `builtin`, or the path of the profile file.
    pub profile_origin: String,
    /// The `--status` given, or null.
    pub status: Option<String>,
    /// What to do with the attempt.
    pub action: Action,
    /// True when `action` is `pause` or `retry`.
    pub env_fault: bool,
    /// The winning rule's kind, or null.
    pub kind: Option<String>,
    /// The winning rule as `profile/rule-id`, or null.
    pub rule: Option<String>,
    /// The winning line, cleaned, windowed around the match to at most 240
    /// characters (`…` marks each cut end), free of control characters, with
    /// secrets redacted.
    pub evidence: Option<String>,
    /// Absolute byte offset in the log of the start of the winning line
    /// (for standard input, counted from the stream's first byte).
    pub offset: Option<u64>,
    /// One sentence an orchestrator can put in an alert.
    pub reason: String,
    /// Every rule that matched in the window, in profile order.
    pub hits: Vec<Hit>,
    /// Named capture groups of the winning match, redacted like the evidence.
    pub captures: Captures,
    /// The bytes that were classified; null when nothing was read (skip, error).
    pub window: Option<WindowInfo>,
    /// True when the deadline stopped the scan (the verdict is then `charge`).
    pub timed_out: bool,
    /// Why the log could not be read, or null.
    pub error: Option<String>,
    /// Microseconds spent on this log.
    pub elapsed_us: u64,
    /// How the window was read: `text` (screen text) or `jsonl` (JSON Lines
    /// records); `text` when nothing was read, unless `--input jsonl` was given.
    pub input: Input,
    /// True when the last fault in the window was followed by the agent
    /// working again (the profile's `progress` patterns, or `progress_records`
    /// for records): the session got past it, so it is not what the session
    /// died of. `action` is then `charge`; `kind`, `rule` and `evidence` name
    /// the fault it recovered from.
    pub recovered: bool,
}

/// One rule that matched in the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// The rule, as `profile/rule-id`.
    pub rule: String,
    /// The rule's kind.
    pub kind: String,
    /// The rule's action.
    pub action: Action,
    /// How many lines it was the hit of.
    pub count: u64,
    /// Absolute byte offset of the last of those lines.
    pub last_offset: u64,
}

/// Named capture groups of the winning match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Captures {
    /// Every named group that took part in the match, by name, as text
    /// (`resume_at` among them: the reset time as the program printed it).
    #[serde(flatten)]
    pub groups: BTreeMap<String, String>,
    /// The `retry_after` group as whole seconds (rounded up), when it parses.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_after_s: Option<u64>,
}

/// Which bytes of the log were classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WindowInfo {
    /// Absolute offset of the window's first byte.
    pub start: u64,
    /// Absolute offset one past the window's last byte.
    pub end: u64,
    /// The log's length in bytes.
    pub log_bytes: u64,
    /// The window is not the whole log.
    pub truncated: bool,
    /// `--since` pointed past the end of the log (it was replaced); the tail was used.
    pub rotated: bool,
}

/// The JSON Schema of [`Verdict`], derived from the types above.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Verdict);
    serde_json::to_value(&schema).unwrap_or(serde_json::Value::Null)
}
