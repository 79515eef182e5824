//! `seedfall cause`: what made a failing seed fail. The failing run is
//! stepped once to learn its moments (evenly spaced scheduler steps, and the
//! steps just before and just after each of its faults); from each moment
//! `futures` alternate runs leave it (`World::branch_before`: every random stream
//! re-keyed, the fault kinds drawing anew from the config) and run to their
//! end. The share of futures that still fail the same way (shrink's
//! signature) is the probability of failing from that moment
//! (`cause_stats` turns the outcomes into the curve, the biggest jump and
//! the function table).
//!
//! Sharing the prefix (`prefix.rs`): where `fork()` exists each of `jobs`
//! lanes steps one copy of the failing run through the moments and forks a
//! child per future, so a future costs only its own steps; elsewhere, or
//! when asked, each future replays its prefix. Both give the same runs
//! (`cli/tests/cause.rs` compares trace hashes). With `-faults`
//! the schedule's faults stay in every future (they are replayed, not
//! drawn); only the randomness after the moment changes.

use crate::cluster::Cluster;
use crate::prefix::Prefix;
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use crate::watch::Watch;
use seedfall_host::branch::Branch;
use seedfall_host::vtime::SimTime;
use seedfall_host::world::probes::FunctionsRan;
use seedfall_host::world::{self, Fault, Probes, RunResult, RunSpec, Verdict, World};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// What `cause` is asked.
#[derive(Clone)]
pub struct CauseOptions {
    pub seed: u64,
    /// Replay this schedule instead of the seed's drawn faults.
    pub schedule: Option<Schedule>,
    pub futures: u32,
    /// How many moments: the steps just before and just after each fault
    /// (of the last `moments / 2` faults), the rest evenly spaced.
    pub moments: u32,
    pub jobs: usize,
    /// Fork futures from the moment (where `fork()` exists) instead of replaying the prefix.
    pub share_prefix: bool,
}

/// A point of the failing run the futures leave it at.
#[derive(Clone, Debug)]
pub struct Moment {
    /// Scheduler steps done before the futures leave (`Branch::step`).
    pub step: u64,
    pub at: SimTime,
    /// The fault the failing run took in the step just before, if any.
    pub after: Option<Fault>,
}

/// What one future did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// It failed the way the seed does.
    pub fails: bool,
    pub trace_hash: String,
    /// Its schedule (JSON), when it fails: it replays the future exactly.
    pub schedule: Option<String>,
    /// Per node with a function bitmap: its name and the functions that ran
    /// (bit i of byte i / 8 for defined function i: a forked future sends
    /// it through a pipe).
    pub ran: Vec<(String, Vec<u8>)>,
}

/// Everything `cause` found.
pub struct Cause {
    pub seed: u64,
    /// How the seed fails (its first failure, as `FAIL` blocks print it).
    pub failure: String,
    /// The id of the finding it belongs to (`findings::id`: the report
    /// shows this curve with that finding).
    pub finding: String,
    pub moments: Vec<Moment>,
    /// `outcomes[moment][future]`.
    pub outcomes: Vec<Vec<Outcome>>,
    /// Whether futures were forked from their moment (else replayed from the start).
    pub shared_prefix: bool,
    pub elapsed: Duration,
    /// Stopped by Ctrl-C before every future ran: `outcomes` has those that did.
    pub interrupted: bool,
}

/// Runs the futures of `options.seed`; an error if the seed passes or a
/// run cannot be made.
pub fn cause(cluster: &Cluster, options: &CauseOptions) -> Result<Cause, ScheduleError> {
    cause_watched(cluster, options, &Watch::default())
}

