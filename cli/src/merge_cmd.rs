//! `seedfall report merge A.json B.json … [--json OUT]`: the shards of one
//! sweep back into the summary the unsharded sweep would have printed
//! (`merge.rs`). The first `--show-fails` failing seeds' FAIL blocks come
//! first, in seed order, then the summary with the findings (recorded in the
//! config's findings history, as the unsharded sweep would have; a shard
//! records none), and the exit code the sweep would have had; anything
//! that is not exactly the N shards of one sweep is refused (exit 2,
//! naming the file).

use seedfall::finding_history;
use seedfall::merge::merge;
use seedfall::report::hidden_line;
use seedfall::summary::FailOn;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(subcommand)]
    command: ReportCommand,
}

#[derive(clap::Subcommand)]
enum ReportCommand {
    /// Merge the JSON reports of a sharded sweep into the unsharded summary.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shards' `--json` files, in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    files: Vec<PathBuf>,
    /// Also write the merged summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Print at most N `FAIL` blocks, the lowest seeds'.
    #[arg(long, default_value_t = 10, value_name = "N")]
    show_fails: usize,
    /// What makes the exit code 1, as for `run`.
    #[arg(long, value_enum, default_value_t = FailOn::Any, value_name = "WHAT")]
    fail_on: FailOn,
}

pub fn run(args: ReportArgs) -> ExitCode {
    let ReportCommand::Merge(args) = args.command;
    match merge(&args.files, args.json) {
        Ok(mut merged) => {
            let (blocks, hidden) = merged.tally.fail_blocks(args.show_fails);
            print!("{blocks}");
            if hidden > 0 {
                print!("{}", hidden_line(hidden as u64, args.show_fails));
            }
            merged.summary.fail_on = args.fail_on;
            let history = finding_history::path(&merged.summary.config);
            ExitCode::from(merged.summary.report(&merged.tally, false, merged.elapsed, Some(&history)).code)
        }
        Err(e) => {
            eprintln!("seedfall: report merge: {e}");
            ExitCode::from(2)
        }
    }
}
