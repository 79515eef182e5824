//! `write_enospc`: a write to a regular file that fails with ENOSPC and writes
//! nothing (`fs/durability.rs`, rule 12). Drawn by the disk model with
//! probability `write_enospc` per write; recorded and replayed by
//! disk-operation number (`disk_error`).

use super::disk_error::{Recorder, to_disk};
use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::fs::{DiskFault, DiskFaultKind, DiskOp};
use crate::world::plan::FaultConfig;

pub struct WriteEnospc;

impl FaultKind for WriteEnospc {
    fn name(&self) -> &'static str {
        "write_enospc"
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.disk.write_enospc)
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder { kind: Kind::of(&WriteEnospc), disk: DiskFaultKind::WriteEnospc })
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        to_disk(fault, DiskOp::Write, DiskFaultKind::WriteEnospc)
    }
}
