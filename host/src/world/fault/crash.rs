//! `crash`: planned crashes of service nodes. Drawn as Poisson arrivals at
//! `crash_per_sec` per node from the moment faults start, each node with its
//! own arrival stream and its own downtime stream (uniform in
//! `crash_downtime`); an arrival is drawn whether or not it fires (a node
//! already down, a quiet window), so one crash never shifts another.
//! Replayed by time: the node crashes at `at` and boots again at `until`.

use super::timed::{NodeArrivals, TimedReplay};
use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;
use crate::world::vtime::{SimDuration, SimTime};

pub struct Crash;

impl FaultKind for Crash {
    fn name(&self) -> &'static str {
        "crash"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.crash_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        if let Some(faults) = replay {
            return Box::new(Replayed {
                faults: TimedReplay::new(faults),
                default_downtime: ctx.faults.crash_downtime.0,
            });
        }
        let nodes = NodeArrivals::new(ctx, self, ctx.faults.crash_per_sec, Draw::Lengths);
        Box::new(Drawn { nodes, downtime: ctx.faults.crash_downtime })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}

struct Drawn {
    nodes: NodeArrivals,
    downtime: (SimDuration, SimDuration),
}

impl Planned for Drawn {
    fn start(&mut self, now: SimTime) {
        self.nodes.start(now);
    }

    fn next_at(&self) -> Option<SimTime> {
        self.nodes.next_at()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let (slot, downtimes) = self.nodes.take_due();
        if !w.allowed() || !w.is_up_service(slot) {
            return;
        }
        let downtime = SimDuration::from_ns(downtimes.between(self.downtime.0.ns(), self.downtime.1.ns()));
        let mut fault = Fault::on_node(w.now(), Kind::of(&Crash), w.slot_name(slot));
        fault.until = Some(w.now().plus(downtime));
        w.crash(slot, downtime, fault);
    }
}

struct Replayed {
    faults: TimedReplay,
    default_downtime: SimDuration,
}

impl Planned for Replayed {
    fn next_at(&self) -> Option<SimTime> {
        self.faults.next_at()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let (mut fault, Some(slot)) = self.faults.take_due(w) else { return };
        if w.allowed() && w.is_up_service(slot) {
            let downtime = fault.length().unwrap_or(self.default_downtime);
            fault.at = w.now();
            fault.until = Some(w.now().plus(downtime));
            w.crash(slot, downtime, fault);
        }
    }
}
