//! `seedfall replay -c CONFIG -seed N [-faults FILE] [--save-trace FILE]
//! [--against FILE] [--json FILE]`, or `seedfall replay SCHEDULE` (or
//! `seedfall replay N`, seed N): one seed
//! with the full trace on stdout (`replay.rs` says what it shows). `-faults`
//! (or the positional file) replays a saved schedule exactly, at its own
//! seed unless `-seed` says otherwise and, without `-c`, with the config
//! whose `.seedfall/` holds it;
//! `--save-trace FILE` writes the run's per-event hash log; `--against
//! FILE` compares the run with such a log and names the first event where
//! they part (exit 1 if they do); `--json FILE|-` writes the result
//! (`json_doc`). Exit codes as for `run`.

use crate::run_cmd::setup;
use seedfall::config;
use seedfall::json_doc;
use seedfall::replay::{ReplayOptions, replay};
use seedfall::schedule::Schedule;
use seedfall::schedule_error::ScheduleError;
use std::path::PathBuf;
use std::process::ExitCode;

/// One seed of a config, its faults drawn or from a saved schedule (`replay`, `cause`).
#[derive(clap::Args)]
pub struct SeedArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The seed (default: the schedule's, with -faults).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run exactly this fault schedule (a file `shrink` or `cause` saved, or a bare array of faults).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
}

impl SeedArgs {
    /// `-seed`, else the schedule's own seed.
    pub fn seed_for(&self, schedule: Option<&Schedule>) -> Result<u64, String> {
        match (self.seed, schedule) {
            (Some(seed), _) => Ok(seed),
            (None, Some(schedule)) => schedule.seed.ok_or_else(|| "the schedule names no seed: pass -seed N".into()),
            (None, None) => Err("which seed? pass -seed N (or a saved schedule with -faults FILE)".into()),
        }
    }
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    run: SeedArgs,
    /// A saved schedule to replay, as with -faults (`.seedfall/seed-7.faults.json`); a number is the seed.
    #[arg(value_name = "SCHEDULE", conflicts_with = "faults")]
    schedule: Option<PathBuf>,
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

pub fn run(mut args: ReplayArgs) -> ExitCode {
    match args.schedule.take() {
        // `replay 7`: a number that names no file is the seed.
        Some(arg)
            if !arg.exists()
                && let Some(seed) = arg.to_str().and_then(|s| s.parse::<u64>().ok()) =>
        {
            if args.run.seed.is_some_and(|given| given != seed) {
                return fail(format!("seed {seed} and -seed {}: which one?", args.run.seed.unwrap_or(seed)));
            }
            args.run.seed = Some(seed);
        }
        Some(file) => args.run.faults = Some(file),
        None => {}
    }
    let schedule = match args.run.faults.as_deref().map(Schedule::load).transpose() {
        Ok(schedule) => schedule,
        Err(e) => return fail(e),
    };
    let seed = match args.run.seed_for(schedule.as_ref()) {
        Ok(seed) => seed,
        Err(e) => return fail(e),
    };
    // A schedule under `.seedfall/` belongs to the config beside that folder.
    let beside = args.run.faults.as_deref().filter(|_| args.run.config.is_none()).and_then(config::for_schedule);
    if let Some(config) = &beside {
        eprintln!("seedfall replay: the config beside the schedule's .seedfall/: {}", config.display());
    }
    let outputs = [("--save-trace", args.save_trace.as_deref()), ("--json", args.json.as_deref())];
    let inputs = [("-faults", args.run.faults.as_deref()), ("--against", args.against.as_deref())];
    if let Err(code) = crate::run_cmd::apart(args.run.config.as_deref().or(beside.as_deref()), &outputs, &inputs) {
        return code;
    }
    let (cluster, config_path) = match setup(args.run.config.as_deref().or(beside.as_deref())) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let options = ReplayOptions { seed, schedule, save_trace: args.save_trace, against: args.against };
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
        Err(e @ ScheduleError::Seed { .. }) => {
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
