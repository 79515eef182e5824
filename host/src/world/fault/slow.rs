//! `slow`: a service node whose network is slow for a while (an overloaded
//! NIC, a noisy neighbour): every segment it sends or receives takes
//! `latency` more (the contract is `net/mod.rs`, rule 3). Drawn as Poisson
//! arrivals at `slow_per_sec` per node (its own stream), each for a length
//! uniform in `slow_length` with a latency uniform in `slow_latency` (both
//! from another stream, drawn whether or not it applies); an arrival at a
//! node that is down or already slow is skipped. A quiet window or the
//! liveness phase ends every slowdown. Replayed by time with its `latency`;
//! shrink shortens it.

use super::timed::{Due, NodeSource, Windows};
use super::{Effects, Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::vtime::{SimDuration, SimTime};

pub struct Slow;

pub static PER_SEC: Knob =
    Knob::rate("slow_per_sec", "planned slowdowns of a node's network per second of virtual time, per node");
pub static LENGTH: Knob = Knob::range("slow_length", 1_000_000_000, 5_000_000_000, "how long a slowdown lasts");
/// Also the latency a clog of form `slow` adds.
pub static LATENCY: Knob = Knob::range("slow_latency", 10_000_000, 200_000_000, "the latency a slowdown adds");

static KNOBS: &[&Knob] = &[&PER_SEC, &LENGTH, &LATENCY];

impl FaultKind for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let f = ctx.faults;
        let source = NodeSource::new(ctx, self, f.number(&PER_SEC), Draw::Lengths, replay);
        let (length, latency) = (f.range(&LENGTH), f.range(&LATENCY));
        Box::new(Planner { source, length, latency, windows: Windows::new(ctx) })
    }

    fn amount_field(&self) -> Option<&'static str> {
        Some("latency")
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, toward_zero: true }
    }
}

struct Planner {
    source: NodeSource,
    length: (SimDuration, SimDuration),
    latency: (SimDuration, SimDuration),
    /// The slowdowns in force.
    windows: Windows,
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        self.source.start(now);
    }

    fn branch(&mut self, now: SimTime, factor: f64) {
        self.source.branch(now, factor);
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.windows.next_end(), self.source.next_at()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if let Some(id) = self.windows.close_due(self.source.next_at()) {
            w.slow_node(id, SimDuration::ZERO, None);
            return;
        }
        let (id, length, latency) = match self.source.take_due(w) {
            None => return,
            Some(Due::Drawn { id, draws }) => {
                let length = SimDuration::from_ns(draws.between(self.length.0.ns(), self.length.1.ns()));
                (id, length, draws.between(self.latency.0.ns(), self.latency.1.ns()))
            }
            Some(Due::Replayed { id, fault }) => {
                let latency = fault.amount.map_or(self.latency.0.ns(), |ns| ns.unsigned_abs());
                (id, fault.length().unwrap_or(self.length.0), latency)
            }
        };
        if self.windows.is_open(id) || !w.allowed() || !w.is_up_service(id) || latency == 0 {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&Slow), w.name(id));
        let until = w.now().plus(length);
        fault.until = Some(until);
        fault.amount = Some(latency.min(i64::MAX as u64) as i64);
        self.windows.open(id, until);
        w.slow_node(id, SimDuration::from_ns(latency), Some(fault));
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        for id in self.windows.close_all() {
            w.slow_node(id, SimDuration::ZERO, None);
        }
    }
}
