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

use super::timed::{Due, NodeSource, Windows};
use super::{Effects, Fault, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Trigger};
use crate::node_id::NodeId;
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

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = NodeSource::new(ctx, self, ctx.faults.number(&PER_SEC), Draw::Lengths, replay);
        Box::new(Planner { source, length: ctx.faults.range(&LENGTH), windows: Windows::new(ctx) })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}

struct Planner {
    source: NodeSource,
    length: (SimDuration, SimDuration),
    /// The full disks.
    windows: Windows,
}

impl Planner {
    fn give_space_back(id: NodeId, w: &mut dyn Effects) {
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

    fn branch(&mut self, now: SimTime, factor: f64) {
        self.source.branch(now, factor);
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.windows.next_end(), self.source.next_at()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if let Some(id) = self.windows.close_due(self.source.next_at()) {
            Planner::give_space_back(id, w);
            return;
        }
        let (id, length) = match self.source.take_due(w) {
            None => return,
            Some(Due::Drawn { id, draws }) => {
                (id, SimDuration::from_ns(draws.between(self.length.0.ns(), self.length.1.ns())))
            }
            Some(Due::Replayed { id, fault }) => (id, fault.length().unwrap_or(self.length.0)),
        };
        if self.windows.is_open(id) {
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
            self.windows.open(id, until);
        }
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        for id in self.windows.close_all() {
            Planner::give_space_back(id, w);
        }
    }
}

#[cfg(test)]
#[path = "disk_full_tests.rs"]
mod tests;
