//! The shrinker: replays a failing seed's fault schedule under smaller and
//! smaller variations, keeping a change only while the run fails the same
//! way (same class, node, property and message, numbers ignored:
//! `Failure::signature`). Passes, repeated until a whole round changes
//! nothing:
//! 1. remove faults by delta debugging, down to single faults (1-minimal);
//! 2. cap the workload (`sim.Budget`) by bisection;
//! 3. trim the duration to just past the failure;
//! 4. simplify each fault as its kind allows (`FaultKind::simplify`,
//!    `narrower`): shorter downtimes and partitions, planned faults earlier,
//!    nodes off the cut side of a partition (faults recorded at a disk
//!    operation keep their op); times to within 2 ms.
//!
//! No random choices. Candidates of one removal round run at once on the
//! workers; the first failing one in sequential order wins, and the run
//! count is what a sequential shrinker would have spent, so the result and
//! the count are the same for any worker count. Bisections are sequential.
//!
//! The passes run candidates through a `Runner` (a seed of a cluster,
//! `SeedRunner`; a closure in tests). `failing` and `shrink` are the whole
//! of `seedfall shrink` but its printing and the saving of the schedule:
//! they find the failure, shrink it and return what to save.

use crate::cluster::Cluster;
use crate::duration::parse_duration;
use crate::schedule::{Schedule, ShrunkFrom};
use crate::schedule_error::ScheduleError;
use seedfall_host::branch::Branch;
use seedfall_host::vtime::{SimDuration, SimTime, go_duration_ms};
use seedfall_host::world::fault::Trigger;
use seedfall_host::world::probes::BudgetDefault;
use seedfall_host::world::{self, Failure, Fault, Probes, RunResult, RunSpec, Verdict};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Times are bisected to this precision.
pub const TIME_STEP_NS: u64 = 2_000_000;

/// A variation to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub faults: Vec<Fault>,
    pub duration: SimDuration,
    /// Cap on `sim.Budget` (None: the workload's default).
    pub ops: Option<u64>,
}

/// When to stop early.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    Unlimited,
    /// Sequential-equivalent runs (reproducible).
    Runs(u64),
    /// Wall time.
    Time(Duration),
}

impl Budget {
    /// `300` (runs) or `10m` (wall time), as `--budget` takes it.
    pub fn parse(text: &str) -> Result<Budget, ScheduleError> {
        if let Ok(runs) = text.parse::<u64>() {
            return Ok(Budget::Runs(runs));
        }
        parse_duration(text).map(Budget::Time).map_err(ScheduleError::Budget)
    }
}

/// What the passes need to know of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The first failure's signature (None: the run passed).
    pub signature: Option<String>,
    /// Virtual time at which the run ended.
    pub end: SimTime,
}

/// Runs candidates, from any worker thread.
pub trait Runner: Sync {
    fn run(&self, candidate: &Candidate) -> Result<Outcome, ScheduleError>;
}

impl<F: Fn(&Candidate) -> Result<Outcome, ScheduleError> + Sync> Runner for F {
    fn run(&self, candidate: &Candidate) -> Result<Outcome, ScheduleError> {
        self(candidate)
    }
}

/// One seed of a cluster, its drawn faults replaced by the candidate's
/// (and its randomness leaving the seed's at `branches`, for a run that
/// `cause` or `explore` found).
pub struct SeedRunner<'a> {
    pub cluster: &'a Cluster,
    pub seed: u64,
    pub branches: &'a [Branch],
}

impl SeedRunner<'_> {
    fn spec(&self, c: &Candidate) -> RunSpec {
        let mut spec = self.cluster.spec(self.seed);
        spec.schedule = Some(c.faults.clone());
        spec.branches = self.branches.to_vec();
        spec.duration = c.duration;
        spec.budget_cap = c.ops;
        spec
    }

    /// The whole run of `c`, faults and all.
    pub fn run_full(&self, c: &Candidate) -> Result<RunResult, ScheduleError> {
        Ok(world::run(&self.spec(c), None)?)
    }
}

