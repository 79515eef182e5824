//! The abstract host state each fault met, for `seedfall explore`'s
//! coverage (issue 41): coarse buckets, so that "a crash while two files had
//! pending writes, one of them torn" and "a crash with everything synced"
//! differ while the exact sizes do not.
//!
//! A crash's disk part comes from its `CrashReport` (what the disk had
//! pending when it hit); every fault's network part is read when the world
//! step it came in is over (for a crash, after its connections were reset).
//! Faults recorded after the last step (as the run ends) get no state.

use crate::fs::CrashReport;
use crate::net::Net;
use crate::node_id::NodeId;
use crate::world::event::Who;
use crate::world::fault::{Fault, Target};
use crate::world::probe::{Probe, Probes, View};

/// The host state one fault met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultState {
    /// For a crash: what its disk had pending.
    pub crash: Option<CrashState>,
    pub net: NetState,
}

/// What the disk had pending when a crash hit it; counts are `bucket`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashState {
    /// The disk operation it came in (`write`, `fsync`, …), or `planned`.
    pub during: &'static str,
    pub pending_files: u32,
    /// Some file kept part of a write.
    pub torn: bool,
    /// Some file lost pending writes.
    pub lost: bool,
    pub vanished: u32,
}

/// The network around the fault's node, or the cluster's for a network fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetState {
    Node { conns: u32, cut: bool },
    Cluster { blocked_links: u32 },
}

/// 0, 1, 2-3, 4-7, 8+: a count as a power-of-two bucket.
fn bucket(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).min(4)
}

impl CrashState {
    pub fn of(report: &CrashReport) -> CrashState {
        CrashState {
            during: report.during.as_ref().map_or("planned", |d| d.on.name()),
            pending_files: bucket(report.files.len()),
            torn: report.files.iter().any(|f| f.kept.bytes > 0),
            lost: report.files.iter().any(|f| f.kept.ops < f.pending),
            vanished: bucket(report.vanished.len()),
        }
    }
}

impl NetState {
    /// Around `node` (None: the cluster as a whole).
    pub fn of(net: &Net, node: Option<NodeId>) -> NetState {
        match node {
            Some(node) => NetState::Node { conns: bucket(net.open_ends(node)), cut: net.cut_off(node) },
            None => NetState::Cluster { blocked_links: bucket(net.blocked_links().len()) },
        }
    }
}

impl FaultState {
    /// Its parts as `name=value` words (a crash's first word is `crash`):
    /// what explore makes one feature of each.
    pub fn parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if let Some(c) = &self.crash {
            parts.push("crash".to_string());
            parts.push(format!("during={}", c.during));
            parts.push(format!("pending_files={}", c.pending_files));
            parts.push(format!("torn={}", c.torn));
            parts.push(format!("lost={}", c.lost));
            parts.push(format!("vanished={}", c.vanished));
        }
        match self.net {
            NetState::Node { conns, cut } => {
                parts.push(format!("conns={conns}"));
                parts.push(format!("cut={cut}"));
            }
            NetState::Cluster { blocked_links } => parts.push(format!("blocked_links={blocked_links}")),
        }
        parts
    }
}

/// The probe: a state per fault, in the order the faults were recorded.
#[derive(Default)]
pub struct FaultStates {
    states: Vec<FaultState>,
    /// The crash part of the fault numbered by recording order, until its step is over.
    crashes: Vec<(usize, CrashState)>,
}

impl FaultStates {
    /// The states `probes`' `FaultStates` saw (none when it is not installed).
    pub fn of(probes: &Probes) -> &[FaultState] {
        probes.get::<FaultStates>().map_or(&[], |p| &p.states)
    }
}

impl Probe for FaultStates {
    fn crash(&mut self, world: &View, _who: &Who, _fault: &Fault, report: &CrashReport) {
        self.crashes.push((world.faults().len() - 1, CrashState::of(report)));
    }

    fn stepped(&mut self, world: &View) {
        let net = world.net();
        for (i, fault) in world.faults().iter().enumerate().skip(self.states.len()) {
            let node = match &fault.target {
                Target::Node(name) => net.resolve(name),
                Target::Groups { .. } | Target::Link { .. } => None,
            };
            let crash = self.crashes.iter().position(|(at, _)| *at == i).map(|k| self.crashes.remove(k).1);
            self.states.push(FaultState { crash, net: NetState::of(&net, node) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{DiskFault, DiskFaultKind, DiskOp, FileCrash, Prefix};

    fn file(pending: usize, kept: Prefix) -> FileCrash {
        FileCrash { path: "/data/log".into(), pending, sizes: vec![10; pending], kept, reordered: None }
    }

    fn words(crash: CrashState) -> String {
        let state = FaultState { crash: Some(crash), net: NetState::Cluster { blocked_links: 0 } };
        state.parts().join(" ")
    }

    #[test]
    fn a_crash_says_what_it_interrupted_and_what_was_pending() {
        let mut report = CrashReport {
            during: None,
            vanished: vec![],
            restored: vec![],
            files: vec![],
            corrupted: None,
            choices: vec![],
        };
        assert_eq!(
            words(CrashState::of(&report)),
            "crash during=planned pending_files=0 torn=false lost=false vanished=0 blocked_links=0"
        );
        let applied = Prefix { ops: 0, bytes: 3 };
        report.during = Some(DiskFault { op: 7, on: DiskOp::Write, kind: DiskFaultKind::Crash { applied } });
        report.files = vec![file(2, Prefix { ops: 1, bytes: 4 }), file(1, Prefix { ops: 1, bytes: 0 })];
        report.vanished = vec!["/data/new".into()];
        let crash = CrashState::of(&report);
        assert_eq!(crash, CrashState { during: "write", pending_files: 2, torn: true, lost: true, vanished: 1 });
        assert!(words(crash).starts_with("crash during=write pending_files=2 torn=true lost=true vanished=1"));
    }

    #[test]
    fn counts_fall_in_power_of_two_buckets() {
        let buckets: Vec<u32> = [0, 1, 2, 3, 4, 7, 8, 1000].iter().map(|&n| bucket(n)).collect();
        assert_eq!(buckets, [0, 1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn a_node_fault_names_its_connections_and_whether_it_was_cut_off() {
        let state = FaultState { crash: None, net: NetState::Node { conns: 2, cut: true } };
        assert_eq!(state.parts(), ["conns=2", "cut=true"]);
    }
}
