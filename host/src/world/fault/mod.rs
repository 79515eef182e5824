//! Fault kinds as data. A fault kind is one module implementing
//! `FaultKind`: its schedule name, how its occurrences are triggered (at a
//! virtual time, or at a node's disk operation, counted call or a link's
//! datagram), how one run draws or replays them (`FaultKind::plan`, a
//! `Planned`), how it reads and writes itself in a schedule file, describes
//! itself for people and simplifies itself for shrink. `KINDS` is the registry: one line a kind.
//!
//! Phases every kind obeys are enforced here, not by each kind: a kind asks
//! the world for an effect through `Effects`, and the world refuses it
//! before `sim.SetupComplete`, inside `sim.QuietFor` and in the liveness
//! phase (`Effects::allowed`). Faults drawn inside the disk model or the
//! preemption hook are gated when drawn (`fs::DiskFaults` sees the same
//! gate); preemption points are scheduling choices, not faults a phase
//! holds off (docs/world.md).
//!
//! Adding a kind: docs/world.md, "Adding a fault kind".

mod bitrot;
mod clock_jump;
mod clock_skew;
pub mod clog;
pub mod crash;
pub(crate) mod crash_io;
pub(crate) mod disk_error;
mod disk_full;
pub mod injector;
mod json;
pub(crate) mod lost_write;
pub(crate) mod misdirected_write;
mod net_reset;
mod partition;
mod pause;
pub mod preempt;
#[cfg(test)]
mod registry_tests;
mod slow;
pub mod swarm;
mod timed;
pub(crate) mod udp;

pub use injector::FaultInjector;
pub use json::FaultJsonError;

use crate::fs::{DiskConfig, DiskFault, Fs, Mutant, Prefix};
pub use crate::knob::{FaultConfig, Knob, KnobType, KnobValue};
use crate::node_id::{NodeId, PerNode};
use crate::random::RandomStream;
use crate::vtime::{self, SimDuration, SimTime};
use serde_json::{Map, Value};
use std::fmt;

/// Every fault kind, in the order the world consults them (on a tie in time
/// the earlier kind acts first).
pub static KINDS: &[&dyn FaultKind] = &[
    &partition::Partition,
    &crash::Crash,
    &crash_io::CrashIo,
    &disk_error::FSYNC_EIO,
    &preempt::Preempt,
    &clock_skew::ClockSkew,
    &clock_jump::ClockJump,
    &pause::Pause,
    &disk_error::WRITE_EIO,
    &disk_error::WRITE_ENOSPC,
    &disk_error::READ_EIO,
    &disk_error::READ_CORRUPT,
    &lost_write::LostWrite,
    &misdirected_write::MisdirectedWrite,
    &net_reset::NetReset,
    &slow::Slow,
    &clog::ClogKind,
    &bitrot::Bitrot,
    &disk_full::DiskFull,
    &udp::UDP_LOSS,
    &udp::UDP_DUP,
];

/// `faults` names DESIGN.md §1 reserves for what this build does not do
/// yet: the config reader refuses them as "not supported yet", never
/// ignores them.
pub const RESERVED: &[&str] = &[];

/// Every knob of a config's `faults`, each once: the disk and network
/// models' conditions, then each kind's in registry order, then swarm's.
pub fn knobs() -> Vec<&'static Knob> {
    let mut all: Vec<&'static Knob> = crate::fs::knobs::KNOBS.iter().chain(crate::net::knobs::KNOBS).copied().collect();
    all.extend(KINDS.iter().flat_map(|kind| kind.knobs()));
    all.push(&swarm::SWARM);
    all
}

/// What every service's disk model runs with: its conditions, each
/// per-operation kind's probability (`FaultKind::configure_disk`), and the
/// durability promise `seedfall mutate` breaks, if any.
pub fn disk_config(config: &FaultConfig, mutant: Option<Mutant>) -> DiskConfig {
    let mut disk = DiskConfig::conditions(config);
    for kind in KINDS {
        kind.configure_disk(config, &mut disk);
    }
    disk.mutant = mutant;
    disk
}

/// How a kind's occurrences are placed, and so how a schedule replays them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// At a virtual time (`at`).
    Time,
    /// At the node's disk-operation number (`op`); `at` is for people.
    DiskOp,
    /// At the node's counted call (`op`, counted across incarnations).
    CountedCall,
    /// At the node's disk-read number (`op`); `at` is for people.
    DiskRead,
    /// At the datagram's number on its link (`op`, counted for the run
    /// from 1, not per incarnation); `at` is for people.
    Datagram,
}

