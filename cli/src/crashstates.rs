//! `crashstates`: every disk state a crash of a node in the middle of one of
//! its disk operations can leave, each checked by the workload. The seed
//! runs once as drawn; its faults are then replayed with a crash of the node
//! at that operation added (replacing one the seed had there), once per
//! state: the operation taken in full or not at all (for a write only in
//! full, for a sync only not, since those cover the other), times every
//! combination of what the durability model lets a crash keep
//! (`fs::CrashSpace`): each file's in-order prefix of pending writes, or
//! under `reorder_writes` each file's ordered stream and each page on its
//! own, and each pending directory entry under `dir_reorder`. The node
//! restarts after `crash_downtime`'s minimum and the run goes on, so the
//! workload's own checks judge each state. Above `max_states` a seeded
//! sample is checked and the output says "sampled K of N", never "all". It
//! does not merge states that happen to leave identical bytes.

use crate::cluster::Cluster;
use crate::schedule_error::ScheduleError;
use crate::sweep;
use seedfall_host::fs::{CrashSpace, DiskOp, Prefix};
use seedfall_host::random::{Draw, Purpose, RandomStream};
use seedfall_host::vtime::SimTime;
use seedfall_host::world::fault::Trigger;
use seedfall_host::world::probes::PlacedCrash;
use seedfall_host::world::{self, CrashInto, Fault, Kind, Probes, RunResult, RunSpec, Verdict};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where the crash comes.
#[derive(Debug, Clone)]
pub struct CrashPoint {
    pub seed: u64,
    /// The service node that crashes.
    pub node: String,
    /// Its disk-operation number the crash comes in (as `crash_io`'s `op`).
    pub at: u64,
    /// Check at most this many states (a seeded sample above it).
    pub max_states: u64,
}

/// How much of operation OP itself took effect.
#[derive(Clone, Copy)]
enum OpDone {
    None,
    All,
}

impl OpDone {
    fn prefix(self) -> Prefix {
        match self {
            OpDone::None => Prefix::default(),
            // Bent to the operation's size when replayed: all of it.
            OpDone::All => Prefix { ops: usize::MAX, bytes: 0 },
        }
    }

    fn describe(self) -> &'static str {
        match self {
            OpDone::None => "op not done",
            OpDone::All => "op done",
        }
    }
}

/// One state: how the operation went and what each file keeps.
struct State<'s> {
    done: OpDone,
    space: &'s CrashSpace,
    prefixes: Vec<Prefix>,
}

impl State<'_> {
    fn describe(&self) -> String {
        // A choice over nothing (an empty ordered stream) has one state: not worth a word.
        let choices: Vec<String> = (self.space.choices.iter().zip(&self.prefixes))
            .filter(|(choice, _)| !choice.sizes.is_empty())
            .map(|(choice, p)| choice.describe(p))
            .collect();
        let choices = if choices.is_empty() { "no pending writes".to_string() } else { choices.join(", ") };
        format!("{}, {choices}", self.done.describe())
    }
}

/// The crash replayed on the seed's other faults.
struct Crash<'c> {
    cluster: &'c Cluster,
    point: CrashPoint,
    /// The seed's faults but the one the crash replaces.
    faults: Vec<Fault>,
}

impl Crash<'_> {
    /// The seed with the crash added, keeping the state `prefixes` says.
    fn spec(&self, done: OpDone, prefixes: Vec<Prefix>) -> RunSpec {
        let p = &self.point;
        let mut spec = self.cluster.spec(p.seed);
        let mut crash = Fault::on_node(SimTime::ZERO, Kind::from_name("crash_io").expect("registered"), &p.node);
        crash.op = Some(p.at);
        crash.applied = Some(done.prefix());
        crash.until = Some(SimTime::ZERO.plus(spec.faults.range(&seedfall_host::world::fault::crash::DOWNTIME).0));
        let mut schedule = self.faults.clone();
        schedule.push(crash);
        spec.schedule = Some(schedule);
        spec.crash_into = Some(CrashInto { node: p.node.clone(), op: p.at, prefixes });
        spec
    }

    /// The operation the crash hits, the choices it leaves and when it comes.
    fn probe(&self, done: OpDone) -> Result<(DiskOp, CrashSpace, SimTime), ScheduleError> {
        let p = &self.point;
        let probes = Probes::default().with(PlacedCrash::default());
        let run = world::run_probed(&self.spec(done, Vec::new()), None, probes)?;
        let at = run.faults.iter().find(|f| f.kind.name() == "crash_io" && f.op == Some(p.at)).map(|f| f.at);
        match (PlacedCrash::of(&run.probes), at) {
            (Some((on, space)), Some(at)) => Ok((*on, space.clone(), at)),
            _ => Err(ScheduleError::NotInRun(format!(
                "{} never reached disk operation {} in seed {} (or it was down then)",
                p.node, p.at, p.seed
            ))),
        }
    }
}

