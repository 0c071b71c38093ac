//! The `faultsift` binary: parse the command line, run it, map the outcome to
//! an exit status. Errors are one `faultsift: …` line on stderr.

use std::process::ExitCode;

use clap::Parser;
use faultsift::cli::Cli;

fn main() -> ExitCode {
    // `FAULTSIFT_COMPLETE=SHELL faultsift …`: the shell asks for completions.
    clap_complete::CompleteEnv::with_factory(<Cli as clap::CommandFactory>::command)
        .var(faultsift::app::COMPLETE_VAR)
        .complete();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(faultsift::app::usage_error(&e)),
    };
    faultsift::app::exit_status(faultsift::app::run(cli)).into()
}
