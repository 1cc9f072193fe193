//! The `lodestone` binary: parses the command line and runs one command.

use clap::Parser;
use lodestone_server::cli::Cli;
use lodestone_server::commands::run;

// The loader and the query engine allocate many small strings across threads; mimalloc does
// that markedly faster than glibc's allocator. Built with its `override` feature, it is also
// the `malloc` of the C++ engine (RocksDB), so one allocator holds all the process's memory:
// see `allocator`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader of the output went away (`lodestone dump | head`): the command's job
        // is over, as it would be for any Unix tool killed by SIGPIPE.
        Err(error) if is_broken_pipe(&error) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
