//! `FaultInjector`: the fault kinds of one run and the phases they obey.
//! It builds each kind's plan (drawn from the seed, or the schedule's faults
//! of that kind when replaying), applies swarm to the config first, says
//! which kind acts next, and keeps the phase: nothing before faults start
//! (`sim.SetupComplete`), nothing inside a quiet window (`sim.QuietFor`),
//! nothing in the liveness phase (`stop`, for the rest of the run).
//! The world applies what the kinds ask for (`Effects`, with a kind's plan
//! taken out while it acts); this type decides nothing about nodes itself.

use super::swarm::{self, Choice};
use super::{Fault, FaultConfig, Kind, PlanContext, Planned, Recorded};
use crate::branch::Boost;
use crate::fs::{DiskFault, DiskOp};
use crate::node_id::{NodeId, PerNode};
use crate::vtime::SimTime;
use std::cell::Cell;
use std::rc::Rc;

pub struct FaultInjector {
    /// Each registered kind's plan, in registry order.
    kinds: Vec<(Kind, Box<dyn Planned>)>,
    /// The config after swarm.
    base: FaultConfig,
    /// The config in force: `base`, or after a branch its boost of `base`.
    config: FaultConfig,
    swarm: Vec<Choice>,
    started: bool,
    quiet_until: SimTime,
    /// The liveness phase began: no fault acts again.
    stopped: bool,
    /// Open while faults may act; the disk models draw only while it is.
    gate: Rc<Cell<bool>>,
    /// Replay: the schedule's faults drawn inside the disk model.
    disk_replay: Option<PerNode<Vec<DiskFault>>>,
}

/// A plan with nothing to do, put in place while a kind's plan runs.
struct Idle;
impl Planned for Idle {}

impl FaultInjector {
    /// `names`: the nodes' names; `faultable`: which are services.
    pub fn new(
        seed: u64,
        config: &FaultConfig,
        names: &PerNode<&str>,
        faultable: &PerNode<bool>,
        schedule: Option<&[Fault]>,
    ) -> FaultInjector {
        // A replayed schedule is exactly what happened: swarm already chose.
        let (config, swarm) = match schedule {
            Some(_) => (config.clone(), Vec::new()),
            None => swarm::apply(seed, config),
        };
        let ctx = PlanContext { seed, faults: &config, names, faultable };
        let kinds = Kind::all()
            .map(|kind| {
                let mine = schedule.map(|s| s.iter().filter(|f| f.kind == kind).cloned().collect());
                (kind, kind.imp().plan(&ctx, mine))
            })
            .collect();
        let disk_replay = schedule.map(|s| {
            names
                .iter()
                .map(|name| {
                    let mut faults: Vec<DiskFault> =
                        s.iter().filter(|f| f.node() == Some(name)).filter_map(|f| f.kind.imp().to_disk(f)).collect();
                    // Reads are numbered apart from mutating operations.
                    faults.sort_by_key(|f| (f.on == DiskOp::Read, f.op));
                    faults.dedup_by_key(|f| (f.on == DiskOp::Read, f.op));
                    faults
                })
                .collect()
        });
        FaultInjector {
            kinds,
            base: config.clone(),
            config,
            swarm,
            started: false,
            quiet_until: SimTime::ZERO,
            stopped: false,
            gate: Rc::new(Cell::new(false)),
            disk_replay,
        }
    }

    /// The config in force: after swarm, and after the last branch's boost.
    pub fn config(&self) -> &FaultConfig {
        &self.config
    }

    pub fn swarm(&self) -> &[Choice] {
        &self.swarm
    }

    pub fn started(&self) -> bool {
        self.started
    }

    /// Faults start now.
    pub fn start(&mut self, now: SimTime) {
        self.started = true;
        for (_, planned) in &mut self.kinds {
            planned.start(now);
        }
        self.update_gate(now);
    }

    /// The run branched at `now`: every kind draws again what it drew
    /// ahead (the streams are re-keyed by then), the boosted kind at its
    /// multiplied rate, the others at the config's.
    pub fn branch(&mut self, now: SimTime, boost: Option<Boost>) {
        self.config = self.base.clone();
        for (kind, planned) in &mut self.kinds {
            let factor = boost.filter(|b| b.kind == kind.name() && kind.imp().boostable()).map_or(1, |b| b.factor);
            if factor != 1 {
                kind.imp().scale(&mut self.config, f64::from(factor));
            }
            planned.branch(now, f64::from(factor));
        }
    }

    /// Whether faults may act at `now`.
    pub fn allowed(&self, now: SimTime) -> bool {
        self.started && !self.holding(now)
    }

    /// Whether a quiet window or the liveness phase holds faults off at `now`.
    pub fn holding(&self, now: SimTime) -> bool {
        self.stopped || now < self.quiet_until
    }

    /// The liveness phase: faults stop for good; the world then lets every
    /// kind end what it holds (`Planned::quiet`).
    pub fn stop(&mut self, now: SimTime) {
        self.stopped = true;
        self.update_gate(now);
    }

    /// The gate the disk models read; the world updates it before every step.
    pub fn gate(&self) -> Rc<Cell<bool>> {
        self.gate.clone()
    }

    pub fn update_gate(&self, now: SimTime) {
        self.gate.set(self.allowed(now));
    }

    /// A quiet window from `now` to `until`; the world then lets every
    /// kind end what it holds (`Planned::quiet`).
    pub fn begin_quiet(&mut self, now: SimTime, until: SimTime) {
        self.quiet_until = self.quiet_until.max(until);
        self.update_gate(now);
    }

    pub fn kinds(&self) -> usize {
        self.kinds.len()
    }

    /// The kind that acts next and when (the first in registry order on a
    /// tie); none in the liveness phase, where nothing would be allowed.
    pub fn next(&self) -> Option<(SimTime, usize)> {
        if self.stopped {
            return None;
        }
        let mut best: Option<(SimTime, usize)> = None;
        for (k, (_, planned)) in self.kinds.iter().enumerate() {
            if let Some(at) = planned.next_at().filter(|at| best.is_none_or(|(t, _)| *at < t)) {
                best = Some((at, k));
            }
        }
        best
    }

    /// Kind `k`'s plan, taken out while it acts on the world (`put` it back).
    pub fn take(&mut self, k: usize) -> Box<dyn Planned> {
        std::mem::replace(&mut self.kinds[k].1, Box::new(Idle))
    }

    pub fn put(&mut self, k: usize, planned: Box<dyn Planned>) {
        self.kinds[k].1 = planned;
    }

    /// What a fault the disk model of node `id`, called `name`, injected means.
    pub fn disk_fault(&mut self, id: NodeId, name: &str, at: SimTime, fault: &DiskFault) -> Option<Recorded> {
        self.kinds.iter_mut().find_map(|(_, planned)| planned.disk_fault(id, name, at, fault))
    }

    /// Replay: node `id`'s disk faults, by operation (None: drawn).
    pub fn disk_replay(&self, id: NodeId) -> Option<Vec<DiskFault>> {
        self.disk_replay.as_ref().map(|all| all[id].clone())
    }

    /// Replay: node `id`'s preemption points (None: drawn by the strategy).
    pub fn preempt_points(&self, id: NodeId) -> Option<Vec<u64>> {
        self.kinds.iter().find_map(|(_, planned)| planned.preempt_points(id))
    }
}
