//! `pause`: a service node frozen for a while, like a long GC pause or a
//! stopped VM. While paused it takes no steps: its timers fire late, what
//! peers send waits in its sockets and peers see silence (their own
//! timeouts fire); the virtual clock moves on, so on resuming the node sees
//! the time it lost. Drawn as Poisson arrivals at `pause_per_sec` per node
//! (its own stream), each for a length uniform in `pause_length` (another
//! stream, drawn whether or not the pause happens); an arrival at a node that is down or already paused is skipped.
//! A crash ends a pause; a quiet window or the liveness phase resumes every
//! paused node. Replayed by time: paused at `at`, resumed at `until`.

use super::timed::{Due, NodeSource, OnDue};
use super::{Effects, Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::vtime::SimDuration;

pub struct Pause;

pub static PER_SEC: Knob = Knob::rate("pause_per_sec", "planned pauses per second of virtual time, per node");
pub static LENGTH: Knob = Knob::range("pause_length", 100_000_000, 1_000_000_000, "how long a pause lasts");

static KNOBS: &[&Knob] = &[&PER_SEC, &LENGTH];

impl FaultKind for Pause {
    fn name(&self) -> &'static str {
        "pause"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Lengths, replay);
        let (min, max) = ctx.faults.range(&LENGTH);
        let act = move |due: Due<'_>, w: &mut dyn Effects| {
            let (id, length) = match due {
                Due::Drawn { id, draws } => (id, SimDuration::from_ns(draws.between(min.ns(), max.ns()))),
                Due::Replayed { id, fault } => (id, fault.length().unwrap_or(min)),
            };
            if !w.allowed() || !w.is_up_service(id) || w.paused(id) {
                return;
            }
            let mut fault = Fault::on_node(w.now(), Kind::of(&Pause), w.name(id));
            fault.until = Some(w.now().plus(length));
            w.pause(id, fault);
        };
        OnDue::planned_with_quiet(source, act, |w| w.resume_all())
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}