impl Runner for SeedRunner<'_> {
    fn run(&self, candidate: &Candidate) -> Result<Outcome, ScheduleError> {
        self.run_full(candidate).map(|run| Outcome { signature: self.cluster.signature(&run), end: run.end })
    }
}

/// An improvement one round of the passes made, with what it improved on.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// This many faults removed, of that many.
    Removed {
        removed: usize,
        of: usize,
    },
    /// The workload's `sim.Budget` capped at `ops` operations, of `of`.
    Capped {
        ops: u64,
        of: u64,
    },
    /// The duration trimmed to `to`, from `from`.
    Trimmed {
        to: SimDuration,
        from: SimDuration,
    },
    Simplified,
}

/// A `Change` with when it came: what `seedfall shrink` prints as it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub round: u32,
    pub change: Change,
    /// Runs so far.
    pub runs: u64,
    /// Faults left after it.
    pub faults: usize,
}

/// The reference's progress line: `run   16    2 faults  removed 1 of 3 faults`.
impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "run {:>4} {:>4} faults  ", self.runs, self.faults)?;
        match &self.change {
            Change::Removed { removed, of } => write!(f, "removed {removed} of {of} faults"),
            Change::Capped { ops, of } => write!(f, "sim.Budget capped at {ops} of {of} operations"),
            Change::Trimmed { to, from } => write!(f, "duration {to} instead of {from}"),
            Change::Simplified => write!(f, "faults simplified"),
        }
    }
}

/// The passes over one failure, running candidates through `R`.
pub struct Shrinker<R> {
    runner: R,
    signature: String,
    workers: usize,
    budget: Budget,
    started: Instant,
    /// Sequential-equivalent runs so far.
    pub runs: u64,
    /// The budget ran out (or a signal came) before the passes converged.
    pub stopped_early: bool,
    /// Set by Ctrl-C or SIGTERM; checked where the budget is.
    interrupt: Option<Arc<AtomicBool>>,
    /// The passes stopped because of `interrupt`.
    pub interrupted: bool,
    /// Virtual time at which the best candidate fails.
    pub fail_at: SimTime,
}

impl<R: Runner> Shrinker<R> {
    /// A shrinker keeping candidates that fail with `signature`; the one it
    /// starts from fails at `fail_at`.
    pub fn new(runner: R, signature: String, workers: usize, budget: Budget, fail_at: SimTime) -> Self {
        Shrinker {
            runner,
            signature,
            workers: workers.max(1),
            budget,
            started: Instant::now(),
            runs: 0,
            stopped_early: false,
            interrupt: None,
            interrupted: false,
            fail_at,
        }
    }