impl Trigger {
    pub fn by_op(self) -> bool {
        self != Trigger::Time
    }

    /// What `op` counts, for people.
    pub fn op_unit(self) -> &'static str {
        match self {
            Trigger::Time => "",
            Trigger::DiskOp => "disk op",
            Trigger::CountedCall => "counted call",
            Trigger::DiskRead => "disk read",
            Trigger::Datagram => "datagram",
        }
    }
}

/// A handle on a registered kind: cheap to copy, compared by name.
#[derive(Clone, Copy)]
pub struct Kind(&'static dyn FaultKind);

impl Kind {
    /// The kind a schedule names (its name or an older alias).
    pub fn from_name(name: &str) -> Option<Kind> {
        KINDS.iter().find(|k| k.name() == name || k.aliases().contains(&name)).map(|k| Kind(*k))
    }

    /// The registered kind of this type.
    pub fn of<K: FaultKind>(kind: &'static K) -> Kind {
        Kind(kind)
    }

    pub fn all() -> impl Iterator<Item = Kind> {
        KINDS.iter().map(|k| Kind(*k))
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub fn imp(self) -> &'static dyn FaultKind {
        self.0
    }

    pub fn trigger(self) -> Trigger {
        self.0.trigger()
    }

    /// Every registered kind's name, for error messages.
    pub fn known_names() -> String {
        KINDS.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        self.name() == other.name()
    }
}
impl Eq for Kind {}

impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a fault acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// One node, by name.
    Node(String),
    /// The cluster cut into groups of node names (nodes in no group form one
    /// more); with `oneway`, only traffic sent from the first group to the
    /// others is cut.
    Groups { groups: Vec<Vec<String>>, oneway: bool },
    /// One direction of the link between two nodes (a clog).
    Link { from: String, to: String },
}

impl Target {
    /// Whether node `name` is part of the target.
    pub fn names(&self, name: &str) -> bool {
        match self {
            Target::Node(n) => n == name,
            Target::Groups { groups, .. } => groups.iter().flatten().any(|n| n == name),
            Target::Link { from, to } => from == name || to == name,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Node(n) => f.write_str(n),
            Target::Groups { groups, oneway } => {
                let parts: Vec<String> = groups.iter().map(|g| g.join(",")).collect();
                let sep = if *oneway { " -> " } else { " | " };
                f.write_str(&parts.join(sep))
            }
            Target::Link { from, to } => write!(f, "{from} -> {to}"),
        }
    }
}

/// One fault of a run, as a schedule holds it.
#[derive(Clone, Debug)]
pub struct Fault {
    pub at: SimTime,
    pub kind: Kind,
    pub target: Target,
    /// When it ends (a crash's restart, a partition's heal).
    pub until: Option<SimTime>,
    /// The node's disk-operation or counted-call number, for kinds replayed by op.
    pub op: Option<u64>,
    /// For a crash in the middle of a disk operation: how much of it took effect.
    pub applied: Option<Prefix>,
    /// A signed size: a clock skew's offset or a clock jump in
    /// nanoseconds, the bit a corrupted read flipped, the page a lost or
    /// misdirected write left old.
    pub amount: Option<i64>,
    /// For a misdirected write: the page its bytes went to.
    pub to: Option<u64>,
    /// Which form of its kind it takes, for kinds with several (a clog's
    /// `stop`, `jam` or `slow`).
    pub form: Option<&'static str>,
    /// For people only: where the node was when it took effect (a
    /// preemption point's Go function and file:line). Neither hashed into
    /// the trace nor compared: the fault is the same without it.
    pub site: Option<String>,
}

/// A schedule field for people (`Fault::site`), left out of the trace hash.
pub const SITE_FIELD: &str = "where";

impl PartialEq for Fault {
    fn eq(&self, other: &Fault) -> bool {
        let Fault { at, kind, target, until, op, applied, amount, to, form, site: _ } = self;
        (at, kind, target, until, op, applied, amount, to, form)
            == (
                &other.at,
                &other.kind,
                &other.target,
                &other.until,
                &other.op,
                &other.applied,
                &other.amount,
                &other.to,
                &other.form,
            )
    }
}
impl Eq for Fault {}

