//! `pause`: a service node frozen for a while, like a long GC pause or a
//! stopped VM. While paused it takes no steps: its timers fire late, what
//! peers send waits in its sockets and peers see silence (their own
//! timeouts fire); the virtual clock moves on, so on resuming the node sees
//! the time it lost. Drawn as Poisson arrivals at `pause_per_sec` per node
//! (its own stream), each for a length uniform in `pause_length` (another
//! stream, drawn whether or not the pause happens); an arrival at a node that is down or already paused is skipped.
//! A crash ends a pause; a quiet window or the liveness phase resumes every
//! paused node. Replayed by time: paused at `at`, resumed at `until`.

use super::timed::{NodeArrivals, TimedReplay};
use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::random::Draw;
use crate::world::plan::FaultConfig;
use crate::world::vtime::{SimDuration, SimTime};

pub struct Pause;

impl FaultKind for Pause {
    fn name(&self) -> &'static str {
        "pause"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn intensity<'c>(&self, config: &'c mut FaultConfig) -> Option<&'c mut f64> {
        Some(&mut config.pause_per_sec)
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let source = match replay {
            Some(faults) => Source::Replayed(TimedReplay::new(faults)),
            None => Source::Drawn(NodeArrivals::new(ctx, self, ctx.faults.pause_per_sec, Draw::Lengths)),
        };
        Box::new(Planner { source, length: ctx.faults.pause_length })
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }
}

enum Source {
    Drawn(NodeArrivals),
    Replayed(TimedReplay),
}

struct Planner {
    source: Source,
    length: (SimDuration, SimDuration),
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        if let Source::Drawn(nodes) = &mut self.source {
            nodes.start(now);
        }
    }

    fn next_at(&self) -> Option<SimTime> {
        match &self.source {
            Source::Drawn(nodes) => nodes.next_at(),
            Source::Replayed(faults) => faults.next_at(),
        }
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        let (slot, length) = match &mut self.source {
            Source::Drawn(nodes) => {
                let (slot, lengths) = nodes.take_due();
                (slot, SimDuration::from_ns(lengths.between(self.length.0.ns(), self.length.1.ns())))
            }
            Source::Replayed(faults) => {
                let (fault, Some(slot)) = faults.take_due(w) else { return };
                (slot, fault.length().unwrap_or(self.length.0))
            }
        };
        if !w.allowed() || !w.is_up_service(slot) || w.paused(slot) {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&Pause), w.slot_name(slot));
        fault.until = Some(w.now().plus(length));
        w.pause(slot, fault);
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        w.resume_all();
    }
}
