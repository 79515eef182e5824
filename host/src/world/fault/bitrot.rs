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
use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;

pub struct Bitrot;

impl FaultKind for Bitrot {
    fn name(&self) -> &'static str {
        "bitrot"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.bitrot_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.bitrot_per_sec, Draw::Amounts, replay);
        OnDue::planned(source, |due, w| {
            let (slot, pick) = match due {
                Due::Drawn { slot, draws } => (slot, (draws.next_u64() >> 1) as i64),
                Due::Replayed { slot, fault } => (slot, fault.amount.unwrap_or(0)),
            };
            if w.allowed() && w.is_up_service(slot) {
                let mut fault = Fault::on_node(w.now(), Kind::of(&Bitrot), w.slot_name(slot));
                fault.amount = Some(pick);
                w.rot_disk(slot, fault);
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

    fn read_json(&self, o: &serde_json::Map<String, serde_json::Value>, fault: &mut Fault) -> Result<(), String> {
        let pick = o.get("bit").and_then(serde_json::Value::as_i64).filter(|p| *p >= 0);
        fault.amount = Some(pick.ok_or("a bitrot fault needs `bit`, a whole number >= 0")?);
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify { earlier: true, ..Simplify::default() }
    }
}
