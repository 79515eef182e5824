//! `seedfall explore`: spend the run budget where coverage grows instead of
//! on more seeds. Generation 0 runs the starting seeds. Every run whose
//! coverage (`coverage.rs`) adds features the corpus has not seen becomes a
//! branch point, and stays one. Each next generation leaves the branch
//! points with the most energy (the rarity of their features now, divided
//! by one more than the generations that left them already) at a few
//! scheduler steps after their last branch (around their last faults, the
//! rest evenly spaced), each future with new randomness (`prefix.rs`: forked
//! from the branch point where `fork()` exists, else replaying the prefix),
//! so a branch of a branch is one more entry in `branches`. A generation
//! after one that found nothing new also runs fresh seeds. It stops at the
//! budget, or on a plateau (`plateau`): `patience` generations in a row
//! without a new feature, and under one run in 1,000 adding one over the
//! last 1,000 runs or the last half of them, whichever is more (a deep
//! bug's first fault is itself new coverage, and may take hundreds of
//! runs; and a big program keeps finding a rare function now and then
//! long after its coverage has flattened out).
//!
//! Determinism: generations run one after the other, each branch point's
//! futures in parallel, and every result is read in a fixed order (seed,
//! then branch point, then future), so the same seeds and run budget give
//! the same findings for any `-j`. Failing runs are grouped by
//! `Cluster::signature`; each finding keeps its first run's schedule. It
//! prints nothing (`explore_cmd.rs` does) and never touches the findings
//! history.

use crate::cluster::Cluster;
use crate::mix::Mixes;
use crate::prefix::Prefix;
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use seedfall_host::branch::Branch;
use seedfall_host::world::probes::{FaultStates, FaultSteps, FunctionsRan};
use seedfall_host::world::{Probes, RunResult, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How much exploring to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// Completed runs (each future is one).
    Runs(u64),
    /// Wall time (then the findings depend on the machine's speed).
    Time(Duration),
}

#[derive(Debug, Clone)]
pub struct ExploreOptions {
    pub seeds: Vec<u64>,
    pub budget: Budget,
    pub jobs: usize,
    /// Branch points a generation leaves.
    pub branch_points: usize,
    /// Futures each of them gets on average (shared out by energy).
    pub futures: u32,
    /// Generations in a row without new coverage before it stops (`plateau`).
    pub patience: u32,
    /// The shortest window a plateau is judged over, and the runs per new
    /// find under which coverage counts as no longer growing (`plateau`).
    pub plateau_runs: u64,
    /// Fork futures from the branch point (where `fork()` exists).
    pub share_prefix: bool,
}

impl ExploreOptions {
    pub fn new(seeds: Vec<u64>, budget: Budget, jobs: usize) -> ExploreOptions {
        ExploreOptions {
            seeds,
            budget,
            jobs,
            branch_points: 16,
            futures: 8,
            patience: 3,
            plateau_runs: 1000,
            share_prefix: true,
        }
    }
}

/// What watches explore's runs: where their faults came, the state each
/// met, and the functions and edges they ran (`Explored::of`).
fn probes() -> Probes {
    Probes::default().with(FaultSteps::default()).with(FaultStates::default()).with(FunctionsRan::default())
}

/// What one run found, small enough to come back from a forked child.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Explored {
    pub seed: u64,
    pub branches: Vec<(u64, u64)>,
    pub steps: u64,
    /// The scheduler steps at which its faults came.
    pub fault_steps: Vec<u64>,
    /// How it failed (`Cluster::signature`), if it did.
    pub signature: Option<String>,
    /// Its first failure as a FAIL block prints it.
    pub failure: Option<String>,
    pub trace_hash: String,
    /// Its schedule (JSON) when it failed: it replays the run exactly.
    pub schedule: Option<String>,
    pub features: Vec<u64>,
    /// The features each fault brought (`coverage::of_faults`), parallel to
    /// `fault_steps`.
    pub fault_features: Vec<Vec<u64>>,
}

