//! The simulated world: service nodes and a workload on one virtual clock,
//! one network, each node with its own disk; planned faults; verdicts.
//!
//! Scheduling. Exactly one node runs at a time. Each parked node has a
//! wake-up time: its timer, or when the network makes one of the sockets it
//! waits on ready (`Node::waits`); a node that is down has its boot time.
//! The world runs the earliest; ties go to a seeded draw (the "schedule"
//! stream), drawn only when there is a tie. Planned faults due at or before
//! that time happen first. When nothing is runnable virtual time jumps to
//! the next event; a run ends when the workload exits, at `duration`
//! (`horizon`), at the first failure, or in deadlock: no node can wake, no
//! boot or planned fault is pending and nothing is in flight.
//!
//! Faults start when the workload calls `sim.SetupComplete()`, or at time 0
//! if its module does not import `seedfall.setup_complete`. The workload
//! itself is never crashed and its disk has no durability model.
//!
//! Determinism: no hash map is iterated, the real clock is read only for
//! the timings (never hashed), and the trace hash covers every scheduler
//! step (node, incarnation, virtual time), every fault, boot and exit, and
//! each incarnation's own trace (host calls with arguments and results,
//! final memory).

mod inject;
mod plan;
pub mod schedule;
mod slot;
pub mod verdict;
pub mod vtime;

pub use plan::FaultConfig;
pub use schedule::{Fault, FaultKind};
pub use verdict::{Class, Failure, Properties, PropertySeen, Verdict};

use crate::clock::{MONOTONIC_START_NS, VirtualClock};
use crate::net::{Net, NetConfig};
use crate::node::Report;
use crate::preempt::goruntime::GoOffsets;
use crate::preempt::strategy::PreemptConfig;
use crate::random::RandomStream;
use crate::watchdog::{Progress, Watchdog};
use crate::{preempt, sdk, wasi};
use plan::Arrivals;
use seedfall_engine::{Code, Run, TrapKind};
use slot::{BootContext, Slot, State};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a supervised node stays down after it exits with an error
/// (systemd's default RestartSec).
pub const SUPERVISE_RESTART_NS: u64 = 100_000_000;

/// One program of the cluster, ready to instantiate.
pub struct NodeProgram {
    pub name: String,
    pub code: Arc<Code>,
    /// The instrumentation's counter global (None: not instrumented).
    pub counter_global: Option<u32>,
    pub go_offsets: Option<GoOffsets>,
    pub args: Vec<String>,
    /// `KEY=VALUE` strings.
    pub env: Vec<String>,
    pub supervise: bool,
    pub workload: bool,
}

impl NodeProgram {
    /// Whether the module imports `seedfall.setup_complete` (then faults
    /// wait for the call).
    pub fn imports_setup_complete(&self) -> bool {
        self.code.info().imports.iter().any(|i| i.module == sdk::MODULE && i.name == "setup_complete")
    }
}

/// Everything one run needs.
pub struct RunSpec {
    pub seed: u64,
    /// Services in config order, then the workload (last).
    pub programs: Vec<NodeProgram>,
    pub duration_ns: u64,
    pub watchdog: Duration,
    pub preempt: PreemptConfig,
    pub faults: FaultConfig,
    pub net: NetConfig,
    /// Shrink's cap on `sim.Budget`.
    pub budget_cap: Option<u64>,
    /// Replay exactly these faults instead of drawing them from the seed.
    pub schedule: Option<Vec<Fault>>,
}

/// Where the real time of a run went.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTimings {
    /// Instantiating nodes (not Go's runtime init, which is guest time).
    pub boot: Duration,
    /// Running guests, host calls included.
    pub guest: Duration,
    pub total: Duration,
    pub boots: u32,
    pub host_calls: u64,
}

pub struct RunResult {
    pub verdict: Verdict,
    /// Virtual time since the start when the run ended.
    pub end_ns: u64,
    pub steps: u64,
    pub trace_hash: String,
    pub faults: Vec<Fault>,
    pub properties: Properties,
    pub timings: RunTimings,
    /// What the workload passed to `sim.Budget` (its default size), if it called it.
    pub budget_default: Option<u64>,
}

/// Runs one seed. `log`, when given, receives the full trace as text: boots,
/// faults, exits and every line the nodes print, prefixed by node#k and
/// virtual time (`seedfall replay`).
pub fn run<'a>(spec: &'a RunSpec, log: Option<&'a mut dyn Write>) -> Result<RunResult, seedfall_engine::Error> {
    World::new(spec, log).run()
}

