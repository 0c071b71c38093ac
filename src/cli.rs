//! The command line, as clap definitions only: what each flag is and says in
//! `--help`. Turning them into a run is `app`'s job.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::config::{
    ColorChoice, Format, InputMode, StallFormat, TestFormat, parse_offset, parse_size, parse_threshold, parse_timeout,
};

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
    /// Explain the classification of one log, for people.
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Check profiles: examples, counterexamples, bait corpus, self-match, lints.
    #[command(after_help = TEST_EXAMPLES)]
    Test(TestArgs),
    /// List the profiles that resolve here.
    #[command(after_help = PROFILES_EXAMPLES)]
    Profiles(ProfilesArgs),
    /// Print one resolved profile (extends and disable applied) as TOML.
    #[command(after_help = SHOW_EXAMPLES)]
    Show(ShowArgs),
    /// Tell a frozen session from a busy one: one tick of live stall detection.
    #[command(after_help = STALL_EXAMPLES)]
    Stall(StallArgs),
    /// Print the JSON Schema of the verdict (or of the --summary line, or of the stall report).
    #[command(after_help = SCHEMA_EXAMPLES)]
    Schema(SchemaArgs),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print a man page (roff): faultsift(1), or faultsift-COMMAND(1).
    #[command(
        after_help = "Examples:\n  faultsift man > faultsift.1 && man -l faultsift.1\n  faultsift man classify | man -l -"
    )]
    Man(ManArgs),
}

const STALL_EXAMPLES: &str = "\
Examples:
  tmux capture-pane -p -t agent | faultsift stall --state /run/agent.stall --profile claude
  faultsift stall pane.txt --state s.json --profile codex --busy        # a tool process runs
  faultsift stall pane.txt --state s.json --profile codex --idle        # no outstanding work
  if faultsift stall -q pane.txt --state s.json --profile gemini; then echo stalled; fi
  faultsift stall pane.txt --state s.json --profile claude --classify --format pact";

const SCHEMA_EXAMPLES: &str = "\
Examples:
  faultsift schema > verdict.schema.json
  faultsift schema summary
  faultsift schema stall > stall.schema.json";

const EXPLAIN_EXAMPLES: &str = "\
Examples:
  faultsift explain session.log --profile claude
  faultsift explain session.log --profile ./my-profile.toml --color always | less -R";

const TEST_EXAMPLES: &str = "\
Examples:
  faultsift test                      # every profile that resolves here
  faultsift test claude ./mine.toml
  faultsift test mine --clean-logs ~/healthy-sessions --format json";

const PROFILES_EXAMPLES: &str = "\
Examples:
  faultsift profiles
  faultsift profiles --profile-dir ./profiles";

const SHOW_EXAMPLES: &str = "\
Examples:
  faultsift show claude
  faultsift show claude > ~/.config/faultsift/profiles/claude.toml   # start an overlay";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  faultsift completions bash > ~/.local/share/bash-completion/completions/faultsift
  faultsift completions zsh > \"${fpath[1]}/_faultsift\"
  faultsift completions fish > ~/.config/fish/completions/faultsift.fish";

const CLASSIFY_EXAMPLES: &str = "\
Examples:
  faultsift classify --profile claude --status timeout session.log
  if faultsift classify -q --profile claude --status timeout \"$log\"; then echo paused; fi
  tmux capture-pane -p -S - | faultsift classify --profile claude | jq -r .action
  faultsift classify --profile claude ~/.claude/projects/my-project/SESSION.jsonl
  faultsift classify --profile ci --glob '*.log' --summary --format markdown logs/";

/// Options of `classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// Logs to classify; `-` (or none, with piped input) reads standard input;
    /// a directory classifies the files under it.
    #[arg(value_name = "LOG")]
    pub logs: Vec<PathBuf>,

    /// With a directory, as ripgrep's -g: classify the files that match
    /// (repeatable; a glob without `/` matches the file name at any depth,
    /// one with `/` the path under the directory; `!` excludes, the last
    /// matching glob wins). Default: every regular file.
    #[arg(short = 'g', long, value_name = "GLOB")]
    pub glob: Vec<String>,

    /// With a directory: also walk hidden files and directories (names
    /// starting with `.`, `.git` among them), which are skipped by default.
    #[arg(long)]
    pub hidden: bool,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: ProfileSelect,

    /// How the session ended, as your orchestrator names it; `completed` and
    /// `over_budget` are not classified (action `skip`).
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,

    /// The session produced its result: nothing to classify (action `skip`).
    #[arg(long)]
    pub result_present: bool,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub scan: ScanArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,

    /// Indent the JSON.
    #[arg(long)]
    pub pretty: bool,

    /// The name standard input goes by in verdicts (default `-`).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,

    /// After the verdicts: counts per action, kind and rule, the share of
    /// environment faults, and the logs no rule matched.
    #[arg(long)]
    pub summary: bool,

    /// Colour the text format: auto (a terminal, and NO_COLOR unset), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Print nothing; exit 0 if any log is an environment fault, 1 if none,
    /// 2 on error (as grep -q).
    #[arg(short, long)]
    pub quiet: bool,

    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Which profile, and where else to look for it (`classify`, `explain`).