impl Explored {
    fn of(cluster: &Cluster, seed: u64, run: &RunResult) -> Explored {
        let signature = cluster.signature(run);
        let failure = match &run.verdict {
            Verdict::Fail(f) => f.first().map(|f| format!("{}#{}: {}", f.node, f.incarnation, f.message)),
            _ => None,
        };
        let spec = cluster.spec(seed);
        let schedule = signature.as_ref().map(|_| Schedule::of_run(&spec, run).to_json());
        let groups = cluster.config.node_groups();
        let group = |node: &str| groups.iter().find(|(n, _)| n == node).map_or(node.to_string(), |(_, g)| g.clone());
        let observed = crate::coverage::Observed::of(run);
        Explored {
            seed,
            branches: run.branches.iter().map(|b| (b.step, b.reseed)).collect(),
            steps: run.steps,
            fault_steps: FaultSteps::of(&run.probes).to_vec(),
            signature,
            failure,
            trace_hash: run.trace_hash.to_string(),
            schedule,
            features: crate::coverage::of(&observed, group).into_iter().collect(),
            fault_features: crate::coverage::of_faults(&observed, group),
        }
    }

    /// Its branches, each with the fault mix its reseed draws.
    fn branches(&self, mixes: &Mixes) -> Vec<Branch> {
        self.branches.iter().map(|&(step, reseed)| mixes.branch(step, reseed)).collect()
    }
}

/// A failure explore found: every run that failed the same way.
#[derive(Debug, Clone)]
pub struct Finding {
    pub id: String,
    pub signature: String,
    pub failure: String,
    /// The first run that failed this way (in exploration order).
    pub first: Explored,
    /// Which run (1 = the first completed) found it.
    pub found_at_run: u64,
    pub runs: u64,
}

/// The corpus's coverage after some runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Point {
    pub runs: u64,
    pub features: usize,
}

pub struct Exploration {
    pub runs: u64,
    pub generations: u32,
    pub findings: Vec<Finding>,
    pub curve: Vec<Point>,
    /// Why it stopped: the budget, a plateau, or Ctrl-C.
    pub stopped: String,
    /// One hash of every run's trace hash in the order they were read:
    /// equal for two explorations only if they made the same runs.
    pub trace_digest: String,
    pub elapsed: Duration,
}

/// The corpus: how many runs hit each feature, the findings so far.
#[derive(Default)]
struct Corpus {
    hits: BTreeMap<u64, u64>,
    /// Every run's trace hash, in the order they were read.
    traces: blake3::Hasher,
    findings: Vec<Finding>,
    runs: u64,
    /// The runs (numbered from 1) that added features, in order.
    discoveries: Vec<u64>,
}

impl Corpus {
    /// Reads one run, a future of `parent` if it has one; the run back if it
    /// added coverage (a branch point). Hits count independent finds only:
    /// a future has every feature of the prefix it shares with its parent,
    /// and counting those would make a rare state look common as soon as
    /// it is followed, and starve it.
    fn take(&mut self, run: Explored, parent: Option<&Explored>) -> Option<Explored> {
        self.runs += 1;
        self.traces.update(run.trace_hash.as_bytes());
        if let Some(signature) = &run.signature {
            match self.findings.iter_mut().find(|f| &f.signature == signature) {
                Some(f) => f.runs += 1,
                None => self.findings.push(Finding {
                    id: crate::findings::id(signature),
                    signature: signature.clone(),
                    failure: run.failure.clone().unwrap_or_default(),
                    first: run.clone(),
                    found_at_run: self.runs,
                    runs: 1,
                }),
            }
        }
        let new = run.features.iter().filter(|f| !self.hits.contains_key(f)).count();
        let inherited = |f: &u64| parent.is_some_and(|p| p.features.binary_search(f).is_ok());
        for f in run.features.iter().filter(|f| !inherited(f)) {
            *self.hits.entry(*f).or_default() += 1;
        }
        if new > 0 {
            self.discoveries.push(self.runs);
        }
        (new > 0).then_some(run)
    }

