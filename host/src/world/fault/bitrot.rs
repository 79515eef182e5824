//! `bitrot`: a bit of a service node's durable disk flips over time (media
//! decay, a bad sector). Drawn as Poisson arrivals at `bitrot_per_sec` per
//! node (its own stream), each with a seeded pick from another; the disk
//! flips bit `pick mod (durable bits)` of its durable file bytes, counted
//! in inode order (`Fs::rot`). The page cache keeps the right bytes, so the
//! node only reads the rotten bit after a crash, as a cached page hides a
//! bad sector until it is read from disk again. An arrival at a node that
//! is down is skipped; a disk with no durable file bytes does not rot. Replayed by time with
//! its pick (`"bit"` in schedules); shrink moves it earlier.

use super::timed::{Due, NodeSource, OnDue};
use super::{Fault, FaultJsonError, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;

pub struct Bitrot;

pub static PER_SEC: Knob = Knob::rate("bitrot_per_sec", "planned flips of a durable bit per second, per service node");

static KNOBS: &[&Knob] = &[&PER_SEC];

impl FaultKind for Bitrot {
    fn name(&self) -> &'static str {
        "bitrot"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Amounts, replay);
        OnDue::planned(source, |due, w| {
            let (id, pick) = match due {
                Due::Drawn { id, draws } => (id, (draws.next_u64() >> 1) as i64),
                Due::Replayed { id, fault } => (id, fault.amount.unwrap_or(0)),
            };
            if w.allowed() && w.is_up_service(id) {
                let mut fault = Fault::on_node(w.now(), Kind::of(&Bitrot), w.name(id));
                fault.amount = Some(pick);
                // A disk that holds no durable bytes has nothing to rot.
                w.on_disk(id, Some(fault), &mut |fs| {
                    let (path, offset, bit) = fs.rot(pick.unsigned_abs())?;
                    Some(format!("bit {bit} of byte {offset} of {path} flipped on disk"))
                });
            }
        })
    }

    fn detail(&self, fault: &Fault) -> String {
        fault.amount.map_or(String::new(), |pick| format!("pick {pick}"))
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["bit"]
    }

    fn write_json(&self, fault: &Fault, o: &mut serde_json::Map<String, serde_json::Value>) {
        if let Some(pick) = fault.amount {
            o.insert("bit".into(), serde_json::json!(pick));
        }
    }

    fn read_json(
        &self,
        o: &serde_json::Map<String, serde_json::Value>,
        fault: &mut Fault,
    ) -> Result<(), FaultJsonError> {
        let pick = o.get("bit").and_then(serde_json::Value::as_i64).filter(|p| *p >= 0);
        fault.amount = Some(pick.ok_or_else(|| FaultJsonError::needs("bitrot fault", "bit", ", a whole number >= 0"))?);
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify { earlier: true, ..Simplify::default() }
    }
}
