//! `seedfall shrink -c CONFIG -seed N [-faults FILE] [-j N] [-budget 300|10m] [--json FILE]`:
//! cuts a failing seed's fault schedule (or a saved one, branches kept) down to the faults that matter (see
//! `shrink.rs`), printing each improvement with the runs used and the faults
//! left, then the sizes before and after and the faults before the failure,
//! in the reference's lines (`fault_phrase.rs`), and saves the schedule to
//! `.seedfall/[X.]seed-N.faults.json` beside the config. Ctrl-C or SIGTERM
//! stops the passes at the next run and saves the best schedule found so far
//! (it fails the same way, but may not be minimal); that exits 2, as the
//! shrink did not finish.

use crate::run_cmd::setup;
use seedfall::fault_phrase;
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::schedule::Schedule;
use seedfall::shrink::{self, Budget, ShrinkOptions};
use seedfall::sweep;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ShrinkArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The failing seed.
    #[arg(long)]
    seed: u64,
    /// Start from this schedule (its faults and branches: a run `cause` or `explore` saved)
    /// instead of the seed's drawn faults.
    #[arg(long, value_name = "FILE")]
    faults: Option<PathBuf>,
    /// Worker threads (default: all cores); the result is the same for any count.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Stop early after this many runs (300) or this much wall time (10m).
    #[arg(long, value_name = "RUNS|DURATION")]
    budget: Option<String>,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the progress then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall shrink: {message}");
    ExitCode::from(2)
}

pub fn run(args: ShrinkArgs) -> ExitCode {
    let (outputs, inputs) = ([("--json", args.json.as_deref())], [("-faults", args.faults.as_deref())]);
    if let Err(code) = crate::run_cmd::apart(args.config.as_deref(), &outputs, &inputs) {
        return code;
    }
    let budget = match args.budget.as_deref().map(Budget::parse).transpose() {
        Ok(b) => b.unwrap_or(Budget::Unlimited),
        Err(e) => return fail(e),
    };
    let interrupt = Interrupt::install();
    let (cluster, path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let from = match args.faults.as_deref().map(Schedule::load).transpose() {
        Ok(from) => from,
        Err(e) => return fail(e),
    };
    let failing = match from.as_ref().map_or_else(
        || shrink::failing(&cluster, args.seed),
        |schedule| shrink::failing_from(&cluster, args.seed, schedule),
    ) {
        Ok(failing) => failing,
        Err(e) => return fail(e),
    };
    let mut out = json_doc::text_out(args.json.as_deref());
    let _ = writeln!(out, "shrink seed {}: {}", args.seed, failing.failure);
    let options = ShrinkOptions { workers: sweep::workers(args.jobs), budget };
    let on_step = |step: &shrink::Step| {
        let _ = writeln!(json_doc::text_out(args.json.as_deref()), "  {step}");
    };
    let shrunk = match shrink::shrink(&cluster, &failing, &options, interrupt.stop.clone(), on_step) {
        Ok(shrunk) => shrunk,
        Err(e) => return fail(e),
    };
    let _ = write!(out, "{}", shrunk.report());
    let (file, kept) = match shrink::save(&cluster, &path, &failing, &shrunk) {
        Ok(saved) => (saved.file, saved.kept),
        Err(e) => return fail(e),
    };
    let _ = write!(out, "{}", fault_phrase::list(&shrunk.after.faults));
    let _ = writeln!(out, "saved {}", file.display());
    if let Some(kept) = &kept {
        let _ = writeln!(
            out,
            "kept {}: it has fewer faults and still fails the same way (this interrupted shrink's is beside it)",
            kept.display()
        );
    }
    if let Some(target) = &args.json
        && let Err(e) = json_doc::write(target, &json_doc::shrunk(&shrunk, &failing.failure, &file))
    {
        return fail(e);
    }
    if shrunk.interrupted { ExitCode::from(2) } else { ExitCode::SUCCESS }
}
