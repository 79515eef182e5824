//! No silent passes (DESIGN.md §1): the two failures a run gets although
//! nothing in it asserted anything. A supervised service that ends by itself
//! during boot again and again is a `crash_loop`; a workload that uses
//! `sim.Progress` or the history and made no progress is `no_progress`.
//! Both only ever replace a pass or a horizon: a run that already failed
//! keeps its failures, so these never change the class of a finding.
//!
//! What counts as a boot ending by itself is decided where incarnations end
//! (`mod.rs`: a supervised restart after an exit or a trap, never an
//! injected crash); this file keeps the counts and judges at the run's end.

use super::fault::{Fault, Target};
use super::verdict::{Class, Failure, Verdict};
use crate::history::{Completion, History};
use crate::vtime::{SimDuration, SimTime};
use seedfall_check::txn::Status;

/// Boots in a row, each ending by itself before it was over, that make a crash loop.
pub const CRASH_LOOP_BOOTS: u32 = 5;

/// A boot is over once its incarnation accepted a connection or lived this long.
pub const BOOT_WINDOW: SimDuration = SimDuration::from_ns(1_000_000_000);

/// One node's boots that ended by themselves before they were over.
#[derive(Debug, Default)]
pub struct BootEnds {
    in_a_row: u32,
    longest: u32,
}

impl BootEnds {
    /// An incarnation ended by itself, still booting (`during_boot`) or
    /// not; true when this end makes a crash loop (its row reached `CRASH_LOOP_BOOTS`).
    pub fn ended(&mut self, during_boot: bool) -> bool {
        if !during_boot {
            self.in_a_row = 0;
            return false;
        }
        self.in_a_row += 1;
        self.longest = self.longest.max(self.in_a_row);
        self.in_a_row == CRASH_LOOP_BOOTS
    }

    /// The most boots in a row it ended during boot.
    pub fn longest(&self) -> u32 {
        self.longest
    }

    /// A fault ended the incarnation: whatever it was doing, the streak is broken.
    pub fn interrupted(&mut self) {
        self.in_a_row = 0;
    }
}

/// Whether an incarnation that ends now, booted at `booted_at`, was still
/// booting: it accepted no connection and lived less than `BOOT_WINDOW`.
pub fn during_boot(booted_at: SimTime, now: SimTime, accepted: bool) -> bool {
    !accepted && now.since(booted_at) < BOOT_WINDOW
}

/// Whether a fault the run injected was in force on node `name` at some
/// point of `[from, to]` (an incarnation's life): a boot that ends then may
/// be the service's right answer to the fault (a full disk, an fsync error,
/// peers cut off), so it is no sign of a crash loop. A partition counts for
/// every node, since the nodes in none of its groups form one more. Clock
/// skews and preemption points take nothing away from a booting service and
/// do not count (with `clock_skew` every boot has one).
pub fn faulted(faults: &[Fault], name: &str, from: SimTime, to: SimTime) -> bool {
    faults.iter().any(|f| {
        let touches = matches!(f.target, Target::Groups { .. }) || f.target.names(name);
        let environment = !matches!(f.kind.name(), "clock_skew" | "preempt");
        let overlaps = f.at <= to && f.until.map_or(f.at >= from, |until| until >= from);
        touches && environment && overlaps
    })
}

/// The first crash loop of a run: the incarnation whose end made it one,
/// when, and how it ended (its exit and last stderr line).
#[derive(Debug)]
struct CrashLoop {
    node: String,
    incarnation: u32,
    at: SimTime,
    ended: String,
}

/// What a run's workload is, for `no_progress`.
pub struct Workload<'a> {
    pub name: &'a str,
    pub incarnation: u32,
    /// Its module imports `seedfall.progress`.
    pub imports_progress: bool,
}

/// What one run noticed toward its silent-pass verdicts.
#[derive(Debug, Default)]
pub struct Silent {
    crash_loop: Option<CrashLoop>,
    /// Some node called `sim.Progress`.
    progressed: bool,
}

impl Silent {
    /// Node `node#incarnation` just made a crash loop at `at`, ending as `ended` says.
    pub fn crash_loop(&mut self, node: &str, incarnation: u32, at: SimTime, ended: &str) {
        self.crash_loop.get_or_insert_with(|| CrashLoop {
            node: node.to_string(),
            incarnation,
            at,
            ended: ended.to_string(),
        });
    }

