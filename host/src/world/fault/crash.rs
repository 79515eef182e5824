//! `crash`: planned crashes of service nodes. Drawn as Poisson arrivals at
//! `crash_per_sec` per node from the moment faults start, each node with its
//! own arrival stream and its own downtime stream (uniform in
//! `crash_downtime`); an arrival is drawn whether or not it fires (a node
//! already down, a quiet window), so one crash never shifts another.
//! Replayed by time: the node crashes at `at` and boots again at `until`.

use super::timed::{Due, NodeSource, OnDue};
use super::{Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::vtime::SimDuration;

pub struct Crash;

pub static PER_SEC: Knob = Knob::rate("crash_per_sec", "planned crashes per second of virtual time, per node");
pub static DOWNTIME: Knob =
    Knob::range("crash_downtime", 100_000_000, 1_000_000_000, "how long a crashed node stays down before it restarts");

static KNOBS: &[&Knob] = &[&PER_SEC, &DOWNTIME];

impl FaultKind for Crash {
    fn name(&self) -> &'static str {
        "crash"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Lengths, replay);
        let (min, max) = ctx.faults.range(&DOWNTIME);
        OnDue::planned(source, move |due, w| {
            let (id, downtime) = match due {
                Due::Drawn { id, draws } => {
                    if !w.allowed() || !w.is_up_service(id) {
                        return;
                    }
                    // Drawn only when it fires: the streams of older seeds stay as they were.
                    (id, SimDuration::from_ns(draws.between(min.ns(), max.ns())))
                }
                Due::Replayed { id, fault } => (id, fault.length().unwrap_or(min)),
            };
            if w.allowed() && w.is_up_service(id) {
                let mut fault = Fault::on_node(w.now(), Kind::of(&Crash), w.name(id));
                fault.until = Some(w.now().plus(downtime));
                w.crash(id, downtime, fault);
            }
        })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}
