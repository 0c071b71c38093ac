//! faultsift: the post-mortem classifier for failed agent and CI sessions.
//!
//! The pipeline (SPEC §1), one module per stage:
//!
//! ```text
//! log bytes ─window─▶ tail ─clean─▶ lines ─matcher─▶ hits ─decide─▶ verdict ─render─▶ bytes
//! ```
//!
//! The stages are pure (bytes or lines in, data out); [`app`] is the edge that
//! reads the command line and writes verdicts, and [`workers`] runs the stages
//! over the logs under a watchdog.

pub mod app;
pub mod bait;
pub mod check;
pub mod clean;
pub mod cli;
pub mod config;
pub mod decide;
pub mod error;
pub mod evidence;
pub mod exit_codes;
pub mod explain;
pub mod hints;
pub mod lite;
pub mod literal;
pub mod matcher;
pub mod profile;
pub mod redact;
pub mod render;
pub mod show;
pub mod summary;
pub mod verdict;
pub mod window;
pub mod workers;

use std::time::{Duration, Instant};

pub use decide::Subject;
pub use matcher::CompiledProfile;
pub use verdict::{Action, Verdict};
pub use window::{Window, WindowSpec};

/// Classifies one window: clean, match (stopping at `deadline`), decide.
/// `timeout` is only named in the reason when the deadline passes.
pub fn classify_window(
    compiled: &CompiledProfile,
    subject: Subject<'_>,
    window: &Window,
    deadline: Option<Instant>,
    timeout: Duration,
) -> Verdict {
    let cleaned = clean::clean(&window.bytes, window.starts_mid_line);
    classify_cleaned(compiled, subject, window, &cleaned, deadline, timeout)
}

/// [`classify_window`] after the clean stage: match and decide.
pub fn classify_cleaned(
    compiled: &CompiledProfile,
    subject: Subject<'_>,
    window: &Window,
    cleaned: &clean::Cleaned,
    deadline: Option<Instant>,
    timeout: Duration,
) -> Verdict {
    let scan = compiled.scan(cleaned, deadline);
    decide::decide(subject, compiled, window, cleaned, &scan, timeout)
}

/// Resolves a profile by name or path through the usual layers and compiles it.
pub fn load_profile(
    selector: &str,
    profile_dirs: &[std::path::PathBuf],
) -> Result<CompiledProfile, error::ProfileError> {
    let resolver = profile::Resolver::from_env(profile_dirs)?;
    let profile = resolver.resolve(selector)?;
    let origin = profile.origin.label();
    CompiledProfile::compile(profile, &origin)
}