    /// A node called `sim.Progress`.
    pub fn progress(&mut self) {
        self.progressed = true;
    }

    /// `verdict` after the silent-pass rules: a pass or a horizon becomes
    /// a failure when a service crash-looped (`longest`: the most boots in
    /// a row it ended during boot) or the workload made no progress.
    pub fn judge(
        &self,
        verdict: Verdict,
        longest: impl Fn(&str) -> u32,
        workload: &Workload,
        history: &History,
    ) -> Verdict {
        if matches!(verdict, Verdict::Fail(_)) {
            return verdict;
        }
        let mut failures = Vec::new();
        if let Some(found) = &self.crash_loop {
            let boots = longest(&found.node);
            failures.push(Failure {
                class: Class::CrashLoop,
                node: found.node.clone(),
                incarnation: found.incarnation,
                property: None,
                message: format!(
                    "crash loop: {boots} boots in a row ended by themselves within {BOOT_WINDOW}, before accepting \
                     a connection ({})",
                    found.ended
                ),
                at_ns: Some(found.at.ns()),
            });
        }
        if let Some(message) = self.no_progress(workload, history) {
            failures.push(Failure {
                class: Class::NoProgress,
                node: workload.name.to_string(),
                incarnation: workload.incarnation,
                property: None,
                message,
                at_ns: None,
            });
        }
        if failures.is_empty() { verdict } else { Verdict::Fail(failures) }
    }

    /// Why the workload made no progress, if it uses a way to show it
    /// (`sim.Progress` or the history) and showed none.
    fn no_progress(&self, workload: &Workload, history: &History) -> Option<String> {
        let uses = workload.imports_progress || !history.is_empty();
        if !uses || self.progressed || completed_any(history) {
            return None;
        }
        Some(format!(
            "no progress: sim.Progress was never called and no history operation completed ({} operations and {} \
             transactions invoked)",
            history.ops.len(),
            history.txns.len()
        ))
    }
}

