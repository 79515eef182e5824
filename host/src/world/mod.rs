//! The simulated world: service nodes and a workload on one virtual clock,
//! one network, each node with its own disk; fault kinds; verdicts.
//!
//! Scheduling. Exactly one node runs at a time. Each parked node has a
//! wake-up time: its timer, or when the network makes one of the sockets it
//! waits on ready (`Node::waits`); a node that is down has its boot time.
//! `World::step` does the earliest thing: a fault kind's planned action
//! (on a tie, before any node runs), else the earliest node, ties going to a
//! seeded draw (the "schedule" stream, drawn only when there is a tie). When
//! nothing is runnable virtual time jumps to the next event; a run ends when
//! the workload exits, at `duration` (`horizon`), at the first failure, or in
//! deadlock: no node can wake, no fault kind has anything planned and
//! nothing is in flight.
//!
//! Faults start when the workload calls `sim.SetupComplete()`, or at time 0
//! if its module does not import `seedfall.setup_complete`
//! (`fault::FaultInjector` keeps the phases). The workload itself is never
//! crashed and its disk has no durability model.
//!
//! The liveness phase (`RunSpec::liveness`, and always before a `finally`
//! check runs): at `duration`, or when the workload is done and a finally
//! check is configured, faults stop for good, partitions heal, paused nodes
//! resume and crashed nodes restart at once; the workload and then the
//! finally check must be done within the window, else verdict `liveness`.
//!
//! After the run, the history checks (`history_check.rs`) may turn a pass
//! or a horizon into a failure or add to one; then the silent-pass rules
//! (`silent.rs`: `crash_loop`, `no_progress`) may turn what is still a pass
//! or a horizon into a failure.
//!
//! Determinism: no hash map is iterated, the real clock is read only for
//! the timings (never hashed), and everything the trace hash covers goes
//! through one event stream (`event::Recorder`).

#[cfg(test)]
mod abi_proptests;
pub mod divergence;
mod effects;
pub mod event;
pub mod fault;
pub mod history_check;
#[cfg(test)]
mod history_tests;
mod net_hint;
mod plan;
pub mod probe;
#[cfg(test)]
mod probe_tests;
pub mod probes;
mod role;
pub mod silent;
mod slot;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod time_tests;
#[cfg(test)]
mod udp_tests;
pub mod verdict;

pub use crate::knob::{FaultConfig, RATE_PER_SEC_MAX, RATE_PER_SEC_MIN};
pub use fault::{Fault, Kind, Target};
pub use probe::{Probe, Probes, View};
pub use probes::NodeFunctions;
pub use role::Role;
pub use verdict::{Class, Failure, Properties, PropertySeen, Verdict};

use crate::branch::{self, Branch, Lineage};
use crate::clock::VirtualClock;
use crate::history::History;
use crate::net::{Net, NetConfig, ip};
use crate::node::{self, Node, Perturb, Report};
use crate::node_id::{NodeId, PerNode};
use crate::preempt::goruntime::GoOffsets;
use crate::preempt::strategy::PreemptConfig;
use crate::random::{Purpose, RandomStream};
use crate::trace::{HashLog, LogEntry, Position, SharedLog, TraceHash};
use crate::vtime::{self, SimDuration, SimTime};
use crate::watchdog::{Progress, Watchdog};
use crate::{preempt, sdk, wasi};
use event::{Event, Recorder};
use fault::{FaultInjector, Recorded, Trigger};
use history_check::LinOutcome;
use seedfall_engine::{Code, Linker, Run, TrapKind};
use slot::{BootContext, Slot, State};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The status Go's runtime exits with after a panic or a fatal error.
const GO_PANIC_STATUS: i32 = 2;

/// How long a supervised node stays down after it exits with an error
/// (systemd's default RestartSec).
pub const SUPERVISE_RESTART: SimDuration = SimDuration::from_ns(100_000_000);

/// The watchdog's real-time limit of a `RunSpec::new`.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(10);

/// The liveness window of a finally check when the config sets no `liveness`.
pub const FINALLY_WITHIN: SimDuration = SimDuration::from_ns(30_000_000_000);

/// One program of the cluster, ready to instantiate.
pub struct NodeProgram {
    pub name: String,
    pub code: Arc<Code>,
    /// The instrumentation's counter global (None: not instrumented).
    pub counter_global: Option<u32>,
    pub go_offsets: Option<GoOffsets>,
    /// Go's names and lines of `code`, read when a preemption point names its function.
    pub symbols: crate::gosym::SharedSymbols,
    pub args: Vec<String>,
    /// `KEY=VALUE` strings.
    pub env: Vec<String>,
    pub role: Role,
    /// (host directory, guest path): read-through mounts in every new disk
    /// (`seedfall test` mounts the package directory); writes stay in memory.
    pub mounts: Vec<(std::path::PathBuf, String)>,
}

impl NodeProgram {
    /// A service (faulted, crashable), not the workload or the finally check.
    pub fn is_service(&self) -> bool {
        matches!(self.role, Role::Service { .. })
    }

    pub fn supervise(&self) -> bool {
        self.role == Role::Service { supervise: true }
    }

    /// Whether the module imports `seedfall.setup_complete` (then faults
    /// wait for the call).
    pub fn imports_setup_complete(&self) -> bool {
        self.imports_sdk("setup_complete")
    }

    /// Whether the module imports the SDK's call `name` (Go's linker keeps
    /// only the imports of functions the program can reach).
    pub fn imports_sdk(&self, name: &str) -> bool {
        self.code.info().imports.iter().any(|i| i.module == sdk::MODULE && i.name == name)
    }
}

