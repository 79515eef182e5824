//! `lost_write`: a successful fsync of a file leaves one of the pages it
//! should have made durable at its old durable bytes, and says nothing
//! (rule 19 of `fs/durability.rs`; docs/lost-write.md). The disk model
//! draws it per successful sync with probability `lost_write`, from this
//! kind's stream (`fs::faults`); this kind records each occurrence in the
//! schedule with the sync's disk-operation number and the page (`"page"`),
//! and a schedule's entries go back to the disk model to inject at the
//! same numbers. Nothing to simplify beyond removal: the operation is the
//! fault.

use super::{Fault, FaultJsonError, FaultKind, Kind, PlanContext, Planned, Recorded, Simplify, Trigger, stream};
use super::{FaultConfig, Knob};
use crate::fs::{DiskConfig, DiskFault, DiskFaultKind, DiskOp};
use crate::node_id::NodeId;
use crate::random::{Draw, RandomStream};
use crate::vtime::SimTime;
use serde_json::{Map, Value, json};

pub struct LostWrite;

pub static PROBABILITY: Knob =
    Knob::probability("lost_write", "per successful fsync: one page it should have made durable keeps its old bytes");

/// The stream the disk model draws this kind from, per node.
pub fn disk_stream(seed: u64, node: &str) -> RandomStream {
    stream(seed, &LostWrite, Draw::DiskOps, node)
}

static KNOBS: &[&Knob] = &[&PROBABILITY];

impl FaultKind for LostWrite {
    fn name(&self) -> &'static str {
        "lost_write"
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn configure_disk(&self, config: &FaultConfig, disk: &mut DiskConfig) {
        disk.lost_write = config.number(&PROBABILITY);
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Recorder)
    }

    fn detail(&self, fault: &Fault) -> String {
        fault.amount.map_or(String::new(), |page| format!("page {page} left old"))
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["page"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let Some(page) = fault.amount {
            o.insert("page".into(), json!(page));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        fault.amount = Some(page_field(o, "page", self.name())? as i64);
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        let page = fault.amount? as u64;
        Some(DiskFault { op: fault.op?, on: DiskOp::Sync, kind: DiskFaultKind::LostWrite { page } })
    }
}

/// The page-number field `name` of a `kind` fault (required): a whole
/// number, at most i64::MAX since `Fault::amount` holds it.
pub(super) fn page_field(o: &Map<String, Value>, name: &'static str, kind: &str) -> Result<u64, FaultJsonError> {
    let needs = || FaultJsonError::needs(format!("{kind} fault"), name, " (a page number)");
    let page = o.get(name).and_then(Value::as_u64).ok_or_else(needs)?;
    i64::try_from(page).map(|_| page).map_err(|_| FaultJsonError::TooLarge(name))
}

/// Records the lost writes of the disk models.
struct Recorder;

impl Planned for Recorder {
    fn disk_fault(&mut self, _id: NodeId, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        let DiskFaultKind::LostWrite { page } = d.kind else { return None };
        let mut fault = Fault::on_node(at, Kind::of(&LostWrite), node);
        fault.op = Some(d.op);
        fault.amount = Some(page as i64);
        Some(Recorded::Happened { fault, line: format!("{node}: {d}") })
    }
}
