//! `disk_full`: a service node's disk has no free space for a while (a
//! neighbour's log filled the shared volume, a quota was hit): a write that
//! needs a new page and a create fail with ENOSPC; reads, overwrites of
//! pages a file holds, unlinks and syncs work (`Fs::set_full`); then the
//! space comes back. Drawn as Poisson arrivals at `disk_full_per_sec` per
//! node (its own stream), each for a length uniform in `disk_full_length`
//! (another stream, drawn whether or not it applies); an arrival at a node
//! that is down or already full is skipped. The disk stays full across a
//! crash of its node until the window ends; a quiet window or the liveness
//! phase ends every window. Replayed by time (full at `at`, space back at
//! `until`); shrink shortens it and moves it earlier, `faults --shift`
//! moves it like any timed fault.

use super::timed::{Due, NodeSource};
use super::{Effects, Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::node_id::{NodeId, PerNode};
use crate::random::Draw;
use crate::vtime::{SimDuration, SimTime};

pub struct DiskFull;

pub static PER_SEC: Knob =
    Knob::rate("disk_full_per_sec", "planned windows of a full disk per second of virtual time, per node");
pub static LENGTH: Knob =
    Knob::range("disk_full_length", 100_000_000, 2_000_000_000, "how long a node's disk stays full");

static KNOBS: &[&Knob] = &[&PER_SEC, &LENGTH];

impl FaultKind for DiskFull {
    fn name(&self) -> &'static str {
        "disk_full"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn intensity(&self) -> Option<&'static Knob> {
        Some(&PER_SEC)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Lengths, replay);
        Box::new(Planner { source, length: ctx.faults.range(&LENGTH), ends: ctx.names.iter().map(|_| None).collect() })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}

struct Planner {
    source: NodeSource,
    length: (SimDuration, SimDuration),
    /// Per node: when its full window ends.
    ends: PerNode<Option<SimTime>>,
}

impl Planner {
    fn next_end(&self) -> Option<(SimTime, NodeId)> {
        self.ends.enumerate().filter_map(|(id, end)| end.map(|at| (at, id))).min()
    }

    fn give_space_back(&mut self, id: NodeId, w: &mut dyn Effects) {
        self.ends[id] = None;
        w.on_disk(id, None, &mut |fs| {
            fs.set_full(false);
            Some("disk has free space again".into())
        });
    }
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        self.source.start(now);
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.next_end().map(|(at, _)| at), self.source.next_at()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let starts = self.source.next_at();
        if let Some((_, id)) = self.next_end().filter(|(end, _)| starts.is_none_or(|s| *end <= s)) {
            self.give_space_back(id, w);
            return;
        }
        let (id, length) = match self.source.take_due(w) {
            None => return,
            Some(Due::Drawn { id, draws }) => {
                (id, SimDuration::from_ns(draws.between(self.length.0.ns(), self.length.1.ns())))
            }
            Some(Due::Replayed { id, fault }) => (id, fault.length().unwrap_or(self.length.0)),
        };
        if self.ends[id].is_some() {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&DiskFull), w.name(id));
        let until = w.now().plus(length);
        fault.until = Some(until);
        let filled = w.on_disk(id, Some(fault), &mut |fs| {
            fs.set_full(true);
            Some(format!("disk full until {until}"))
        });
        if filled {
            self.ends[id] = Some(until);
        }
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        for id in self.ends.ids() {
            if self.ends[id].is_some() {
                self.give_space_back(id, w);
            }
        }
    }
}

#[cfg(test)]
#[path = "disk_full_tests.rs"]
mod tests;
