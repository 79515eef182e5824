//! `seedfall mutate -c CONFIG -seeds 1-100 [-j N]`: does the workload notice
//! when durability breaks? First the config's own sweep, which must pass
//! (else exit 2: fix that first); then one sweep per mutant of the simulated
//! OS (`fs::Mutant`: fsync does nothing, directory fsync does nothing,
//! O_SYNC/O_DSYNC are ignored, a crash during a rename leaves the target
//! missing). A mutant is killed when some seed fails, and the seed named is
//! the lowest that does (seeds are taken in order and a sweep stops taking
//! new ones at its first failure, so every lower seed has run); a mutant no
//! seed notices survives: a blind spot of the workload. Exit 0 when every
//! mutant is killed, 1 when one survives, 2 on errors or Ctrl-C.

use crate::run_cmd::{SweepArgs, setup};
use seedfall::report::Tally;
use seedfall::seeds::parse_seeds;
use seedfall::sweep::{self, SweepOptions};
use seedfall_host::fs::Mutant;
use seedfall_host::world::Verdict;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

pub fn run(args: SweepArgs) -> ExitCode {
    let seeds = match parse_seeds(&args.seeds) {
        Ok(seeds) => seeds,
        Err(e) => {
            eprintln!("seedfall: --seeds: {e}");
            return ExitCode::from(2);
        }
    };
    // Ctrl-C or SIGTERM: stop at the next seed, exit 2 (a partial sweep proves nothing).
    let interrupted = seedfall::interrupt::Interrupt::install().stop;
    let (mut cluster, path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let options = SweepOptions { workers: sweep::workers(args.jobs), check: false };
    // One sweep; with `first_failure`, it stops taking seeds at the first.
    let run_sweep = |cluster: &seedfall::cluster::Cluster, first_failure: bool| {
        let stop = AtomicBool::new(false);
        let mut tally = Tally::default();
        sweep::run(cluster, &seeds, &options, &stop, |outcome| {
            tally.add(&outcome);
            let failed = outcome.result.as_ref().is_ok_and(|r| matches!(r.verdict, Verdict::Fail(_)));
            if interrupted.load(Ordering::Relaxed) || (first_failure && failed) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        tally
    };

    let baseline = run_sweep(&cluster, false);
    if let Some(code) = stopped(&interrupted, &baseline) {
        return code;
    }
    if baseline.found_something() {
        let seed = baseline.lowest_failing().map_or(String::new(), |s| format!(" (seed {s})"));
        eprintln!(
            "seedfall: the unmutated sweep of {} already fails{seed}: fix that first (seedfall run -c {0} -seeds {})",
            path.display(),
            args.seeds
        );
        return ExitCode::from(2);
    }
    println!("unmutated: {} seeds pass", baseline.seeds);
    let mut survived = 0;
    for mutant in Mutant::ALL {
        cluster.mutant = Some(mutant);
        let tally = run_sweep(&cluster, true);
        if let Some(code) = stopped(&interrupted, &tally) {
            return code;
        }
        match tally.failed.iter().next() {
            Some((seed, (failures, ..))) => {
                let why = failures.first().map_or(String::new(), |f| format!(": {f}"));
                println!("killed    {}: seed {seed}{why}", mutant.describe());
            }
            None => {
                survived += 1;
                println!("SURVIVED  {}: no seed of {} noticed", mutant.describe(), args.seeds);
            }
        }
    }
    let total = Mutant::ALL.len();
    println!("{} of {total} mutants killed, {survived} survived", total - survived);
    ExitCode::from(if survived > 0 { 1 } else { 0 })
}

/// Exit 2 for an internal error or an interrupted sweep (a partial sweep
/// proves nothing about a mutant).
fn stopped(interrupted: &AtomicBool, tally: &Tally) -> Option<ExitCode> {
    if let Some((seed, e)) = tally.errors.first_key_value() {
        eprintln!("seedfall: seed {seed}: {e}");
        return Some(ExitCode::from(2));
    }
    if interrupted.load(Ordering::Relaxed) {
        eprintln!("seedfall: interrupted");
        return Some(ExitCode::from(2));
    }
    None
}
