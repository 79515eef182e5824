//! What the workload passed to `sim.Budget` (its default size), if it
//! called it: `seedfall shrink` starts shrinking from there.

use crate::node::Report;
use crate::world::event::Who;
use crate::world::probe::{Probe, Probes, View};

/// The probe: the first `sim.Budget` default of the run.
#[derive(Default)]
pub struct BudgetDefault(Option<u64>);

impl BudgetDefault {
    /// What `probes`' `BudgetDefault` saw (None when it is not installed).
    pub fn of(probes: &Probes) -> Option<u64> {
        probes.get::<BudgetDefault>().and_then(|p| p.0)
    }
}

impl Probe for BudgetDefault {
    fn report(&mut self, _world: &View, _who: &Who, report: &Report) {
        if let Report::Budget { default } = report {
            self.0.get_or_insert(*default);
        }
    }
}
