//! Running many seeds on worker threads. Each worker takes the next seed
//! from a shared counter and runs it (twice with `check`; when the two
//! differ, twice more with every event logged, so the divergence is named
//! where it starts), sending the outcome back; the caller sees outcomes in
//! completion order, on its own thread. A stop flag (Ctrl-C, or a caller
//! that has seen enough) makes workers finish the seed in hand and take no
//! more. Every run builds its own world on its worker's thread; only the
//! loaded code is shared, so the worker count never changes a seed's result.
//! What it does not do: count or order outcomes (`report::Tally` does, in
//! seed order), print anything, or choose the seeds (`seeds.rs`, `shard.rs`).

use crate::cluster::Cluster;
use seedfall_host::node::Perturb;
use seedfall_host::world::RunResult;
use seedfall_host::world::divergence::compare_runs;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// One seed's outcome.
pub struct SeedOutcome {
    pub seed: u64,
    /// The run, or an internal error (instantiation failed).
    pub result: Result<RunResult, SweepError>,
    /// With `check`: how the second run differed from the first (None: it did not).
    pub divergence: Option<String>,
}

impl SeedOutcome {
    /// `check` found the two runs of this seed different.
    pub fn diverged(&self) -> bool {
        self.divergence.is_some()
    }
}

/// The sweep layer's error: why a seed has no run (an internal error, shown
/// as `seed N: internal error: …`).
#[derive(Debug)]
pub enum SweepError {
    /// The world could not run the seed (instantiation failed).
    World(seedfall_engine::Error),
    /// `SEEDFALL_TEST_PERTURB` is malformed.
    Perturb(PerturbError),
    /// The second run of a `-check` pair failed so.
    SecondRun(Box<SweepError>),
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SweepError::World(error) => write!(f, "{error}"),
            SweepError::Perturb(error) => write!(f, "{error}"),
            SweepError::SecondRun(error) => write!(f, "the second run of -check: {error}"),
        }
    }
}

impl std::error::Error for SweepError {}

/// A malformed `SEEDFALL_TEST_PERTURB` value and what is wrong with it.
#[derive(Debug, Clone)]
pub struct PerturbError {
    pub text: String,
    pub why: String,
}

impl fmt::Display for PerturbError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{TEST_PERTURB_VAR}={:?}: {}", self.text, self.why)
    }
}

/// How a sweep runs its seeds.
#[derive(Debug, Clone, Copy)]
pub struct SweepOptions {
    pub workers: usize,
    /// Run every seed twice and compare the trace hashes.
    pub check: bool,
}

/// How a sweep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    /// Items whose outcome reached the caller: every item started.
    pub finished: usize,
    /// The stop flag left some items not started.
    pub interrupted: bool,
}

/// `-j N`, or all cores.
pub fn workers(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The environment variable of the test-only perturbation of `-check`.
pub const TEST_PERTURB_VAR: &str = "SEEDFALL_TEST_PERTURB";

/// TEST ONLY, undocumented for users: `SEEDFALL_TEST_PERTURB=node,k,call,nth,errno`
/// makes the `nth` call of host function `call` by incarnation `node#k`
/// return `errno`, and `node,k,read,nth` flips the first byte of its `nth`
/// read, in the second run of each `-check` pair only, so the CLI's
/// divergence path (`FAIL seed N is not deterministic`, exit 1) can be
/// tested end to end (`cli/tests/world.rs`). Without `-check` it does nothing.
pub fn test_perturbation() -> Result<Option<(String, u32, Perturb)>, PerturbError> {
    let Ok(text) = std::env::var(TEST_PERTURB_VAR) else { return Ok(None) };
    let bad = |why: &str| PerturbError { text: text.clone(), why: why.to_string() };
    let parts: Vec<&str> = text.split(',').collect();
    let number = |i: usize| parts[i].parse::<u64>().map_err(|_| bad(&format!("{:?} is not a number", parts[i])));
    let perturb = match parts.as_slice() {
        [_, _, "read", _] => Perturb::ReadByte { nth: number(3)? },
        [_, _, call, _, _] => Perturb::CallResult {
            call: call.to_string(),
            nth: number(3)?,
            errno: u16::try_from(number(4)?).map_err(|_| bad("errno out of range"))?,
        },
        _ => return Err(bad("expected node,incarnation,call,nth,errno or node,incarnation,read,nth")),
    };
    let incarnation = u32::try_from(number(1)?).map_err(|_| bad("incarnation out of range"))?;
    Ok(Some((parts[0].to_string(), incarnation, perturb)))
}

/// Runs one seed of `cluster` (twice with `check`).
pub fn run_seed(cluster: &Cluster, seed: u64, check: bool) -> SeedOutcome {
    let perturbation = if check { test_perturbation() } else { Ok(None) };
    // `perturbed`: the second run of a pair, which the test hook may change.
    let run = |hash_log: bool, perturbed: bool| {
        let mut spec = cluster.spec(seed);
        spec.hash_log = hash_log;
        if perturbed {
            spec.perturb = perturbation.clone().map_err(SweepError::Perturb)?;
        }
        cluster.run(&spec).map_err(SweepError::World)
    };
    let mut result = run(false, false);
    let mut divergence = None;
    if let (Ok(first), true) = (&result, check) {
        match run(false, true) {
            Ok(second) if second.trace_hash == first.trace_hash => {}
            // Logging every event costs; only a mismatch pays for two logged runs to say where.
            Ok(second) => {
                let hashes = format!("trace hash {} then {}", first.trace_hash, second.trace_hash);
                divergence = Some(match (run(true, false), run(true, true)) {
                    (Ok(a), Ok(b)) => compare_runs(&a, &b).unwrap_or_else(|| {
                        format!("{hashes}; two more runs, logged, agreed: the divergence did not recur")
                    }),
                    _ => hashes,
                });
            }
            // An internal error, not a divergence (and never a made-up hash).
            Err(e) => result = Err(SweepError::SecondRun(Box::new(e))),
        }
    }
    SeedOutcome { seed, result, divergence }
}

/// Runs `seeds` of `cluster`, calling `on_seed` on the calling thread for
/// every outcome as it arrives.
pub fn run(
    cluster: &Cluster,
    seeds: &[u64],
    options: &SweepOptions,
    stop: &AtomicBool,
    on_seed: impl FnMut(SeedOutcome),
) -> Swept {
    each(seeds, options.workers, stop, |&seed| run_seed(cluster, seed, options.check), on_seed)
}

/// Runs `work` on each of `items` on `workers` threads, taking them in list
/// order, and calls `done` on the calling thread with each result in
/// completion order. Once `stop` is set no item starts; those started finish
/// and are reported.
pub fn each<I: Sync, O: Send>(
    items: &[I],
    workers: usize,
    stop: &AtomicBool,
    work: impl Fn(&I) -> O + Sync,
    mut done: impl FnMut(O),
) -> Swept {
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    let mut finished = 0;
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            let send = send.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if send.send(work(item)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        for outcome in receive {
            finished += 1;
            done(outcome);
        }
    });
    Swept { finished, interrupted: finished < items.len() }
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
