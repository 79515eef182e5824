//! Running many seeds on worker threads. Each worker takes the next seed
//! from a shared counter and runs it (twice with `check`; when the two
//! differ, twice more with every event logged, so the divergence is named
//! where it starts), sending the outcome back; the caller sees outcomes in completion order. A stop flag
//! (Ctrl-C) makes workers finish the seed in hand and take no more. Every
//! run builds its own world on its worker's thread; only the loaded code is
//! shared, so the worker count never changes a seed's result.

use crate::cluster::Cluster;
use seedfall_host::world::divergence::compare_runs;
use seedfall_host::world::{self, RunResult};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// One seed's outcome.
pub struct SeedOutcome {
    pub seed: u64,
    /// The run, or an internal error (instantiation failed).
    pub result: Result<RunResult, String>,
    /// With `check`: how the second run differed from the first (None: it did not).
    pub divergence: Option<String>,
}

impl SeedOutcome {
    /// `check` found the two runs of this seed different.
    pub fn diverged(&self) -> bool {
        self.divergence.is_some()
    }
}

fn run_seed(cluster: &Cluster, seed: u64, check: bool) -> SeedOutcome {
    let run = |hash_log: bool| {
        let mut spec = cluster.spec(seed);
        spec.hash_log = hash_log;
        world::run(&spec, None).map_err(|e| e.to_string())
    };
    let mut result = run(false);
    let mut divergence = None;
    if let (Ok(first), true) = (&result, check) {
        match run(false) {
            Ok(second) if second.trace_hash == first.trace_hash => {}
            // Logging every event costs; only a mismatch pays for two logged runs to say where.
            Ok(second) => {
                let hashes = format!("trace hash {} then {}", first.trace_hash, second.trace_hash);
                divergence = Some(match (run(true), run(true)) {
                    (Ok(a), Ok(b)) => compare_runs(&a, &b).unwrap_or_else(|| {
                        format!("{hashes}; two more runs, logged, agreed: the divergence did not recur")
                    }),
                    _ => hashes,
                });
            }
            // An internal error, not a divergence (and never a made-up hash).
            Err(e) => result = Err(format!("the second run of -check: {e}")),
        }
    }
    SeedOutcome { seed, result, divergence }
}

/// Runs `seeds` on `workers` threads, calling `each` on the calling thread
/// for every outcome as it arrives.
pub fn sweep(
    cluster: &Cluster,
    seeds: &[u64],
    workers: usize,
    check: bool,
    stop: &AtomicBool,
    mut each: impl FnMut(SeedOutcome),
) {
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1).min(seeds.len().max(1)) {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&seed) = seeds.get(i) else { break };
                    if send.send(run_seed(cluster, seed, check)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        for outcome in receive {
            each(outcome);
        }
    });
}
