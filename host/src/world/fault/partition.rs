//! `partition`: the network cut into groups for a while. Drawn as Poisson
//! arrivals at `partition_per_sec` for the cluster; each cuts the nodes
//! into seeded groups for a length uniform in `partition_length`: with
//! `partition_groups` 2 (the default) a non-empty proper subset off from the
//! rest, with more, between 2 and that many non-empty groups (each node's
//! group uniform); with probability `partition_oneway` only what the first
//! group sends is cut (every fault is a rule on one direction of a link).
//! An arrival while a partition is in force is skipped. Arrival times and
//! shapes are separate streams; the one-way draw is made only when
//! `partition_oneway` is above 0, so the default draws what it always did. Replayed
//! by time; heals at `until`, or when a quiet window starts. In schedules:
//! `"groups": [["a"], ["b", "c"]]` and `"oneway"`; the older `"node": "a,b"`
//! (the cut side) is read too.

use super::timed::{ClusterDue, ClusterSource};
use super::{
    Effects, Fault, FaultJsonError, FaultKind, Kind, Knob, KnobType, KnobValue, PlanContext, Planned, Simplify, Target,
    Trigger,
};
use crate::node_id::NodeId;
use crate::random::RandomStream;
use crate::vtime::{SimDuration, SimTime};
use serde_json::{Map, Value, json};

pub struct Partition;

pub static PER_SEC: Knob = Knob::rate("partition_per_sec", "planned partitions per second of virtual time");
pub static LENGTH: Knob = Knob::range("partition_length", 200_000_000, 2_000_000_000, "how long a partition lasts");
pub static GROUPS: Knob = Knob {
    name: "partition_groups",
    ty: KnobType::Whole { min: 2, max: 1000, max_note: "" },
    default: KnobValue::Whole(2),
    doc: "the most groups a planned partition cuts the cluster into",
};
pub static ONEWAY: Knob =
    Knob::probability("partition_oneway", "the probability that a planned partition cuts one direction only");

/// The most nodes a drawn partition can split (the shape is a bit mask).
const MAX_NODES: usize = 63;

static KNOBS: &[&Knob] = &[&PER_SEC, &LENGTH, &GROUPS, &ONEWAY];

impl FaultKind for Partition {
    fn name(&self) -> &'static str {
        "partition"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let f = ctx.faults;
        // At most 1000 (`GROUPS`' range), so the narrowing is exact.
        let groups = f.whole(&GROUPS).max(2) as u32;
        let shape = Shape { length: f.range(&LENGTH), groups, oneway: f.number(&ONEWAY) };
        let source = ClusterSource::new(ctx, self, f.number(&PER_SEC), shape, replay);
        Box::new(Planner { source, heal_at: None, default_length: f.range(&LENGTH).0 })
    }

    fn detail(&self, fault: &Fault) -> String {
        match fault.target {
            Target::Groups { oneway: true, .. } => "one way".into(),
            _ => String::new(),
        }
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["groups", "oneway"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let Target::Groups { groups, oneway } = &fault.target {
            o.insert("groups".into(), json!(groups));
            o.insert("oneway".into(), json!(oneway));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        let oneway = match o.get("oneway") {
            None | Some(Value::Null) => false,
            Some(v) => v.as_bool().ok_or(FaultJsonError::wrong_type("oneway", "true or false"))?,
        };
        let groups: Vec<Vec<String>> = match (o.get("groups"), &fault.target) {
            (Some(v), _) => serde_json::from_value(v.clone()).map_err(|_| {
                FaultJsonError::wrong_type("groups", "lists of node names, like [[\"a\"], [\"b\", \"c\"]]")
            })?,
            // The older form: the cut side as "a,b".
            (None, Target::Node(side)) => vec![side.split(',').filter(|n| !n.is_empty()).map(String::from).collect()],
            (None, Target::Groups { .. } | Target::Link { .. }) => unreachable!("read_common gives a node"),
        };
        if groups.iter().all(Vec::is_empty) {
            return Err(FaultJsonError::needs("partition", "groups", " (or the older `node`: \"a,b\")"));
        }
        fault.target = Target::Groups { groups, oneway };
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, ..Simplify::default() }
    }

    /// Each node of a group other than the largest, moved to the largest
    /// group (a group listed alone: taken out of it); never leaving fewer
    /// than two groups.
    fn narrower(&self, fault: &Fault) -> Vec<Fault> {
        let Target::Groups { groups, oneway } = &fault.target else { return Vec::new() };
        let largest = (0..groups.len()).max_by_key(|&g| (groups[g].len(), std::cmp::Reverse(g)));
        let mut out = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            if Some(g) == largest && groups.len() > 1 {
                continue;
            }
            for (n, node) in group.iter().enumerate() {
                let mut smaller = groups.clone();
                smaller[g].remove(n);
                if groups.len() > 1 {
                    smaller[largest.expect("non-empty")].push(node.clone());
                }
                smaller.retain(|g| !g.is_empty());
                if smaller.is_empty() || (groups.len() > 1 && smaller.len() < 2) {
                    continue;
                }
                let mut f = fault.clone();
                f.target = Target::Groups { groups: smaller, oneway: *oneway };
                out.push(f);
            }
        }
        out
    }
}

