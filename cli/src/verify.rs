//! `verify`: replays a saved fault schedule for the config's full duration
//! and budget, the only run that counts as proof of a fix (a schedule whose
//! duration shrink trimmed can pass only because it was cut short), and
//! proves only what ran: a fault naming a node the config lacks is an error
//! before anything runs, and a fault that never fired (a crash at a disk
//! operation the run never reached) is listed as not applied and the result
//! is not "verified", nor is a run whose linearizability check ran out of
//! budget (unknown). Also what `replay -faults` says about such faults. It
//! does not edit or print schedules (`schedule_edit.rs`).

use crate::cluster::Cluster;
use crate::report::fail_block;
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use seedfall_host::vtime::SimDuration;
use seedfall_host::world::fault::Target;
use seedfall_host::world::history_check::LinOutcome;
use seedfall_host::world::{self, Fault, RunResult, Verdict};
use std::collections::BTreeMap;
use std::fmt;

/// A verify run and what it proves.
pub struct Verification {
    pub seed: u64,
    /// How many faults the schedule has.
    pub faults: usize,
    /// The config's full duration, which the run had.
    pub full: SimDuration,
    /// The schedule's faults that never fired, by index.
    pub unapplied: Vec<usize>,
    /// What `verify` says of them (`not_applied_lines`).
    unapplied_lines: Vec<String>,
    pub run: RunResult,
}

/// Runs `schedule` on `seed` of `cluster` over the config's full duration
/// and workload; an error if a fault names a node the config lacks.
pub fn verify(cluster: &Cluster, schedule: &Schedule, seed: u64) -> Result<Verification, ScheduleError> {
    // The config's full duration and the workload's full size, whatever the
    // schedule was trimmed to.
    let mut spec = cluster.spec(seed);
    let names: Vec<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
    if let Some(problem) = unknown_nodes(&schedule.faults, &names) {
        return Err(ScheduleError::NotInRun(problem));
    }
    spec.schedule = Some(schedule.faults.clone());
    spec.branches = schedule.branches.clone();
    let run = world::run(&spec, None)?;
    let describe = |i: usize| format!("not applied: [{i}] {}", schedule.faults[i].describe());
    let unapplied = not_applied(&schedule.faults, &run.faults);
    let unapplied_lines = not_applied_lines(&unapplied, describe);
    Ok(Verification { seed, faults: schedule.faults.len(), full: spec.duration, unapplied, unapplied_lines, run })
}

impl Verification {
    fn failed(&self) -> bool {
        matches!(self.run.verdict, Verdict::Fail(_))
    }

    /// 0 verified, 1 the schedule still fails, 2 the run proves nothing.
    pub fn exit_code(&self) -> u8 {
        if self.failed() {
            1
        } else if !self.unapplied.is_empty() || matches!(self.run.linearizability, Some(LinOutcome::Unknown { .. })) {
            2
        } else {
            0
        }
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (seed, faults, full) = (self.seed, self.faults, self.full);
        for line in &self.unapplied_lines {
            writeln!(f, "{line}")?;
        }
        if !self.unapplied.is_empty() && !self.failed() {
            let never = self.unapplied.len();
            return writeln!(
                f,
                "not verified: {never} of {faults} faults never fired over the full run ({full}), so the run does not prove they are handled"
            );
        }
        if let (Some(LinOutcome::Unknown { keys }), false) = (&self.run.linearizability, self.failed()) {
            return writeln!(
                f,
                "not verified: the linearizability check ran out of its search budget on keys {keys:?}, so the run proves nothing"
            );
        }
        match &self.run.verdict {
            Verdict::Pass => {
                writeln!(f, "verified: seed {seed} with {faults} faults passes over the full run ({full})")
            }
            Verdict::Horizon => {
                writeln!(
                    f,
                    "verified: seed {seed} with {faults} faults reaches the full duration {full} without a failure"
                )
            }
            Verdict::Fail(_) => {
                write!(f, "{}", fail_block(seed, &self.run))?;
                writeln!(f, "not verified: the schedule still fails over the full run ({full})")
            }
        }
    }
}

/// The first fault naming a node that is not in `names`, as a message.
pub fn unknown_nodes(faults: &[Fault], names: &[&str]) -> Option<String> {
    faults.iter().enumerate().find_map(|(i, f)| {
        let named: Vec<&str> = match &f.target {
            Target::Node(n) => vec![n.as_str()],
            Target::Groups { groups, .. } => groups.iter().flatten().map(String::as_str).collect(),
            Target::Link { from, to } => vec![from.as_str(), to.as_str()],
        };
        let missing = named.into_iter().find(|n| !names.contains(n))?;
        Some(format!(
            "fault [{i}] ({}) names node `{missing}`, which the config does not have (nodes: {})",
            f.kind.name(),
            names.join(", ")
        ))
    })
}

/// The indices of the schedule's faults the run did not record: a fault
/// fired when the run's faults hold one of its kind and target at the same
/// operation (for kinds placed by op) or the same time.
pub fn not_applied(schedule: &[Fault], fired: &[Fault]) -> Vec<usize> {
    // Looked up by kind and moment, not compared pairwise: a schedule of a
    // million faults that fired would be 10^12 comparisons.
    let key = |f: &Fault| (f.kind.name(), if f.kind.trigger().by_op() { f.op } else { Some(f.at.ns()) });
    let mut targets: BTreeMap<_, Vec<&Target>> = BTreeMap::new();
    for g in fired {
        targets.entry(key(g)).or_default().push(&g.target);
    }
    let fired = |f: &Fault| targets.get(&key(f)).is_some_and(|t| t.contains(&&f.target));
    (0..schedule.len()).filter(|&i| !fired(&schedule[i])).collect()
}

/// The most faults listed one by one as not applied; the rest are counted.
const NOT_APPLIED_LISTED: usize = 20;

/// The lines saying which faults did not apply (`unapplied`, each described
/// by `line`): the first `NOT_APPLIED_LISTED`, then how many more.
pub fn not_applied_lines(unapplied: &[usize], line: impl Fn(usize) -> String) -> Vec<String> {
    let mut lines: Vec<String> = unapplied.iter().take(NOT_APPLIED_LISTED).map(|&i| line(i)).collect();
    if unapplied.len() > NOT_APPLIED_LISTED {
        lines.push(format!("... and {} more faults not applied", unapplied.len() - NOT_APPLIED_LISTED));
    }
    lines
}
