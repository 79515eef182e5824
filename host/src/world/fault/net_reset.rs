//! `net_reset`: every established connection of a live service node is
//! reset (a middlebox timing out, a NIC reset, a kernel dropping its
//! state): the node's reads see ECONNRESET at once and its peers when the
//! RST arrives (the contract is `net/mod.rs`, rule 13); the process lives
//! on, listeners and all. Drawn as Poisson arrivals at `net_reset_per_sec`
//! per node (its own stream); an arrival at a node that is down is skipped.
//! Replayed by time.

use super::timed::{Due, NodeSource, OnDue};
use super::{Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;

pub struct NetReset;

pub static PER_SEC: Knob =
    Knob::rate("net_reset_per_sec", "planned resets of a live node's connections per second, per node");

static KNOBS: &[&Knob] = &[&PER_SEC];

impl FaultKind for NetReset {
    fn name(&self) -> &'static str {
        "net_reset"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Lengths, replay);
        OnDue::planned(source, |due, w| {
            let (Due::Drawn { id, .. } | Due::Replayed { id, .. }) = due;
            if w.allowed() && w.is_up_service(id) {
                let fault = Fault::on_node(w.now(), Kind::of(&NetReset), w.name(id));
                w.reset_connections(id, fault);
            }
        })
    }

    fn simplify(&self) -> Simplify {
        Simplify { earlier: true, ..Simplify::default() }
    }
}
