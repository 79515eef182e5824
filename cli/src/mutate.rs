//! `mutate`: does the workload notice when durability breaks? First the
//! config's own sweep, which must pass; then one sweep per mutant of the
//! simulated OS (`fs::Mutant`: fsync does nothing, directory fsync does
//! nothing, O_SYNC/O_DSYNC are ignored, a crash during a rename leaves the
//! target missing). A mutant is killed when some seed fails, and the seed
//! named is the lowest that does (seeds are taken in order and a sweep
//! stops taking new ones at its first failure, so every lower seed has
//! run); a mutant no seed notices survives: a blind spot of the workload.
//! An internal error or an interrupt ends it (a partial sweep proves
//! nothing about a mutant). It prints nothing.

use crate::cluster::Cluster;
use crate::report::Tally;
use crate::sweep::{self, SweepOptions};
use seedfall_host::fs::Mutant;
use seedfall_host::world::{Failure, Verdict};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why `mutate` stopped without judging every mutant.
#[derive(Debug)]
pub enum MutateError {
    /// A seed could not run (an internal error).
    Seed {
        seed: u64,
        error: String,
    },
    Interrupted,
    /// The unmutated sweep already fails, at this lowest seed if a seed did.
    Unmutated {
        lowest_failing: Option<u64>,
    },
}

/// One mutant's verdict.
pub struct Judged {
    pub mutant: Mutant,
    /// The lowest seed that noticed it, with its first failure (None: it survived).
    pub killed_by: Option<(u64, Option<Failure>)>,
}

/// The mutation sweeps of `seeds` on `cluster`.
pub struct Mutate<'a> {
    pub seeds: &'a [u64],
    pub workers: usize,
    /// Ctrl-C or SIGTERM: stop at the next seed.
    pub interrupted: &'a AtomicBool,
}

impl Mutate<'_> {
    /// One sweep; with `first_failure`, it stops taking seeds at the first.
    fn sweep(&self, cluster: &Cluster, first_failure: bool) -> Result<Tally, MutateError> {
        let stop = AtomicBool::new(false);
        let mut tally = Tally::default();
        let options = SweepOptions { workers: self.workers, check: false };
        sweep::run(cluster, self.seeds, &options, &stop, |outcome| {
            tally.add(&outcome);
            let failed = outcome.result.as_ref().is_ok_and(|r| matches!(r.verdict, Verdict::Fail(_)));
            if self.interrupted.load(Ordering::Relaxed) || (first_failure && failed) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        if let Some((seed, error)) = tally.errors.first_key_value() {
            return Err(MutateError::Seed { seed: *seed, error: error.clone() });
        }
        if self.interrupted.load(Ordering::Relaxed) {
            return Err(MutateError::Interrupted);
        }
        Ok(tally)
    }

    /// The unmutated sweep, which must pass: the seeds it ran.
    pub fn baseline(&self, cluster: &Cluster) -> Result<u64, MutateError> {
        let tally = self.sweep(cluster, false)?;
        if tally.found_something() {
            return Err(MutateError::Unmutated { lowest_failing: tally.lowest_failing() });
        }
        Ok(tally.seeds)
    }

    /// A sweep per mutant of `Mutant::ALL`, in order, each judged to
    /// `on_judged` as it ends; `cluster` is left with the last mutant.
    pub fn mutants(&self, cluster: &mut Cluster, mut on_judged: impl FnMut(&Judged)) -> Result<(), MutateError> {
        for mutant in Mutant::ALL {
            cluster.mutant = Some(mutant);
            let tally = self.sweep(cluster, true)?;
            let killed_by = tally.failed.iter().next().map(|(seed, (failures, ..))| (*seed, failures.first().cloned()));
            on_judged(&Judged { mutant, killed_by });
        }
        Ok(())
    }
}