/// Whether an operation was acknowledged (Ok, Returned, Missing) or a
/// transaction committed: a Failed or never-completed one is no progress.
fn completed_any(history: &History) -> bool {
    let acknowledged = |c: &Completion| matches!(c, Completion::Ok | Completion::Returned(_) | Completion::Missing);
    history.ops.iter().any(|op| op.completed.as_ref().is_some_and(|(_, c)| acknowledged(c)))
        || history.txns.iter().any(|t| t.status == Status::Committed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Call;

    fn workload(imports_progress: bool) -> Workload<'static> {
        Workload { name: "client", incarnation: 1, imports_progress }
    }

    fn classes(verdict: &Verdict) -> Vec<Class> {
        match verdict {
            Verdict::Fail(failures) => failures.iter().map(|f| f.class).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn five_boots_in_a_row_make_a_crash_loop_and_a_fault_or_a_long_boot_breaks_the_row() {
        let mut ends = BootEnds::default();
        assert!(!(0..4).any(|_| ends.ended(true)));
        ends.interrupted();
        assert!(!(0..4).any(|_| ends.ended(true)));
        assert!(!ends.ended(false));
        let found: Vec<bool> = (0..7).map(|_| ends.ended(true)).collect();
        assert_eq!(found, [false, false, false, false, true, false, false], "found once, at the fifth");
        assert_eq!(ends.longest, 7);
        let (start, second) = (SimTime::ZERO, SimTime::ZERO.plus(BOOT_WINDOW));
        assert!(during_boot(start, SimTime::from_ns(999_999_999), false));
        assert!(!during_boot(start, second, false), "lived a second");
        assert!(!during_boot(start, start, true), "accepted a connection");
    }

    #[test]
    fn a_boot_ending_while_a_fault_is_in_force_on_its_node_is_no_crash_loop_sign() {
        use crate::world::fault::Kind;
        let at = |ns| SimTime::from_ns(ns);
        let window = |kind: &str, node: &str, from, until| Fault {
            until: Some(at(until)),
            ..Fault::on_node(at(from), Kind::from_name(kind).unwrap(), node)
        };
        // The disk-full window of kvlog's disk-full.json: the server exits at
        // boot with ENOSPC, correctly, until the space comes back.
        let full = [window("disk_full", "server", 100, 900)];
        assert!(faulted(&full, "server", at(500), at(600)), "inside the window");
        assert!(faulted(&full, "server", at(50), at(150)), "the window opened during the boot");
        assert!(!faulted(&full, "server", at(950), at(990)), "after it");
        assert!(!faulted(&full, "client", at(500), at(600)), "another node's disk");
        let point = [Fault::on_node(at(300), Kind::from_name("fsync_eio").unwrap(), "server")];
        assert!(faulted(&point, "server", at(200), at(400)));
        assert!(!faulted(&point, "server", at(400), at(500)), "an earlier incarnation's");
        let cut = [Fault {
            target: Target::Groups { groups: vec![vec!["n1".into()]], oneway: false },
            ..window("partition", "n1", 100, 900)
        }];
        assert!(faulted(&cut, "n2", at(500), at(600)), "in no group is a group too");
        let harmless = [window("clock_skew", "server", 0, 10_000)];
        assert!(!faulted(&harmless, "server", at(500), at(600)), "a skewed clock takes nothing away");
    }

    #[test]
    fn a_crash_loop_turns_a_pass_or_a_horizon_into_a_failure_but_never_changes_a_failure() {
        let mut silent = Silent::default();
        let history = History::default();
        assert_eq!(silent.judge(Verdict::Pass, |_| 0, &workload(false), &history), Verdict::Pass);
        silent.crash_loop("server", 5, SimTime::from_ns(400), "exited with status 1: bind: address already in use");
        silent.crash_loop("other", 9, SimTime::from_ns(900), "later");
        for verdict in [Verdict::Pass, Verdict::Horizon] {
            let judged =
                silent.judge(verdict, |node| if node == "server" { 12 } else { 0 }, &workload(false), &history);
            let Verdict::Fail(failures) = &judged else { panic!("{judged:?}") };
            assert_eq!(
                (failures[0].class, failures[0].node.as_str(), failures[0].incarnation),
                (Class::CrashLoop, "server", 5)
            );
            assert_eq!(failures[0].at_ns, Some(400));
            assert!(failures[0].message.starts_with("crash loop: 12 boots in a row"), "{}", failures[0].message);
            assert!(failures[0].message.ends_with("connection (exited with status 1: bind: address already in use)"));
        }
        let failed = Verdict::Fail(vec![Failure {
            class: Class::Workload,
            node: "client".into(),
            incarnation: 1,
            property: None,
            message: "exited with status 1".into(),
            at_ns: None,
        }]);
        assert_eq!(silent.judge(failed.clone(), |_| 5, &workload(true), &history), failed);
    }

    #[test]
    fn no_progress_needs_a_workload_that_uses_progress_or_the_history() {
        let silent = Silent::default();
        let empty = History::default();
        assert_eq!(silent.judge(Verdict::Pass, |_| 0, &workload(false), &empty), Verdict::Pass, "uses neither");
        assert_eq!(classes(&silent.judge(Verdict::Horizon, |_| 0, &workload(true), &empty)), [Class::NoProgress]);
        let mut history = History::default();
        let id = history.invoke(0, Some("k".into()), Call::Put("v".into()), 5);
        let judged = silent.judge(Verdict::Pass, |_| 0, &workload(false), &history);
        let Verdict::Fail(failures) = &judged else { panic!("{judged:?}") };
        assert_eq!(failures[0].class, Class::NoProgress);
        assert_eq!(failures[0].node, "client");
        assert!(failures[0].message.contains("(1 operations and 0 transactions invoked)"), "{}", failures[0].message);
        history.complete(id, Completion::Failed, 9).unwrap();
        assert_eq!(classes(&silent.judge(Verdict::Pass, |_| 0, &workload(false), &history)), [Class::NoProgress]);
        let id = history.invoke(0, Some("k".into()), Call::Get, 10);
        history.complete(id, Completion::Missing, 11).unwrap();
        assert_eq!(silent.judge(Verdict::Pass, |_| 0, &workload(false), &history), Verdict::Pass, "acknowledged");
        let mut called = Silent::default();
        called.progress();
        assert_eq!(called.judge(Verdict::Pass, |_| 0, &workload(true), &empty), Verdict::Pass);
    }
}