#[derive(Debug, Args)]
pub struct ProfileSelect {
    /// Profile: a name resolved through the profile directories and the
    /// built-ins, or a path (containing `/` or ending in `.toml`).
    #[arg(short, long, env = "FAULTSIFT_PROFILE", value_name = "NAME|PATH",
          add = clap_complete::ArgValueCompleter::new(crate::profile::resolve::complete_profile))]
    pub profile: Option<String>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub dirs: ProfileDirs,
}

/// Which bytes of a log to scan, and for how long (`classify`, `explain`).
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// How much of each log's end to read: 65536, 64KiB, 1MiB (at most 64MiB).
    #[arg(long, value_name = "SIZE", default_value = "64KiB", value_parser = parse_size)]
    pub tail_bytes: u64,

    /// Ignore the bytes before this offset (taken when the session started);
    /// an offset past the end means the log was replaced.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub since: Option<u64>,

    /// Deadline for scanning each log (and for loading the profile): 2s,
    /// 200ms, 1.5s, 1m, at most 1h.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_timeout)]
    pub timeout: Duration,

    /// How to read each log: auto (JSON Lines when its lines are JSON objects:
    /// a transcript or an event stream; else text), text, or jsonl.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = InputMode::Auto)]
    pub input: InputMode,
}

/// Where profiles are looked up, beyond the usual layers.
#[derive(Debug, Args)]
pub struct ProfileDirs {
    /// Extra directory searched for profiles before the others (repeatable).
    #[arg(long = "profile-dir", value_name = "DIR")]
    pub profile_dirs: Vec<PathBuf>,
}

/// Options of `explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The log to explain (`-`, or none with piped input, for standard input).
    #[arg(value_name = "LOG")]
    pub log: Option<PathBuf>,

    /// How the session ended, as for classify (`completed` and `over_budget`
    /// are not classified).
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,

    /// List at most N matching lines (the rest are counted).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_hits: usize,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: ProfileSelect,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub scan: ScanArgs,

    /// Colour: auto (a terminal, and NO_COLOR unset), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Options of `test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Profiles (names or paths); none means every profile that resolves here.
    #[arg(value_name = "PROFILE|PATH")]
    pub profiles: Vec<String>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub dirs: ProfileDirs,

    /// A directory of healthy sessions' logs: any hit in them is a failure.
    #[arg(long, value_name = "DIR")]
    pub clean_logs: Option<PathBuf>,

    /// Output: one line per failure for people, or one JSON object for CI.
    #[arg(long, value_enum, default_value_t = TestFormat::Human)]
    pub format: TestFormat,
}

/// Options of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The profile (name or path).
    #[arg(value_name = "NAME|PATH")]
    pub name: String,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub dirs: ProfileDirs,
}

/// Options of `stall`.
#[derive(Debug, Args)]
pub struct StallArgs {
    /// The session's pane capture (`-`, or none with piped input, reads
    /// standard input).
    #[arg(value_name = "CAPTURE")]
    pub capture: Option<PathBuf>,

    /// The session's state file, created on its first tick (one per session).
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: ProfileSelect,

    /// Whose state the file holds (default: the capture as given); a state
    /// file written for another session starts afresh.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// How long a screen must stay unchanged, with nothing busy, to be a
    /// stall: 300s, 5m (at least 30s).
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_threshold)]
    pub threshold: u64,

    /// A tool process is running: not stalled, and the static clock restarts.
    #[arg(long, conflicts_with = "idle")]
    pub busy: bool,

    /// No outstanding work: clear the state, so idle time is never charged
    /// to the next request.
    #[arg(long)]
    pub idle: bool,

    /// The time in seconds since the Unix epoch, instead of the clock
    /// (tests, replays).
    #[arg(long, value_name = "EPOCH")]
    pub now: Option<u64>,

    /// How much of the capture's end to read: 65536, 64KiB, 1MiB (at most 64MiB).
    #[arg(long, value_name = "SIZE", default_value = "64KiB", value_parser = parse_size)]
    pub tail_bytes: u64,

    /// Add the `classify` verdict of the same capture (status `stalled` when
    /// stalled).
    #[arg(long)]
    pub classify: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = StallFormat::Json)]
    pub format: StallFormat,

    /// Indent the JSON.
    #[arg(long)]
    pub pretty: bool,

    /// Print nothing; exit 0 when stalled, 1 when not, 2 on error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which schema.
    #[arg(value_enum, default_value = "verdict")]
    pub which: SchemaKind,
}

/// The documents `schema` describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaKind {
    /// `faultsift/verdict/v1`: one per log.
    Verdict,
    /// `faultsift/summary/v1`: the last line of `--summary`.
    Summary,
    /// `faultsift/stall/v1`: what `stall` prints.
    Stall,
}

/// Options of `profiles`.
#[derive(Debug, Args)]
pub struct ProfilesArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dirs: ProfileDirs,

    /// Output: a table for people, or a JSON array for programs.
    #[arg(long, value_enum, default_value_t = TestFormat::Human)]
    pub format: TestFormat,
}

/// Options of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (none: the top-level page).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
