//! `crash_io` (formerly `crash_on_io`): a crash in the middle of a disk
//! operation. The disk model draws it (probability `crash_on_io` per mutating
//! operation, from this kind's stream) and decides how much of the operation
//! took effect (`fs::faults`); this module turns that into a crash of the
//! node with a downtime from its own stream (uniform in `crash_downtime`), and
//! replays a schedule's entries at the same disk-operation numbers with the
//! recorded downtime. Only the downtime shrinks: the op is the fault.

use super::{Fault, FaultJsonError, FaultKind, Kind, PlanContext, Planned, Recorded, Simplify, Trigger, stream};
use super::{FaultConfig, Knob};
use crate::fs::{DiskConfig, DiskFault, DiskFaultKind, DiskOp, Prefix};
use crate::node_id::{NodeId, PerNode};
use crate::random::{Draw, RandomStream};
use crate::vtime::{SimDuration, SimTime};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub struct CrashIo;

/// The stream the disk model draws this kind from, per node.
pub static PROBABILITY: Knob =
    Knob::probability("crash_on_io", "per disk operation: the probability of crashing in the middle of it");

/// The stream the disk model draws this kind from, per node.
pub fn disk_stream(seed: u64, node: &str) -> RandomStream {
    stream(seed, &CrashIo, Draw::DiskOps, node)
}

static KNOBS: &[&Knob] = &[&PROBABILITY];

impl FaultKind for CrashIo {
    fn name(&self) -> &'static str {
        "crash_io"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["crash_on_io"]
    }

    fn trigger(&self) -> Trigger {
        Trigger::DiskOp
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn configure_disk(&self, config: &FaultConfig, disk: &mut DiskConfig) {
        disk.crash_on_io = config.number(&PROBABILITY);
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let mut recorded = BTreeMap::new();
        for f in replay.iter().flatten() {
            if let (Some(id), Some(op), Some(length)) =
                (f.node().and_then(|n| ctx.names.position(|m| *m == n)), f.op, f.length())
            {
                recorded.insert((id, op), length);
            }
        }
        let downtimes = ctx.names.iter().map(|n| stream(ctx.seed, self, Draw::Lengths, n)).collect();
        Box::new(Planner { recorded, downtimes, downtime: ctx.faults.range(&super::crash::DOWNTIME) })
    }

    fn detail(&self, fault: &Fault) -> String {
        fault.applied.map_or(String::new(), |p| format!("applied {} ops + {} bytes", p.ops, p.bytes))
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["applied"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let Some(p) = fault.applied {
            o.insert("applied".into(), json!({"ops": p.ops, "bytes": p.bytes}));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        fault.applied = match o.get("applied") {
            None | Some(Value::Null) => None,
            Some(Value::Object(p)) => {
                let count = |name: &str| -> Result<usize, FaultJsonError> {
                    p.get(name).map_or(Ok(0), |v| {
                        let whole = || FaultJsonError::wrong_type(format!("applied.{name}"), "a whole number");
                        v.as_u64().map(|n| n as usize).ok_or_else(whole)
                    })
                };
                Some(Prefix { ops: count("ops")?, bytes: count("bytes")? })
            }
            Some(_) => return Err(FaultJsonError::Rule("`applied` is an object {ops, bytes}")),
        };
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, ..Simplify::default() }
    }

    fn to_disk(&self, fault: &Fault) -> Option<DiskFault> {
        let applied = fault.applied.unwrap_or_default();
        // `on` is for reading traces; replay goes by `op` and `kind`.
        Some(DiskFault { op: fault.op?, on: DiskOp::Write, kind: DiskFaultKind::Crash { applied } })
    }
}

struct Planner {
    /// Replay: the downtime of each recorded crash, by (node, op).
    recorded: BTreeMap<(NodeId, u64), SimDuration>,
    downtimes: PerNode<RandomStream>,
    downtime: (SimDuration, SimDuration),
}

impl Planned for Planner {
    fn disk_fault(&mut self, id: NodeId, node: &str, at: SimTime, d: &DiskFault) -> Option<Recorded> {
        let DiskFaultKind::Crash { applied } = d.kind else { return None };
        let (min, max) = self.downtime;
        let downtime = match self.recorded.get(&(id, d.op)) {
            Some(&length) => length,
            None => SimDuration::from_ns(self.downtimes[id].between(min.ns(), max.ns())),
        };
        let mut fault = Fault::on_node(at, Kind::of(&CrashIo), node);
        fault.until = Some(at.plus(downtime));
        fault.op = Some(d.op);
        fault.applied = Some(applied);
        Some(Recorded::Crash { fault, downtime, how: format!(" in the middle of {d}") })
    }
}