struct World<'a> {
    spec: &'a RunSpec,
    log: Option<&'a mut dyn Write>,
    clock: VirtualClock,
    net: Rc<RefCell<Net>>,
    linker: seedfall_engine::Linker<crate::node::Node>,
    progress: Progress,
    slots: Vec<Slot<'a>>,
    /// Planned crash arrivals, per slot (None for the workload).
    crashes: Vec<Option<Arrivals>>,
    downtimes: Vec<RandomStream>,
    partitions: Arrivals,
    partition_draws: RandomStream,
    /// The end of the partition in force.
    heal_at_ns: Option<u64>,
    /// Replay: the planned faults of the schedule still to come, in time order.
    planned: std::collections::VecDeque<Fault>,
    /// Replay: the downtime of each crash drawn at a disk operation, by (slot, op).
    op_downtimes: std::collections::BTreeMap<(usize, u64), u64>,
    budget_default: Option<u64>,
    faults_started: bool,
    quiet_until_ns: u64,
    schedule: RandomStream,
    /// The run's own events (steps, faults, boots, each incarnation's hash).
    trace: crate::trace::Trace,
    steps: u64,
    faults: Vec<Fault>,
    properties: Properties,
    failures: Vec<Failure>,
    timings: RunTimings,
}

/// What the world does next.
enum Next {
    Step(usize),
    Boot(usize),
    Crash(usize),
    Partition,
    Heal,
    /// The next fault of a replayed schedule.
    Planned,
}