/// What a drawn partition is drawn from.
struct Shape {
    length: (SimDuration, SimDuration),
    /// The most groups a partition cuts the cluster into.
    groups: u32,
    /// The probability that a partition cuts one direction only.
    oneway: f64,
}

struct Planner {
    source: ClusterSource<Shape>,
    /// The end of the partition in force.
    heal_at: Option<SimTime>,
    default_length: SimDuration,
}

/// A drawn shape: the nodes in seeded groups (at least two non-empty);
/// None while a partition is in force (`healing`).
fn draw(shapes: &mut RandomStream, shape: &Shape, healing: bool, w: &dyn Effects) -> Option<Fault> {
    let Shape { length, groups, oneway } = shape;
    let n = w.node_count();
    if healing || !(2..=MAX_NODES).contains(&n) || !w.allowed() {
        return None;
    }
    let of_node: Vec<usize> = if *groups == 2 {
        let mask = 1 + shapes.below((1u64 << n) - 2);
        (0..n).map(|b| usize::from(mask & (1 << b) == 0)).collect()
    } else {
        let count = 2 + shapes.below(u64::from(*groups).min(n as u64) - 1) as usize;
        let mut of_node: Vec<usize> = (0..n).map(|_| shapes.below(count as u64) as usize).collect();
        if of_node.iter().all(|&g| g == of_node[0]) {
            // All in one group: move one seeded node to another.
            let moved = shapes.below(n as u64) as usize;
            of_node[moved] = (of_node[moved] + 1) % count;
        }
        of_node
    };
    let length = SimDuration::from_ns(shapes.between(length.0.ns(), length.1.ns()));
    let oneway = shapes.chance(*oneway);
    let count = of_node.iter().max().map_or(0, |g| g + 1);
    let groups: Vec<Vec<String>> = (0..count)
        .map(|g| {
            NodeId::all(n).filter(|id| of_node[id.index()] == g).map(|id| w.name(id).to_string()).collect::<Vec<_>>()
        })
        .filter(|g| !g.is_empty())
        .collect();
    let mut fault = Fault::on_node(w.now(), Kind::of(&Partition), "");
    fault.target = Target::Groups { groups, oneway };
    fault.until = Some(w.now().plus(length));
    Some(fault)
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        self.source.start(now);
    }

    fn branch(&mut self, now: SimTime, factor: f64) {
        self.source.branch(now, factor);
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.heal_at, self.source.next_at()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if self.heal_at.is_some_and(|heal| self.source.next_at().is_none_or(|start| heal <= start)) {
            self.heal_at = None;
            w.heal();
            return;
        }
        let healing = self.heal_at.is_some();
        let fault = match self.source.take_due() {
            Some(ClusterDue::Drawn { shapes, with }) => draw(shapes, with, healing, w),
            Some(ClusterDue::Replayed(fault)) => Some(fault),
            None => None,
        };
        let Some(mut fault) = fault else { return };
        let Target::Groups { groups, oneway } = &fault.target else { return };
        // Names the cluster lacks are ignored; nodes in no group form one more.
        let mut ids: Vec<Vec<NodeId>> =
            groups.iter().map(|g| g.iter().filter_map(|n| w.node_of(n)).collect::<Vec<_>>()).collect();
        let rest: Vec<NodeId> = NodeId::all(w.node_count()).filter(|s| !ids.iter().flatten().any(|x| x == s)).collect();
        ids.push(rest);
        ids.retain(|g| !g.is_empty());
        if ids.len() < 2 {
            return;
        }
        let length = fault.length().unwrap_or(self.default_length);
        fault.at = w.now();
        fault.until = Some(w.now().plus(length));
        let oneway = *oneway;
        if w.partition(&ids, oneway, fault) {
            self.heal_at = Some(self.heal_at.map_or(w.now().plus(length), |h| h.max(w.now().plus(length))));
        }
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        if self.heal_at.take().is_some() {
            w.heal();
        }
    }
}