    /// Stop at the next budget check once `flag` is set (the best candidate
    /// so far always fails the same way, so it is still worth saving).
    pub fn interrupt_on(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// Whether `c` fails the same way (one run, counted): the check that
    /// replaying a drawn schedule reproduces the seed's failure.
    pub fn replays(&mut self, c: &Candidate) -> Result<bool, ScheduleError> {
        let outcome = self.runner.run(c)?;
        self.runs += 1;
        Ok(outcome.signature.as_deref() == Some(self.signature.as_str()))
    }

    /// Runs the passes over `best`, round after round, until a round changes
    /// nothing or the budget is spent; `on_step` hears each improvement.
    /// `best` must fail the same way, and still does after.
    pub fn minimize(&mut self, best: &mut Candidate, default_ops: Option<u64>, mut on_step: impl FnMut(&Step)) {
        let mut round = 0;
        loop {
            round += 1;
            let mut changed = false;
            let mut step = |shrinker: &Shrinker<R>, best: &Candidate, change| {
                changed = true;
                on_step(&Step { round, change, runs: shrinker.runs, faults: best.faults.len() });
            };
            let (faults, ops, duration) = (best.faults.len(), best.ops.or(default_ops), best.duration);
            if self.remove_faults(best) {
                step(self, best, Change::Removed { removed: faults - best.faults.len(), of: faults });
            }
            if self.cap_ops(best, default_ops) {
                step(self, best, Change::Capped { ops: best.ops.unwrap_or(0), of: ops.unwrap_or(0) });
            }
            if self.trim_duration(best) {
                step(self, best, Change::Trimmed { to: best.duration, from: duration });
            }
            if self.simplify(best) {
                step(self, best, Change::Simplified);
            }
            if !changed || self.stopped_early {
                break;
            }
        }
    }

    fn fails_same(&self, c: &Candidate) -> Option<SimTime> {
        let outcome = self.runner.run(c).ok()?;
        (outcome.signature.as_deref() == Some(self.signature.as_str())).then_some(outcome.end)
    }

    fn exhausted(&mut self) -> bool {
        self.interrupted |= self.interrupt.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed));
        let out = self.interrupted
            || match self.budget {
                Budget::Unlimited => false,
                Budget::Runs(n) => self.runs >= n,
                Budget::Time(limit) => self.started.elapsed() >= limit,
            };
        self.stopped_early |= out;
        out
    }

    /// The first candidate, in order, that fails the same way; runs them
    /// `workers` at a time and counts what a sequential search would run.
    fn first_failing(&mut self, candidates: &[Candidate]) -> Option<(usize, SimTime)> {
        let mut start = 0;
        while start < candidates.len() {
            if self.exhausted() {
                return None;
            }
            let mut width = self.workers.min(candidates.len() - start);
            if let Budget::Runs(n) = self.budget {
                width = width.min((n - self.runs) as usize);
            }
            let batch = &candidates[start..start + width];
            let this = &*self;
            let results: Vec<Option<SimTime>> = std::thread::scope(|scope| {
                let handles: Vec<_> = batch.iter().map(|c| scope.spawn(move || this.fails_same(c))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or(None)).collect()
            });
            if let Some(k) = results.iter().position(Option::is_some) {
                self.runs += k as u64 + 1;
                return Some((start + k, results[k].expect("found")));
            }
            self.runs += width as u64;
            start += width;
        }
        None
    }

    /// Tries one candidate; on the same failure makes it the best.
    fn try_one(&mut self, best: &mut Candidate, c: Candidate) -> bool {
        match self.first_failing(std::slice::from_ref(&c)) {
            Some((_, fail_at)) => {
                *best = c;
                self.fail_at = fail_at;
                true
            }
            None => false,
        }
    }

    /// Pass 1: delta debugging over the faults (complements of chunks),
    /// ending 1-minimal: no single fault can be removed.
    fn remove_faults(&mut self, best: &mut Candidate) -> bool {
        let before = best.faults.len();
        let mut n = 2usize;
        while !best.faults.is_empty() {
            let len = best.faults.len();
            let n_now = n.min(len);
            let chunk = len.div_ceil(n_now);
            let candidates: Vec<Candidate> = (0..len)
                .step_by(chunk)
                .map(|from| {
                    let mut faults = best.faults.clone();
                    faults.drain(from..(from + chunk).min(len));
                    Candidate { faults, ..best.clone() }
                })
                .collect();
            match self.first_failing(&candidates) {
                Some((i, fail_at)) => {
                    *best = candidates[i].clone();
                    self.fail_at = fail_at;
                    n = (n_now - 1).max(2);
                }
                None if self.stopped_early || chunk == 1 => break,
                None => n = (n_now * 2).min(len),
            }
        }
        best.faults.len() < before
    }

    /// Pass 2: the smallest workload cap that still fails, by bisection.
    fn cap_ops(&mut self, best: &mut Candidate, default: Option<u64>) -> bool {
        let Some(current) = best.ops.or(default) else { return false };
        self.bisect(best, current, 1, |c, ops| c.ops = Some(ops))
    }

    /// The smallest `x` in `0..=current` (to within `step`) for which the
    /// candidate `set` makes from the best one still fails the same way;
    /// `current` is known to fail. Sequential: each probe depends on the last.
    fn bisect(&mut self, best: &mut Candidate, current: u64, step: u64, set: impl Fn(&mut Candidate, u64)) -> bool {
        let (mut lo, mut hi) = (0u64, current);
        let mut changed = false;
        while hi - lo > step && !self.stopped_early {
            let mid = lo + (hi - lo) / 2;
            let mut c = best.clone();
            set(&mut c, mid);
            if self.try_one(best, c) {
                hi = mid;
                changed = true;
            } else {
                lo = mid;
            }
        }
        changed
    }

    /// Pass 3: end the run just past the failure.
    fn trim_duration(&mut self, best: &mut Candidate) -> bool {
        let target = SimDuration::from_ns((self.fail_at.ns() / TIME_STEP_NS + 1) * TIME_STEP_NS);
        target < best.duration && self.try_one(best, Candidate { duration: target, ..best.clone() })
    }

    /// Pass 4: simplify each fault as its kind allows.
    fn simplify(&mut self, best: &mut Candidate) -> bool {
        let mut changed = false;
        for i in 0..best.faults.len() {
            let kind = best.faults[i].kind.imp();
            let ways = kind.simplify();
            if ways.shorten {
                changed |= self.shorten(best, i);
            }
            changed |= self.narrow(best, i);
            if ways.toward_zero {
                changed |= self.toward_zero(best, i);
            }
            if ways.earlier {
                changed |= self.move_earlier(best, i);
            }
        }
        changed
    }

    /// The shortest downtime or partition (to 2 ms) that still fails.
    fn shorten(&mut self, best: &mut Candidate, i: usize) -> bool {
        let Some(length) = best.faults[i].length() else { return false };
        let at = best.faults[i].at;
        self.bisect(best, length.ns(), TIME_STEP_NS, |c, length| {
            c.faults[i].until = Some(at.plus(SimDuration::from_ns(length)))
        })
    }

    /// The smallest amount (to 2 ms, sign kept) a skew or jump can have and
    /// still fail.
    fn toward_zero(&mut self, best: &mut Candidate, i: usize) -> bool {
        let Some(amount) = best.faults[i].amount else { return false };
        let sign = amount.signum();
        self.bisect(best, amount.unsigned_abs(), TIME_STEP_NS, |c, magnitude| {
            c.faults[i].amount = Some(sign * magnitude as i64)
        })
    }

    /// The earliest time (to 2 ms) a planned fault can come and still fail;
    /// its length is kept.
    fn move_earlier(&mut self, best: &mut Candidate, i: usize) -> bool {
        let at = best.faults[i].at;
        self.bisect(best, at.ns(), TIME_STEP_NS, |c, earlier| {
            let f = &mut c.faults[i];
            let earlier = SimTime::from_ns(earlier);
            f.until = f.length().map(|length| earlier.plus(length));
            f.at = earlier;
        })
    }

    /// Tries the kind's narrower variants of fault `i` (a partition with a
    /// node fewer on its cut side) until none still fails.
    fn narrow(&mut self, best: &mut Candidate, i: usize) -> bool {
        let mut changed = false;
        'again: while !self.stopped_early {
            for variant in best.faults[i].kind.imp().narrower(&best.faults[i]) {
                let mut c = best.clone();
                c.faults[i] = variant;
                if self.try_one(best, c) {
                    changed = true;
                    continue 'again;
                }
            }
            break;
        }
        changed
    }
}

