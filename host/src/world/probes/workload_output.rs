//! The end of what the workload printed, stdout and stderr in the order
//! they came: `seedfall test` shows a failing test's output.

use crate::world::Role;
use crate::world::event::Who;
use crate::world::probe::{Probe, Probes, View};

/// The most of the workload's output kept (its end: where a test's failure
/// and a panic are).
pub const KEPT_OUTPUT_BYTES: usize = 1 << 20;

/// The probe: the last `KEPT_OUTPUT_BYTES` the workload wrote.
#[derive(Default)]
pub struct WorkloadOutput(Vec<u8>);

impl WorkloadOutput {
    /// What `probes`' `WorkloadOutput` kept (nothing when it is not installed).
    pub fn of(probes: &Probes) -> &[u8] {
        probes.get::<WorkloadOutput>().map_or(&[], |p| &p.0)
    }
}

impl Probe for WorkloadOutput {
    fn ran(&mut self, world: &View, who: &Who, stdout: &[u8], stderr: &[u8]) {
        if world.program(who.id).role != Role::Workload {
            return;
        }
        self.0.extend_from_slice(stdout);
        self.0.extend_from_slice(stderr);
        self.0.drain(..self.0.len().saturating_sub(KEPT_OUTPUT_BYTES));
    }
}
