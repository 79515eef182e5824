//! The disk-error kinds, as data: `fsync_eio` (a sync fails with EIO and
//! drops the file's pending writes, rule 7 of `fs/durability.rs`),
//! `write_eio` and `write_enospc` (a write fails and writes nothing, rule
//! 12), `read_eio` and `read_corrupt` (a read fails, or returns one flipped
//! bit, rule 13). The disk model draws each per operation from the kind's
//! own stream (`fs::faults`); the kind records each occurrence in the
//! schedule with the node's disk-operation number (disk-read number for the
//! read kinds) and, for a corrupted read, its `bit`; a schedule's entries
//! are handed back to the disk model to inject at the same numbers. Nothing
//! to simplify beyond removal: the operation is the fault.

use super::{
    Fault, FaultConfig, FaultJsonError, FaultKind, Kind, Knob, PlanContext, Planned, Recorded, Simplify, Trigger,
    stream,
};
use crate::fs::{DiskConfig, DiskFault, DiskFaultKind, DiskOp};
use crate::node_id::NodeId;
use crate::random::{Draw, RandomStream};
use crate::vtime::SimTime;
use serde_json::{Map, Value, json};

/// One disk-error kind.
pub struct DiskError {
    name: &'static str,
    /// The operation it strikes.
    on: DiskOp,
    /// What the disk model injects (a corrupted read's bit is the run's).
    disk: DiskFaultKind,
    /// Its one knob, its probability.
    knobs: &'static [&'static Knob],
    /// Where the disk model takes its probability from.
    probability: fn(&mut DiskConfig) -> &mut f64,
}

pub static FSYNC_EIO: DiskError = DiskError {
    name: "fsync_eio",
    on: DiskOp::Sync,
    disk: DiskFaultKind::SyncEio,
    knobs: &[&Knob::probability("fsync_eio", "per fsync: the probability that it fails with EIO")],
    probability: |d| &mut d.fsync_eio,
};
pub static WRITE_EIO: DiskError = DiskError {
    name: "write_eio",
    on: DiskOp::Write,
    disk: DiskFaultKind::WriteEio,
    knobs: &[&Knob::probability("write_eio", "per write: the probability that it fails with EIO and writes nothing")],
    probability: |d| &mut d.write_eio,
};
pub static WRITE_ENOSPC: DiskError = DiskError {
    name: "write_enospc",
    on: DiskOp::Write,
    disk: DiskFaultKind::WriteEnospc,
    knobs: &[&Knob::probability(
        "write_enospc",
        "per write: the probability that it fails with ENOSPC and writes nothing",
    )],
    probability: |d| &mut d.write_enospc,
};
pub static READ_EIO: DiskError = DiskError {
    name: "read_eio",
    on: DiskOp::Read,
    disk: DiskFaultKind::ReadEio,
    knobs: &[&Knob::probability("read_eio", "per read of a regular file: the probability that it fails with EIO")],
    probability: |d| &mut d.read_eio,
};
pub static READ_CORRUPT: DiskError = DiskError {
    name: "read_corrupt",
    on: DiskOp::Read,
    disk: DiskFaultKind::ReadCorrupt { bit: 0 },
    knobs: &[&Knob::probability(
        "read_corrupt",
        "per read of a regular file: the probability that one bit it returns is flipped",
    )],
    probability: |d| &mut d.read_corrupt,
};

/// The stream the disk model draws `kind` from, per node.
pub fn disk_stream(seed: u64, kind: &dyn FaultKind, node: &str) -> RandomStream {
    stream(seed, kind, Draw::DiskOps, node)
}

impl DiskError {
    fn corrupts(&self) -> bool {
        matches!(self.disk, DiskFaultKind::ReadCorrupt { .. })
    }
}

impl FaultKind for DiskError {
    fn name(&self) -> &'static str {
        self.name
    }

    fn trigger(&self) -> Trigger {
        if self.on == DiskOp::Read { Trigger::DiskRead } else { Trigger::DiskOp }
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        self.knobs
    }

    fn configure_disk(&self, config: &FaultConfig, disk: &mut DiskConfig) {
        if let Some(knob) = self.knobs.first() {
            *(self.probability)(disk) = config.number(knob);
        }
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder { kind: Kind::from_name(self.name).expect("registered"), disk: self.disk })
    }

    fn detail(&self, fault: &Fault) -> String {
        match fault.amount {
            Some(bit) if self.corrupts() => format!("bit {bit} flipped"),
            _ => String::new(),
        }
    }

    fn json_fields(&self) -> &'static [&'static str] {
        if self.corrupts() { &["bit"] } else { &[] }
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let (true, Some(bit)) = (self.corrupts(), fault.amount) {
            o.insert("bit".into(), json!(bit));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        if self.corrupts() {
            let needs = || FaultJsonError::needs("read_corrupt fault", "bit", " (a whole number)");
            let bit = o.get("bit").and_then(Value::as_u64).ok_or_else(needs)?;
            fault.amount = Some(i64::try_from(bit).map_err(|_| FaultJsonError::TooLarge("bit"))?);
        }
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        let kind = match self.disk {
            DiskFaultKind::ReadCorrupt { .. } => DiskFaultKind::ReadCorrupt { bit: fault.amount? as u64 },
            other => other,
        };
        Some(DiskFault { op: fault.op?, on: self.on, kind })
    }
}

/// Records the disk faults of one kind.
struct Recorder {
    kind: Kind,
    disk: DiskFaultKind,
}

impl Planned for Recorder {
    fn disk_fault(&mut self, _id: NodeId, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        if std::mem::discriminant(&d.kind) != std::mem::discriminant(&self.disk) {
            return None;
        }
        let mut fault = Fault::on_node(at, self.kind, node);
        fault.op = Some(d.op);
        if let DiskFaultKind::ReadCorrupt { bit } = d.kind {
            fault.amount = Some(bit as i64);
        }
        Some(Recorded::Happened { fault, line: format!("{node}: {d}") })
    }
}