/// Everything one run needs.
pub struct RunSpec {
    pub seed: u64,
    /// Services in config order, then the workload, then the finally check if any.
    pub programs: Vec<NodeProgram>,
    pub duration: SimDuration,
    /// The liveness window after `duration` (None: the run ends there as `horizon`).
    pub liveness: Option<SimDuration>,
    pub watchdog: Duration,
    /// Each node's linear-memory cap in bytes (config `memory`).
    pub memory_bytes: u64,
    pub preempt: PreemptConfig,
    /// The config's `faults`: every fault kind's and model's settings.
    pub faults: FaultConfig,
    /// `seedfall mutate`: the durability promise every service's disk breaks.
    pub mutant: Option<crate::fs::Mutant>,
    /// Shrink's cap on `sim.Budget`.
    pub budget_cap: Option<u64>,
    /// Replay exactly these faults instead of drawing them from the seed.
    pub schedule: Option<Vec<Fault>>,
    /// Where this run leaves the seed's randomness for new streams (a
    /// schedule's `branches`, in step order). Faults still come from
    /// `schedule`: this re-keys the random streams only.
    pub branches: Vec<Branch>,
    /// Log every event with its digest (`-check`, `replay --save-trace`).
    pub hash_log: bool,
    /// A test hook: make node incarnation (name, k) differ on purpose.
    pub perturb: Option<(String, u32, Perturb)>,
    /// Check the `sim.Put`/`Get`/`Invoke` history against this model after the run (config `linearizable`).
    pub linearizable: Option<seedfall_check::Model>,
    /// Check the `sim.Txn` history against this level after the run (config `isolation`).
    pub isolation: Option<seedfall_check::txn::Isolation>,
    /// `seedfall crashstates`: the crash this run's schedule places keeps
    /// the given prefixes of pending writes instead of drawing them.
    pub crash_into: Option<CrashInto>,
    /// Config `net_overlay`: every node's file system gets `/etc/hosts`
    /// naming each node's simulated IP (`net::ip`) and an nsswitch.conf
    /// that keeps Go's resolver to it.
    pub net_overlay: bool,
}

impl RunSpec {
    /// A run of `programs` from `seed` for `duration` with nothing else
    /// asked: no fault configured, no liveness phase, no history check,
    /// the default watchdog, memory cap and preemption.
    pub fn new(seed: u64, programs: Vec<NodeProgram>, duration: SimDuration) -> RunSpec {
        RunSpec {
            seed,
            programs,
            duration,
            liveness: None,
            watchdog: DEFAULT_WATCHDOG,
            memory_bytes: wasi::DEFAULT_MEMORY_BYTES,
            preempt: PreemptConfig::default(),
            faults: FaultConfig::default(),
            mutant: None,
            budget_cap: None,
            schedule: None,
            branches: Vec::new(),
            hash_log: false,
            perturb: None,
            linearizable: None,
            isolation: None,
            crash_into: None,
            net_overlay: false,
        }
    }
}

/// A crash of `node` at its disk operation `op` (a `crash_io` fault of the
/// schedule) whose choices of what survives are `prefixes`, one per choice
/// in the order the crash makes them (`fs::CrashSpace`).
#[derive(Clone, Debug)]
pub struct CrashInto {
    pub node: String,
    pub op: u64,
    pub prefixes: Vec<crate::fs::Prefix>,
}

impl CrashInto {
    /// Whether `fault`, a crash of node `node`, is the one this places.
    pub fn places(&self, node: &str, fault: &Fault) -> bool {
        self.node == node && fault.op == Some(self.op) && fault.kind.trigger() == Trigger::DiskOp
    }
}

/// Where the real time of a run went.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTimings {
    /// Instantiating nodes (not Go's runtime init, which is guest time).
    pub boot: Duration,
    /// Running guests, host calls included.
    pub guest: Duration,
    /// The part of `guest` from `_start` to each incarnation's first park
    /// (Go's runtime init and main's start): with `boot`, what a boot costs.
    pub init: Duration,
    pub total: Duration,
    pub boots: u32,
    pub host_calls: u64,
}

pub struct RunResult {
    pub verdict: Verdict,
    /// Virtual time since the start when the run ended.
    pub end: SimTime,
    pub steps: u64,
    pub trace_hash: TraceHash,
    pub faults: Vec<Fault>,
    pub properties: Properties,
    pub timings: RunTimings,
    /// What swarm kept this seed (empty without swarm).
    pub swarm: Vec<fault::swarm::Choice>,
    /// Where the run left its seed's randomness (`RunSpec::branches`, then
    /// `World::branch`), for the schedule it saves.
    pub branches: Vec<Branch>,
    /// Every event with its digest, when `RunSpec::hash_log` asked for it.
    pub hash_log: Option<Vec<LogEntry>>,
    /// What the SDK recorded with `sim.Put`/`Get`/`Invoke` and `sim.Txn`.
    pub history: History,
    /// The linearizability check's outcome, when the config asks for one.
    pub linearizability: Option<LinOutcome>,
    /// What the probes the run was watched by found (`probe.rs`).
    pub probes: Probes,
}

/// How many timers a deadlocked node's dump of its goroutines may sleep
/// through before the run ends anyway.
const DUMP_WAKES: usize = 64;

/// Runs one seed. `log`, when given, receives the full trace as text: boots,
/// faults, exits and every line the nodes print, prefixed by node#k and
/// virtual time (`seedfall replay`).
pub fn run<'a>(spec: &'a RunSpec, log: Option<&'a mut dyn Write>) -> Result<RunResult, seedfall_engine::Error> {
    World::new(spec, log).run()
}

/// `run`, watched by `probes` (`RunResult::probes` has what they found).
pub fn run_probed<'a>(
    spec: &'a RunSpec,
    log: Option<&'a mut dyn Write>,
    probes: Probes,
) -> Result<RunResult, seedfall_engine::Error> {
    World::probed(spec, log, probes).run()
}

/// One run, steppable: `World::new`, then `step` until it returns a
/// verdict, then `finish`; or `run` for all of it.
pub struct World<'a> {
    spec: &'a RunSpec,
    rec: Recorder<'a>,
    clock: VirtualClock,
    net: Rc<RefCell<Net>>,
    history: Rc<RefCell<History>>,
    linker: seedfall_engine::Linker<crate::node::Node>,
    progress: Progress,
    slots: PerNode<Slot<'a>>,
    injector: FaultInjector,
    /// Ties between nodes due at the same instant.
    schedule: RandomStream,
    hash_log: Option<SharedLog>,
    steps: u64,
    properties: Properties,
    failures: Vec<Failure>,
    timings: RunTimings,
    started: Instant,
    watchdog: Option<Watchdog>,
    /// The liveness phase, once it began.
    recovery: Option<Recovery>,
    /// Toward the silent-pass verdicts: a crash loop, a `sim.Progress` call.
    silent: silent::Silent,
    /// How much of the network's datagram fault log is recorded already.
    datagram_faults_seen: usize,
    /// The branches taken so far, folded (the random streams follow it).
    lineage: Lineage,
    branches: Vec<Branch>,
    /// Branches not reached yet, in step order, each with whether the fault
    /// kinds draw anew there (`branch_before`) or not (`RunSpec::branches`,
    /// whose faults the schedule holds).
    pending_branches: std::collections::VecDeque<(Branch, bool)>,
    /// What watches the run (`probe.rs`): never read by the world.
    probes: Probes,
}

