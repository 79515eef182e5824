//! `seedfall report merge A.json B.json … [--json OUT] [-report FILE.html]`:
//! the shards of one sweep back into the summary the unsharded sweep would
//! have printed (`merge.rs`). The first `--show-fails` failing seeds' FAIL
//! blocks come first, in seed order, then the summary with the findings
//! (recorded in the config's findings history, as the unsharded sweep would
//! have; a shard records none), and the exit code the sweep would have had;
//! anything that is not exactly the N shards of one sweep is refused (exit
//! 2, naming the file). The config the shards name is read for how its
//! `count` nodes group into findings, and built for `-report` (the page
//! replays each finding's lowest seed for its trace tail).

use crate::run_cmd::setup;
use seedfall::finding_history;
use seedfall::merge::merge;
use seedfall::report::hidden_line;
use seedfall::summary::FailOn;
use seedfall::sweep_report::{self, ReportRun};
use std::collections::BTreeMap;
use std::io::Write;
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
    /// Write the merged sweep as a page, FILE.html, and FILE.json beside it, as `run -report` does.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
}

pub fn run(args: ReportArgs) -> ExitCode {
    let ReportCommand::Merge(args) = args.command;
    if let Err(code) = crate::run_cmd::json_file(args.json.as_deref()) {
        return code;
    }
    match merge(&args.files, args.json) {
        Ok(mut merged) => {
            let (blocks, hidden) = merged.tally.fail_blocks(args.show_fails);
            let _ = write!(std::io::stdout(), "{blocks}");
            if hidden > 0 {
                let _ = write!(std::io::stdout(), "{}", hidden_line(hidden as u64, args.show_fails));
            }
            merged.summary.fail_on = args.fail_on;
            // Without the config the findings group by node name as it is.
            if let Ok(config) = seedfall::config::load(&merged.summary.config) {
                merged.summary.groups = config.node_groups();
            }
            let history = finding_history::path(&merged.summary.config);
            let reported = merged.summary.report(&merged.tally, false, merged.elapsed, Some(&history));
            let Some(page) = &args.report else { return ExitCode::from(reported.code) };
            let (cluster, config_path) = match setup(Some(&merged.summary.config)) {
                Ok(ready) => ready,
                Err(code) => return code,
            };
            let config = config_path.display().to_string();
            let run = ReportRun {
                config: &config,
                seed_list: &merged.summary.identity.seed_list,
                run_at: &reported.run_at,
                commit: reported.commit.as_deref(),
                linearizable: cluster.config.linearizable.map(|m| m.name()),
                schedules: &BTreeMap::new(),
            };
            match sweep_report::write(page, &cluster, &run, &merged.tally, &reported.found, &reported.records) {
                Ok(json) => {
                    let _ = writeln!(std::io::stdout(), "report: {} and {}", page.display(), json.display());
                }
                Err(e) => {
                    eprintln!("seedfall: {e}");
                    return ExitCode::from(2);
                }
            }
            ExitCode::from(reported.code)
        }
        Err(e) => {
            eprintln!("seedfall: report merge: {e}");
            ExitCode::from(2)
        }
    }
}
