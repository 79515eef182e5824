//! `net_reset`: every established connection of a live service node is
//! reset (a middlebox timing out, a NIC reset, a kernel dropping its
//! state): the node's reads see ECONNRESET at once and its peers when the
//! RST arrives (the contract is `net/mod.rs`, rule 13); the process lives
//! on, listeners and all. Drawn as Poisson arrivals at `net_reset_per_sec`
//! per node (its own stream); an arrival at a node that is down is skipped.
//! Replayed by time.

use super::timed::{NodeArrivals, TimedReplay};
use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;
use crate::world::vtime::SimTime;

pub struct NetReset;

impl FaultKind for NetReset {
    fn name(&self) -> &'static str {
        "net_reset"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.net_reset_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(match replay {
            Some(faults) => Planner::Replayed(TimedReplay::new(faults)),
            None => Planner::Drawn(NodeArrivals::new(ctx, self, ctx.faults.net_reset_per_sec, Draw::Lengths)),
        })
    }

    fn simplify(&self) -> Simplify {
        Simplify { earlier: true, ..Simplify::default() }
    }
}

enum Planner {
    Drawn(NodeArrivals),
    Replayed(TimedReplay),
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        if let Planner::Drawn(nodes) = self {
            nodes.start(now);
        }
    }

    fn next_at(&self) -> Option<SimTime> {
        match self {
            Planner::Drawn(nodes) => nodes.next_at(),
            Planner::Replayed(faults) => faults.next_at(),
        }
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let slot = match self {
            Planner::Drawn(nodes) => nodes.take_due().0,
            Planner::Replayed(faults) => {
                let (_, Some(slot)) = faults.take_due(w) else { return };
                slot
            }
        };
        if w.allowed() && w.is_up_service(slot) {
            let fault = Fault::on_node(w.now(), Kind::of(&NetReset), w.slot_name(slot));
            w.reset_connections(slot, fault);
        }
    }
}
