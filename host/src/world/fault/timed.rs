//! What the per-node kinds placed in virtual time share (crash, pause,
//! clock_jump, slow, net_reset, disk_full), and the windows a kind holds open (`Windows`): drawn, each service node has its own Poisson arrivals at
//! the kind's rate and its own stream for what an arrival draws (a
//! downtime, a length, a jump), so one node's faults never shift another's;
//! replayed, the schedule's faults of the kind in time order, each acting
//! on the node it names. Whether an occurrence takes effect is the kind's
//! business (and the phase's, through `Effects`).

use super::{Effects, Fault, FaultKind, PlanContext, Planned, stream};
use crate::node_id::{NodeId, PerNode};
use crate::random::{Draw, RandomStream};
use crate::vtime::SimTime;
use crate::world::plan::Arrivals;
use std::collections::VecDeque;

/// Drawn: per node, the arrivals and the stream each arrival draws from.
struct NodeArrivals {
    nodes: PerNode<(Arrivals, RandomStream)>,
}

impl NodeArrivals {
    /// Arrivals at `per_sec` for every service node (none for the others);
    /// `draw` names the stream of what each arrival draws.
    pub fn new(ctx: &PlanContext, kind: &dyn FaultKind, per_sec: f64, draw: Draw) -> NodeArrivals {
        let nodes = ctx
            .names
            .iter()
            .zip(ctx.faultable)
            .map(|(name, &faultable)| {
                let rate = if faultable { per_sec } else { 0.0 };
                (Arrivals::new(rate, stream(ctx.seed, kind, Draw::Times, name)), stream(ctx.seed, kind, draw, name))
            })
            .collect();
        NodeArrivals { nodes }
    }

    pub fn start(&mut self, now: SimTime) {
        for (arrivals, _) in &mut self.nodes {
            arrivals.start(now);
        }
    }

    pub fn next_at(&self) -> Option<SimTime> {
        self.nodes.iter().filter_map(|(a, _)| a.next).min()
    }

    fn redraw(&mut self, now: SimTime, factor: f64) {
        for (arrivals, _) in &mut self.nodes {
            arrivals.redraw(now, factor);
        }
    }

    /// The node whose arrival is due (the lowest on a tie), moved past it,
    /// and that node's draw stream.
    pub fn take_due(&mut self) -> (NodeId, &mut RandomStream) {
        let at = self.next_at().expect("taken only when due");
        let id = self.nodes.position(|(a, _)| a.next == Some(at)).expect("the earliest");
        let (arrivals, draws) = &mut self.nodes[id];
        arrivals.advance();
        (id, draws)
    }
}

/// Replayed: the schedule's faults of one kind, in time order.
struct TimedReplay {
    faults: VecDeque<Fault>,
}

impl TimedReplay {
    pub fn new(mut faults: Vec<Fault>) -> TimedReplay {
        faults.sort_by_key(|f| f.at);
        TimedReplay { faults: faults.into() }
    }

    pub fn next_at(&self) -> Option<SimTime> {
        self.faults.front().map(|f| f.at)
    }

    /// The fault due now and the node it names (None: a node this cluster lacks).
    pub fn take_due(&mut self, w: &dyn Effects) -> (Fault, Option<NodeId>) {
        let fault = self.faults.pop_front().expect("taken only when due");
        let id = fault.node().and_then(|n| w.node_of(n));
        (fault, id)
    }
}

/// Where a per-node timed kind's occurrences come from.
pub struct NodeSource(Source);

enum Source {
    Drawn(NodeArrivals),
    Replayed(TimedReplay),
}

/// An occurrence that is due: drawn (the kind draws what it needs from
/// `draws`) or the schedule's `fault`.
pub enum Due<'a> {
    Drawn { id: NodeId, draws: &'a mut RandomStream },
    Replayed { id: NodeId, fault: Fault },
}

impl NodeSource {
    /// The schedule's faults when replaying, else arrivals at `per_sec` with
    /// `draw` naming the stream of what each draws.
    pub fn new(
        ctx: &PlanContext,
        kind: &dyn FaultKind,
        per_sec: f64,
        draw: Draw,
        replay: Option<Vec<Fault>>,
    ) -> NodeSource {
        NodeSource(match replay {
            Some(faults) => Source::Replayed(TimedReplay::new(faults)),
            None => Source::Drawn(NodeArrivals::new(ctx, kind, per_sec, draw)),
        })
    }

    pub fn start(&mut self, now: SimTime) {
        if let Source::Drawn(nodes) = &mut self.0 {
            nodes.start(now);
        }
    }

    /// The run branched at `now`: drawn arrivals are drawn again, at
    /// `factor` times the config's rate (a schedule's faults stay).
    pub fn branch(&mut self, now: SimTime, factor: f64) {
        if let Source::Drawn(nodes) = &mut self.0 {
            nodes.redraw(now, factor);
        }
    }

    pub fn next_at(&self) -> Option<SimTime> {
        match &self.0 {
            Source::Drawn(nodes) => nodes.next_at(),
            Source::Replayed(faults) => faults.next_at(),
        }
    }

    /// The occurrence due now (None: a replayed fault names a node this
    /// cluster lacks).
    pub fn take_due(&mut self, w: &dyn Effects) -> Option<Due<'_>> {
        match &mut self.0 {
            Source::Drawn(nodes) => {
                let (id, draws) = nodes.take_due();
                Some(Due::Drawn { id, draws })
            }
            Source::Replayed(faults) => match faults.take_due(w) {
                (fault, Some(id)) => Some(Due::Replayed { id, fault }),
                (_, None) => None,
            },
        }
    }
}

