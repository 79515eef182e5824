//! The probes drivers install (`probe.rs`), one observation per file, and
//! `all`, the list of every one (`seedfall replay` installs it and prints
//! their summaries; a world test checks it leaves the trace hash alone).

mod budget;
mod crash_space;
mod fault_states;
mod fault_steps;
mod functions_ran;
mod goroutine_shapes;
mod host_calls;
mod workload_output;

pub use budget::BudgetDefault;
pub use crash_space::PlacedCrash;
pub use fault_states::{CrashState, FaultState, FaultStates, NetState};
pub use fault_steps::FaultSteps;
pub use functions_ran::{FunctionsRan, NodeFunctions};
pub use goroutine_shapes::GoroutineShapes;
pub use host_calls::{HostCalls, NodeCalls};
pub use workload_output::{KEPT_OUTPUT_BYTES, WorkloadOutput};

use super::probe::Probes;

/// Every probe, each fresh.
pub fn all() -> Probes {
    Probes::default()
        .with(BudgetDefault::default())
        .with(PlacedCrash::default())
        .with(FaultStates::default())
        .with(FaultSteps::default())
        .with(FunctionsRan::default())
        .with(GoroutineShapes::default())
        .with(HostCalls::default())
        .with(WorkloadOutput::default())
}