/// `cause`, its futures counted in `watch` and stopping once its flag is set
/// (Ctrl-C, an MCP cancel): the futures that ran are kept (`interrupted`
/// says so), and moments none of whose futures ran are dropped; an error if
/// none ran.
pub fn cause_watched(cluster: &Cluster, options: &CauseOptions, watch: &Watch) -> Result<Cause, ScheduleError> {
    let started = Instant::now();
    if options.futures == 0 || options.moments == 0 {
        return Err(ScheduleError::Usage("--futures and --moments must be at least 1"));
    }
    let spec = spec(cluster, options);
    let original = Original::step_through(cluster, &spec)?;
    let moments = original.moments(options.moments);
    let share = options.share_prefix && seedfall_host::fork::AVAILABLE;
    let runs = Futures { cluster, spec: &spec, moments: &moments, futures: options.futures, seed: options.seed };
    let outcomes = runs.run(&original.signature, options.jobs, share, watch)?;
    let interrupted = outcomes.iter().flatten().any(Option::is_none);
    let (moments, outcomes): (Vec<Moment>, Vec<Vec<Outcome>>) = moments
        .into_iter()
        .zip(outcomes)
        .map(|(moment, outcomes)| (moment, outcomes.into_iter().flatten().collect::<Vec<_>>()))
        .filter(|(_, outcomes)| !outcomes.is_empty())
        .unzip();
    if moments.is_empty() {
        return Err(ScheduleError::Interrupted("interrupted before any future ran"));
    }
    Ok(Cause {
        seed: options.seed,
        failure: original.failure,
        finding: crate::findings::id(&original.signature),
        moments,
        outcomes,
        shared_prefix: share,
        elapsed: started.elapsed(),
        interrupted,
    })
}

/// What watches a future: the functions it ran (`Outcome::ran`).
fn probes() -> Probes {
    Probes::default().with(FunctionsRan::default())
}

fn spec(cluster: &Cluster, options: &CauseOptions) -> RunSpec {
    let mut spec = cluster.spec(options.seed);
    if let Some(schedule) = &options.schedule {
        spec.schedule = Some(schedule.faults.clone());
        spec.branches = schedule.branches.clone();
        spec.duration = schedule.duration.unwrap_or(spec.duration);
        spec.budget_cap = schedule.ops;
    }
    spec
}

/// The failing run, stepped once.
struct Original {
    signature: String,
    failure: String,
    /// When each scheduler step began (index s: step s + 1, where a branch
    /// before it takes effect).
    times: Vec<SimTime>,
    /// Each fault with the scheduler steps done when it was recorded (a
    /// fault in the middle of a disk operation belongs to the step it ended).
    faults: Vec<(u64, Fault)>,
}

impl Original {
    fn step_through(cluster: &Cluster, spec: &RunSpec) -> Result<Original, ScheduleError> {
        let mut world = World::new(spec, None);
        let (mut times, mut faults) = (Vec::new(), Vec::new());
        let verdict = loop {
            let verdict = world.step()?;
            if world.steps() > times.len() as u64 {
                times.push(world.clock());
            }
            let seen = faults.len();
            faults.extend(world.faults_so_far()[seen..].iter().map(|f| (world.steps(), f.clone())));
            if let Some(verdict) = verdict {
                break verdict;
            }
        };
        let run = world.finish(verdict);
        let (Some(signature), Verdict::Fail(failures)) = (cluster.signature(&run), &run.verdict) else {
            return Err(ScheduleError::Passes { seed: spec.seed, what: "explain" });
        };
        let failure = format!("{}#{}: {}", failures[0].node, failures[0].incarnation, failures[0].message);
        Ok(Original { signature, failure, times, faults })
    }

    /// Scheduler steps of the whole run.
    fn steps(&self) -> u64 {
        self.times.len() as u64
    }