    /// How rare `features` are now: the sum of 1/hits², so a feature only a
    /// few runs have outweighs hundreds that every run has.
    fn rarity(&self, features: &[u64]) -> f64 {
        features.iter().map(|f| 1.0 / (self.hits.get(f).copied().unwrap_or(1) as f64).powi(2)).sum()
    }

    /// The energy of a branch point: the rarity of its features, less for
    /// each generation that left it already.
    fn energy(&self, run: &Explored, times_left: u32) -> f64 {
        self.rarity(&run.features) / f64::from(1 + times_left)
    }

    /// The `n` branch points of every generation so far with the most
    /// energy, most first (ties to the one found first), each counted as
    /// left once more, with how many futures it gets: `futures` each on
    /// average, shared out by energy (at least 1, at most 4 × `futures`).
    fn frontier(&self, branch_points: &mut [(Explored, u32)], n: usize, futures: u32) -> Vec<(Explored, u32)> {
        let mut ranked: Vec<(f64, usize)> =
            branch_points.iter().enumerate().map(|(i, (run, left))| (self.energy(run, *left), i)).collect();
        ranked.sort_by(|(a, i), (b, j)| b.total_cmp(a).then(i.cmp(j)));
        ranked.truncate(n);
        let total: f64 = ranked.iter().map(|(e, _)| e).sum();
        let share = |e: f64| f64::from(futures) * ranked.len() as f64 * e / total;
        ranked
            .iter()
            .map(|&(e, i)| {
                branch_points[i].1 += 1;
                (branch_points[i].0.clone(), (share(e).round() as u32).clamp(1, 4 * futures))
            })
            .collect()
    }

    fn point(&self) -> Point {
        Point { runs: self.runs, features: self.hits.len() }
    }

    /// Why coverage counts as no longer growing, after `flat` generations in
    /// a row without a new feature; None while it still grows. Over the last
    /// `window` runs (`plateau_runs`, or half of all runs when that is more)
    /// fewer than one run in `plateau_runs` may have added a feature: a rate,
    /// not a run count since the last find, because a big program finds a
    /// rare function now and then for as long as it is explored.
    fn plateau(&self, flat: u32, options: &ExploreOptions) -> Option<String> {
        let window = options.plateau_runs.max(self.runs / 2);
        if flat < options.patience || self.runs < window {
            return None;
        }
        let since = self.runs - window;
        let recent = self.discoveries.iter().rev().take_while(|&&run| run > since).count() as u64;
        (recent * options.plateau_runs < window).then(|| {
            let quiet = self.runs - self.discoveries.last().copied().unwrap_or(0);
            format!(
                "coverage stopped growing: {recent} of the last {window} runs added a feature \
                 (under 1 in {}), none of the last {quiet} ({flat} generations)",
                options.plateau_runs
            )
        })
    }
}

