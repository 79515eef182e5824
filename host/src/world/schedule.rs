//! Fault schedules: the faults a run injected, and the input of a run that
//! replays exactly those faults instead of drawing them from the seed.
//! Planned faults (crashes, partitions) are keyed by virtual time; faults
//! drawn at a disk operation (`crash_on_io`, `fsync_eio`) by the node's
//! disk-operation number, with `at` only for people. The JSON form lives in
//! the CLI (`cli/src/schedule.rs`).

use crate::fs::{DiskFault, DiskFaultKind, DiskOp, Prefix};
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    /// A planned crash; `until` is when the node boots again.
    Crash,
    /// A crash in the middle of disk operation `op`, of which `applied` took effect.
    CrashOnIo,
    /// An fsync (disk operation `op`) that failed with EIO.
    FsyncEio,
    /// The nodes in `node` (comma-separated) cut off from the rest until `until`.
    Partition,
    /// A preemption point of the `preempt` strategy: the node's goroutine
    /// was preempted at counted call `op` (counted across its incarnations).
    Preempt,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Crash => "crash",
            FaultKind::CrashOnIo => "crash_on_io",
            FaultKind::FsyncEio => "fsync_eio",
            FaultKind::Partition => "partition",
            FaultKind::Preempt => "preempt",
        }
    }

    pub fn from_name(name: &str) -> Option<FaultKind> {
        [FaultKind::Crash, FaultKind::CrashOnIo, FaultKind::FsyncEio, FaultKind::Partition, FaultKind::Preempt]
            .into_iter()
            .find(|k| k.name() == name)
    }

    /// Faults drawn at run time: replayed by `op` (a disk operation or a
    /// counted call), not by time.
    pub fn by_op(self) -> bool {
        matches!(self, FaultKind::CrashOnIo | FaultKind::FsyncEio | FaultKind::Preempt)
    }
}

/// One fault of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Virtual time since the start of the run.
    pub at_ns: u64,
    pub kind: FaultKind,
    /// A node name, or the cut side of a partition ("a,b").
    pub node: String,
    /// When it ends (a crash's restart, a partition's heal).
    pub until_ns: Option<u64>,
    /// The node's disk-operation number, for faults drawn at a disk operation.
    pub op: Option<u64>,
    /// For `crash_on_io`: how much of the operation took effect.
    pub applied: Option<Prefix>,
}

impl Fault {
    /// The disk fault to replay at the node's operation `op`.
    pub fn disk_fault(&self) -> Option<DiskFault> {
        let op = self.op?;
        let kind = match self.kind {
            FaultKind::CrashOnIo => DiskFaultKind::Crash { applied: self.applied.unwrap_or_default() },
            FaultKind::FsyncEio => DiskFaultKind::SyncEio,
            FaultKind::Crash | FaultKind::Partition | FaultKind::Preempt => return None,
        };
        // `on` is for reading traces; replay goes by `op` and `kind`.
        Some(DiskFault { op, on: DiskOp::Write, kind })
    }

    /// The node names of a partition's cut side (or the one node).
    pub fn nodes(&self) -> Vec<&str> {
        self.node.split(',').filter(|n| !n.is_empty()).collect()
    }
}

/// A schedule prepared for the world: what each part of it needs.
pub struct Replay {
    /// Planned faults (crashes, partitions) in time order.
    pub planned: VecDeque<Fault>,
    /// Per node (by position in `names`): its disk faults, by op.
    pub disk: Vec<Vec<DiskFault>>,
    /// The downtime of each crash drawn at a disk operation, by (node position, op).
    pub op_downtimes: BTreeMap<(usize, u64), u64>,
    /// Per node: its preemption points, in counted calls across incarnations.
    pub preempt: Vec<Vec<u64>>,
}

impl Replay {
    pub fn new(schedule: &[Fault], names: &[&str]) -> Replay {
        let mut op_downtimes = BTreeMap::new();
        let mut disk = Vec::new();
        let mut preempt = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let mine = || schedule.iter().filter(move |f| f.node == *name);
            for f in mine().filter(|f| f.kind == FaultKind::CrashOnIo) {
                if let (Some(op), Some(until)) = (f.op, f.until_ns) {
                    op_downtimes.insert((i, op), until.saturating_sub(f.at_ns));
                }
            }
            let mut faults: Vec<DiskFault> = mine().filter_map(Fault::disk_fault).collect();
            faults.sort_by_key(|f| f.op);
            faults.dedup_by_key(|f| f.op);
            disk.push(faults);
            preempt.push(mine().filter(|f| f.kind == FaultKind::Preempt).filter_map(|f| f.op).collect());
        }
        let mut timed: Vec<Fault> = schedule.iter().filter(|f| !f.kind.by_op()).cloned().collect();
        timed.sort_by_key(|f| f.at_ns);
        Replay { planned: timed.into(), disk, op_downtimes, preempt }
    }
}