/// A seed that fails as drawn: where shrinking starts.
pub struct Failing {
    pub seed: u64,
    /// Its first failure, the one a shrunk run must repeat.
    pub failure: Failure,
    signature: String,
    /// The drawn faults, over the config's duration.
    pub start: Candidate,
    /// The size the workload passed to `sim.Budget`, if it called it.
    pub default_ops: Option<u64>,
    /// Where the run leaves the seed's randomness (a schedule's `branches`).
    pub branches: Vec<Branch>,
    fail_at: SimTime,
    started: Instant,
}

/// Runs `seed` as drawn; an error unless it fails.
pub fn failing(cluster: &Cluster, seed: u64) -> Result<Failing, ScheduleError> {
    failing_run(cluster, seed, None)
}

/// Runs `seed` with `schedule` (its faults, branches, duration and cap:
/// a run `cause` or `explore` saved); an error unless it fails.
pub fn failing_from(cluster: &Cluster, seed: u64, schedule: &Schedule) -> Result<Failing, ScheduleError> {
    failing_run(cluster, seed, Some(schedule))
}

fn failing_run(cluster: &Cluster, seed: u64, schedule: Option<&Schedule>) -> Result<Failing, ScheduleError> {
    let started = Instant::now();
    let mut spec = cluster.spec(seed);
    let full = spec.duration;
    if let Some(schedule) = schedule {
        spec.schedule = Some(schedule.faults.clone());
        spec.branches = schedule.branches.clone();
        spec.duration = schedule.duration.unwrap_or(spec.duration);
        spec.budget_cap = schedule.ops;
    }
    let first = world::run_probed(&spec, None, Probes::default().with(BudgetDefault::default()))?;
    let (Some(signature), Verdict::Fail(failures)) = (cluster.signature(&first), &first.verdict) else {
        return Err(ScheduleError::Passes { seed, what: "shrink" });
    };
    Ok(Failing {
        seed,
        failure: failures[0].clone(),
        signature,
        start: Candidate {
            faults: first.faults.clone(),
            duration: schedule.and_then(|s| s.duration).unwrap_or(full),
            ops: schedule.and_then(|s| s.ops),
        },
        default_ops: BudgetDefault::of(&first.probes),
        branches: spec.branches,
        fail_at: first.end,
        started,
    })
}

