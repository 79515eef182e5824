//! The `seedfall` command line. Parses arguments and dispatches to one module
//! per command; holds no simulation logic. Exit codes follow DESIGN.md §1:
//! 0 pass, 1 a finding, 2 usage/config/build/internal error; `exec` exits with
//! the guest's own code.

mod argv;
mod cache_cmd;
mod cluster;
mod compiled;
mod config;
mod duration;
mod exec_cmd;
mod progress;
mod replay_cmd;
mod report;
mod run_cmd;
mod seeds;
mod sweep;

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
    /// Run seeds of a config in parallel; report failures and the lowest failing seed.
    Run(run_cmd::RunArgs),
    /// Run one seed of a config with the full trace.
    Replay(replay_cmd::ReplayArgs),
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
        Command::Run(args) => run_cmd::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Exec(args) => exec_cmd::run(args),
        Command::Cache(args) => cache_cmd::run(args),
    }
}
