//! `fsync_eio`: a sync that fails with EIO and drops the file's pending
//! writes (Linux's post-2018 semantics; the contract is `fs/durability.rs`).
//! The disk model draws it (probability `fsync_eio` per sync with pending
//! writes, from this kind's stream) or replays it at the recorded
//! disk-operation number; this module records it in the run's schedule.

use super::{Fault, FaultKind, Kind, PlanContext, Planned, Recorded, Simplify, Trigger, stream};
use crate::fs::{DiskFault, DiskFaultKind, DiskOp};
use crate::random::{Draw, RandomStream};
use crate::world::plan::FaultConfig;
use crate::world::vtime::SimTime;

pub struct FsyncEio;

/// The stream the disk model draws this kind from, per node.
pub fn disk_stream(seed: u64, node: &str) -> RandomStream {
    stream(seed, &FsyncEio, Draw::DiskOps, node)
}

impl FaultKind for FsyncEio {
    fn name(&self) -> &'static str {
        "fsync_eio"
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.disk.fsync_eio)
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder)
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        Some(DiskFault { op: fault.op?, on: DiskOp::Sync, kind: DiskFaultKind::SyncEio })
    }
}

struct Recorder;

impl Planned for Recorder {
    fn disk_fault(&mut self, _slot: usize, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        if d.kind != DiskFaultKind::SyncEio {
            return None;
        }
        let mut fault = Fault::on_node(at, Kind::of(&FsyncEio), node);
        fault.op = Some(d.op);
        Some(Recorded::Happened { fault, line: format!("{node}: {d}") })
    }
}
