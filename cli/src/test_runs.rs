//! Made-up runs for the unit tests of what consumes them (tallies, sweeps):
//! a `RunResult` without a world, so no Go toolchain or compiled guest.

use seedfall_host::trace::TraceHash;
use seedfall_host::vtime::SimTime;
use seedfall_host::world::{Class, Failure, RunResult, RunTimings, Verdict};

/// A run of `seed` ending at `end_ms` with `verdict`; its trace hash is
/// made of the seed, so every seed's differs.
pub fn run(seed: u64, end_ms: u64, verdict: Verdict) -> RunResult {
    RunResult {
        verdict,
        end: SimTime::from_ns(end_ms * 1_000_000),
        steps: 1,
        trace_hash: TraceHash([seed as u8; 32]),
        faults: vec![],
        properties: Default::default(),
        timings: RunTimings::default(),
        swarm: vec![],
        branches: vec![],
        hash_log: None,
        history: Default::default(),
        linearizability: None,
        probes: Default::default(),
    }
}

/// A workload failure with `message`.
pub fn failure(message: &str) -> Failure {
    Failure {
        class: Class::Workload,
        node: "client".into(),
        incarnation: 1,
        property: None,
        message: message.into(),
        at_ns: None,
    }
}
