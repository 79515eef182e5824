//! Commands on a saved fault schedule:
//! - `replay -seed N -faults FILE` (in `replay_cmd.rs`) runs it exactly;
//! - `verify -faults FILE`: replays it for the config's full duration and
//!   budget (`verify.rs`): exit 0 verified, 1 it still fails, 2 when the run
//!   proves nothing (a fault never fired, linearizability unknown);
//! - `inspect FILE` (or `-faults FILE`): prints it readably;
//! - `faults -faults FILE -shift I=DELTA | -remove I [-o OUT]`: edits it to
//!   test an explanation (`schedule_edit.rs`).

use crate::run_cmd::setup;
use seedfall::json_doc;
use seedfall::schedule::Schedule;
use seedfall::schedule_edit;
use seedfall::verify;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The schedule to verify.
    #[arg(long, value_name = "FILE")]
    faults: PathBuf,
    /// The seed (default: the schedule's).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct InspectArgs {
    /// The schedule to print (`seedfall inspect FILE` works too).
    #[arg(long, value_name = "FILE", required_unless_present = "file")]
    faults: Option<PathBuf>,
    /// The schedule to print, as with -faults.
    #[arg(value_name = "FILE", conflicts_with = "faults")]
    file: Option<PathBuf>,
    /// Write the schedule as JSON with each fault's readable line (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct FaultsArgs {
    #[arg(long, value_name = "FILE")]
    faults: PathBuf,
    /// Move fault I by DELTA (-50ms, 1s; or -1000 operations for faults recorded by op).
    #[arg(long, value_name = "I=DELTA", allow_hyphen_values = true)]
    shift: Vec<String>,
    /// Remove fault I (indices as `inspect` prints them, before any removal).
    #[arg(long, value_name = "I")]
    remove: Vec<usize>,
    /// Write the result here instead of over FILE.
    #[arg(short = 'o', long, value_name = "OUT")]
    out: Option<PathBuf>,
}

fn fail(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall {command}: {message}");
    ExitCode::from(2)
}

pub fn inspect(args: InspectArgs) -> ExitCode {
    let Some(file) = args.faults.or(args.file) else { return fail("inspect", "which schedule? seedfall inspect FILE") };
    match Schedule::load(&file) {
        Ok(schedule) => {
            let _ = write!(json_doc::text_out(args.json.as_deref()), "{}", schedule_edit::inspect(&schedule));
            match args.json.as_deref().map(|target| json_doc::write(target, &json_doc::schedule(&schedule))) {
                Some(Err(e)) => fail("inspect", e),
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => fail("inspect", e),
    }
}

pub fn verify(args: VerifyArgs) -> ExitCode {
    let schedule = match Schedule::load(&args.faults) {
        Ok(s) => s,
        Err(e) => return fail("verify", e),
    };
    let Some(seed) = args.seed.or(schedule.seed) else {
        return fail("verify", "the schedule names no seed: pass -seed N");
    };
    let (cluster, _) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    match verify::verify(&cluster, &schedule, seed) {
        Ok(verification) => {
            let _ = write!(json_doc::text_out(args.json.as_deref()), "{verification}");
            match args.json.as_deref().map(|target| json_doc::write(target, &json_doc::verification(&verification))) {
                Some(Err(e)) => fail("verify", e),
                _ => ExitCode::from(verification.exit_code()),
            }
        }
        Err(e) => fail("verify", e),
    }
}

pub fn edit(args: FaultsArgs) -> ExitCode {
    let mut schedule = match Schedule::load(&args.faults) {
        Ok(s) => s,
        Err(e) => return fail("faults", e),
    };
    let edited = args.shift.iter().try_for_each(|shift| schedule_edit::shift(&mut schedule, shift));
    if let Err(e) = edited.and_then(|()| schedule_edit::remove(&mut schedule, &args.remove)) {
        return fail("faults", e);
    }
    let out = args.out.unwrap_or(args.faults);
    if let Err(e) = schedule.save(&out) {
        return fail("faults", e);
    }
    println!("{} faults written to {}", schedule.faults.len(), out.display());
    ExitCode::SUCCESS
}
