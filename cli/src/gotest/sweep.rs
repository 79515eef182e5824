//! One test's seeds: each runs the test alone in the world (twice with
//! `-check`), and the failing seeds are grouped into findings by how their
//! run failed (`Cluster::signature`, the rule `run`'s findings and `shrink`
//! use), each keeping its lowest seed's FAIL block and test output. With
//! `-novelty` the outcomes are also read in seed order by `novelty.rs`,
//! which may stop the sweep. It prints nothing.

use super::Prepared;
use super::novelty::Novelty;
use crate::report::{fail_block, trace_digest};
use crate::sweep::{self, SeedOutcome, SweepOptions};
use seedfall_host::world::RunResult;
use seedfall_host::world::probes::{GoroutineShapes, WorkloadOutput};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Failing seeds of one test that failed the same way.
#[derive(Debug, Clone)]
pub struct Finding {
    pub signature: String,
    pub failing_seeds: Vec<u64>,
    /// The lowest failing seed's `FAIL seed N …` block.
    pub fail_block: String,
    /// What the test printed in its lowest failing seed (its end, at most
    /// `probes::KEPT_OUTPUT_BYTES`).
    pub output: String,
}

impl Finding {
    pub fn lowest_seed(&self) -> u64 {
        self.failing_seeds[0]
    }
}

/// One test's sweep.
#[derive(Debug, Default)]
pub struct TestOutcome {
    pub test: String,
    /// Seeds whose outcome counts (with `-novelty`, up to where it stopped).
    pub seeds_run: Vec<u64>,
    pub findings: Vec<Finding>,
    /// `-check`: seeds whose two runs differed, and how.
    pub diverged: Vec<(u64, String)>,
    /// Seeds the world could not run (internal errors).
    pub errors: Vec<(u64, String)>,
    /// Every counted seed's trace hash, in seed order, as one hash.
    pub trace_digest: String,
    pub novelty: Option<Novelty>,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
}

impl TestOutcome {
    pub fn failed(&self) -> bool {
        !self.findings.is_empty() || !self.diverged.is_empty() || !self.errors.is_empty()
    }
}

/// Sweeps `seeds` of the test `prepared` has selected (`Prepared::select`).
/// With `patience`, `-novelty` decides where the sweep ends.
pub fn sweep(
    prepared: &Prepared,
    test: &str,
    seeds: &[u64],
    options: &SweepOptions,
    patience: Option<u64>,
    interrupt: &AtomicBool,
) -> TestOutcome {
    let stop = AtomicBool::new(false);
    let mut outcomes: BTreeMap<u64, SeedOutcome> = BTreeMap::new();
    let mut novelty = patience.map(|k| Novelty::new(seeds, k));
    let swept = sweep::each(
        seeds,
        options.workers,
        &stop,
        |&seed| sweep::run_seed(&prepared.cluster, seed, options.check),
        |outcome| {
            let enough = novelty.as_mut().is_some_and(|n| n.take(outcome.seed, shape(&outcome)));
            if enough || interrupt.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
            }
            outcomes.insert(outcome.seed, outcome);
        },
    );
    // Past where -novelty stopped, outcomes that were already running do not count.
    let last = novelty.as_ref().and_then(Novelty::stopped_at);
    let counted = outcomes.into_iter().filter(|(seed, _)| last.is_none_or(|last| *seed <= last));
    let mut outcome = TestOutcome { test: test.to_string(), novelty, ..TestOutcome::default() };
    outcome.interrupted = swept.interrupted && last.is_none();
    let mut hashes = BTreeMap::new();
    let mut findings: BTreeMap<String, Finding> = BTreeMap::new();
    for (seed, seed_outcome) in counted {
        outcome.seeds_run.push(seed);
        if let Some(divergence) = &seed_outcome.divergence {
            outcome.diverged.push((seed, divergence.clone()));
        }
        match &seed_outcome.result {
            Err(e) => outcome.errors.push((seed, e.to_string())),
            Ok(run) => {
                hashes.insert(seed, run.trace_hash.to_string());
                if let Some(signature) = prepared.cluster.signature(run) {
                    let finding =
                        findings.entry(signature.clone()).or_insert_with(|| new_finding(signature, seed, run));
                    finding.failing_seeds.push(seed);
                }
            }
        }
    }
    outcome.trace_digest = trace_digest(&hashes);
    outcome.findings = findings.into_values().collect();
    outcome.findings.sort_by_key(Finding::lowest_seed);
    outcome
}

/// A finding whose lowest seed is `seed` (seeds come in order).
fn new_finding(signature: String, seed: u64, run: &RunResult) -> Finding {
    Finding {
        signature,
        failing_seeds: vec![],
        fail_block: fail_block(seed, run),
        output: String::from_utf8_lossy(WorkloadOutput::of(&run.probes)).into_owned(),
    }
}

/// The test binary's schedule shape in `outcome` (None: it did not run).
fn shape(outcome: &SeedOutcome) -> Option<u64> {
    let run = outcome.result.as_ref().ok()?;
    GoroutineShapes::of(&run.probes).find(|s| s.node == super::NODE).map(|s| s.shape)
}