/// The states a crash at a point can leave, found and chosen, not yet checked.
pub struct CrashStates<'c> {
    crash: Crash<'c>,
    /// The operation the crash hits, and when.
    on: DiskOp,
    crash_at: SimTime,
    spaces: Vec<(OpDone, CrashSpace)>,
    total: u64,
    /// The indices of the states to check, ascending.
    chosen: Vec<u64>,
}

/// Runs the seed and probes the crash point; errors name what is wrong
/// with the point.
pub fn enumerate(cluster: &Cluster, point: CrashPoint) -> Result<CrashStates<'_>, ScheduleError> {
    let base = cluster.spec(point.seed);
    let services: Vec<&str> = base.programs.iter().filter(|p| p.is_service()).map(|p| p.name.as_str()).collect();
    if !services.contains(&point.node.as_str()) {
        return Err(ScheduleError::NotInRun(format!(
            "--node {}: not a service node of the config (nodes: {})",
            point.node,
            services.join(", ")
        )));
    }
    if point.max_states == 0 {
        return Err(ScheduleError::Usage("--max-states must be at least 1"));
    }
    let drawn = world::run(&base, None)?;
    // The seed's own faults, but the one this crash replaces: the run goes
    // on as the seed would, so a state that only breaks at a later crash
    // (a torn tail the next recovery trips over) is found too.
    let faults: Vec<Fault> = drawn
        .faults
        .into_iter()
        .filter(|f| !(f.kind.trigger() == Trigger::DiskOp && f.node() == Some(&point.node) && f.op == Some(point.at)))
        .collect();
    let crash = Crash { cluster, point, faults };
    let (on, all, crash_at) = crash.probe(OpDone::All)?;
    let mut spaces = Vec::new();
    if on != DiskOp::Sync {
        spaces.push((OpDone::All, all));
    }
    if on != DiskOp::Write {
        let (_, none, _) = crash.probe(OpDone::None)?;
        spaces.insert(0, (OpDone::None, none));
    }
    let total = spaces.iter().fold(0u64, |n, (_, s)| n.saturating_add(s.count()));
    let p = &crash.point;
    let chosen = choose(total, p.max_states, p.seed, &p.node, p.at);
    Ok(CrashStates { crash, on, crash_at, spaces, total, chosen })
}

