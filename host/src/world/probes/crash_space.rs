//! `seedfall crashstates`: the disk operation the crash its run places
//! (`RunSpec::crash_into`) came in, and the choices of what survives it had
//! (`fs::CrashSpace`), for the driver to enumerate.

use crate::fs::{CrashReport, CrashSpace, DiskOp};
use crate::world::event::Who;
use crate::world::fault::Fault;
use crate::world::probe::{Probe, Probes, View};

/// The probe: what the placed crash hit (None: it never happened).
#[derive(Default)]
pub struct PlacedCrash(Option<(DiskOp, CrashSpace)>);

impl PlacedCrash {
    /// What `probes`' `PlacedCrash` saw (None when it is not installed).
    pub fn of(probes: &Probes) -> Option<&(DiskOp, CrashSpace)> {
        probes.get::<PlacedCrash>().and_then(|p| p.0.as_ref())
    }
}

impl Probe for PlacedCrash {
    fn crash(&mut self, world: &View, who: &Who, fault: &Fault, report: &CrashReport) {
        let placed = world.spec().crash_into.as_ref().is_some_and(|c| c.places(&who.name, fault));
        if let (true, Some(during)) = (placed, &report.during) {
            self.0 = Some((during.on, CrashSpace::of(&report.choices)));
        }
    }
}
