//! `preempt`: a preemption point of the `preempt` strategy (`pct` and
//! friends, `preempt/strategy.rs`): the node's running goroutine was sent to
//! the back of Go's run queue at counted call `op`, counted across the node's
//! incarnations. The preemption hook draws them from this kind's stream; a
//! schedule's points replace the drawn ones. Points are scheduling choices,
//! not faults a phase holds off: they are neither gated nor shrunk in time.

use super::{Fault, FaultKind, Kind, PlanContext, Planned, Simplify, Trigger};
use crate::node_id::{NodeId, PerNode};
use crate::random::{Draw, Purpose, RandomStream};
use crate::vtime::SimTime;
use crate::world::NodeProgram;

pub struct Preempt;

/// The strategy's stream for node `node`, incarnation `incarnation`.
pub fn stream(seed: u64, node: &str, incarnation: u32) -> RandomStream {
    RandomStream::new(seed, Purpose::Fault(Preempt.name(), Draw::Points), node, incarnation)
}

/// The schedule entry of a point that fired: `at` is when it fired, `op`
/// what replays it, `site` where (for people); `until` is "0s" as the
/// reference writes it (a point has no length).
pub fn recorded(node: &str, op: u64, at: SimTime, site: Option<String>) -> Fault {
    let mut fault = Fault::on_node(at, Kind::of(&Preempt), node);
    fault.op = Some(op);
    fault.until = Some(SimTime::ZERO);
    fault.site = site;
    fault
}

/// Where a point of `program` fired at the entry (or a loop head) of
/// defined function `function`: Go's name and the function's file:line,
/// as a goroutine stopped there is shown in Go's tracebacks.
pub fn site(program: &NodeProgram, function: u32) -> Option<String> {
    program.symbols.of(&program.code)?.function_location(function).map(|l| l.to_string())
}

/// ` (in SITE)` after a point's line, or nothing.
pub fn site_suffix(site: Option<&str>) -> String {
    site.map_or(String::new(), |s| format!(" (in {s})"))
}

impl FaultKind for Preempt {
    fn name(&self) -> &'static str {
        "preempt"
    }

    fn trigger(&self) -> Trigger {
        Trigger::CountedCall
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let points = replay.map(|faults| {
            ctx.names
                .iter()
                .map(|name| faults.iter().filter(|f| f.node() == Some(name)).filter_map(|f| f.op).collect())
                .collect()
        });
        Box::new(Points(points))
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }
}

/// Replay: each node's points.
struct Points(Option<PerNode<Vec<u64>>>);

impl Planned for Points {
    fn preempt_points(&self, id: NodeId) -> Option<Vec<u64>> {
        self.0.as_ref().map(|points| points[id].clone())
    }
}