impl<'a> World<'a> {
    fn new(spec: &'a RunSpec, log: Option<&'a mut dyn Write>) -> World<'a> {
        let seed = spec.seed;
        let mut net = Net::new(spec.net, RandomStream::new(seed, "net latency", "", 0));
        let mut slots: Vec<Slot> = spec.programs.iter().map(|p| Slot::new(p, net.add_node(&p.name))).collect();
        let mut linker = wasi::linker();
        preempt::register(&mut linker);
        sdk::register(&mut linker);
        // A schedule replaces every drawn fault: no arrivals, disk faults by op.
        let (crash_per_sec, partition_per_sec) = match spec.schedule {
            Some(_) => (0.0, 0.0),
            None => (spec.faults.crash_per_sec, spec.faults.partition_per_sec),
        };
        let replay = spec.schedule.as_deref().map(|schedule| {
            let names: Vec<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
            schedule::Replay::new(schedule, &names)
        });
        let (planned, op_downtimes) = match replay {
            Some(replay) => {
                for ((slot, disk), preempt) in slots.iter_mut().zip(replay.disk).zip(replay.preempt) {
                    slot.replay_disk = Some(disk);
                    slot.replay_preempt = Some(preempt);
                }
                (replay.planned, replay.op_downtimes)
            }
            None => Default::default(),
        };
        let crashes = spec
            .programs
            .iter()
            .map(|p| {
                let stream = RandomStream::new(seed, "crash", &p.name, 0);
                (!p.workload).then(|| Arrivals::new(crash_per_sec, stream))
            })
            .collect();
        let downtimes = spec.programs.iter().map(|p| RandomStream::new(seed, "crash downtime", &p.name, 0)).collect();
        World {
            spec,
            log,
            clock: VirtualClock::default(),
            net: Rc::new(RefCell::new(net)),
            linker,
            progress: Progress::default(),
            slots,
            crashes,
            downtimes,
            partitions: Arrivals::new(partition_per_sec, RandomStream::new(seed, "partition", "", 0)),
            partition_draws: RandomStream::new(seed, "partition shape", "", 0),
            heal_at_ns: None,
            planned,
            op_downtimes,
            budget_default: None,
            faults_started: false,
            quiet_until_ns: 0,
            schedule: RandomStream::new(seed, "schedule", "", 0),
            trace: crate::trace::Trace::default(),
            steps: 0,
            faults: Vec::new(),
            properties: Properties::new(),
            failures: Vec::new(),
            timings: RunTimings::default(),
        }
    }

    fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    fn since_start(&self) -> u64 {
        vtime::since_start_ns(self.now_ns())
    }

    #[allow(clippy::disallowed_methods)] // measures real time spent on purpose (RunResult timings), never simulated
    fn run(mut self) -> Result<RunResult, seedfall_engine::Error> {
        let started = Instant::now();
        let watchdog = Watchdog::start(self.progress.clone(), self.spec.watchdog);
        let workload_waits = self.slots.last().is_some_and(|s| s.program.imports_setup_complete());
        if !workload_waits {
            self.start_faults();
        }
        let horizon_ns = MONOTONIC_START_NS + self.spec.duration_ns;
        let verdict = loop {
            if !self.failures.is_empty() {
                break Verdict::Fail(std::mem::take(&mut self.failures));
            }
            let Some((at_ns, next)) = self.next() else {
                break Verdict::Fail(vec![Failure {
                    class: Class::Deadlock,
                    node: "world".into(),
                    incarnation: 0,
                    property: None,
                    message: format!(
                        "deadlock: every node is blocked and nothing is pending ({})",
                        self.blocked_summary()
                    ),
                }]);
            };
            if at_ns > horizon_ns {
                self.clock.advance_to(horizon_ns);
                break Verdict::Horizon;
            }
            self.clock.advance_to(at_ns);
            self.net.borrow_mut().advance(self.now_ns());
            match next {
                Next::Step(i) => {
                    if let Some(verdict) = self.step(i)? {
                        break verdict;
                    }
                }
                Next::Boot(i) => {
                    self.boot(i)?;
                    if let Some(verdict) = self.step(i)? {
                        break verdict;
                    }
                }
                Next::Crash(i) => self.planned_crash(i),
                Next::Partition => self.partition(),
                Next::Heal => self.heal(),
                Next::Planned => self.planned_fault(),
            }
        };
        drop(watchdog);
        let end_ns = self.since_start();
        self.hash_event(b"end", &[end_ns]);
        for i in 0..self.slots.len() {
            if self.slots[i].instance.is_some() {
                self.record_preemptions(i);
                let hash = self.slots[i].retire(true);
                self.trace.record(b"incarnation", hash.as_bytes(), &[]);
            }
        }
        self.timings.total = started.elapsed();
        self.timings.host_calls = self.progress.host_calls();
        Ok(RunResult {
            verdict,
            end_ns,
            steps: self.steps,
            trace_hash: self.trace.finish(&[], &[]),
            faults: {
                // Preemption points are logged when their incarnation ends.
                let mut faults = self.faults;
                faults.sort_by_key(|f| f.at_ns);
                faults
            },
            properties: self.properties,
            timings: self.timings,
            budget_default: self.budget_default,
        })
    }

    /// The earliest thing to happen, or None in deadlock.
    fn next(&mut self) -> Option<(u64, Next)> {
        let now = self.now_ns();
        // Planned faults first: on a tie they happen before any node runs.
        let mut fault: Option<(u64, Next)> = None;
        let consider = |at: Option<u64>, next: Next, fault: &mut Option<(u64, Next)>| {
            if let Some(at) = at.filter(|at| fault.as_ref().is_none_or(|(t, _)| at < t)) {
                *fault = Some((at.max(now), next));
            }
        };
        consider(self.heal_at_ns, Next::Heal, &mut fault);
        for (i, crashes) in self.crashes.iter().enumerate() {
            consider(crashes.as_ref().and_then(|a| a.next_ns), Next::Crash(i), &mut fault);
        }
        consider(self.partitions.next_ns, Next::Partition, &mut fault);
        consider(self.planned.front().map(|f| MONOTONIC_START_NS + f.at_ns), Next::Planned, &mut fault);

        let mut earliest: Option<u64> = None;
        let mut tied: Vec<usize> = Vec::new();
        for i in 0..self.slots.len() {
            let Some(at) = self.wake_ns(i, now) else { continue };
            match earliest {
                Some(t) if at > t => {}
                Some(t) if at == t => tied.push(i),
                _ => {
                    earliest = Some(at);
                    tied = vec![i];
                }
            }
        }
        if fault.as_ref().is_some_and(|(at, _)| earliest.is_none_or(|t| *at <= t)) {
            return fault;
        }
        let Some(at) = earliest else {
            // Nothing can wake a node now; something in flight may change that.
            let in_flight = self.net.borrow_mut().next_event_ns_any(now);
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

    /// When slot `i` can next run: its boot time, or the earliest of its
    /// timer and the readiness of what it waits on.
    fn wake_ns(&self, i: usize, now: u64) -> Option<u64> {
        let slot = &self.slots[i];
        match slot.state {
            State::Stopped => None,
            State::Down { boot_at_ns } => Some(boot_at_ns.max(now)),
            State::Up { timer_ns, .. } => {
                let node = slot.node();
                let timer = (timer_ns != u64::MAX).then(|| timer_ns.max(now));
                node.waits.iter().filter_map(|w| wasi::sock::ready_at_ns(node, *w, now)).chain(timer).min()
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

    fn hash_event(&mut self, tag: &[u8], values: &[u64]) {
        self.trace.record(tag, &[], values);
    }

    fn say(&mut self, line: String) {
        let t = vtime::go_duration(self.since_start());
        if let Some(log) = self.log.as_mut() {
            let _ = writeln!(log, "[{t}] * {line}");
        }
    }

    #[allow(clippy::disallowed_methods)] // measures real time spent on purpose (RunResult timings), never simulated
    fn boot(&mut self, i: usize) -> Result<(), seedfall_engine::Error> {
        let ctx = BootContext {
            seed: self.spec.seed,
            linker: &self.linker,
            net: &self.net,
            progress: &self.progress,
            preempt: &self.spec.preempt,
            disk: self.spec.faults.disk,
            budget_cap: self.spec.budget_cap,
        };
        let started = Instant::now();
        self.slots[i].boot(&ctx, &self.clock)?;
        self.timings.boot += started.elapsed();
        self.timings.boots += 1;
        let k = self.slots[i].incarnation;
        self.hash_event(b"boot", &[i as u64, k as u64, self.now_ns()]);
        let name = self.slots[i].name().to_string();
        self.say(format!("boot {name}#{k}"));
        Ok(())
    }

    /// Resumes slot `i` until it parks or ends, then deals with what it did.
    #[allow(clippy::disallowed_methods)] // measures real time spent on purpose (RunResult timings), never simulated
    fn step(&mut self, i: usize) -> Result<Option<Verdict>, seedfall_engine::Error> {
        self.steps += 1;
        let now = self.now_ns();
        let k = self.slots[i].incarnation;
        self.hash_event(b"step", &[i as u64, k as u64, now]);
        let State::Up { started, .. } = self.slots[i].state else { unreachable!("only up nodes step") };
        let clock = self.clock.clone();
        let instance = self.slots[i].instance.as_mut().expect("up");
        instance.data_mut().clock = clock;
        if let Some(index) = instance.data().preempt.as_ref().map(|p| p.counter_global()) {
            // SAFETY: the instance stays in its slot until it is retired,
            // and every retirement unwatches the counter first.
            unsafe { self.progress.watch_counter(instance.global_ptr(index).expect("the counter global")) };
        }
        let started_at = Instant::now();
        let run = if started { instance.resume(0)? } else { instance.call("_start", &[])? };
        self.timings.guest += started_at.elapsed();
        self.clock = instance.data().clock.clone();
        self.net.borrow_mut().advance(self.now_ns());

        self.forward_output(i);
        self.take_reports(i);
        if !self.failures.is_empty() {
            return Ok(None);
        }
        if let Some(fault) = self.slots[i].node().fs.crash_requested() {
            self.record_disk_faults(i);
            let downtime = self.op_downtimes.get(&(i, fault.op)).copied();
            self.crash(i, Some(fault), downtime, format!(" in the middle of {fault}"));
            return Ok(None);
        }
        self.record_disk_faults(i);
        match run {
            Run::Suspended(timer_ns) => {
                self.slots[i].state = State::Up { timer_ns, started: true };
                Ok(None)
            }
            Run::Returned(_) => Ok(self.exited(i, 0)),
            Run::Exited(code) => Ok(self.exited(i, code)),
            Run::Trapped(trap) => {
                let (class, message) = if trap.kind == TrapKind::Interrupted {
                    let limit = vtime::go_duration(self.spec.watchdog.as_nanos() as u64);
                    (
                        Class::Watchdog,
                        format!("stopped by the watchdog after {limit} of real time without yielding: {trap}"),
                    )
                } else {
                    (Class::Trap, format!("trapped: {trap}"))
                };
                Ok(self.ended(i, class, message))
            }
        }
    }

    /// Prints (replay) what the node wrote, prefixed by node#k and time.
    fn forward_output(&mut self, i: usize) {
        let (out, err) = self.slots[i].take_output();
        let Some(log) = self.log.as_mut() else { return };
        let slot = &self.slots[i];
        let t = vtime::go_duration(vtime::since_start_ns(self.clock.now_ns()));
        for (bytes, stream) in [(out, ""), (err, " (stderr)")] {
            for line in String::from_utf8_lossy(&bytes).lines() {
                let _ = writeln!(log, "[{t}] {}#{}{stream} | {line}", slot.name(), slot.incarnation);
            }
        }
    }

    fn take_reports(&mut self, i: usize) {
        let reports = std::mem::take(&mut self.slots[i].node_mut().sim.as_mut().expect("world node").reports);
        let (name, k) = (self.slots[i].name().to_string(), self.slots[i].incarnation);
        for report in reports {
            match report {
                Report::Property { kind, cond, message } => {
                    self.trace.record(b"property", message.as_bytes(), &[kind as u64, cond as u64]);
                    let first = !self.properties.contains_key(&message);
                    let seen =
                        self.properties.entry(message.clone()).or_insert(PropertySeen { kind, ever_true: false });
                    let first_true = cond && !seen.ever_true;
                    seen.ever_true |= cond;
                    if kind.fails(cond) {
                        self.say(format!("{name}#{k}: {}: {message}", kind.sdk_name()));
                    } else if first || first_true {
                        // Replay shows each property's first hit, and when it first holds.
                        self.say(format!(
                            "{name}#{k}: {} {}: {message}",
                            kind.sdk_name(),
                            if cond { "holds" } else { "reached" }
                        ));
                    }
                    if kind.fails(cond) {
                        self.failures.push(Failure {
                            class: Class::Property,
                            node: name.clone(),
                            incarnation: k,
                            property: Some(kind),
                            message,
                        });
                    }
                }
                Report::Budget { default } => {
                    self.budget_default.get_or_insert(default);
                }
                Report::SetupComplete => {
                    if !self.faults_started {
                        self.say(format!("{name}#{k}: setup complete, faults start"));
                        self.start_faults();
                    }
                }
                Report::QuietFor { ns } => {
                    let now = self.now_ns();
                    self.quiet_until_ns = self.quiet_until_ns.max(now.saturating_add(ns));
                    self.hash_event(b"quiet", &[now, ns]);
                    self.say(format!("{name}#{k}: quiet for {}", vtime::go_duration(ns)));
                    if self.heal_at_ns.is_some() {
                        self.heal();
                    }
                }
            }
        }
    }

    /// Slot `i` exited with `code`.
    fn exited(&mut self, i: usize, code: i32) -> Option<Verdict> {
        let slot = &self.slots[i];
        let (name, k, workload, panic) =
            (slot.name().to_string(), slot.incarnation, slot.program.workload, slot.panic_line());
        self.hash_event(b"exit", &[i as u64, code as u32 as u64]);
        if workload {
            self.say(format!("{name}#{k} exited with status {code}"));
            if code == 0 {
                return Some(Verdict::Pass);
            }
            let message = with_panic(format!("exited with status {code}"), panic);
            return self.ended(i, Class::Workload, message);
        }
        if code == 0 {
            self.say(format!("{name}#{k} exited with status 0"));
            self.progress.unwatch_counter();
            self.record_preemptions(i);
            let hash = self.slots[i].exit();
            self.trace.record(b"incarnation", hash.as_bytes(), &[]);
            self.slots[i].state = State::Stopped;
            return None;
        }
        let message = with_panic(format!("exited with status {code}"), panic);
        self.ended(i, Class::Exit, message)
    }

    /// Slot `i` ended abnormally: restarted if supervised, else a failure.
    fn ended(&mut self, i: usize, class: Class, message: String) -> Option<Verdict> {
        let slot = &self.slots[i];
        let (name, k) = (slot.name().to_string(), slot.incarnation);
        if slot.program.supervise && class != Class::Watchdog {
            let boot_at_ns = self.now_ns() + SUPERVISE_RESTART_NS;
            self.say(format!(
                "{name}#{k} {message}; supervised: restart at {}",
                vtime::go_duration(vtime::since_start_ns(boot_at_ns))
            ));
            self.progress.unwatch_counter();
            self.record_preemptions(i);
            let hash = self.slots[i].exit();
            self.trace.record(b"incarnation", hash.as_bytes(), &[]);
            self.slots[i].state = State::Down { boot_at_ns };
            return None;
        }
        self.say(format!("{name}#{k} {message}"));
        Some(Verdict::Fail(vec![Failure { class, node: name, incarnation: k, property: None, message }]))
    }
}

fn with_panic(message: String, panic: Option<String>) -> String {
    match panic {
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
