//! `write_eio`: a write to a regular file that fails with EIO and writes
//! nothing (`fs/durability.rs`, rule 12). Drawn by the disk model with
//! probability `write_eio` per write; recorded and replayed by
//! disk-operation number (`disk_error`).

use super::disk_error::{Recorder, to_disk};
use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::fs::{DiskFault, DiskFaultKind, DiskOp};
use crate::world::plan::FaultConfig;

pub struct WriteEio;

impl FaultKind for WriteEio {
    fn name(&self) -> &'static str {
        "write_eio"
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.disk.write_eio)
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder { kind: Kind::of(&WriteEio), disk: DiskFaultKind::WriteEio })
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        to_disk(fault, DiskOp::Write, DiskFaultKind::WriteEio)
    }
}
