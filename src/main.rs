//! The `faultsift` binary: parse the command line, run it, map the outcome to
//! an exit status. Errors are one `faultsift: …` line on stderr.

use std::process::ExitCode;

use clap::Parser;
use faultsift::cli::Cli;

fn main() -> ExitCode {
    faultsift::app::exit_status(faultsift::app::run(Cli::parse())).into()
}
