//! The `lodestone` binary: parses the command line and runs one command.

use clap::Parser;
use lodestone_server::cli::{run, Cli};

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
