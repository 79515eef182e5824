//! For each fault, the scheduler steps done when it was recorded (a fault
//! in the middle of a disk operation belongs to the step it ended): where
//! `seedfall explore` branches around faults. Faults recorded after the last
//! step (as the run ends) get none.

use crate::world::probe::{Probe, Probes, View};

/// The probe: a step count per fault, in the order the faults were recorded.
#[derive(Default)]
pub struct FaultSteps(Vec<u64>);

impl FaultSteps {
    /// The steps `probes`' `FaultSteps` saw (none when it is not installed).
    pub fn of(probes: &Probes) -> &[u64] {
        probes.get::<FaultSteps>().map_or(&[], |p| &p.0)
    }
}

impl Probe for FaultSteps {
    fn stepped(&mut self, world: &View) {
        self.0.resize(world.faults().len(), world.steps());
    }
}