/// The new randomness of future `future` at `step` of the run (`seed`, `branches`).
fn reseed(generation: u32, seed: u64, branches: &[(u64, u64)], step: u64, future: u32) -> u64 {
    let mut hasher = blake3::Hasher::new_derive_key("seedfall explore future v1");
    hasher.update(&generation.to_le_bytes());
    hasher.update(&seed.to_le_bytes());
    for (s, r) in branches {
        hasher.update(&s.to_le_bytes());
        hasher.update(&r.to_le_bytes());
    }
    hasher.update(&step.to_le_bytes());
    hasher.update(&future.to_le_bytes());
    u64::from_le_bytes(hasher.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
}

/// The `count` futures of branch point `parent` in `generation`, all after
/// its last branch. Half leave just after its faults, the rarest first
/// (`rarity` of what each fault brought; ties to the earlier, which has more
/// of the run ahead): another course of what a fault set off, with new
/// faults to meet it. Each of those faults gets at least 4 futures, so a
/// rare state is followed several ways. The rest leave at steps spread
/// evenly, one each.
fn futures_of(
    generation: u32,
    parent: &Explored,
    count: u32,
    mixes: &Mixes,
    rarity: impl Fn(&[u64]) -> f64,
) -> Vec<Branch> {
    let from = parent.branches.last().map_or(0, |(s, _)| s + 1);
    if parent.steps <= from {
        return Vec::new();
    }
    let last = parent.steps - 1;
    let mut faults: Vec<(f64, u64)> = parent
        .fault_steps
        .iter()
        .zip(parent.fault_features.iter().map(Vec::as_slice).chain(std::iter::repeat(&[][..])))
        .filter(|(step, _)| (from..=last).contains(*step))
        .map(|(step, features)| (rarity(features), *step))
        .collect();
    faults.sort_by(|(a, s), (b, t)| b.total_cmp(a).then(s.cmp(t)));
    let after_faults = if faults.is_empty() { 0 } else { count / 2 };
    faults.truncate((after_faults / 4).max(1) as usize);
    let mut steps: Vec<u64> = (0..after_faults).map(|i| faults[i as usize % faults.len()].1).collect();
    let evenly = u64::from(count - after_faults);
    let span = parent.steps - from;
    steps.extend((1..=evenly).map(|m| (from + m * span / (evenly + 1)).min(last)));
    steps.sort_unstable();
    let mut futures = Vec::with_capacity(steps.len());
    for (i, &step) in steps.iter().enumerate() {
        // The how-many-th future at this step.
        let nth = steps[..i].iter().rev().take_while(|s| **s == step).count() as u32;
        futures.push(mixes.branch(step, reseed(generation, parent.seed, &parent.branches, step, nth)));
    }
    futures
}

pub fn explore(
    cluster: &Cluster,
    options: &ExploreOptions,
    interrupt: &AtomicBool,
) -> Result<Exploration, ScheduleError> {
    let started = Instant::now();
    let mixes = Mixes::of(&cluster.config.faults);
    let mut corpus = Corpus::default();
    let left = |corpus: &Corpus| match options.budget {
        Budget::Runs(n) => n.saturating_sub(corpus.runs),
        Budget::Time(t) => u64::from(started.elapsed() < t) * u64::MAX,
    };
    // Generation 0: the starting seeds, as many as the budget allows.
    let mut points = Vec::new();
    run_seeds(cluster, &options.seeds, options.jobs, interrupt, &mut corpus, &left, &mut points)?;
    // Seeds after the starting ones, for generations after a flat one.
    let mut fresh = options.seeds.iter().max().map_or(1, |s| s + 1)..;
    let mut curve = vec![corpus.point()];
    let (mut generations, mut flat) = (0u32, 0u32);
    // Every branch point so far, with how many generations left it already.
    let mut branch_points: Vec<(Explored, u32)> = Vec::new();
    let stopped = loop {
        if interrupt.load(Ordering::Relaxed) {
            break "interrupted".to_string();
        }
        if left(&corpus) == 0 {
            break "the budget is spent".to_string();
        }
        if let Some(why) = corpus.plateau(flat, options) {
            break why;
        }
        branch_points.extend(std::mem::take(&mut points).into_iter().map(|run| (run, 0)));
        let frontier = corpus.frontier(&mut branch_points, options.branch_points, options.futures);
        if frontier.is_empty() {
            break "no run covered anything to branch from".to_string();
        }
        let before = corpus.hits.len();
        generations += 1;
        // After a generation that found nothing new, whole new runs too: a
        // deep bug's first fault comes as rarely in a future (which runs
        // only the rest of a run) as in a seed.
        if flat > 0 {
            let seeds: Vec<u64> = fresh.by_ref().take(options.seeds.len().max(1)).collect();
            run_seeds(cluster, &seeds, options.jobs, interrupt, &mut corpus, &left, &mut points)?;
        }
        for (parent, count) in &frontier {
            let mut futures = futures_of(generations, parent, *count, &mixes, |f: &[u64]| corpus.rarity(f));
            futures.truncate(left(&corpus).min(futures.len() as u64) as usize);
            if futures.is_empty() || interrupt.load(Ordering::Relaxed) {
                continue;
            }
            let spec = cluster.spec(parent.seed);
            let branches = parent.branches(&mixes);
            let prefix = Prefix { spec: &spec, branches: &branches, probes };
            let runs = prefix
                .futures(&futures, options.jobs, options.share_prefix, |run| Explored::of(cluster, parent.seed, run))?;
            for run in runs {
                points.extend(corpus.take(run, Some(parent)));
            }
            curve.push(corpus.point());
        }
        flat = if corpus.hits.len() > before { 0 } else { flat + 1 };
    };
    Ok(Exploration {
        runs: corpus.runs,
        generations,
        findings: corpus.findings,
        curve,
        stopped,
        trace_digest: corpus.traces.finalize().to_hex().to_string(),
        elapsed: started.elapsed(),
    })
}

/// Runs `seeds` from their start (as many as the budget allows) into the
/// corpus, in seed order whatever finishes first; those that added coverage
/// join `points`.
fn run_seeds(
    cluster: &Cluster,
    seeds: &[u64],
    jobs: usize,
    interrupt: &AtomicBool,
    corpus: &mut Corpus,
    left: &impl Fn(&Corpus) -> u64,
    points: &mut Vec<Explored>,
) -> Result<(), ScheduleError> {
    let seeds: Vec<u64> = seeds.iter().copied().take(left(corpus).min(usize::MAX as u64) as usize).collect();
    let mut outcomes: Vec<Option<Result<Explored, ScheduleError>>> = seeds.iter().map(|_| None).collect();
    crate::sweep::each(
        &seeds.iter().copied().enumerate().collect::<Vec<_>>(),
        jobs,
        interrupt,
        |&(i, seed)| {
            let run = seedfall_host::world::run_probed(&cluster.spec(seed), None, probes());
            (i, run.map(|run| Explored::of(cluster, seed, &run)))
        },
        |(i, result)| outcomes[i] = Some(result.map_err(ScheduleError::World)),
    );
    for result in outcomes.into_iter().flatten() {
        points.extend(corpus.take(result?, None));
    }
    Ok(())
}

/// A run explore made, run again from its start with its branches: what a
/// forked future must equal (`cli/tests/explore.rs`).
pub fn rerun(cluster: &Cluster, run: &Explored) -> Result<RunResult, ScheduleError> {
    let spec = cluster.spec(run.seed);
    let branches = run.branches(&Mixes::of(&cluster.config.faults));
    Ok(Prefix { spec: &spec, branches: &branches, probes }.world().run()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn parent(steps: u64, branches: Vec<(u64, u64)>) -> Explored {
        Explored {
            seed: 7,
            branches,
            steps,
            fault_steps: vec![],
            signature: None,
            failure: None,
            trace_hash: String::new(),
            schedule: None,
            features: vec![],
            fault_features: vec![],
        }
    }

    #[test]
    fn the_frontier_favours_rare_features_and_points_left_less_often() {
        let mut corpus = Corpus::default();
        let with = |seed: u64, features: Vec<u64>| Explored { seed, features, ..parent(100, vec![]) };
        // Feature 1 is everywhere, 2 only in seed 3's run.
        for seed in [1, 2] {
            corpus.take(with(seed, vec![1]), None);
        }
        let mut points = vec![(with(1, vec![1]), 0), (with(3, vec![1, 2]), 0)];
        corpus.take(with(3, vec![1, 2]), None);
        let picked = corpus.frontier(&mut points, 2, 4);
        let seeds: Vec<(u64, u32)> = picked.iter().map(|(run, futures)| (run.seed, *futures)).collect();
        // Energies 1/9 + 1 and 1/9: the 8 futures shared 7 and 1.
        assert_eq!(seeds, [(3, 7), (1, 1)]);
        assert_eq!((points[0].1, points[1].1), (1, 1), "both were left once");
        let once_more = corpus.frontier(&mut points, 1, 4);
        assert_eq!(once_more[0].0.seed, 3, "halved, 5/9 is still more than 1/18");
    }

    #[test]
    fn a_plateau_is_a_find_rate_under_one_in_plateau_runs_over_the_last_half() {
        let options = ExploreOptions::new(vec![1], Budget::Runs(10_000), 1);
        // Every one of the first 100 runs found something, then a rare
        // function at runs 1248 and 1784 (what raftkv lin does).
        let corpus = |runs: u64| Corpus {
            runs,
            discoveries: (1..=100).chain([1248, 1784]).filter(|&r| r <= runs).collect(),
            ..Corpus::default()
        };
        assert_eq!(corpus(1099).plateau(3, &options), None, "the last 1,000 runs hold 1 find (at 100)");
        let stopped = corpus(1100).plateau(3, &options).expect("none in the last 1,000");
        assert_eq!(
            stopped,
            "coverage stopped growing: 0 of the last 1000 runs added a feature (under 1 in 1000), \
             none of the last 1000 (3 generations)"
        );
        assert_eq!(corpus(1100).plateau(2, &options), None, "3 flat generations first");
        assert_eq!(corpus(2000).plateau(3, &options), None, "2 finds in the last 1,000");
        assert_eq!(corpus(2494).plateau(3, &options), None, "the last 1,247 runs hold 2 finds (1248, 1784)...");
        assert!(corpus(2495).plateau(3, &options).is_some(), "...the last 1,247 after it only 1");
        assert_eq!(corpus(999).plateau(9, &options), None, "never before plateau_runs runs");
    }

    #[test]
    fn futures_spread_evenly_after_the_last_branch_each_with_its_own_randomness() {
        let even = |_: &[u64]| 0.0;
        let none = Mixes::of(&Default::default());
        let futures = futures_of(1, &parent(100, vec![(49, 1)]), 4, &none, even);
        let steps: Vec<u64> = futures.iter().map(|b| b.step).collect();
        assert_eq!(steps, [60, 70, 80, 90], "no faults: all spread evenly");
        let reseeds: BTreeSet<u64> = futures.iter().map(|b| b.reseed).collect();
        assert_eq!(reseeds.len(), 4);
        assert!(futures_of(1, &parent(50, vec![(49, 1)]), 4, &none, even).is_empty(), "nothing after the last branch");
        assert_eq!(
            futures_of(1, &parent(100, vec![]), 4, &none, even),
            futures_of(1, &parent(100, vec![]), 4, &none, even)
        );
        assert_ne!(
            futures_of(1, &parent(100, vec![]), 4, &none, even),
            futures_of(2, &parent(100, vec![]), 4, &none, even)
        );
    }

    #[test]
    fn half_the_futures_leave_just_after_the_rarest_faults_after_the_last_branch() {
        let mut run = parent(100, vec![(9, 1)]);
        run.fault_steps = vec![5, 30, 70, 71];
        // Fault i brings feature i; feature 2 (the fault at 70) is the rarest.
        run.fault_features = vec![vec![0], vec![1], vec![2], vec![3]];
        let rarity = |f: &[u64]| if f == [2] { 1.0 } else { 0.5 };
        let none = Mixes::of(&Default::default());
        let futures = futures_of(1, &run, 8, &none, rarity);
        let steps: Vec<u64> = futures.iter().map(|b| b.step).collect();
        // 4 after the rarest fault, 4 spread evenly over steps 10-99.
        assert_eq!(steps, [28, 46, 64, 70, 70, 70, 70, 82]);
        let reseeds: BTreeSet<u64> = futures.iter().map(|b| b.reseed).collect();
        assert_eq!(reseeds.len(), 8, "each future at step 70 its own randomness");
        let steps: Vec<u64> = futures_of(1, &run, 16, &none, rarity).iter().map(|b| b.step).collect();
        // 8 after the two rarest faults, 4 each (ties to the earlier: 30, not
        // 71), and 8 spread evenly over 20, 30, …, 90.
        assert_eq!(steps, [20, 30, 30, 30, 30, 30, 40, 50, 60, 70, 70, 70, 70, 70, 80, 90]);
        assert!(!steps.contains(&5), "the fault before the last branch is behind it");
    }
}
