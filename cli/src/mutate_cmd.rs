//! `seedfall mutate -c CONFIG -seeds 1-100 [-j N]`: the config's own sweep,
//! which must pass (else exit 2: fix that first), then one sweep per mutant
//! of the simulated OS (`mutate.rs`), each said to be killed (by the lowest
//! seed that noticed it) or to have survived. Exit 0 when every mutant is
//! killed, 1 when one survives, 2 on errors or Ctrl-C.

use crate::run_cmd::{SweepArgs, seed_list, setup};
use seedfall::interrupt::Interrupt;
use seedfall::mutate::{Judged, Mutate, MutateError};
use seedfall::sweep;
use seedfall_host::fs::Mutant;
use std::process::ExitCode;

pub fn run(args: SweepArgs) -> ExitCode {
    let seeds = match seed_list(&args.seeds) {
        Ok(seeds) => seeds,
        Err(code) => return code,
    };
    // Ctrl-C or SIGTERM: stop at the next seed, exit 2 (a partial sweep proves nothing).
    let interrupted = Interrupt::install().stop;
    let (mut cluster, path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let mutate = Mutate { seeds: &seeds, workers: sweep::workers(args.jobs), interrupted: &interrupted };
    let mut survived = 0;
    let judged = mutate.baseline(&cluster).and_then(|passed| {
        println!("unmutated: {passed} seeds pass");
        mutate.mutants(&mut cluster, |judged: &Judged| match &judged.killed_by {
            Some((seed, failure)) => {
                let why = failure.as_ref().map_or(String::new(), |f| format!(": {f}"));
                println!("killed    {}: seed {seed}{why}", judged.mutant.describe());
            }
            None => {
                survived += 1;
                println!("SURVIVED  {}: no seed of {} noticed", judged.mutant.describe(), args.seeds);
            }
        })
    });
    match judged {
        Ok(()) => {}
        Err(MutateError::Seed { seed, error }) => return stopped(format!("seed {seed}: {error}")),
        Err(MutateError::Interrupted) => return stopped("interrupted".to_string()),
        Err(MutateError::Unmutated { lowest_failing }) => {
            let seed = lowest_failing.map_or(String::new(), |s| format!(" (seed {s})"));
            return stopped(format!(
                "the unmutated sweep of {} already fails{seed}: fix that first (seedfall run -c {0} -seeds {})",
                path.display(),
                args.seeds
            ));
        }
    }
    let total = Mutant::ALL.len();
    println!("{} of {total} mutants killed, {survived} survived", total - survived);
    ExitCode::from(if survived > 0 { 1 } else { 0 })
}

fn stopped(message: String) -> ExitCode {
    eprintln!("seedfall: {message}");
    ExitCode::from(2)
}
