//! `misdirected_write`: a successful fsync of a file writes one of its
//! pages to another page of the same file, and says nothing: the intended
//! page keeps its old durable bytes and the target gets the new ones (rule
//! 20 of `fs/durability.rs`; docs/lost-write.md). The disk model draws it
//! per successful sync with probability `misdirected_write`, from this
//! kind's stream, after `lost_write` (`fs::faults`); this kind records each
//! occurrence in the schedule with the sync's disk-operation number, the
//! page (`"page"`) and its target (`"to"`), and a schedule's entries go back
//! to the disk model to inject at the same numbers. Nothing to simplify
//! beyond removal.

use super::lost_write::page_field;
use super::{Fault, FaultJsonError, FaultKind, Kind, PlanContext, Planned, Recorded, Simplify, Trigger, stream};
use super::{FaultConfig, Knob};
use crate::fs::{DiskConfig, DiskFault, DiskFaultKind, DiskOp};
use crate::node_id::NodeId;
use crate::random::{Draw, RandomStream};
use crate::vtime::SimTime;
use serde_json::{Map, Value, json};

pub struct MisdirectedWrite;

pub static PROBABILITY: Knob = Knob::probability(
    "misdirected_write",
    "per successful fsync: one page it should have made durable goes to another page",
);

/// The stream the disk model draws this kind from, per node.
pub fn disk_stream(seed: u64, node: &str) -> RandomStream {
    stream(seed, &MisdirectedWrite, Draw::DiskOps, node)
}

static KNOBS: &[&Knob] = &[&PROBABILITY];

impl FaultKind for MisdirectedWrite {
    fn name(&self) -> &'static str {
        "misdirected_write"
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn configure_disk(&self, config: &FaultConfig, disk: &mut DiskConfig) {
        disk.misdirected_write = config.number(&PROBABILITY);
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder)
    }

    fn detail(&self, fault: &Fault) -> String {
        match (fault.amount, fault.to) {
            (Some(page), Some(to)) => format!("page {page} written to page {to}"),
            _ => String::new(),
        }
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["page", "to"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let (Some(page), Some(to)) = (fault.amount, fault.to) {
            o.insert("page".into(), json!(page));
            o.insert("to".into(), json!(to));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        fault.amount = Some(page_field(o, "page", self.name())? as i64);
        fault.to = Some(page_field(o, "to", self.name())?);
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        let kind = DiskFaultKind::MisdirectedWrite { page: fault.amount? as u64, to: fault.to? };
        Some(DiskFault { op: fault.op?, on: DiskOp::Sync, kind })
    }
}

/// Records the misdirected writes of the disk models.
struct Recorder;

impl Planned for Recorder {
    fn disk_fault(&mut self, _id: NodeId, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        let DiskFaultKind::MisdirectedWrite { page, to } = d.kind else { return None };
        let mut fault = Fault::on_node(at, Kind::of(&MisdirectedWrite), node);
        fault.op = Some(d.op);
        fault.amount = Some(page as i64);
        fault.to = Some(to);
        Some(Recorded::Happened { fault, line: format!("{node}: {d}") })
    }
}