impl CrashStates<'_> {
    fn all_chosen(&self) -> bool {
        self.chosen.len() as u64 == self.total
    }

    fn scope(&self) -> String {
        let total = self.total;
        if self.all_chosen() { format!("all {total}") } else { format!("sampled {} of {total}", self.chosen.len()) }
    }

    /// The `--json` document's fields besides the states (docs/json.md).
    pub fn json_header(&self) -> serde_json::Value {
        let p = &self.crash.point;
        serde_json::json!({"seed": p.seed, "node": p.node, "op": p.at, "operation": self.on.name(),
                           "at": self.crash_at.to_string(), "other_faults": self.crash.faults.len(),
                           "total_states": self.total, "checked_states": self.chosen.len()})
    }

    /// What is about to be checked, in a line.
    pub fn header(&self) -> String {
        let p = &self.crash.point;
        format!(
            "crashstates seed {}: {} crashes in disk op {} ({}) at {}, with the seed's {} other faults: {} states",
            p.seed,
            p.node,
            p.at,
            self.on.name(),
            self.crash_at,
            self.crash.faults.len(),
            self.scope()
        )
    }

    /// Runs every chosen state on `workers` threads, then hands `on_state`
    /// each one's line and JSON object in order; returns how many failed. An
    /// error (a run that could not be made, or `stop` set) comes before any
    /// line.
    pub fn check(
        &self,
        workers: usize,
        stop: &AtomicBool,
        mut on_state: impl FnMut(&str, serde_json::Value),
    ) -> Result<usize, ScheduleError> {
        let states: Vec<State> = self.chosen.iter().map(|&i| state(&self.spaces, i)).collect();
        let mut results: Vec<Option<Result<RunResult, ScheduleError>>> = (0..states.len()).map(|_| None).collect();
        let indices: Vec<usize> = (0..states.len()).collect();
        let work = |&i: &usize| {
            let s = &states[i];
            (i, world::run(&self.crash.spec(s.done, s.prefixes.clone()), None).map_err(ScheduleError::World))
        };
        sweep::each(&indices, workers, stop, work, |(i, result)| results[i] = Some(result));
        if stop.load(Ordering::Relaxed) {
            return Err(ScheduleError::Interrupted("interrupted"));
        }
        let mut failed = 0;
        for (k, (s, result)) in states.iter().zip(results).enumerate() {
            let run = match result {
                Some(Ok(run)) => run,
                Some(Err(e)) => return Err(ScheduleError::State { state: k + 1, error: Box::new(e) }),
                None => return Err(ScheduleError::Interrupted("interrupted")),
            };
            let verdict = verdict_line(&run, &mut failed);
            let failure = match &run.verdict {
                Verdict::Fail(failures) => failures.first().map(crate::json_doc::failure),
                _ => None,
            };
            let doc = serde_json::json!({"state": k + 1, "what": s.describe(), "passed": failure.is_none(),
                                         "failure": failure, "trace_hash": run.trace_hash.to_string()});
            on_state(&format!("  state {}: {} -> {verdict}", k + 1, s.describe()), doc);
        }
        Ok(failed)
    }

    /// The last line, once `failed` of the states checked failed.
    pub fn summary(&self, failed: usize) -> String {
        let checked = if self.all_chosen() { format!("checked all {}", self.total) } else { self.scope() };
        format!("{checked} states: {} pass, {failed} fail", self.chosen.len() - failed)
    }
}

fn verdict_line(run: &RunResult, failed: &mut usize) -> String {
    match &run.verdict {
        Verdict::Fail(failures) => {
            *failed += 1;
            format!("FAIL {}", failures.first().map_or(String::new(), |f| f.to_string()))
        }
        Verdict::Horizon => "pass (time horizon)".into(),
        Verdict::Pass => "pass".into(),
    }
}

/// The state indices to check, ascending: all of them up to `max`, else a
/// seeded sample of `max` distinct ones (Floyd's algorithm).
fn choose(total: u64, max: u64, seed: u64, node: &str, op: u64) -> Vec<u64> {
    if total <= max {
        return (0..total).collect();
    }
    let mut random = RandomStream::new(seed, Purpose::Fault("crashstates", Draw::Shape), node, op as u32);
    let mut picked = BTreeSet::new();
    for j in total - max..total {
        let t = random.below(j + 1);
        if !picked.insert(t) {
            picked.insert(j);
        }
    }
    picked.into_iter().collect()
}

/// State `index` across the operation's outcomes, in order.
fn state(spaces: &[(OpDone, CrashSpace)], mut index: u64) -> State<'_> {
    for (done, space) in spaces {
        if index < space.count() {
            return State { done: *done, space, prefixes: space.state(index) };
        }
        index -= space.count();
    }
    unreachable!("index below the total")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_seeded_distinct_and_in_order() {
        assert_eq!(choose(5, 10, 1, "server", 9), [0, 1, 2, 3, 4]);
        let sample = choose(1_000_000, 50, 1, "server", 9);
        assert_eq!(sample.len(), 50);
        assert!(sample.windows(2).all(|w| w[0] < w[1]) && sample[49] < 1_000_000);
        assert_eq!(sample, choose(1_000_000, 50, 1, "server", 9), "the same sample each time");
        assert_ne!(sample, choose(1_000_000, 50, 2, "server", 9), "another seed, another sample");
    }
}
