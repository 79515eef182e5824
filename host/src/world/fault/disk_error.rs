//! What the disk-error kinds share (`fsync_eio`, `write_eio`,
//! `write_enospc`): the disk model draws them per operation from the kind's
//! stream (`fs::faults`, the contract in `fs/durability.rs`), the kind
//! records each one in the schedule with the node's disk-operation number,
//! and a schedule's entries are handed back to the disk model to inject at
//! the same numbers. Nothing to simplify beyond removal: the op is the fault.

use super::{Fault, FaultKind, Kind, Planned, Recorded, stream};
use crate::fs::{DiskFault, DiskFaultKind, DiskOp};
use crate::random::{Draw, RandomStream};
use crate::world::vtime::SimTime;

/// The stream the disk model draws `kind` from, per node.
pub fn disk_stream(seed: u64, kind: &dyn FaultKind, node: &str) -> RandomStream {
    stream(seed, kind, Draw::DiskOps, node)
}

/// Records the disk faults of one kind.
pub struct Recorder {
    pub kind: Kind,
    pub disk: DiskFaultKind,
}

impl Planned for Recorder {
    fn disk_fault(&mut self, _slot: usize, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        if d.kind != self.disk {
            return None;
        }
        let mut fault = Fault::on_node(at, self.kind, node);
        fault.op = Some(d.op);
        Some(Recorded::Happened { fault, line: format!("{node}: {d}") })
    }
}

/// A schedule's entry as the disk model replays it.
pub fn to_disk(fault: &Fault, on: DiskOp, kind: DiskFaultKind) -> Option<DiskFault> {
    Some(DiskFault { op: fault.op?, on, kind })
}
