//! The `seedfall` command line. Parses arguments and dispatches to one module
//! per command (`*_cmd.rs`: clap glue over the `seedfall` library, which does
//! the work); holds no simulation logic. Exit codes follow DESIGN.md §1:
//! 0 pass, 1 a finding, 2 usage/config/build/internal error; `exec` exits with
//! the guest's own code.

#![forbid(unsafe_code)]

mod cache_cmd;
mod cause_cmd;
mod crashstates_cmd;
mod exec_cmd;
mod explore_cmd;
mod go_exec_cmd;
mod mcp_cmd;
mod merge_cmd;
mod mutate_cmd;
mod replay_cmd;
mod run_cmd;
mod schedule_cmd;
mod shrink_cmd;
mod test_cmd;
mod trace_cmd;

use clap::{Parser, Subcommand};
use seedfall::{argv, compiled};
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
    /// Run one seed of a config with the full trace (or a saved fault schedule, exactly).
    Replay(replay_cmd::ReplayArgs),
    /// Cut a failing seed's fault schedule down to the faults that matter.
    Shrink(shrink_cmd::ShrinkArgs),
    /// Replay a fault schedule over the config's full duration: proof of a fix, or not.
    Verify(schedule_cmd::VerifyArgs),
    /// Print a fault schedule readably.
    Inspect(schedule_cmd::InspectArgs),
    /// Edit a fault schedule: shift or remove faults.
    Faults(schedule_cmd::FaultsArgs),
    /// Run one wasip1 program in the deterministic world (works as `go test -exec`).
    Exec(exec_cmd::ExecArgs),
    /// Inspect and manage the compiled-code cache.
    Cache(cache_cmd::CacheArgs),
    /// Sweep once per way the simulated OS can silently break durability: does the workload notice?
    Mutate(mutate_cmd::MutateArgs),
    /// Check every disk state a crash of a node at one of its disk operations can leave.
    Crashstates(crashstates_cmd::CrashStatesArgs),
    /// What made a failing seed fail: P(fail) over its moments, from alternate futures.
    Cause(cause_cmd::CauseArgs),
    /// Work with sweep reports: `report merge` joins the shards of one sweep.
    Report(merge_cmd::ReportArgs),
    /// Serve the Model Context Protocol on stdio: tools for a coding agent (docs/agents.md).
    Mcp(mcp_cmd::McpArgs),
    /// Sweep a Go package's own tests over seeds in the deterministic world.
    Test(test_cmd::TestArgs),
    /// Explore beyond random seeds: branch runs where coverage grows (docs/explore.md).
    Explore(explore_cmd::ExploreArgs),
    /// Plain `go test` under seedfall: `go-exec install DIR` writes the go_wasip1_wasm_exec wrapper.
    GoExec(go_exec_cmd::GoExecArgs),
    /// Read `replay --save-trace` files: `trace view`, `trace diff`, `trace stats` (docs/trace-tools.md).
    Trace(trace_cmd::TraceArgs),
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
    let code = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Shrink(args) => shrink_cmd::run(args),
        Command::Verify(args) => schedule_cmd::verify(args),
        Command::Inspect(args) => schedule_cmd::inspect(args),
        Command::Faults(args) => schedule_cmd::edit(args),
        Command::Exec(args) => exec_cmd::run(args),
        Command::Cache(args) => cache_cmd::run(args),
        Command::Mutate(args) => mutate_cmd::run(args),
        Command::Crashstates(args) => crashstates_cmd::run(args),
        Command::Report(args) => merge_cmd::run(args),
        Command::Cause(args) => cause_cmd::run(args),
        Command::Test(args) => test_cmd::run(args),
        Command::Explore(args) => explore_cmd::run(args),
        Command::GoExec(args) => go_exec_cmd::run(args),
        Command::Mcp(args) => mcp_cmd::run(args),
        Command::Trace(args) => trace_cmd::run(args),
    };
    compiled::finish_uploads();
    code
}