impl Fault {
    pub fn on_node(at: SimTime, kind: Kind, node: &str) -> Fault {
        Fault {
            at,
            kind,
            target: Target::Node(node.to_string()),
            until: None,
            op: None,
            applied: None,
            amount: None,
            to: None,
            form: None,
            site: None,
        }
    }

    /// The one node of a per-node fault.
    pub fn node(&self) -> Option<&str> {
        match &self.target {
            Target::Node(n) => Some(n),
            Target::Groups { .. } | Target::Link { .. } => None,
        }
    }

    /// How long it lasts, if it has an end.
    pub fn length(&self) -> Option<SimDuration> {
        self.until.map(|u| u.since(self.at))
    }

    /// One readable line (`inspect`, shrink's log).
    pub fn describe(&self) -> String {
        let mut line = format!("{:>14}  {:<11} {}", self.at.to_string(), self.kind.name(), self.target);
        // A preemption point's `until` is a placeholder, not an end.
        if let (Some(until), Some(length)) = (self.until, self.length())
            && self.kind.trigger() != Trigger::CountedCall
        {
            line.push_str(&format!(" until {until} ({length})"));
        }
        if let Some(op) = self.op {
            line.push_str(&format!(" at {} {op}", self.kind.trigger().op_unit()));
        }
        let detail = self.kind.imp().detail(self);
        if !detail.is_empty() {
            line.push_str(", ");
            line.push_str(&detail);
        }
        line.push_str(&preempt::site_suffix(self.site.as_deref()));
        line
    }

    /// The schedule-file object of this fault.
    pub fn to_json(&self) -> Value {
        let mut o = self.identity();
        if let Some(site) = &self.site {
            o.insert(SITE_FIELD.into(), Value::String(site.clone()));
        }
        Value::Object(o)
    }

    /// The schedule-file object without what is for people only: what the
    /// trace hashes.
    pub fn identity(&self) -> Map<String, Value> {
        let mut o = json::common(self);
        if let Some(name) = self.kind.imp().amount_field() {
            json::write_amount(name, self, &mut o);
        }
        self.kind.imp().write_json(self, &mut o);
        o
    }

    /// A fault from its schedule-file object; errors say what is wrong.
    pub fn from_json(v: &Value) -> Result<Fault, FaultJsonError> {
        let o = v.as_object().ok_or(FaultJsonError::NotAnObject)?;
        let kind_name = o.get("kind").and_then(Value::as_str).ok_or(FaultJsonError::NoKind)?;
        let kind = Kind::from_name(kind_name)
            .ok_or_else(|| FaultJsonError::UnknownKind { name: kind_name.to_string(), known: Kind::known_names() })?;
        let mut allowed: Vec<&str> = kind.imp().json_fields().to_vec();
        allowed.extend(kind.imp().amount_field());
        for key in o.keys() {
            if !json::COMMON_FIELDS.contains(&key.as_str()) && !allowed.contains(&key.as_str()) && key != SITE_FIELD {
                let mut all: Vec<&str> = json::COMMON_FIELDS.to_vec();
                all.extend_from_slice(&allowed);
                return Err(FaultJsonError::UnknownField {
                    field: key.clone(),
                    kind: kind_name.to_string(),
                    fields: all.join(", "),
                });
            }
        }
        let mut fault = json::read_common(o, kind)?;
        fault.site = o.get(SITE_FIELD).and_then(Value::as_str).map(str::to_string);
        if let Some(name) = kind.imp().amount_field() {
            json::read_amount(name, o, &mut fault)?;
        }
        kind.imp().read_json(o, &mut fault)?;
        if kind.trigger().by_op() && fault.op.is_none() {
            return Err(FaultJsonError::NeedsOp { kind: kind_name.to_string(), unit: kind.trigger().op_unit() });
        }
        Ok(fault)
    }
}

/// Ways shrink may simplify a fault beyond removing it; the shrinker does
/// the searching, the kind says which apply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simplify {
    /// Shorten it (`until` toward `at`).
    pub shorten: bool,
    /// Move it earlier (kinds placed by time only).
    pub earlier: bool,
    /// Bring its `amount` toward zero, keeping its sign (a smaller skew or jump).
    pub toward_zero: bool,
}

/// What a run's kinds are given to plan with.
pub struct PlanContext<'a> {
    pub seed: u64,
    pub faults: &'a FaultConfig,
    /// Node names; the workload last.
    pub names: &'a PerNode<&'a str>,
    /// Which nodes may be faulted (services, not the workload).
    pub faultable: &'a PerNode<bool>,
}

