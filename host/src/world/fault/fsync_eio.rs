//! `fsync_eio`: a sync that fails with EIO and drops the file's pending
//! writes (Linux's post-2018 semantics; the contract is `fs/durability.rs`,
//! rule 7). Drawn by the disk model with probability `fsync_eio` per sync
//! with pending writes; recorded and replayed by disk-operation number
//! (`disk_error`).

use super::disk_error::{Recorder, to_disk};
use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::fs::{DiskFault, DiskFaultKind, DiskOp};
use crate::world::plan::FaultConfig;

pub struct FsyncEio;

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
        Box::new(Recorder { kind: Kind::of(&FsyncEio), disk: DiskFaultKind::SyncEio })
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        to_disk(fault, DiskOp::Sync, DiskFaultKind::SyncEio)
    }
}
