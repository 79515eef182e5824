//! Fault schedules: the faults a run injected, and the input of a run that
//! replays exactly those faults instead of drawing them from the seed.
//! Planned faults (crashes, partitions) are keyed by virtual time; faults
//! drawn at a disk operation (`crash_on_io`, `fsync_eio`) by the node's
//! disk-operation number, with `at` only for people. The JSON form lives in
//! the CLI (`cli/src/schedule.rs`).

use crate::fs::{DiskFault, DiskFaultKind, DiskOp, Prefix};

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
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Crash => "crash",
            FaultKind::CrashOnIo => "crash_on_io",
            FaultKind::FsyncEio => "fsync_eio",
            FaultKind::Partition => "partition",
        }
    }

    pub fn from_name(name: &str) -> Option<FaultKind> {
        [FaultKind::Crash, FaultKind::CrashOnIo, FaultKind::FsyncEio, FaultKind::Partition]
            .into_iter()
            .find(|k| k.name() == name)
    }

    /// Faults drawn at a disk operation: replayed by `op`, not by time.
    pub fn by_op(self) -> bool {
        matches!(self, FaultKind::CrashOnIo | FaultKind::FsyncEio)
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
            FaultKind::Crash | FaultKind::Partition => return None,
        };
        // `on` is for reading traces; replay goes by `op` and `kind`.
        Some(DiskFault { op, on: DiskOp::Write, kind })
    }

    /// The node names of a partition's cut side (or the one node).
    pub fn nodes(&self) -> Vec<&str> {
        self.node.split(',').filter(|n| !n.is_empty()).collect()
    }
}