/// The liveness phase of a run.
#[derive(Clone, Copy)]
struct Recovery {
    began: SimTime,
    deadline: SimTime,
}

/// What the world does next.
enum Next {
    Step(NodeId),
    Boot(NodeId),
    /// Fault kind number `k` acts.
    Fault(usize),
}

/// How an incarnation ends.
enum End {
    /// The process exited (descriptors close, the page cache stays); the
    /// slot is then `Stopped` or `Down` (supervised).
    Exit(State),
    /// The machine crashed: `fault` is what the schedule records.
    Crash { fault: Box<Fault>, downtime: SimDuration, how: String },
    /// The run ended with it up.
    Retired,
}

/// What a node of the world links against: every WASI call, the seedfall
/// SDK and the preemption hook, memory capped at `memory_bytes`.
pub(crate) fn linker(memory_bytes: u64) -> Linker<Node> {
    let mut linker = wasi::linker();
    linker.set_memory_cap_bytes(memory_bytes);
    preempt::hook::register(&mut linker);
    sdk::register(&mut linker);
    linker
}

impl<'a> World<'a> {
    pub fn new(spec: &'a RunSpec, log: Option<&'a mut dyn Write>) -> World<'a> {
        let seed = spec.seed;
        let net_config = NetConfig::from_knobs(&spec.faults);
        let mut net = Net::new(net_config, RandomStream::new(seed, Purpose::NetLatency, "", 0));
        let mut slots: PerNode<Slot> = spec.programs.iter().map(Slot::new).collect();
        for (id, p) in slots.ids().zip(&spec.programs) {
            assert_eq!(net.add_node(&p.name), id, "the network numbers nodes in the slots' order");
        }
        let linker = linker(spec.memory_bytes);
        let names: PerNode<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
        let faultable: PerNode<bool> = spec.programs.iter().map(NodeProgram::is_service).collect();
        let injector = FaultInjector::new(seed, &spec.faults, &names, &faultable, spec.schedule.as_deref());
        for id in slots.ids() {
            slots[id].replay_disk = injector.disk_replay(id);
            slots[id].replay_preempt = injector.preempt_points(id);
        }
        let latency = (net_config.latency_min, net_config.latency_max);
        let datagrams = fault::udp::policy(seed, injector.config(), latency, &names, spec.schedule.as_deref());
        net.set_datagram_faults(datagrams.gated(injector.gate()));
        let hash_log: Option<SharedLog> = spec.hash_log.then(|| Rc::new(RefCell::new(HashLog::default())));
        let mut rec = Recorder::new(log);
        rec.trace.log = hash_log.clone();
        if !injector.swarm().is_empty() {
            rec.say(SimTime::ZERO, &fault::swarm::describe(injector.swarm()));
        }
        if let Some(header) = spec.preempt.header() {
            rec.say(SimTime::ZERO, &header);
        }
        if spec.net_overlay {
            rec.say(SimTime::ZERO, &ip::trace_header(spec.programs.iter().map(|p| p.name.as_str())));
        }
        let mut world = World {
            spec,
            rec,
            clock: VirtualClock::default(),
            net: Rc::new(RefCell::new(net)),
            history: Rc::default(),
            linker,
            progress: Progress::default(),
            slots,
            injector,
            schedule: RandomStream::new(seed, Purpose::Schedule, "", 0),
            hash_log,
            steps: 0,
            properties: Properties::new(),
            failures: Vec::new(),
            timings: RunTimings::default(),
            started: now(),
            watchdog: None,
            recovery: None,
            silent: silent::Silent::default(),
            datagram_faults_seen: 0,
            lineage: Lineage::default(),
            branches: Vec::new(),
            pending_branches: spec.branches.iter().map(|b| (*b, false)).collect(),
            probes: Probes::default(),
        };
        let workload_waits =
            world.slots.iter().any(|s| s.program.role == Role::Workload && s.program.imports_setup_complete());
        if !workload_waits {
            world.injector.start(SimTime::ZERO);
        }
        world
    }

    /// `new`, watched by `probes`.
    pub fn probed(spec: &'a RunSpec, log: Option<&'a mut dyn Write>, probes: Probes) -> World<'a> {
        let mut world = World::new(spec, log);
        world.probes = probes;
        world.tell(|p, w| p.begin(w));
        world
    }

    fn now(&self) -> SimTime {
        self.clock.now()
    }

    /// Calls `hook` on every probe with a view of the world.
    fn tell(&mut self, mut hook: impl FnMut(&mut dyn Probe, &View)) {
        if self.probes.is_empty() {
            return;
        }
        let mut probes = std::mem::take(&mut self.probes);
        let view = View { world: self };
        probes.each(|p| hook(p, &view));
        self.probes = probes;
    }

    /// Runs to the end.
    pub fn run(mut self) -> Result<RunResult, seedfall_engine::Error> {
        let verdict = loop {
            if let Some(verdict) = self.step()? {
                break verdict;
            }
        };
        Ok(self.finish(verdict))
    }

    /// Does the next thing (a fault, a boot, a node's step); a verdict when
    /// the run is over.
    pub fn step(&mut self) -> Result<Option<Verdict>, seedfall_engine::Error> {
        let stepped = self.step_once();
        self.tell(|p, w| p.stepped(w));
        stepped
    }

    fn step_once(&mut self) -> Result<Option<Verdict>, seedfall_engine::Error> {
        let _lineage = branch::enter(self.lineage);
        if self.watchdog.is_none() {
            self.watchdog = Some(Watchdog::start(self.progress.clone(), self.spec.watchdog));
        }
        if !self.failures.is_empty() {
            return Ok(Some(Verdict::Fail(std::mem::take(&mut self.failures))));
        }
        let Some((at, next)) = self.next() else {
            let message =
                format!("deadlock: every node is blocked and nothing is pending ({})", self.blocked_summary());
            self.dump_goroutines()?;
            let failure = Failure {
                class: Class::Deadlock,
                node: "world".into(),
                incarnation: 0,
                property: None,
                message,
                at_ns: None,
            };
            return Ok(Some(Verdict::Fail(vec![failure])));
        };
        match self.recovery {
            Some(recovery) if at > recovery.deadline => {
                self.clock.advance_to(recovery.deadline);
                return Ok(Some(self.too_late(recovery)));
            }
            Some(_) => {}
            None => {
                let horizon = SimTime::ZERO.plus(self.spec.duration);
                if at > horizon {
                    self.clock.advance_to(horizon);
                    let Some(within) = self.spec.liveness else { return Ok(Some(Verdict::Horizon)) };
                    self.begin_recovery(within);
                    return Ok(None);
                }
            }
        }
        self.clock.advance_to(at);
        self.net.borrow_mut().advance(self.now());
        match next {
            Next::Step(id) => self.step_node(id),
            Next::Boot(id) => match self.boot(id) {
                Ok(()) => self.step_node(id),
                // A start function that traps or spins is the guest's failure, not the engine's.
                Err(seedfall_engine::Error::Trap(trap)) => Ok(Some(self.start_failed(id, &trap))),
                Err(e) => Err(e),
            },
            Next::Fault(k) => {
                self.with_kind(k, |planned, world| planned.fire(world));
                Ok(None)
            }
        }
    }

    /// Scheduler steps so far (node resumptions: where a `Branch` is placed).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The virtual time now.
    pub fn clock(&self) -> SimTime {
        self.now()
    }

    /// The faults recorded so far, in the order they happened.
    pub fn faults_so_far(&self) -> &[Fault] {
        self.rec.faults()
    }

    /// Leaves the seed's course just before scheduler step `step + 1`
    /// (`seedfall cause`): from there every random stream draws from new
    /// numbers keyed by `reseed`, and the fault kinds that draw ahead draw
    /// again, so new faults follow the config. A schedule's faults stay
    /// (they are replayed, not drawn). The run's `branches` record it, so
    /// its saved schedule replays it exactly. Placed by node resumptions,
    /// not by world events: a run drawn from its seed and the replay of
    /// its schedule resume nodes alike, but the drawn run has fault events
    /// the replay lacks (arrivals that found nothing to do).
    /// `branch.boost` multiplies one kind's rate from there on.
    pub fn branch_before(&mut self, branch: Branch) {
        let at = self.pending_branches.partition_point(|(b, _)| b.step <= branch.step);
        self.pending_branches.insert(at, (branch, true));
    }

    /// Takes the branches due before the next scheduler step.
    fn take_due_branches(&mut self) {
        while let Some((branch, redraw)) = self.pending_branches.front().copied().filter(|(b, _)| b.step <= self.steps)
        {
            self.pending_branches.pop_front();
            self.rekey(branch);
            if redraw {
                self.injector.branch(self.now(), branch.boost);
                let disk = fault::disk_config(self.injector.config(), self.spec.mutant);
                for slot in &mut self.slots {
                    if let Some(fs) = slot.fs_mut() {
                        fs.set_disk_config(disk);
                    }
                }
            }
        }
    }

    /// Continues this run in a forked child (`fork::in_child`), branched
    /// as `future` says (its step is this world's next) to its end; `answer` turns the child's result into
    /// the bytes this process gets back. This world is left as it was, to
    /// go on or fork again: a future of `seedfall cause` costs its own steps
    /// only, not a replay of the prefix it shares with the others.
    pub fn fork_branch(
        &mut self,
        future: Branch,
        answer: impl FnOnce(Result<RunResult, seedfall_engine::Error>) -> Vec<u8>,
    ) -> std::io::Result<Vec<u8>> {
        let this: *const World<'a> = self;
        crate::fork::in_child(move || {
            // SAFETY: in the child this copy of the world is moved out once and
            // the original is never used or dropped again: `in_child` leaves the
            // child with `_exit` and never returns to the code that owns `self`.
            let mut world = unsafe { std::ptr::read(this) };
            // The watchdog's thread stayed in the parent: this copy starts its own.
            std::mem::forget(world.watchdog.take());
            world.branch_before(Branch { step: world.steps, ..future });
            answer(world.run())
        })
    }

    /// Moves every random stream to the lineage with `branch`'s reseed
    /// added (this thread's too: `step` set it when it began).
    fn rekey(&mut self, branch: Branch) {
        let (step, reseed) = (self.steps, branch.reseed);
        self.lineage = self.lineage.reseeded(reseed);
        branch::set_current(self.lineage);
        self.branches.push(Branch { step, ..branch });
        let boost = branch.boost.map(|b| format!(", {} x{}", b.kind, b.factor)).unwrap_or_default();
        self.rec.say(self.now(), &format!("branch: new randomness from here (step {step}, reseed {reseed}{boost})"));
    }

    /// Lets kind `k`'s plan act on the world (taken out of the injector meanwhile).
    fn with_kind(&mut self, k: usize, act: impl FnOnce(&mut dyn fault::Planned, &mut World<'a>)) {
        let mut planned = self.injector.take(k);
        act(planned.as_mut(), self);
        self.injector.put(k, planned);
    }

    fn each_kind(&mut self, act: impl Fn(&mut dyn fault::Planned, &mut World<'a>)) {
        for k in 0..self.injector.kinds() {
            self.with_kind(k, &act);
        }
    }

    /// The liveness phase begins now, for `within`: faults stop for good,
    /// every kind ends what it holds, crashed nodes restart now.
    fn begin_recovery(&mut self, within: SimDuration) {
        let now = self.now();
        let recovery = Recovery { began: now, deadline: now.plus(within) };
        self.recovery = Some(recovery);
        self.position(None);
        self.rec.emit(now, Event::Recovery { deadline: recovery.deadline });
        self.injector.stop(now);
        self.each_kind(|planned, world| planned.quiet(world));
        for slot in &mut self.slots {
            if let State::Down { boot_at } = &mut slot.state {
                *boot_at = (*boot_at).min(now);
            }
        }
    }

    /// The liveness verdict: the workload or the finally check was not
    /// done by the deadline.
    fn too_late(&self, recovery: Recovery) -> Verdict {
        let finally = self.slots.position(|s| s.program.role == Role::Finally && s.incarnation > 0);
        let workload = self.slots.position(|s| s.program.role == Role::Workload);
        let id = finally.or(workload).expect("a run has a workload");
        let what = if finally.is_some() { "the finally check" } else { "the workload" };
        let within = recovery.deadline.since(recovery.began);
        let message =
            format!("{what} did not finish within {within} of the liveness phase (which began at {})", recovery.began);
        self.failure(id, Class::Liveness, message)
    }

    /// Ends the run with `verdict`, after the history checks: every
    /// incarnation still up is retired (its final memory hashed) and the
    /// trace hash is taken.
    pub fn finish(mut self, verdict: Verdict) -> RunResult {
        let _lineage = branch::enter(self.lineage);
        drop(self.watchdog.take());
        let end = self.now();
        self.position(None);
        let history = std::mem::take(&mut *self.history.borrow_mut());
        let (linearizability, verdict) = self.check_history(&history, verdict);
        let verdict = self.judge_silent(&history, verdict);
        self.rec.emit(end, Event::End(&verdict));
        for id in self.slots.ids() {
            if self.slots[id].instance.is_some() {
                self.end_incarnation(id, End::Retired);
            }
        }
        if self.spec.preempt.records_points() {
            // Not hashed: the counts are in every incarnation's trace already.
            for slot in self.slots.iter().filter(|s| s.program.counter_global.is_some()) {
                let line = format!(
                    "pct: {} ran {} counted calls, change points fired: {}",
                    slot.name(),
                    slot.counted_ran,
                    slot.points_fired
                );
                self.rec.say(end, &line);
            }
        }
        self.timings.total = self.started.elapsed();
        self.timings.host_calls = self.progress.host_calls();
        let swarm = self.injector.swarm().to_vec();
        let (trace, faults) = self.rec.into_parts();
        let hash_log = self.hash_log.map(|log| std::mem::take(&mut log.borrow_mut().entries));
        RunResult {
            verdict,
            end,
            steps: self.steps,
            trace_hash: trace.finish(&[], &[], None),
            faults,
            properties: self.properties,
            timings: self.timings,
            swarm,
            branches: std::mem::take(&mut self.branches),
            hash_log,
            history,
            linearizability,
            probes: std::mem::take(&mut self.probes),
        }
    }

    /// The config's history checks: their failures join the verdict (a
    /// pass becomes a failure), and replay says what they found.
    fn check_history(&mut self, history: &History, verdict: Verdict) -> (Option<LinOutcome>, Verdict) {
        if self.spec.linearizable.is_none() && self.spec.isolation.is_none() {
            return (None, verdict);
        }
        let (lin, found) = history_check::check(history, self.spec.linearizable, self.spec.isolation);
        let said = match &lin {
            None => None,
            Some(LinOutcome::Linearizable { steps }) => Some(format!("linearizable ({steps} search steps)")),
            Some(LinOutcome::NotLinearizable(_)) => Some("not linearizable".to_string()),
            Some(LinOutcome::Unknown { keys }) => Some(format!(
                "unknown: the search budget of {} steps ran out on keys {keys:?}",
                history_check::LIN_STEP_BUDGET
            )),
            Some(LinOutcome::Invalid(_)) => Some("cannot be checked".to_string()),
        };
        let line = format!(
            "history: {} operations, {} transactions{}",
            history.ops.len(),
            history.txns.len(),
            said.map_or(String::new(), |s| format!("; {s}"))
        );
        self.rec.say(self.now(), &line);
        let verdict = match verdict {
            _ if found.is_empty() => verdict,
            Verdict::Fail(mut failures) => {
                failures.extend(found);
                Verdict::Fail(failures)
            }
            Verdict::Pass | Verdict::Horizon => Verdict::Fail(found),
        };
        (lin, verdict)
    }

    /// The silent-pass rules (`silent.rs`) on the verdict the history
    /// checks left.
    fn judge_silent(&self, history: &History, verdict: Verdict) -> Verdict {
        let workload = self.slots.iter().find(|s| s.program.role == Role::Workload).expect("a run has a workload");
        let workload = silent::Workload {
            name: workload.name(),
            incarnation: workload.incarnation,
            imports_progress: workload.program.imports_sdk("progress"),
        };
        let slots = &self.slots;
        let longest = |name: &str| slots.iter().find(|s| s.name() == name).map_or(0, |s| s.boot_ends.longest());
        self.silent.judge(verdict, longest, &workload, history)
    }

    /// The earliest thing to happen, or None in deadlock.
    fn next(&mut self) -> Option<(SimTime, Next)> {
        let now = self.now();
        // Faults first: on a tie they happen before any node runs.
        let fault = self.injector.next().map(|(at, k)| (at.max(now), Next::Fault(k)));
        let mut earliest: Option<SimTime> = None;
        let mut tied: Vec<NodeId> = Vec::new();
        for id in self.slots.ids() {
            let Some(at) = self.wake(id, now) else { continue };
            match earliest {
                Some(t) if at > t => {}
                Some(t) if at == t => tied.push(id),
                _ => {
                    earliest = Some(at);
                    tied = vec![id];
                }
            }
        }
        if fault.as_ref().is_some_and(|(at, _)| earliest.is_none_or(|t| *at <= t)) {
            return fault;
        }
        let Some(at) = earliest else {
            // Nothing can wake a node now; something in flight may change that.
            let in_flight = self.net.borrow_mut().next_event_any(now);
            return match in_flight {
                Some(t) => {
                    self.clock.advance_to(t);
                    self.net.borrow_mut().advance(t);
                    self.next()
                }
                None => None,
            };
        };
        let pick = if tied.len() > 1 { tied[self.schedule.below(tied.len() as u64) as usize] } else { tied[0] };
        let next =
            if matches!(self.slots[pick].state, State::Down { .. }) { Next::Boot(pick) } else { Next::Step(pick) };
        Some((at, next))
    }

    /// When node `id` can next run: its boot time, or the earliest of its
    /// timer and the readiness of what it waits on.
    fn wake(&self, id: NodeId, now: SimTime) -> Option<SimTime> {
        let slot = &self.slots[id];
        match slot.state {
            State::Stopped => None,
            State::Down { boot_at } => Some(boot_at.max(now)),
            State::Up { timer, .. } => {
                let node = slot.node();
                let timer = timer.map(|t| t.max(now));
                let wake = node.waits.iter().filter_map(|w| wasi::sock::ready_at(node, *w, now)).chain(timer).min();
                // A paused node wakes no earlier than its pause's end.
                wake.map(|at| at.max(slot.paused_until))
            }
        }
    }

    fn blocked_summary(&self) -> String {
        let parts: Vec<String> = self
            .slots
            .iter()
            .filter(|s| matches!(s.state, State::Up { .. }))
            .map(|s| format!("{}#{} waits on {}", s.name(), s.incarnation, describe_waits(s.node())))
            .collect();
        parts.join("; ")
    }

    /// At a deadlock: every Go node parked in poll_oneoff is woken once with
    /// a failing poll, so its runtime prints every goroutine's stack (the
    /// replay shows them) and exits. Only deadlocked runs pay for it.
    fn dump_goroutines(&mut self) -> Result<(), seedfall_engine::Error> {
        for id in self.slots.ids() {
            let State::Up { started: true, .. } = self.slots[id].state else { continue };
            let node = self.slots[id].node();
            if node.goroutines.is_none() || node.waits.is_empty() {
                continue;
            }
            let who = self.slots[id].who(id);
            self.rec.say(self.now(), &format!("{who}: deadlocked; its goroutines:"));
            self.position(Some(id));
            let instance = self.slots[id].instance.as_mut().expect("up");
            instance.data_mut().dump_goroutines = true;
            if let Some(index) = instance.data().preempt.as_ref().map(|p| p.counter_global()) {
                // SAFETY: as in `step_node`: retiring the instance unwatches the counter first.
                unsafe { self.progress.watch_counter(instance.global_ptr(index).expect("the counter global")) };
            }
            // Go's throw sleeps a few times (freezetheworld) before it prints
            // the stacks and exits: wake it at each timer, on its own clock
            // (the verdict keeps the deadlock's time), a bounded number of times.
            for _ in 0..DUMP_WAKES {
                let Run::Suspended(parked) = instance.resume(0)? else { break };
                let Some(at) = node::woken_at(parked) else { break };
                instance.data_mut().clock.advance_to(at);
            }
            self.progress.clear_stop();
            self.forward_output(id);
        }
        Ok(())
    }

    /// Where the events logged from now on happen (`None`: the world's own).
    fn position(&mut self, node: Option<NodeId>) {
        let Some(log) = &self.hash_log else { return };
        let node = match node {
            Some(id) => format!("{}#{}", self.slots[id].name(), self.slots[id].incarnation),
            None => "world".into(),
        };
        log.borrow_mut().position = Position { step: self.steps, at_ns: self.now().ns(), node };
    }

    fn boot(&mut self, id: NodeId) -> Result<(), seedfall_engine::Error> {
        let gate = self.injector.gate();
        let ctx = BootContext {
            seed: self.spec.seed,
            linker: &self.linker,
            net: &self.net,
            history: &self.history,
            progress: &self.progress,
            preempt: &self.spec.preempt,
            disk: fault::disk_config(self.injector.config(), self.spec.mutant),
            disk_latency: self.spec.faults.range(&crate::fs::knobs::DISK_LATENCY),
            disk_bytes: self.spec.faults.whole(&crate::fs::knobs::DISK_BYTES),
            gate: &gate,
            budget_cap: self.spec.budget_cap,
            hash_log: self.hash_log.as_ref(),
            perturb: self.spec.perturb.as_ref(),
            hosts: self.spec.net_overlay.then(|| ip::hosts_file(self.spec.programs.iter().map(|p| p.name.as_str()))),
            file_ops: self.rec.logging(),
        };
        let started = now();
        self.slots[id].boot(id, &ctx, &self.clock)?;
        self.timings.boot += started.elapsed();
        self.timings.boots += 1;
        self.position(Some(id));
        let who = self.slots[id].who(id);
        self.rec.emit(self.now(), Event::Boot(&who));
        self.each_kind(|planned, world| planned.boot(id, world));
        Ok(())
    }

    /// Resumes node `id` until it parks or ends, then deals with what it did.
    fn step_node(&mut self, id: NodeId) -> Result<Option<Verdict>, seedfall_engine::Error> {
        self.take_due_branches();
        self.steps += 1;
        self.injector.update_gate(self.now());
        self.position(Some(id));
        let who = self.slots[id].who(id);
        self.rec.emit(self.now(), Event::Step(&who, self.steps));
        let State::Up { started, .. } = self.slots[id].state else { unreachable!("only up nodes step") };
        let clock = self.clock.with_wall_offset(self.slots[id].wall_offset_ns);
        let instance = self.slots[id].instance.as_mut().expect("up");
        instance.data_mut().clock = clock;
        if let Some(index) = instance.data().preempt.as_ref().map(|p| p.counter_global()) {
            // SAFETY: the instance stays in its slot until it is retired,
            // and every retirement (`end_incarnation`) unwatches the counter first.
            unsafe { self.progress.watch_counter(instance.global_ptr(index).expect("the counter global")) };
        }
        let started_at = now();
        let run = if started { instance.resume(0)? } else { instance.call("_start", &[])? };
        if let (Run::Suspended(parked), Some(log)) = (&run, &self.hash_log) {
            // What it parked on, on the last event it logged (never hashed).
            let on = instance.data().parked_on(node::woken_at(*parked), instance.data().clock.now());
            if let Some(last) = log.borrow_mut().entries.last_mut() {
                last.block = Some(on);
            }
        }
        self.progress.clear_stop();
        let ran = started_at.elapsed();
        self.timings.guest += ran;
        if !started {
            self.timings.init += ran;
        }
        // The world's clock is true time: only the monotonic reading comes back.
        self.clock.advance_to(instance.data().clock.now());
        self.net.borrow_mut().advance(self.now());

        // Points fired before whatever the node printed in this step.
        self.record_preemptions(id);
        self.record_datagram_faults();
        self.forward_output(id);
        self.take_reports(id);
        if !self.failures.is_empty() {
            return Ok(None);
        }
        if self.record_disk_faults(id) {
            return Ok(None);
        }
        match run {
            Run::Suspended(parked) => {
                self.slots[id].state = State::Up { timer: node::woken_at(parked), started: true };
                Ok(None)
            }
            Run::Returned(_) => Ok(self.exited(id, 0)),
            Run::Exited(code) => Ok(self.exited(id, code)),
            Run::Trapped(trap) => {
                let busy = self.slots[id].node_mut().busy_loop.take();
                let (class, message) = match busy {
                    Some(detail) => {
                        let place = trap.func_name.as_deref().map_or(String::new(), |f| format!(" in {f}"));
                        (Class::Liveness, format!("{detail}{place}"))
                    }
                    None if trap.kind == TrapKind::Interrupted => {
                        let limit = vtime::go_duration(self.spec.watchdog.as_nanos() as u64);
                        let message =
                            format!("stopped by the watchdog after {limit} of CPU time without yielding: {trap}");
                        (Class::Watchdog, message)
                    }
                    None => (Class::Trap, format!("trapped: {trap}")),
                };
                Ok(self.ended(id, class, message, true))
            }
        }
    }

    /// Records the disk faults node `id`'s disk injected since last time;
    /// true if one of them crashed the node (then it is down).
    fn record_disk_faults(&mut self, id: NodeId) -> bool {
        let slot = &mut self.slots[id];
        let log = slot.node().fs.disk_faults();
        let new: Vec<_> = log[slot.disk_faults_seen..].to_vec();
        slot.disk_faults_seen = log.len();
        let name = slot.name().to_string();
        let at = self.now();
        for disk_fault in new {
            match self.injector.disk_fault(id, &name, at, &disk_fault) {
                Some(Recorded::Happened { fault, line }) => {
                    self.rec.emit(at, Event::Fault { fault, line: Some(line) });
                }
                Some(Recorded::Crash { fault, downtime, how }) => {
                    self.end_incarnation(id, End::Crash { fault: Box::new(fault), downtime, how });
                    return true;
                }
                None => unreachable!("every disk fault belongs to a kind: {disk_fault}"),
            }
        }
        false
    }

    /// Records the datagram faults the network injected since last time.
    /// Only a node's send decides one, so after each step is soon enough.
    fn record_datagram_faults(&mut self) {
        let new: Vec<_> = self.net.borrow().datagram_faults().log()[self.datagram_faults_seen..].to_vec();
        if new.is_empty() {
            return;
        }
        self.datagram_faults_seen += new.len();
        let names: PerNode<&str> = self.spec.programs.iter().map(|p| p.name.as_str()).collect();
        for f in &new {
            let fault = fault::udp::recorded(f, &names);
            let line = format!("{} {}: {}", fault.kind.name(), fault.target, fault::udp::effect(&fault));
            self.rec.emit(fault.at, Event::Fault { fault, line: Some(line) });
        }
    }

    /// Prints (replay) what the node wrote, prefixed by node#k and time.
    fn forward_output(&mut self, id: NodeId) {
        let (out, err, dropped) = self.slots[id].take_output();
        let who = self.slots[id].who(id);
        self.tell(|p, w| p.ran(w, &who, &out, &err));
        if !self.rec.logging() {
            return;
        }
        for (at, line) in self.slots[id].take_file_ops() {
            self.rec.say(at, &format!("{who}: {line}"));
        }
        let at = self.now();
        if dropped > 0 {
            let tail = crate::node::CAPTURE_TAIL_BYTES;
            self.rec.say(at, &format!("{who}: {dropped} bytes of output dropped (a step keeps the last {tail} bytes)"));
        }
        self.rec.output(at, &who, &out, false);
        self.rec.output(at, &who, &err, true);
    }

    fn take_reports(&mut self, id: NodeId) {
        let reports = std::mem::take(&mut self.slots[id].node_mut().sim.as_mut().expect("world node").reports);
        let who = self.slots[id].who(id);
        for report in reports {
            let at = self.now();
            self.tell(|p, w| p.report(w, &who, &report));
            match report {
                Report::Property { kind, cond, message } => {
                    let first = !self.properties.contains_key(&message);
                    let seen =
                        self.properties.entry(message.clone()).or_insert(PropertySeen { kind, ever_true: false });
                    let first_true = cond && !seen.ever_true;
                    seen.ever_true |= cond;
                    let line = if kind.fails(cond) {
                        Some(format!("{}: {message}", kind.sdk_name()))
                    } else if first || first_true {
                        // Replay shows each property's first hit, and when it first holds.
                        Some(format!("{} {}: {message}", kind.sdk_name(), if cond { "holds" } else { "reached" }))
                    } else {
                        None
                    };
                    self.rec.emit(at, Event::Property { who: &who, kind, cond, message: &message, line });
                    if kind.fails(cond) {
                        self.failures.push(Failure {
                            class: Class::Property,
                            node: who.name.clone(),
                            incarnation: who.incarnation,
                            property: Some(kind),
                            message,
                            at_ns: None,
                        });
                    }
                }
                Report::Budget { .. } => {}
                Report::SetupComplete => {
                    if !self.injector.started() {
                        self.rec.emit(at, Event::SetupComplete(&who));
                        self.injector.start(at);
                    }
                }
                Report::Progress => self.silent.progress(),
                Report::QuietFor { ns } => {
                    let length = SimDuration::from_ns(ns);
                    self.rec.emit(at, Event::Quiet { who: &who, length });
                    self.injector.begin_quiet(at, at.plus(length));
                    self.each_kind(|planned, world| planned.quiet(world));
                }
            }
        }
    }

    /// Node `id`'s start function trapped (or the watchdog stopped it) while
    /// it was being instantiated: the run fails, supervised or not, since
    /// every boot would do the same.
    fn start_failed(&mut self, id: NodeId, trap: &seedfall_engine::Trap) -> Verdict {
        self.progress.clear_stop();
        let (class, message) = if trap.kind == TrapKind::Interrupted {
            let limit = vtime::go_duration(self.spec.watchdog.as_nanos() as u64);
            (
                Class::Watchdog,
                format!("stopped by the watchdog after {limit} of CPU time in its start function: {trap}"),
            )
        } else {
            (Class::Trap, format!("trapped in its start function: {trap}"))
        };
        let who = self.slots[id].who(id);
        self.rec.emit(self.now(), Event::Exit { who: &who, code: -1, line: message.clone() });
        self.failure(id, class, message)
    }

    /// Node `id` exited with `code`.
    fn exited(&mut self, id: NodeId, code: i32) -> Option<Verdict> {
        let slot = &self.slots[id];
        let last_words = net_hint::with_hint(slot.last_words(), slot, self.spec.net_overlay);
        let role = slot.program.role;
        if matches!(role, Role::Workload | Role::Finally) {
            let who = slot.who(id);
            self.rec.emit(self.now(), Event::Exit { who: &who, code, line: format!("exited with status {code}") });
            if code != 0 {
                return Some(self.failure(
                    id,
                    Class::Workload,
                    with_last_words(format!("exited with status {code}"), last_words),
                ));
            }
            let finally = self.slots.position(|s| s.program.role == Role::Finally);
            return match finally {
                Some(f) if role == Role::Workload => {
                    self.end_incarnation(id, End::Exit(State::Stopped));
                    if self.recovery.is_none() {
                        self.begin_recovery(self.spec.liveness.unwrap_or(FINALLY_WITHIN));
                    }
                    self.slots[f].state = State::Down { boot_at: self.now() };
                    None
                }
                _ => Some(Verdict::Pass),
            };
        }
        if code == 0 {
            let who = self.slots[id].who(id);
            self.rec.emit(self.now(), Event::Exit { who: &who, code, line: "exited with status 0".into() });
            self.end_incarnation(id, End::Exit(State::Stopped));
            return None;
        }
        // A Go panic is a bug, not an exit a supervisor is there for: it
        // fails the run even under supervise (docs/world.md).
        let restartable = !(code == GO_PANIC_STATUS && self.slots[id].go_panic().is_some());
        let message = with_last_words(format!("exited with status {code}"), last_words);
        self.ended(id, Class::Exit, message, restartable)
    }

    /// Node `id` ended abnormally: restarted if supervised and `restartable`,
    /// else a failure.
    fn ended(&mut self, id: NodeId, class: Class, message: String, restartable: bool) -> Option<Verdict> {
        let who = self.slots[id].who(id);
        let code = -1;
        if restartable && self.slots[id].program.supervise() && class != Class::Watchdog {
            let boot_at = self.now().plus(SUPERVISE_RESTART);
            let line = format!("{message}; supervised: restart at {boot_at}");
            self.rec.emit(self.now(), Event::Exit { who: &who, code, line });
            self.boot_ended(id, &message);
            self.end_incarnation(id, End::Exit(State::Down { boot_at }));
            return None;
        }
        self.rec.emit(self.now(), Event::Exit { who: &who, code, line: message.clone() });
        Some(self.failure(id, class, message))
    }

    /// A supervised incarnation of node `id` ended by itself as `how` says:
    /// the end of a crash loop's fifth boot in a row is noted (`silent.rs`);
    /// an end while an injected fault was in force on the node breaks the row.
    fn boot_ended(&mut self, id: NodeId, how: &str) {
        let now = self.now();
        let faulted = silent::faulted(self.rec.faults(), self.slots[id].name(), self.slots[id].booted_at, now);
        let slot = &mut self.slots[id];
        let during_boot = slot.during_boot(now) && !faulted;
        if slot.boot_ends.ended(during_boot) {
            let who = slot.who(id);
            let boots = silent::CRASH_LOOP_BOOTS;
            self.rec.say(now, &format!("{who}: crash loop: {boots} boots in a row ended by themselves during boot"));
            self.silent.crash_loop(&who.name, who.incarnation, now, how);
        }
    }

    fn failure(&self, id: NodeId, class: Class, message: String) -> Verdict {
        let slot = &self.slots[id];
        let (node, incarnation) = (slot.name().to_string(), slot.incarnation);
        let failure = Failure { class, node, incarnation, property: None, message, at_ns: None };
        Verdict::Fail(vec![failure])
    }

    /// The one way an incarnation ends: its preemption points recorded, the
    /// watchdog off its counter, its trace hash folded into the run's, and
    /// what the end does to its disk and network.
    fn end_incarnation(&mut self, id: NodeId, end: End) {
        self.end_counting(id);
        self.progress.unwatch_counter();
        let who = self.slots[id].who(id);
        self.tell(|p, w| {
            let instance = w.world.slots[id].instance.as_ref().expect("an ending incarnation has its instance");
            p.incarnation_ended(w, &who, instance);
        });
        let now = self.now();
        let hash = match end {
            End::Exit(next) => {
                let hash = self.slots[id].exit();
                self.slots[id].state = next;
                hash
            }
            End::Crash { fault, downtime, how } => {
                let given = self.spec.crash_into.as_ref().filter(|c| c.places(self.slots[id].name(), &fault));
                let (hash, report) = {
                    let mut net = self.net.borrow_mut();
                    let prefixes = given.map(|c| c.prefixes.as_slice());
                    let op = fault.op.filter(|_| fault.kind.trigger() == Trigger::DiskOp);
                    self.slots[id].crash(id, self.spec.seed, now, op, &mut net, prefixes)
                };
                self.slots[id].state = State::Down { boot_at: now.plus(downtime) };
                self.slots[id].boot_ends.interrupted();
                self.slots[id].disk_faults_seen = self.slots[id].disk.as_ref().map_or(0, |fs| fs.disk_faults().len());
                self.rec.emit(now, Event::Crash { who: &who, fault: *fault, how, report: &report });
                self.tell(|p, w| p.crash(w, &who, w.faults().last().expect("just recorded"), &report));
                hash
            }
            End::Retired => self.slots[id].retire(),
        };
        self.rec.emit(now, Event::Incarnation(hash));
    }

    /// Records the preemption points node `id`'s running incarnation fired
    /// since last time as faults, numbered in counted calls across its
    /// incarnations, each at the virtual time it fired; called after every
    /// step and when the incarnation ends (which also adds its count to the
    /// slot's base).
    fn record_preemptions(&mut self, id: NodeId) {
        let slot = &mut self.slots[id];
        let who = slot.who(id);
        let base = slot.counted_base;
        let Some(preempt) = slot.node_mut().preempt.as_mut() else { return };
        let fired = std::mem::take(&mut preempt.fired);
        slot.points_fired += fired.len() as u64;
        let program = slot.program;
        for point in fired {
            let op = base + point.counted;
            let site = point.function.and_then(|f| fault::preempt::site(program, f));
            let line = format!(
                "fault preempt {who}'s running goroutine at counted call {op}{}",
                fault::preempt::site_suffix(site.as_deref())
            );
            let fault = fault::preempt::recorded(&who.name, op, point.at, site);
            self.rec.emit(point.at, Event::Fault { fault, line: Some(line) });
        }
    }

    /// The incarnation of node `id` ends: its counted calls move to the base.
    fn end_counting(&mut self, id: NodeId) {
        self.record_preemptions(id);
        let slot = &mut self.slots[id];
        let instance = slot.instance.as_ref().expect("an ending incarnation has its instance");
        let Some(p) = instance.data().preempt.as_ref() else { return };
        let ran = instance.global_get(p.counter_global()).map_or(p.counted(), |counter| p.counted_at(counter));
        slot.counted_base += p.counted();
        slot.counted_ran += ran;
    }
}

/// The real clock, for timings only (never hashed).
#[allow(clippy::disallowed_methods)]
fn now() -> Instant {
    Instant::now()
}

fn with_last_words(message: String, last_words: Option<String>) -> String {
    match last_words {
        Some(line) => format!("{message}: {line}"),
        None => message,
    }
}

fn describe_waits(node: &crate::node::Node) -> String {
    if node.waits.is_empty() {
        return "nothing it can name".into();
    }
    let parts: Vec<String> = node.waits.iter().map(|w| format!("{w:?}")).collect();
    parts.join(", ")
}
