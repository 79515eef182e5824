//! `clock_skew`: each service node incarnation's wall clock is off by a
//! seeded amount in [-clock_skew, +clock_skew] from the moment it boots (a
//! machine whose clock was never synced). Only the wall clock: the
//! monotonic clock, and so Go's timers and `time.Since`, never are, while
//! `time.Now().Unix()` lies. A skew is a property of the machine, not an
//! event a phase holds off, so it applies from the first boot, before
//! `sim.SetupComplete`; a node booted inside a quiet window or the liveness
//! phase runs with a true clock. Drawn per node from its own stream, one
//! draw per boot whether or not it applies. Each applied skew is a schedule
//! entry at the boot's time with its `offset`; replayed, an entry applies to
//! the node's first boot at or after its `at` (an entry removed: that boot
//! runs with a true clock). Shrink brings skews toward zero.

use super::{Effects, Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger, stream};
use super::{FaultConfig, Knob, KnobValue};
use crate::node_id::{NodeId, PerNode};
use crate::random::{Draw, RandomStream};
use crate::vtime::SimDuration;
use std::collections::VecDeque;

pub struct ClockSkew;

pub static LARGEST: Knob =
    Knob::duration("clock_skew", 0, "the largest wall-clock offset of a node incarnation, either way");

static KNOBS: &[&Knob] = &[&LARGEST];

impl FaultKind for ClockSkew {
    fn name(&self) -> &'static str {
        "clock_skew"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    /// Governed by a duration, not a rate: `enabled` and `scale` say how.
    fn intensity(&self) -> Option<&'static Knob> {
        None
    }

    fn enabled(&self, config: &FaultConfig) -> bool {
        config.duration(&LARGEST).ns() > 0
    }

    fn scale(&self, config: &mut FaultConfig, factor: f64) {
        let scaled = SimDuration::from_ns((config.duration(&LARGEST).ns() as f64 * factor) as u64);
        // A duration always fits the knob's type.
        let _ = config.set(&LARGEST, KnobValue::Duration(scaled));
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let names: Vec<String> = ctx.names.iter().map(|n| n.to_string()).collect();
        let source = match replay {
            Some(mut faults) => {
                faults.sort_by_key(|f| f.at);
                let per_node = names
                    .iter()
                    .map(|name| faults.iter().filter(|f| f.node() == Some(name)).cloned().collect())
                    .collect();
                Source::Replayed(per_node)
            }
            None => {
                let largest = ctx.faults.duration(&LARGEST).ns().min(i64::MAX as u64 / 2);
                let streams = names.iter().map(|name| stream(ctx.seed, self, Draw::Amounts, name)).collect();
                Source::Drawn { streams, largest }
            }
        };
        Box::new(Planner { source, faultable: ctx.faultable.clone() })
    }

    fn amount_field(&self) -> Option<&'static str> {
        Some("offset")
    }

    fn simplify(&self) -> Simplify {
        Simplify { toward_zero: true, ..Simplify::default() }
    }
}

enum Source {
    /// Per node: the stream of its skews; the largest magnitude.
    Drawn { streams: PerNode<RandomStream>, largest: u64 },
    /// Per node: the schedule's skews of that node, in time order.
    Replayed(PerNode<VecDeque<Fault>>),
}

struct Planner {
    source: Source,
    faultable: PerNode<bool>,
}

impl Planned for Planner {
    fn boot(&mut self, id: NodeId, w: &mut dyn Effects) {
        if !self.faultable[id] {
            return;
        }
        let offset = match &mut self.source {
            Source::Drawn { streams, largest } => streams[id].between(0, 2 * *largest) as i64 - *largest as i64,
            Source::Replayed(per_node) => {
                let now = w.now();
                let mut due = None;
                while per_node[id].front().is_some_and(|f| f.at <= now) {
                    due = per_node[id].pop_front();
                }
                due.and_then(|f| f.amount).unwrap_or(0)
            }
        };
        if offset == 0 || w.holding() {
            return;
        }
        let mut fault = Fault::on_node(w.now(), Kind::of(&ClockSkew), w.name(id));
        fault.amount = Some(offset);
        w.skew_clock(id, fault);
    }
}
