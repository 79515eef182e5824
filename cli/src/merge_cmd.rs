//! `seedfall report merge A.json B.json … [--json OUT]`: the shards of one
//! sweep back into the summary the unsharded sweep would have printed
//! (`merge.rs`). Each failing seed's FAIL block comes first, in seed order,
//! then the summary, and the exit code the sweep would have had; anything
//! that is not exactly the N shards of one sweep is refused (exit 2,
//! naming the file).

use seedfall::merge::merge;
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
}

pub fn run(args: ReportArgs) -> ExitCode {
    let ReportCommand::Merge(args) = args.command;
    match merge(&args.files, args.json) {
        Ok(merged) => {
            print!("{}", merged.tally.fail_blocks());
            ExitCode::from(merged.summary.report(&merged.tally, false, merged.elapsed))
        }
        Err(e) => {
            eprintln!("seedfall: report merge: {e}");
            ExitCode::from(2)
        }
    }
}
