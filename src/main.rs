//! The `faultsift` binary: parse the command line, run it, map the outcome to
//! an exit status. Errors are one `faultsift: …` line on stderr.

use std::io;
use std::process::ExitCode;

use clap::Parser;
use faultsift::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match faultsift::app::run(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            // The reader went away (`| head`): nothing more to say, not a failure.
            if err.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("faultsift: {}", faultsift::error::printable(&format!("{err:#}")));
            faultsift::exit_codes::ExitCode::Error.into()
        }
    }
}
