//! `clock_jump`: a service node's wall clock jumps, forward or back, by up
//! to `clock_jump` (an NTP step, an operator's `date -s`). Only the wall
//! clock moves: the monotonic clock, and so Go's timers and `time.Since`,
//! never do. Drawn as Poisson arrivals at `clock_jump_per_sec` per node
//! (its own stream), each jump uniform in [-clock_jump, +clock_jump]
//! (another stream, drawn whether or not the jump takes effect); a jump at a
//! node that is down is skipped. The jump lasts for the incarnation: a
//! restarted node boots with its own skew (`clock_skew`). Replayed by time
//! with its `jump`; shrink brings jumps toward zero.

use super::timed::{NodeArrivals, TimedReplay};
use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;
use crate::world::vtime::{SimDuration, SimTime, go_signed_duration};
use serde_json::{Map, Value};

pub struct ClockJump;

const FIELD: &str = "jump";

impl FaultKind for ClockJump {
    fn name(&self) -> &'static str {
        "clock_jump"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.clock_jump_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = match replay {
            Some(faults) => Source::Replayed(TimedReplay::new(faults)),
            None => Source::Drawn(NodeArrivals::new(ctx, self, ctx.faults.clock_jump_per_sec, Draw::Amounts)),
        };
        Box::new(Planner { source, largest: ctx.faults.clock_jump })
    }

    fn detail(&self, fault: &Fault) -> String {
        fault.amount.map_or(String::new(), |ns| format!("jump {}", go_signed_duration(ns)))
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &[FIELD]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        super::json::write_amount(FIELD, fault, o);
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), String> {
        super::json::read_amount(FIELD, o, fault)
    }

    fn simplify(&self) -> Simplify {
        Simplify { toward_zero: true, earlier: true, ..Simplify::default() }
    }
}

enum Source {
    Drawn(NodeArrivals),
    Replayed(TimedReplay),
}

struct Planner {
    source: Source,
    largest: SimDuration,
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        if let Source::Drawn(nodes) = &mut self.source {
            nodes.start(now);
        }
    }

    fn next_at(&self) -> Option<SimTime> {
        match &self.source {
            Source::Drawn(nodes) => nodes.next_at(),
            Source::Replayed(faults) => faults.next_at(),
        }
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let (slot, jump) = match &mut self.source {
            Source::Drawn(nodes) => {
                let (slot, amounts) = nodes.take_due();
                let largest = self.largest.ns().min(i64::MAX as u64 / 2);
                let jump = amounts.between(0, 2 * largest) as i64 - largest as i64;
                (slot, jump)
            }
            Source::Replayed(faults) => {
                let (fault, Some(slot)) = faults.take_due(w) else { return };
                (slot, fault.amount.unwrap_or(0))
            }
        };
        if !w.allowed() || !w.is_up_service(slot) || jump == 0 {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&ClockJump), w.slot_name(slot));
        fault.amount = Some(jump);
        w.jump_clock(slot, fault);
    }
}