/// How hard to shrink.
#[derive(Debug, Clone, Copy)]
pub struct ShrinkOptions {
    pub workers: usize,
    pub budget: Budget,
}

/// A finished (or stopped) shrink.
pub struct Shrunk {
    pub seed: u64,
    pub before: Candidate,
    /// The smallest candidate found; it fails the same way.
    pub after: Candidate,
    pub default_ops: Option<u64>,
    pub branches: Vec<Branch>,
    pub runs: u64,
    pub stopped_early: bool,
    pub interrupted: bool,
    /// From the first run to the end of the passes.
    pub elapsed: Duration,
}

/// Shrinks `failing`'s schedule; `on_step` hears each improvement, and a
/// set `interrupt` stops the passes with the best candidate so far.
pub fn shrink(
    cluster: &Cluster,
    failing: &Failing,
    options: &ShrinkOptions,
    interrupt: Arc<AtomicBool>,
    on_step: impl FnMut(&Step),
) -> Result<Shrunk, ScheduleError> {
    let runner = SeedRunner { cluster, seed: failing.seed, branches: &failing.branches };
    let mut shrinker =
        Shrinker::new(runner, failing.signature.clone(), options.workers, options.budget, failing.fail_at);
    shrinker.interrupt_on(interrupt);
    if !shrinker.replays(&failing.start)? {
        return Err(ScheduleError::NotReproduced { seed: failing.seed });
    }
    let mut best = failing.start.clone();
    shrinker.minimize(&mut best, failing.default_ops, on_step);
    let elapsed = failing.started.elapsed();
    // Faults recorded at a disk operation keep their op; their times are
    // only for people, so take them from the final run.
    if let Ok(last) = shrinker.runner.run_full(&best) {
        for f in best.faults.iter_mut().filter(|f| f.kind.trigger().by_op()) {
            if let Some(seen) = last.faults.iter().find(|g| g.kind == f.kind && g.target == f.target && g.op == f.op) {
                let length = f.length();
                f.at = seen.at;
                // A preemption point's `until` is the reference's "0s" placeholder, not an end.
                if f.kind.trigger() != Trigger::CountedCall {
                    f.until = length.map(|l| seen.at.plus(l));
                }
            }
        }
    }
    Ok(Shrunk {
        seed: failing.seed,
        before: failing.start.clone(),
        after: best,
        default_ops: failing.default_ops,
        branches: failing.branches.clone(),
        runs: shrinker.runs,
        stopped_early: shrinker.stopped_early,
        interrupted: shrinker.interrupted,
        elapsed,
    })
}

