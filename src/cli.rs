//! The command line, as clap definitions only: what each flag is and says in
//! `--help`. Turning them into a run is `app`'s job.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::config::{Format, parse_size, parse_timeout};

/// Classify why an agent or CI session failed: environment fault (pause/retry)
/// or the work's own failure (charge).
#[derive(Debug, Parser)]
#[command(name = "faultsift", version, about, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Classify logs and print one JSON verdict per log.
    #[command(after_help = CLASSIFY_EXAMPLES)]
    Classify(ClassifyArgs),
    /// Print the JSON Schema of the verdict.
    Schema,
}

const CLASSIFY_EXAMPLES: &str = "\
Examples:
  faultsift classify --profile claude --status timeout session.log
  if faultsift classify -q --profile claude --status timeout \"$log\"; then echo paused; fi
  tmux capture-pane -p -S - | faultsift classify --profile claude | jq -r .action";

/// Options of `classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// Logs to classify; `-` (or none, with piped input) reads standard input.
    #[arg(value_name = "LOG")]
    pub logs: Vec<PathBuf>,

    /// Profile: a name resolved through the profile directories and the
    /// built-ins, or a path (containing `/` or ending in `.toml`).
    #[arg(short, long, env = "FAULTSIFT_PROFILE", value_name = "NAME|PATH")]
    pub profile: Option<String>,

    /// Extra directory searched for profiles before the others (repeatable).
    #[arg(long = "profile-dir", value_name = "DIR")]
    pub profile_dirs: Vec<PathBuf>,

    /// How the session ended, as your orchestrator names it; `completed` and
    /// `over_budget` are not classified (action `skip`).
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,

    /// The session produced its result: nothing to classify (action `skip`).
    #[arg(long)]
    pub result_present: bool,

    /// How much of each log's end to read: 65536, 64KiB, 1MiB (at most 64MiB).
    #[arg(long, value_name = "SIZE", default_value = "64KiB", value_parser = parse_size)]
    pub tail_bytes: u64,

    /// Ignore the bytes before this offset (taken when the session started);
    /// an offset past the end means the log was replaced.
    #[arg(long, value_name = "OFFSET")]
    pub since: Option<u64>,

    /// Deadline for scanning each log: 2s, 200ms, 1.5s.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_timeout)]
    pub timeout: Duration,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,

    /// Indent the JSON.
    #[arg(long)]
    pub pretty: bool,

    /// Print nothing; exit 0 if any log is an environment fault, 1 if none,
    /// 2 on error (as grep -q).
    #[arg(short, long)]
    pub quiet: bool,

    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}