/// One fault kind.
pub trait FaultKind: Sync {
    /// The name schedules use.
    fn name(&self) -> &'static str;
    /// Older names schedules may still use.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    fn trigger(&self) -> Trigger;
    /// Its settings in the config's `faults` (registered through `knobs()`).
    fn knobs(&self) -> &'static [&'static Knob] {
        &[]
    }
    /// Which of its knobs is its intensity, a rate or a probability: its
    /// first (None: it has none, not governed by `faults`, so swarm leaves
    /// it alone; a kind governed otherwise says so, like `clock_skew`).
    fn intensity(&self) -> Option<&'static Knob> {
        self.knobs().first().copied()
    }
    /// Whether the config switches it on (swarm keeps a subset of these).
    fn enabled(&self, config: &FaultConfig) -> bool {
        self.intensity().is_some_and(|knob| config.number(knob) > 0.0)
    }
    /// Scales its intensity by `factor`: in (0, 1] for swarm (0 switches
    /// it off), above 1 for an explored branch's boost.
    fn scale(&self, config: &mut FaultConfig, factor: f64) {
        if let Some(knob) = self.intensity() {
            config.scale(knob, factor);
        }
    }
    /// Whether a branch can multiply its intensity for the rest of a run
    /// (`Boost`): its arrivals are drawn again at the new rate
    /// (`Planned::branch`) or its disk probability is handed over again
    /// (`configure_disk`). A kind whose plan is drawn whole at the start,
    /// or that another model draws, says no.
    fn boostable(&self) -> bool {
        self.intensity().is_some()
    }
    /// For kinds the disk model draws per operation: hands the disk model
    /// this kind's probability (the disk model owns the draw, so that
    /// switching one kind on never moves another's numbers).
    fn configure_disk(&self, _config: &FaultConfig, _disk: &mut DiskConfig) {}
    /// This run's state: drawn from the seed, or (`replay`) exactly these
    /// faults of this kind.
    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned>;
    /// What `describe` adds after target, time and op ("" for nothing;
    /// a kind with an `amount_field` says it).
    fn detail(&self, fault: &Fault) -> String {
        match (self.amount_field(), fault.amount) {
            (Some(name), Some(ns)) => format!("{name} {}", vtime::go_signed_duration(ns)),
            _ => String::new(),
        }
    }
    /// The schedule field holding `Fault::amount` as a signed Go duration
    /// (a skew's `offset`, a `jump`, a slowdown's `latency`), if it has one;
    /// read, written and described here for every kind.
    fn amount_field(&self) -> Option<&'static str> {
        None
    }
    /// Schedule fields of its own beyond at, kind, node, until, op.
    fn json_fields(&self) -> &'static [&'static str] {
        &[]
    }
    fn write_json(&self, _fault: &Fault, _o: &mut Map<String, Value>) {}
    fn read_json(&self, _o: &Map<String, Value>, _fault: &mut Fault) -> Result<(), FaultJsonError> {
        Ok(())
    }
    fn simplify(&self) -> Simplify;
    /// Smaller variants to try one by one (a partition with a node fewer).
    fn narrower(&self, _fault: &Fault) -> Vec<Fault> {
        Vec::new()
    }
    /// A schedule's fault as the disk model replays it, for disk-op kinds.
    fn to_disk(&self, _fault: &Fault) -> Option<DiskFault> {
        None
    }
}

/// One kind's state during one run.
pub trait Planned {
    /// Faults may start now (`sim.SetupComplete`, or the start of the run).
    fn start(&mut self, _now: SimTime) {}
    /// The run branched at `now` (`World::branch_before`): drawn
    /// occurrences not yet due are drawn again, at `factor` times the
    /// config's rate from now on. What is in force stays as it is.
    fn branch(&mut self, _now: SimTime, _factor: f64) {}
    /// When this kind next has something to do.
    fn next_at(&self) -> Option<SimTime> {
        None
    }
    /// Does what is due at `next_at`.
    fn fire(&mut self, _w: &mut dyn Effects) {}
    /// A quiet window or the liveness phase began: end what is in force.
    fn quiet(&mut self, _w: &mut dyn Effects) {}
    /// Node `id` just booted a new incarnation (it has not run yet).
    fn boot(&mut self, _id: NodeId, _w: &mut dyn Effects) {}
    /// The disk model of node `id`, called `name`, injected `fault` at
    /// `at`: what it means for the run, if this kind owns it. Already gated
    /// by the phase when it was drawn, so the world applies it as it is.
    fn disk_fault(&mut self, _id: NodeId, _name: &str, _at: SimTime, _fault: &DiskFault) -> Option<Recorded> {
        None
    }
    /// Replay: the points this kind fixes for node `id`'s preemption, in
    /// counted calls across incarnations (None: not this kind's business).
    fn preempt_points(&self, _id: NodeId) -> Option<Vec<u64>> {
        None
    }
}

