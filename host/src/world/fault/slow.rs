//! `slow`: a service node whose network is slow for a while (an overloaded
//! NIC, a noisy neighbour): every segment it sends or receives takes
//! `latency` more (the contract is `net/mod.rs`, rule 3). Drawn as Poisson
//! arrivals at `slow_per_sec` per node (its own stream), each for a length
//! uniform in `slow_length` with a latency uniform in `slow_latency` (both
//! from another stream, drawn whether or not it applies); an arrival at a
//! node that is down or already slow is skipped. A quiet window or the
//! liveness phase ends every slowdown. Replayed by time with its `latency`;
//! shrink shortens it.

use super::timed::{NodeArrivals, TimedReplay};
use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;
use crate::world::vtime::{SimDuration, SimTime, go_duration};
use serde_json::{Map, Value};

pub struct Slow;

const FIELD: &str = "latency";

impl FaultKind for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.slow_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = match replay {
            Some(faults) => Source::Replayed(TimedReplay::new(faults)),
            None => Source::Drawn(NodeArrivals::new(ctx, self, ctx.faults.slow_per_sec, Draw::Lengths)),
        };
        let f = ctx.faults;
        Box::new(Planner { source, length: f.slow_length, latency: f.slow_latency, ends: vec![None; ctx.names.len()] })
    }

    fn detail(&self, fault: &Fault) -> String {
        fault.amount.map_or(String::new(), |ns| format!("+{} latency", go_duration(ns.unsigned_abs())))
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
        Simplify { shorten: true, earlier: true, toward_zero: true }
    }
}

enum Source {
    Drawn(NodeArrivals),
    Replayed(TimedReplay),
}

struct Planner {
    source: Source,
    length: (SimDuration, SimDuration),
    latency: (SimDuration, SimDuration),
    /// Per slot: when its slowdown in force ends.
    ends: Vec<Option<SimTime>>,
}

impl Planner {
    fn next_start(&self) -> Option<SimTime> {
        match &self.source {
            Source::Drawn(nodes) => nodes.next_at(),
            Source::Replayed(faults) => faults.next_at(),
        }
    }

    fn next_end(&self) -> Option<(SimTime, usize)> {
        self.ends.iter().enumerate().filter_map(|(slot, end)| end.map(|at| (at, slot))).min()
    }
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        if let Source::Drawn(nodes) = &mut self.source {
            nodes.start(now);
        }
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.next_end().map(|(at, _)| at), self.next_start()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if let Some((end, slot)) = self.next_end().filter(|(end, _)| self.next_start().is_none_or(|s| *end <= s)) {
            debug_assert!(end <= w.now());
            self.ends[slot] = None;
            w.slow_node(slot, 0, None);
            return;
        }
        let (slot, length, latency) = match &mut self.source {
            Source::Drawn(nodes) => {
                let (slot, draws) = nodes.take_due();
                let length = draws.between(self.length.0.ns(), self.length.1.ns());
                (slot, SimDuration::from_ns(length), draws.between(self.latency.0.ns(), self.latency.1.ns()))
            }
            Source::Replayed(faults) => {
                let (fault, Some(slot)) = faults.take_due(w) else { return };
                let latency = fault.amount.map_or(self.latency.0.ns(), |ns| ns.unsigned_abs());
                (slot, fault.length().unwrap_or(self.length.0), latency)
            }
        };
        if self.ends[slot].is_some() || !w.allowed() || !w.is_up_service(slot) || latency == 0 {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&Slow), w.slot_name(slot));
        fault.until = Some(w.now().plus(length));
        fault.amount = Some(latency.min(i64::MAX as u64) as i64);
        self.ends[slot] = fault.until;
        w.slow_node(slot, latency, Some(fault));
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        for slot in 0..self.ends.len() {
            if self.ends[slot].take().is_some() {
                w.slow_node(slot, 0, None);
            }
        }
    }
}