/// The plan of a per-node timed kind whose occurrences are independent:
/// its source, what an occurrence does, and what a quiet window ends.
pub struct OnDue<F> {
    source: NodeSource,
    act: F,
    quiet: fn(&mut dyn Effects),
}

impl<F: FnMut(Due<'_>, &mut dyn Effects) + 'static> OnDue<F> {
    pub fn planned(source: NodeSource, act: F) -> Box<dyn Planned> {
        Box::new(OnDue { source, act, quiet: |_| {} })
    }

    pub fn planned_with_quiet(source: NodeSource, act: F, quiet: fn(&mut dyn Effects)) -> Box<dyn Planned> {
        Box::new(OnDue { source, act, quiet })
    }
}

impl<F: FnMut(Due<'_>, &mut dyn Effects)> Planned for OnDue<F> {
    fn start(&mut self, now: SimTime) {
        self.source.start(now);
    }

    fn branch(&mut self, now: SimTime, factor: f64) {
        self.source.branch(now, factor);
    }

    fn next_at(&self) -> Option<SimTime> {
        self.source.next_at()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if let Some(due) = self.source.take_due(w) {
            (self.act)(due, w);
        }
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        (self.quiet)(w);
    }
}

/// Where a cluster-wide timed kind's occurrences come from (partition,
/// clog): drawn, one Poisson process for the cluster at the kind's rate
/// and one stream for what each arrival draws (its shape), both keyed by
/// the kind's name; replayed, the schedule's faults of the kind in time
/// order. `D` is what the kind draws shapes with (its config).
pub enum ClusterSource<D> {
    Drawn { arrivals: Box<Arrivals>, shapes: Box<RandomStream>, with: D },
    Replayed(VecDeque<Fault>),
}

/// An occurrence that is due: drawn (the kind draws its shape from
/// `shapes`, whether or not it applies) or the schedule's fault.
pub enum ClusterDue<'a, D> {
    Drawn { shapes: &'a mut RandomStream, with: &'a D },
    Replayed(Fault),
}

impl<D> ClusterSource<D> {
    pub fn new(ctx: &PlanContext, kind: &dyn FaultKind, per_sec: f64, with: D, replay: Option<Vec<Fault>>) -> Self {
        match replay {
            Some(mut faults) => {
                faults.sort_by_key(|f| f.at);
                ClusterSource::Replayed(faults.into())
            }
            None => ClusterSource::Drawn {
                arrivals: Box::new(Arrivals::new(per_sec, stream(ctx.seed, kind, Draw::Times, ""))),
                shapes: Box::new(stream(ctx.seed, kind, Draw::Shape, "")),
                with,
            },
        }
    }

    pub fn start(&mut self, now: SimTime) {
        if let ClusterSource::Drawn { arrivals, .. } = self {
            arrivals.start(now);
        }
    }

    /// The run branched at `now`: the drawn arrival is drawn again, at
    /// `factor` times the config's rate (a schedule's faults stay).
    pub fn branch(&mut self, now: SimTime, factor: f64) {
        if let ClusterSource::Drawn { arrivals, .. } = self {
            arrivals.redraw(now, factor);
        }
    }

    pub fn next_at(&self) -> Option<SimTime> {
        match self {
            ClusterSource::Drawn { arrivals, .. } => arrivals.next,
            ClusterSource::Replayed(faults) => faults.front().map(|f| f.at),
        }
    }

    /// The occurrence due now, the arrivals moved past it.
    pub fn take_due(&mut self) -> Option<ClusterDue<'_, D>> {
        match self {
            ClusterSource::Drawn { arrivals, shapes, with } => {
                arrivals.advance();
                Some(ClusterDue::Drawn { shapes, with })
            }
            ClusterSource::Replayed(faults) => faults.pop_front().map(ClusterDue::Replayed),
        }
    }
}

/// Per node: when the window a per-node kind put in force ends (a slowdown,
/// a full disk). An end due at the instant of the kind's next start acts
/// first, so a node is free again before a new window may open on it.
pub struct Windows(PerNode<Option<SimTime>>);

impl Windows {
    pub fn new(ctx: &PlanContext) -> Windows {
        Windows(ctx.names.iter().map(|_| None).collect())
    }

    pub fn is_open(&self, id: NodeId) -> bool {
        self.0[id].is_some()
    }

    pub fn open(&mut self, id: NodeId, until: SimTime) {
        self.0[id] = Some(until);
    }

    /// The soonest end, and its node (the lowest id on a tie).
    fn soonest(&self) -> Option<(SimTime, NodeId)> {
        self.0.enumerate().filter_map(|(id, end)| end.map(|at| (at, id))).min()
    }

    pub fn next_end(&self) -> Option<SimTime> {
        self.soonest().map(|(at, _)| at)
    }

    /// Closes the window that ends next if it ends no later than `starts`
    /// (the kind's next start): its node.
    pub fn close_due(&mut self, starts: Option<SimTime>) -> Option<NodeId> {
        let (_, id) = self.soonest().filter(|(end, _)| starts.is_none_or(|s| *end <= s))?;
        self.0[id] = None;
        Some(id)
    }

    /// Closes every open window: their nodes, in id order.
    pub fn close_all(&mut self) -> Vec<NodeId> {
        let open: Vec<NodeId> = self.0.ids().filter(|id| self.0[*id].is_some()).collect();
        for id in &open {
            self.0[*id] = None;
        }
        open
    }
}