/// What a fault kind may do to the world. Effects refused by the phase
/// (`allowed` false) do nothing and return false.
pub trait Effects {
    fn now(&self) -> SimTime;
    /// Whether faults may act now (started, not quiet, not in liveness).
    fn allowed(&self) -> bool;
    /// Whether a quiet window or the liveness phase holds faults off now
    /// (false before faults start: standing conditions such as a clock skew
    /// apply from the first boot).
    fn holding(&self) -> bool;
    /// How many nodes the cluster has (ids run from 0).
    fn node_count(&self) -> usize;
    fn name(&self, id: NodeId) -> &str;
    fn node_of(&self, name: &str) -> Option<NodeId>;
    /// Whether node `id` is a service that is up (crashable).
    fn is_up_service(&self, id: NodeId) -> bool;
    /// Crashes `id` now for `downtime`; `fault` is what the schedule records.
    fn crash(&mut self, id: NodeId, downtime: SimDuration, fault: Fault) -> bool;
    /// Cuts the network into `groups` until `fault.until`.
    fn partition(&mut self, groups: &[Vec<NodeId>], oneway: bool, fault: Fault) -> bool;
    /// Ends every partition.
    fn heal(&mut self);
    /// Whether node `id` is paused now.
    fn paused(&self, id: NodeId) -> bool;
    /// Freezes `id` until `fault.until` (refused unless allowed and up).
    fn pause(&mut self, id: NodeId, fault: Fault) -> bool;
    /// Every paused node runs again.
    fn resume_all(&mut self);
    /// Moves `id`'s wall clock by `fault.amount` (refused unless allowed and up).
    fn jump_clock(&mut self, id: NodeId, fault: Fault) -> bool;
    /// Makes `id`'s network slower by `extra` (zero: back to normal;
    /// `fault`, what the schedule records, only for a new slowdown, refused
    /// unless allowed and up).
    fn slow_node(&mut self, id: NodeId, extra: SimDuration, fault: Option<Fault>) -> bool;
    /// Clogs the link `from` → `to` until `fault.until` (refused unless allowed).
    fn clog(&mut self, from: NodeId, to: NodeId, clog: crate::net::Clog, fault: Fault) -> bool;
    /// Ends the clog on the link `from` → `to`.
    fn unclog(&mut self, from: NodeId, to: NodeId);
    /// Acts on `id`'s disk: `act` does it and says what it did, in words
    /// (None: nothing to do). With `fault`, a new fault: refused unless
    /// allowed and `id` is an up service, recorded with the line
    /// "KIND NODE#K: WORDS". Without, the end of a condition a kind set: done
    /// in any phase, up or down, and said as "NODE#K: WORDS".
    fn on_disk(&mut self, id: NodeId, fault: Option<Fault>, act: &mut dyn FnMut(&mut Fs) -> Option<String>) -> bool;
    /// Resets every established connection of `id` (refused unless allowed and up).
    fn reset_connections(&mut self, id: NodeId, fault: Fault) -> bool;
    /// Sets the wall clock of `id`'s new incarnation off by `fault.amount`
    /// (refused while holding).
    fn skew_clock(&mut self, id: NodeId, fault: Fault) -> bool;
}

/// What a fault drawn inside a node (at a disk operation) means for the run.
pub enum Recorded {
    /// The node crashes now, for `downtime`.
    Crash { fault: Fault, downtime: SimDuration, how: String },
    /// It already took effect; the world records it and says `line`.
    Happened { fault: Fault, line: String },
}

/// A per-node stream of a kind, by the kind's name.
pub fn stream(seed: u64, kind: &dyn FaultKind, draw: crate::random::Draw, node: &str) -> RandomStream {
    RandomStream::new(seed, crate::random::Purpose::Fault(kind.name(), draw), node, 0)
}
