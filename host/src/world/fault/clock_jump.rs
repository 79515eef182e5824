//! `clock_jump`: a service node's wall clock jumps, forward or back, by up
//! to `clock_jump` (an NTP step, an operator's `date -s`). Only the wall
//! clock moves: the monotonic clock, and so Go's timers and `time.Since`,
//! never do. Drawn as Poisson arrivals at `clock_jump_per_sec` per node
//! (its own stream), each jump uniform in [-clock_jump, +clock_jump]
//! (another stream, drawn whether or not the jump takes effect); a jump at a
//! node that is down is skipped. The jump lasts for the incarnation: a
//! restarted node boots with its own skew (`clock_skew`). Replayed by time
//! with its `jump`; shrink brings jumps toward zero.

use super::timed::{Due, NodeSource, OnDue};
use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;

pub struct ClockJump;

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
        let source = NodeSource::new(ctx, self, ctx.faults.clock_jump_per_sec, Draw::Amounts, replay);
        let largest = ctx.faults.clock_jump.ns().min(i64::MAX as u64 / 2);
        OnDue::planned(source, move |due, w| {
            let (slot, jump) = match due {
                Due::Drawn { slot, draws } => (slot, draws.between(0, 2 * largest) as i64 - largest as i64),
                Due::Replayed { slot, fault } => (slot, fault.amount.unwrap_or(0)),
            };
            if !w.allowed() || !w.is_up_service(slot) || jump == 0 {
                return;
            }
            let mut fault = Fault::on_node(w.now(), Kind::of(&ClockJump), w.slot_name(slot));
            fault.amount = Some(jump);
            w.jump_clock(slot, fault);
        })
    }

    fn amount_field(&self) -> Option<&'static str> {
        Some("jump")
    }

    fn simplify(&self) -> Simplify {
        Simplify { toward_zero: true, earlier: true, ..Simplify::default() }
    }
}
