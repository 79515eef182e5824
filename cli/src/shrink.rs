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

use crate::cluster::Cluster;
use seedfall_host::vtime::{SimDuration, SimTime};
use seedfall_host::world::{self, Fault, RunResult, Verdict};
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
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Unlimited,
    /// Sequential-equivalent runs (reproducible).
    Runs(u64),
    /// Wall time.
    Time(Duration),
}

pub struct Shrinker<'a> {
    cluster: &'a Cluster,
    seed: u64,
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

/// The first failure's signature, if the run failed.
pub fn signature(run: &RunResult) -> Option<String> {
    match &run.verdict {
        Verdict::Fail(failures) => failures.first().map(|f| f.signature()),
        _ => None,
    }
}

impl<'a> Shrinker<'a> {
    pub fn new(
        cluster: &'a Cluster,
        seed: u64,
        signature: String,
        workers: usize,
        budget: Budget,
        fail_at: SimTime,
    ) -> Self {
        Shrinker {
            cluster,
            seed,
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

    /// Runs `c` (its faults replayed exactly).
    pub fn run(&self, c: &Candidate) -> Result<RunResult, String> {
        let mut spec = self.cluster.spec(self.seed);
        spec.schedule = Some(c.faults.clone());
        spec.duration = c.duration;
        spec.budget_cap = c.ops;
        world::run(&spec, None).map_err(|e| e.to_string())
    }

    fn fails_same(&self, c: &Candidate) -> Option<SimTime> {
        let run = self.run(c).ok()?;
        (signature(&run).as_deref() == Some(self.signature.as_str())).then_some(run.end)
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
    pub fn remove_faults(&mut self, best: &mut Candidate) -> bool {
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
    pub fn cap_ops(&mut self, best: &mut Candidate, default: Option<u64>) -> bool {
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
    pub fn trim_duration(&mut self, best: &mut Candidate) -> bool {
        let target = SimDuration::from_ns((self.fail_at.ns() / TIME_STEP_NS + 1) * TIME_STEP_NS);
        target < best.duration && self.try_one(best, Candidate { duration: target, ..best.clone() })
    }

    /// Pass 4: simplify each fault as its kind allows.
    pub fn simplify(&mut self, best: &mut Candidate) -> bool {
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