    /// At most `count` moments: for each fault the step before it and the
    /// one after (for the last `count / 2` faults when there are more: the
    /// faults nearest the failure are the likeliest causes), the rest
    /// spread evenly over the run; in step order, each once. A future
    /// leaves before the run's last step at the latest. The step before a
    /// fault is the one before the step it came in (a crash in a disk
    /// operation) or after (a fault between steps: the branch comes after it).
    fn moments(&self, count: u32) -> Vec<Moment> {
        let last = self.steps().saturating_sub(1);
        let around = self.faults.len().min(count as usize / 2);
        let evenly = (count as usize - 2 * around) as u64;
        let mut steps: Vec<u64> = (0..evenly).map(|i| i * self.steps() / evenly).collect();
        for (step, _) in self.faults.iter().rev().take(around) {
            steps.extend([step.saturating_sub(1), *step]);
        }
        steps.iter_mut().for_each(|s| *s = (*s).min(last));
        steps.sort_unstable();
        steps.dedup();
        steps
            .into_iter()
            .map(|step| Moment {
                step,
                at: self.times[step as usize],
                after: self.faults.iter().rev().find(|(s, _)| *s == step).map(|(_, f)| f.clone()),
            })
            .collect()
    }
}

/// The futures to run: `futures` from each moment.
struct Futures<'a> {
    cluster: &'a Cluster,
    spec: &'a RunSpec,
    moments: &'a [Moment],
    futures: u32,
    seed: u64,
}

impl Futures<'_> {
    /// The new randomness of future `future` of the moment at `step`.
    fn reseed(&self, step: u64, future: u32) -> u64 {
        let mut hasher = blake3::Hasher::new_derive_key("seedfall cause future v1");
        for part in [self.seed, step, u64::from(future)] {
            hasher.update(&part.to_le_bytes());
        }
        u64::from_le_bytes(hasher.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
    }

    /// Every future of every moment (`prefix.rs`: forked from the moment
    /// with `share`, else replaying the prefix), as `[moment][future]`.
    fn run(
        &self,
        signature: &str,
        jobs: usize,
        share: bool,
        watch: &Watch,
    ) -> Result<Vec<Vec<Option<Outcome>>>, ScheduleError> {
        let futures: Vec<Branch> = self
            .moments
            .iter()
            .flat_map(|m| (0..self.futures).map(|f| Branch::new(m.step, self.reseed(m.step, f))))
            .collect();
        let prefix = Prefix { spec: self.spec, branches: &[], probes };
        let answer = |run: &RunResult| outcome(self.cluster, run, signature, self.spec);
        let outcomes = prefix.futures_watched(&futures, jobs, share, answer, watch)?;
        let per_moment = self.futures as usize;
        let mut outcomes = outcomes.into_iter();
        Ok(self.moments.iter().map(|_| outcomes.by_ref().take(per_moment).collect()).collect())
    }
}

fn outcome(cluster: &Cluster, run: &RunResult, signature: &str, spec: &RunSpec) -> Outcome {
    let fails = cluster.signature(run).as_deref() == Some(signature);
    let schedule = fails.then(|| Schedule::of_run(spec, run).to_json());
    let ran = FunctionsRan::of(&run.probes).map(|f| (f.node.clone(), packed(&f.ran))).collect();
    Outcome { fails, trace_hash: run.trace_hash.to_string(), schedule, ran }
}

/// One bit per function instead of a byte.
fn packed(ran: &[u8]) -> Vec<u8> {
    let mut bits = vec![0u8; ran.len().div_ceil(8)];
    for (i, _) in ran.iter().enumerate().filter(|(_, b)| **b != 0) {
        bits[i / 8] |= 1 << (i % 8);
    }
    bits
}

/// Runs the future a saved schedule describes, in full: what a forked
/// future must equal (`cli/tests/cause.rs`).
pub fn replay_schedule(cluster: &Cluster, schedule: &Schedule, seed: u64) -> Result<RunResult, ScheduleError> {
    let options =
        CauseOptions { seed, schedule: Some(schedule.clone()), futures: 1, moments: 1, jobs: 1, share_prefix: false };
    Ok(world::run_probed(&spec(cluster, &options), None, probes())?)
}
