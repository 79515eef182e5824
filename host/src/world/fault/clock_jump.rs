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
use super::{Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;

pub struct ClockJump;

pub static PER_SEC: Knob =
    Knob::rate("clock_jump_per_sec", "planned wall-clock jumps per second of virtual time, per node");
pub static LARGEST: Knob = Knob::duration("clock_jump", 1_000_000_000, "the largest jump, either way");

static KNOBS: &[&Knob] = &[&PER_SEC, &LARGEST];

impl FaultKind for ClockJump {
    fn name(&self) -> &'static str {
        "clock_jump"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Amounts, replay);
        let largest = ctx.faults.duration(&LARGEST).ns().min(i64::MAX as u64 / 2);
        OnDue::planned(source, move |due, w| {
            let (id, jump) = match due {
                Due::Drawn { id, draws } => (id, draws.between(0, 2 * largest) as i64 - largest as i64),
                Due::Replayed { id, fault } => (id, fault.amount.unwrap_or(0)),
            };
            if !w.allowed() || !w.is_up_service(id) || jump == 0 {
                return;
            }
            let mut fault = Fault::on_node(w.now(), Kind::of(&ClockJump), w.name(id));
            fault.amount = Some(jump);
            w.jump_clock(id, fault);
        })
    }

    fn amount_field(&self) -> Option<&'static str> {
        Some("jump")
    }

    fn simplify(&self) -> Simplify {
        Simplify { toward_zero: true, earlier: true, ..Simplify::default() }
    }
}