impl Shrunk {
    /// The schedule to save: it replays the shrunk failure exactly.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            seed: Some(self.seed),
            faults: self.after.faults.clone(),
            duration: Some(self.after.duration),
            ops: self.after.ops.or(self.default_ops),
            shrunk_from: Some(ShrunkFrom {
                faults: self.before.faults.len(),
                duration: Some(self.before.duration),
                ops: self.before.ops.or(self.default_ops),
            }),
            shrink_runs: Some(self.runs),
            branches: self.branches.clone(),
        }
    }

    /// The sizes before and after and the runs it took, as the reference
    /// prints them (`shrunk from 33 faults, 1m0s, 200 workload ops` / `to …` /
    /// `in 191 runs, 14.296s`; no ops when the workload never called
    /// `sim.Budget`), and why it stopped if it did not finish.
    pub fn report(&self) -> String {
        let sizes = |c: &Candidate| {
            let ops = c.ops.or(self.default_ops).map_or(String::new(), |n| format!(", {n} workload ops"));
            format!("{} faults, {}{ops}", c.faults.len(), c.duration)
        };
        let elapsed = go_duration_ms(u64::try_from(self.elapsed.as_nanos()).unwrap_or(u64::MAX));
        let mut out = format!(
            "shrunk from {}\n         to {}\nin {} runs, {elapsed}\n",
            sizes(&self.before),
            sizes(&self.after),
            self.runs
        );
        if self.interrupted {
            out.push_str(
                "  interrupted: saving the best schedule found so far (it fails the same way, but may not be minimal)\n",
            );
        } else if self.stopped_early {
            out.push_str("  stopped early (budget): the schedule may not be minimal\n");
        }
        out
    }
}

#[cfg(test)]
#[path = "shrink_tests.rs"]
mod tests;

/// Shrinks `seed`'s failure and saves its schedule where `seedfall shrink`
/// does (`.seedfall/[X.]seed-N.faults.json` beside `config_path`): what
/// `run --shrink-new` does for each new finding, with no step printed.
pub fn shrink_and_save(
    cluster: &Cluster,
    config_path: &Path,
    seed: u64,
    options: &ShrinkOptions,
    interrupt: Arc<AtomicBool>,
) -> Result<(Shrunk, PathBuf), ScheduleError> {
    let failing = failing(cluster, seed)?;
    let shrunk = shrink(cluster, &failing, options, interrupt, |_| {})?;
    let file = save(cluster, config_path, &failing, &shrunk)?.file;
    Ok((shrunk, file))
}

/// Where `save` put a shrunk schedule.
pub struct Saved {
    pub file: PathBuf,
    /// The schedule already saved that an interrupted shrink left in place.
    pub kept: Option<PathBuf>,
}

/// Saves `shrunk`'s schedule as `.seedfall/[X.]seed-N.faults.json` beside
/// `config_path`. An interrupted shrink's schedule may be far from minimal:
/// when that file already holds one with fewer faults that still fails the
/// same way (one run to check), it is kept and this one goes beside it as
/// `seed-N.interrupted.faults.json`.
pub fn save(cluster: &Cluster, config_path: &Path, failing: &Failing, shrunk: &Shrunk) -> Result<Saved, ScheduleError> {
    let file = crate::config::schedule_path(config_path, failing.seed);
    let better_saved = shrunk.interrupted
        && Schedule::load(&file).is_ok_and(|saved| {
            saved.faults.len() < shrunk.after.faults.len()
                && failing_from(cluster, failing.seed, &saved).is_ok_and(|f| f.signature == failing.signature)
        });
    if !better_saved {
        shrunk.schedule().save(&file)?;
        return Ok(Saved { file, kept: None });
    }
    let beside = crate::config::state_file(config_path, &format!("seed-{}.interrupted.faults.json", failing.seed));
    shrunk.schedule().save(&beside)?;
    Ok(Saved { file: beside, kept: Some(file) })
}
