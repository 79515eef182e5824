//! `crash`: planned crashes of service nodes. Drawn as Poisson arrivals at
//! `crash_per_sec` per node from the moment faults start, each node with its
//! own arrival stream and its own downtime stream (uniform in
//! `crash_downtime`); an arrival is drawn whether or not it fires (a node
//! already down, a quiet window), so one crash never shifts another.
//! Replayed by time: the node crashes at `at` and boots again at `until`.

use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger, stream};
use crate::random::{Draw, RandomStream};
use crate::world::plan::{Arrivals, FaultConfig};
use crate::world::vtime::{SimDuration, SimTime};
use std::collections::VecDeque;

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
            return Box::new(Replayed { faults: faults.into(), default_downtime: ctx.faults.crash_downtime.0 });
        }
        let nodes = ctx
            .names
            .iter()
            .zip(ctx.faultable)
            .map(|(name, &faultable)| {
                let rate = if faultable { ctx.faults.crash_per_sec } else { 0.0 };
                (
                    Arrivals::new(rate, stream(ctx.seed, self, Draw::Times, name)),
                    stream(ctx.seed, self, Draw::Lengths, name),
                )
            })
            .collect();
        Box::new(Drawn { nodes, downtime: ctx.faults.crash_downtime })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true }
    }
}

struct Drawn {
    /// Per slot: arrivals and downtimes.
    nodes: Vec<(Arrivals, RandomStream)>,
    downtime: (SimDuration, SimDuration),
}

impl Planned for Drawn {
    fn start(&mut self, now: SimTime) {
        for (arrivals, _) in &mut self.nodes {
            arrivals.start(now);
        }
    }

    fn next_at(&self) -> Option<SimTime> {
        self.nodes.iter().filter_map(|(a, _)| a.next).min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let at = self.next_at().expect("fired only when due");
        let slot = self.nodes.iter().position(|(a, _)| a.next == Some(at)).expect("the earliest");
        let (arrivals, downtimes) = &mut self.nodes[slot];
        arrivals.advance();
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
    faults: VecDeque<Fault>,
    default_downtime: SimDuration,
}

impl Planned for Replayed {
    fn next_at(&self) -> Option<SimTime> {
        self.faults.front().map(|f| f.at)
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let fault = self.faults.pop_front().expect("fired only when due");
        let Some(slot) = fault.node().and_then(|n| w.slot_of(n)) else { return };
        if w.allowed() && w.is_up_service(slot) {
            let downtime = fault.length().unwrap_or(self.default_downtime);
            let mut fault = fault;
            fault.at = w.now();
            fault.until = Some(w.now().plus(downtime));
            w.crash(slot, downtime, fault);
        }
    }
}
