//! The stall report wire format, `faultsift/stall/v1`: the types that
//! `faultsift stall` prints and `faultsift schema stall` describes.
//!
//! # Wire format
//!
//! `stall` prints one JSON object per tick (one line; `--pretty` indents it).
//! Field names are a contract: fields may be added, never renamed or removed.
//! Every field is always present; "absent" values are `null`.
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `schema` | string | always `"faultsift/stall/v1"` |
//! | `capture` | string | the capture as given, `"-"` for standard input |
//! | `session` | string | `--session`, or the capture as given: whose state file it is |
//! | `profile` | string | the resolved profile's name |
//! | `stalled` | bool | the screen has not changed for `threshold_s` with nothing busy |
//! | `state` | `"new"`, `"changed"`, `"static"`, `"busy"`, `"cleared"` | what this tick saw |
//! | `static_s` | integer | seconds the screen has been unchanged and not busy |
//! | `threshold_s` | integer | `--threshold` in seconds |
//! | `reason` | string | one sentence for an alert or task metadata |
//! | `busy_evidence` | string or null | the busy line that restarted the clock (cleaned, redacted, at most 240 characters) |
//! | `verdict` | object or null | with `--classify`: the `faultsift/verdict/v1` verdict of the same capture, with status `stalled` when stalled |
//!
//! `state`: `new` — no usable state (first tick, after `--idle`, or a state
//! file that was missing, corrupt, future-dated or another session's), the
//! clock starts; `changed` — the screen differs from the last tick's, the clock
//! restarts; `static` — the same screen as the last tick, the clock runs (it
//! restarts on the first quiet tick after a busy one, so that time spent busy
//! is never counted); `busy` — a busy line on screen or `--busy`, the clock
//! restarts; `cleared` — `--idle`, the state is cleared.
//!
//! `--format pact` prints the task-metadata form instead: `{"stalled": true,
//! "reason": "…"}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::output::verdict::Verdict;

/// The value of [`StallReport::schema`].
pub const SCHEMA_ID: &str = "faultsift/stall/v1";

/// What one tick saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TickState {
    /// No usable state: the static clock starts now.
    New,
    /// The screen differs from the last tick's: the clock restarts.
    Changed,
    /// The same screen as the last tick, nothing busy: the clock runs.
    Static,
    /// A busy line on screen, or `--busy`: the clock restarts.
    Busy,
    /// `--idle`: no outstanding work, the state is cleared.
    Cleared,
}

impl TickState {
    /// The lowercase name used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            TickState::New => "new",
            TickState::Changed => "changed",
            TickState::Static => "static",
            TickState::Busy => "busy",
            TickState::Cleared => "cleared",
        }
    }
}

/// One JSON object per tick (schema `faultsift/stall/v1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "faultsift stall report",
    description = "One tick of live stall detection (schema faultsift/stall/v1)."
)]
pub struct StallReport {
    /// Always `faultsift/stall/v1`.
    pub schema: String,
    /// The capture as given on the command line, or `-` for standard input.
    pub capture: String,
    /// The session the state file belongs to (`--session`, or the capture).
    pub session: String,
    /// The resolved profile's name.
    pub profile: String,
    /// The screen has been unchanged for at least `threshold_s` seconds, with
    /// no busy line on it and no `--busy`.
    pub stalled: bool,
    /// What this tick saw.
    pub state: TickState,
    /// Seconds the screen has been unchanged and not busy.
    pub static_s: u64,
    /// The threshold, in seconds.
    pub threshold_s: u64,
    /// One sentence for an alert or task metadata.
    pub reason: String,
    /// The busy line that restarted the clock (cleaned, windowed to at most
    /// 240 characters, redacted), or null.
    pub busy_evidence: Option<String>,
    /// With `--classify`: the verdict of the same capture (status `stalled`
    /// when stalled, none otherwise); null without it.
    pub verdict: Option<Verdict>,
}

/// The task-metadata form (`--format pact`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pact {
    /// As [`StallReport::stalled`].
    pub stalled: bool,
    /// As [`StallReport::reason`].
    pub reason: String,
}

/// The JSON Schema of [`StallReport`], derived from the types above.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(StallReport);
    serde_json::to_value(&schema).unwrap_or(serde_json::Value::Null)
}

/// The report as `format` prints it, newline included.
pub fn render(report: &StallReport, format: StallFormat, pretty: bool) -> String {
    match format {
        StallFormat::Json => json(report, pretty),
        StallFormat::Pact => json(&Pact { stalled: report.stalled, reason: report.reason.clone() }, pretty),
        StallFormat::Text => text(report),
    }
}

/// One JSON line, or indented.
fn json<T: Serialize>(value: &T, pretty: bool) -> String {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    // Plain data with string keys: serializing cannot fail.
    format!("{}\n", text.unwrap_or_default())
}

/// One line for people, then the busy line and the verdict when there are.
/// Everything shown is cleaned or escaped: no control characters.
fn text(r: &StallReport) -> String {
    let head = if r.stalled { "stalled".to_string() } else { format!("not stalled ({})", r.state.as_str()) };
    let mut out = format!("{head}: {}: {}\n", crate::output::safe::line(&r.capture), r.reason);
    if let Some(line) = &r.busy_evidence {
        out.push_str(&format!("  busy: {line}\n"));
    }
    if let Some(v) = &r.verdict {
        out.push_str(&format!("  verdict: {}: {}\n", v.action.as_str(), v.reason));
    }
    out
}

/// Output formats of `stall`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StallFormat {
    /// The `faultsift/stall/v1` object, one line.
    Json,
    /// Task metadata: `{"stalled": …, "reason": "…"}`.
    Pact,
    /// One line for people (and the verdict's, with `--classify`).
    Text,
}
