//! Fault injection in the world: starting faults, quiet windows, planned
//! crashes and partitions (drawn, or replayed from a schedule), crashes in
//! the middle of a disk operation, and the log of every fault a run injects
//! (disk EIOs, preemption points), which becomes its fault schedule. What a
//! crash does to a node's disk and connections is `slot.rs`, the disk and
//! network models' contracts; this file decides when and records what.

use super::slot::State;
use super::{Fault, FaultKind, World, vtime};
use crate::fs::DiskFaultKind;
use crate::net::NodeId;

impl World<'_> {
    pub(super) fn start_faults(&mut self) {
        self.faults_started = true;
        let now = self.now_ns();
        for arrivals in self.crashes.iter_mut().flatten() {
            arrivals.start(now);
        }
        self.partitions.start(now);
    }

    pub(super) fn quiet(&self) -> bool {
        self.now_ns() < self.quiet_until_ns
    }

    /// Logs the disk faults (fsync EIO) the node's disk drew since last time.
    pub(super) fn record_disk_faults(&mut self, i: usize) {
        let at_ns = self.since_start();
        let slot = &mut self.slots[i];
        let log = slot.node().fs.disk_faults();
        let new: Vec<_> = log[slot.disk_faults_seen..].to_vec();
        slot.disk_faults_seen = log.len();
        let name = slot.name().to_string();
        for fault in new {
            if fault.kind == DiskFaultKind::SyncEio {
                self.hash_event(b"fsync_eio", &[i as u64, fault.op]);
                self.faults.push(Fault {
                    at_ns,
                    kind: FaultKind::FsyncEio,
                    node: name.clone(),
                    until_ns: None,
                    op: Some(fault.op),
                    applied: None,
                });
                self.say(format!("{name}: {fault}"));
            }
        }
    }

    /// Logs the preemption points of slot `i`'s running incarnation as
    /// faults, numbered in counted calls across its incarnations; called
    /// just before the incarnation ends.
    pub(super) fn record_preemptions(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        let Some(preempt) = slot.node().preempt.as_ref() else { return };
        let (base, counted) = (slot.counted_base, preempt.counted());
        let fired = preempt.fired.clone();
        slot.counted_base += counted;
        let node = slot.name().to_string();
        for (op, at) in fired {
            self.hash_event(b"preempt", &[i as u64, base + op]);
            self.faults.push(Fault {
                at_ns: vtime::since_start_ns(at),
                kind: FaultKind::Preempt,
                node: node.clone(),
                until_ns: None,
                op: Some(base + op),
                applied: None,
            });
        }
    }

    /// Crashes slot `i` now, for `downtime` (drawn when None); `fault`
    /// says what crashed it (`how` completes the log line).
    pub(super) fn crash(&mut self, i: usize, fault: Option<crate::fs::DiskFault>, downtime: Option<u64>, how: String) {
        let now = self.now_ns();
        let (min, max) = self.spec.faults.crash_downtime_ns;
        let downtime = downtime.unwrap_or_else(|| self.downtimes[i].between(min, max));
        self.record_preemptions(i);
        let (hash, report) = {
            let mut net = self.net.borrow_mut();
            self.progress.unwatch_counter();
            self.slots[i].crash(self.spec.seed, now, &mut net)
        };
        self.trace.record(b"incarnation", hash.as_bytes(), &[]);
        self.hash_event(b"crash", &[i as u64, now, downtime]);
        self.slots[i].state = State::Down { boot_at_ns: now + downtime };
        self.slots[i].disk_faults_seen = self.slots[i].disk.as_ref().map_or(0, |fs| fs.disk_faults().len());
        let at_ns = vtime::since_start_ns(now);
        let until = at_ns + downtime;
        let node = self.slots[i].name().to_string();
        let k = self.slots[i].incarnation;
        self.say(format!("crash {node}#{k}{how}; restart at {}", vtime::go_duration(until)));
        let (kind, op, applied) = match fault {
            Some(f) => match f.kind {
                DiskFaultKind::Crash { applied } => (FaultKind::CrashOnIo, Some(f.op), Some(applied)),
                DiskFaultKind::SyncEio => unreachable!("an EIO does not crash"),
            },
            None => (FaultKind::Crash, None, None),
        };
        self.faults.push(Fault { at_ns, kind, node, until_ns: Some(until), op, applied });
        for file in &report.files {
            self.say(format!(
                "  {}: kept {} of {} pending writes (+{} bytes)",
                file.path, file.kept.ops, file.pending, file.kept.bytes
            ));
        }
        for path in &report.vanished {
            self.say(format!("  {path}: never durable, gone"));
        }
    }

    pub(super) fn planned_crash(&mut self, i: usize) {
        self.crashes[i].as_mut().expect("services only").advance();
        if self.quiet() || !matches!(self.slots[i].state, State::Up { .. }) {
            return;
        }
        self.crash(i, None, None, String::new());
    }

    /// The next fault of a replayed schedule. Like a drawn one, a crash of
    /// a node that is down, or anything in a quiet window, is skipped.
    pub(super) fn planned_fault(&mut self) {
        let fault = self.planned.pop_front().expect("only when one is due");
        if self.quiet() {
            return;
        }
        let downtime = fault.until_ns.map(|until| until.saturating_sub(fault.at_ns));
        match fault.kind {
            FaultKind::Crash => {
                let Some(i) = self.slots.iter().position(|s| s.name() == fault.node) else { return };
                if matches!(self.slots[i].state, State::Up { .. }) && !self.slots[i].program.workload {
                    self.crash(i, None, downtime, String::new());
                }
            }
            FaultKind::Partition => {
                let side: Vec<usize> =
                    fault.nodes().iter().filter_map(|n| self.slots.iter().position(|s| s.name() == *n)).collect();
                if side.is_empty() || side.len() == self.slots.len() {
                    return;
                }
                let length = downtime.unwrap_or(self.spec.faults.partition_length_ns.0);
                self.cut(&side, length);
            }
            FaultKind::CrashOnIo | FaultKind::FsyncEio | FaultKind::Preempt => unreachable!("replayed by op, not time"),
        }
    }

    pub(super) fn partition(&mut self) {
        self.partitions.advance();
        let n = self.slots.len();
        if self.quiet() || self.heal_at_ns.is_some() || !(2..=63).contains(&n) {
            return;
        }
        // A non-empty proper subset of the nodes is cut off from the rest.
        let mask = 1 + self.partition_draws.below((1u64 << n) - 2);
        let (min, max) = self.spec.faults.partition_length_ns;
        let length = self.partition_draws.between(min, max);
        let side: Vec<usize> = (0..n).filter(|b| mask & (1 << b) != 0).collect();
        self.cut(&side, length);
    }

    /// Cuts the slots in `side` off from the others for `length`.
    pub(super) fn cut(&mut self, side: &[usize], length: u64) {
        let ids: Vec<NodeId> = side.iter().map(|&b| self.slots[b].net_id).collect();
        let now = self.now_ns();
        self.net.borrow_mut().partition(&ids, now);
        self.heal_at_ns = Some(self.heal_at_ns.unwrap_or(0).max(now + length));
        let mask = side.iter().fold(0u64, |m, &b| m | 1 << b);
        self.hash_event(b"partition", &[mask, now, length]);
        let names: Vec<&str> = side.iter().map(|&b| self.slots[b].name()).collect();
        let node = names.join(",");
        let at_ns = self.since_start();
        self.say(format!("partition {node} from the rest until {}", vtime::go_duration(at_ns + length)));
        self.faults.push(Fault {
            at_ns,
            kind: FaultKind::Partition,
            node,
            until_ns: Some(at_ns + length),
            op: None,
            applied: None,
        });
    }

    pub(super) fn heal(&mut self) {
        self.heal_at_ns = None;
        let now = self.now_ns();
        self.net.borrow_mut().heal_all(now);
        self.hash_event(b"heal", &[now]);
        self.say("heal the network".to_string());
    }
}
