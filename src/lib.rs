//! faultsift: the post-mortem classifier for failed agent and CI sessions.
//!
//! The house, from the edge inwards:
//!
//! - [`cli`] (clap definitions) and [`config`] (what the flags resolve to);
//!   [`app`] runs a command line, [`commands`] holds the commands other than
//!   `classify`, and [`workers`] runs a job's logs under the watchdog.
//! - [`pipeline`]: the stages (window → clean → match → decide) behind one
//!   entry point, [`Pipeline::classify`].
//! - [`profile`]: the rule files, built in or loaded, their resolution, and
//!   what their patterns require (literals, `regex-lite` forms).
//! - [`output`]: the verdict wire format and everything that renders it.
//! - [`error`] and [`exit_codes`]: how failures are named and reported.

pub mod app;
pub mod cli;
pub mod commands;
pub mod config;
pub mod error;
pub mod exit_codes;
pub mod output;
pub mod pipeline;
pub mod profile;
pub mod workers;

pub use output::verdict::{Action, Input, Verdict};
pub use pipeline::decide::Subject;
pub use pipeline::matcher::{CompiledProfile, Workload};
pub use pipeline::window::{LogSource, Window, WindowSpec};
pub use pipeline::{Classified, Pipeline, Settings};
