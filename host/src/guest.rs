//! A compiled guest module, ready to run as nodes: the one place that turns
//! loaded code into what `exec` and the world need, so callers (the CLI, the
//! benches) assemble no node, file system, preemption or random stream of
//! their own.
//!
//! Built once per module: the preemption counter's global comes from the
//! Artifact (the caller that instrumented the module records it there, and a
//! cache hit brings it back), and the Go runtime offsets are looked up from
//! the module's Go version once, not at every boot.

use crate::clock::EPOCH_UNIX_NS;
use crate::fs::Fs;
use crate::gosym::{GoSymbols, SharedSymbols};
use crate::node::Node;
use crate::preempt::Preemption;
use crate::preempt::goruntime::{self, GoOffsets};
use crate::preempt::strategy::{PreemptConfig, Schedule};
use crate::world::{NodeProgram, Role};
use seedfall_engine::Code;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A loaded module and what running it needs to know about it.
#[derive(Clone)]
pub struct Guest {
    code: Arc<Code>,
    counter_global: Option<u32>,
    go_offsets: Option<GoOffsets>,
    symbols: SharedSymbols,
}

/// Why a module cannot be run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuestError {
    /// A Go module built by a release whose runtime layout preemption does not know.
    UnsupportedGo(String),
    /// A host directory of an `exec` could not be mounted.
    Mount { host: PathBuf, message: String },
}

impl fmt::Display for GuestError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GuestError::UnsupportedGo(message) => f.write_str(message),
            GuestError::Mount { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for GuestError {}

/// The one node of an `exec` run.
pub struct ExecNode {
    pub name: String,
    pub seed: u64,
    /// argv, program name first.
    pub argv: Vec<String>,
    /// `KEY=VALUE` strings.
    pub env: Vec<String>,
    /// (host directory, guest path): read-through mounts, writes stay in memory.
    pub mounts: Vec<(PathBuf, String)>,
    pub preempt: PreemptConfig,
}

impl Guest {
    /// Reads what `code` needs to run: its counter global (`None`: not
    /// instrumented) and, for a Go module, the runtime offsets of its release.
    pub fn new(code: Arc<Code>) -> Result<Guest, GuestError> {
        let counter_global = code.artifact().counter_global;
        let go_offsets = match goruntime::go_version(code.info()) {
            Some(version) => {
                Some(goruntime::offsets_for(&version).map_err(|e| GuestError::UnsupportedGo(e.to_string()))?)
            }
            None => None,
        };
        Ok(Guest { code, counter_global, go_offsets, symbols: SharedSymbols::default() })
    }

    pub fn code(&self) -> &Arc<Code> {
        &self.code
    }

    /// The instrumentation's counter global (`None`: not instrumented).
    pub fn counter_global(&self) -> Option<u32> {
        self.counter_global
    }

    /// Go's function names and source lines (`None`: not a Go module).
    pub fn go_symbols(&self) -> Option<&GoSymbols> {
        self.go_offsets?;
        self.symbols.of(&self.code)
    }

    /// Go's runtime offsets (`None`: not a Go module).
    pub fn go_offsets(&self) -> Option<GoOffsets> {
        self.go_offsets
    }

    /// The node's preemption state with `schedule`; `None` when not instrumented.
    pub fn preemption(&self, preempt: &PreemptConfig, schedule: Schedule) -> Option<Preemption> {
        // `exec` lists every strategy point (`--timings`), not only pct's.
        self.counter_global.map(|counter| Preemption::new(counter, self.go_offsets, schedule, preempt.loops, true))
    }

    /// The node of an `exec` run: its own clock, the host mounts, output to
    /// the process's streams, randomness and preemption points from the seed.
    pub fn exec_node(&self, spec: ExecNode) -> Result<Node, GuestError> {
        let mut fs = Fs::new(EPOCH_UNIX_NS);
        for (host, guest) in &spec.mounts {
            fs.mount_host(host, guest).map_err(|e| GuestError::Mount { host: host.clone(), message: e.to_string() })?;
        }
        let mut node = Node::new(&spec.name, spec.seed, spec.argv, spec.env, fs);
        // Incarnation 1, like a world node's first boot.
        let schedule =
            Schedule::new(&spec.preempt.strategy, crate::world::fault::preempt::stream(spec.seed, &spec.name, 1));
        node.preempt = self.preemption(&spec.preempt, schedule);
        node.goroutines = self.go_offsets.map(crate::goroutines::Goroutines::new);
        Ok(node)
    }

    /// What the world needs to boot this module as node `name`.
    pub fn node_program(&self, name: &str, args: Vec<String>, env: Vec<String>, role: Role) -> NodeProgram {
        NodeProgram {
            name: name.to_string(),
            code: self.code.clone(),
            counter_global: self.counter_global,
            go_offsets: self.go_offsets,
            symbols: self.symbols.clone(),
            args,
            env,
            role,
            mounts: Vec::new(),
        }
    }
}
