//! The `seedfall` command line. Parses arguments and dispatches to one module
//! per command; holds no simulation logic. Exit codes follow DESIGN.md §1:
//! 0 pass, 1 a finding, 2 usage/config/build/internal error; `exec` exits with
//! the guest's own code.

mod argv;
mod cache_cmd;
mod compiled;
// Parsed and tested now; its consumer, `seedfall run`, arrives with the simulated world (issue 6).
#[allow(dead_code)]
mod config;
mod duration;
mod exec_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "seedfall", version, about = "Deterministic simulation testing for Go services")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one wasip1 program in the deterministic world (works as `go test -exec`).
    Exec(exec_cmd::ExecArgs),
    /// Inspect and manage the compiled-code cache.
    Cache(cache_cmd::CacheArgs),
}

fn main() -> ExitCode {
    let args = argv::normalize(std::env::args().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Exec(args) => exec_cmd::run(args),
        Command::Cache(args) => cache_cmd::run(args),
    }
}
