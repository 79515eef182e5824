//! `seedfall replay -c CONFIG -seed N [-faults FILE] [--save-trace FILE]
//! [--against FILE] [--json FILE]`: one seed with the full trace on stdout (`replay.rs`
//! says what it shows). `-faults` replays a saved schedule exactly;
//! `--save-trace FILE` writes the run's per-event hash log; `--against
//! FILE` compares the run with such a log and names the first event where
//! they part (exit 1 if they do); `--json FILE|-` writes the result
//! (`json_doc`). Exit codes as for `run`.

use crate::run_cmd::setup;
use seedfall::json_doc;
use seedfall::replay::{ReplayError, ReplayOptions, replay};
use seedfall::schedule::Schedule;
use std::path::PathBuf;
use std::process::ExitCode;

/// One seed of a config, its faults drawn or from a saved schedule (`replay`, `cause`).
#[derive(clap::Args)]
pub struct SeedArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The seed.
    #[arg(long)]
    pub seed: u64,
    /// Run exactly this fault schedule (a file `shrink` or `cause` saved, or a bare array of faults).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    run: SeedArgs,
    /// Write the per-event hash log of the run here.
    #[arg(long, value_name = "FILE")]
    save_trace: Option<PathBuf>,
    /// Compare the run with a log `--save-trace` wrote; name the first difference.
    #[arg(long, value_name = "FILE")]
    against: Option<PathBuf>,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the trace then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn run(args: ReplayArgs) -> ExitCode {
    let (cluster, config_path) = match setup(args.run.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let schedule = match args.run.faults.as_deref().map(Schedule::load).transpose() {
        Ok(schedule) => schedule,
        Err(e) => return fail(e),
    };
    let options = ReplayOptions { seed: args.run.seed, schedule, save_trace: args.save_trace, against: args.against };
    let mut text = json_doc::text_out(args.json.as_deref());
    match replay(&cluster, &config_path, options, &mut text) {
        Ok(replayed) => {
            drop(text);
            if let Some(target) = &args.json
                && let Err(e) = json_doc::write(target, &replayed.doc)
            {
                return fail(e);
            }
            ExitCode::from(replayed.code)
        }
        Err(e @ ReplayError::Run { .. }) => {
            eprintln!("seedfall: {e}");
            ExitCode::from(2)
        }
        Err(e) => fail(e),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall replay: {message}");
    ExitCode::from(2)
}
