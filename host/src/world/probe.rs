//! Probes: how a driver watches a run without the world keeping its
//! observation. A probe is told of moments the world has anyway (a step
//! done, a node ran and printed, a crash, an incarnation ending, an SDK report)
//! and sees the world through a read-only `View`; what it gathers is its
//! own, typed, and comes back in `RunResult::probes`.
//!
//! A probe cannot change a run: the view hands out no effect, no random
//! stream and nothing mutable, and nothing a probe holds is hashed. So a
//! run's trace hash is the same whatever set of probes watches it
//! (`probes/mod.rs` lists them all; a world test installs every one).
//! The probes of a forked child (`World::fork_branch`) are the child's own
//! copy, carrying what they saw of the prefix.
//!
//! What this file does not do: choose probes (drivers do) or gather any
//! observation itself (`probes/` does).

use super::event::Who;
use super::fault::Fault;
use super::{NodeProgram, RunSpec, World};
use crate::fs::CrashReport;
use crate::net::Net;
use crate::node::{Node, Report};
use crate::node_id::NodeId;
use crate::vtime::SimTime;
use seedfall_engine::Instance;
use std::any::Any;
use std::cell::Ref;

/// A watcher of one run. Every hook does nothing unless the probe says
/// otherwise; hooks come in the order the world does things.
pub trait Probe: Any + Send {
    /// The run begins, before any node boots.
    fn begin(&mut self, _world: &View) {}

    /// `World::step` is over: whatever that step recorded is in the view.
    fn stepped(&mut self, _world: &View) {}

    /// Node incarnation `who` ran (a scheduler step, or its goroutine dump
    /// at a deadlock) and printed `stdout` and `stderr` meanwhile.
    fn ran(&mut self, _world: &View, _who: &Who, _stdout: &[u8], _stderr: &[u8]) {}

    /// `who` told the world something through the SDK.
    fn report(&mut self, _world: &View, _who: &Who, _report: &Report) {}

    /// `who`'s machine crashed as `fault` (just recorded: the last of
    /// `View::faults`); `report` is what its disk had pending and kept.
    fn crash(&mut self, _world: &View, _who: &Who, _fault: &Fault, _report: &CrashReport) {}

    /// `who`'s incarnation ends (it exited, crashed, or the run ended with
    /// it up): its instance as it stands, before it is let go.
    fn incarnation_ended(&mut self, _world: &View, _who: &Who, _instance: &Instance<Node>) {}

    /// Lines `seedfall replay` prints after the run (none by default).
    fn summary(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What a probe may read of the world.
pub struct View<'v, 'a> {
    pub(super) world: &'v World<'a>,
}

impl View<'_, '_> {
    pub fn spec(&self) -> &RunSpec {
        self.world.spec
    }

    /// Node `id`'s program.
    pub fn program(&self, id: NodeId) -> &NodeProgram {
        &self.world.spec.programs[id.index()]
    }

    /// The virtual time now.
    pub fn now(&self) -> SimTime {
        self.world.now()
    }

    /// Scheduler steps done so far.
    pub fn steps(&self) -> u64 {
        self.world.steps
    }

    /// The faults recorded so far, in the order they were recorded.
    pub fn faults(&self) -> &[Fault] {
        self.world.rec.faults()
    }

    /// Host calls made so far by every node, preemption hooks included
    /// (the watchdog's count).
    pub fn host_calls(&self) -> u64 {
        self.world.progress.host_calls()
    }

    /// The network as it stands.
    pub fn net(&self) -> Ref<'_, Net> {
        self.world.net.borrow()
    }
}

/// The probes watching one run, and after it what they found.
#[derive(Default)]
pub struct Probes(Vec<Box<dyn Probe>>);

impl Probes {
    /// These probes and `probe`.
    pub fn with(mut self, probe: impl Probe) -> Probes {
        self.0.push(Box::new(probe));
        self
    }

    /// The probe of type `P`, if one is installed.
    pub fn get<P: Probe>(&self) -> Option<&P> {
        self.0.iter().find_map(|p| (p.as_ref() as &dyn Any).downcast_ref::<P>())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every probe's `summary` lines, in the order they were installed.
    pub fn summaries(&self) -> Vec<String> {
        self.0.iter().flat_map(|p| p.summary()).collect()
    }

    pub(super) fn each(&mut self, mut hook: impl FnMut(&mut dyn Probe)) {
        for probe in &mut self.0 {
            hook(probe.as_mut());
        }
    }
}
