//! The fault mix of an explored future, drawn from its reseed: half of the
//! futures run at the config's rates, the other half multiply one enabled
//! kind's rate by one of `FACTORS` from their branch on (`Boost`), the kind
//! and the factor drawn from the reseed too. A bug that needs two faults in
//! order is found by a future that leaves just after the first; with the
//! second kind boosted it comes several times as often in the rest of the
//! run. Two factors, because a kind rare enough to matter may need far more
//! than 8 times its rate to come at all in the little of a run that is left,
//! while 64 times a common kind may bury the bug under faults. Because the mix is
//! a function of the reseed, a run's (step, reseed) pairs give back its
//! branches. This module runs nothing and keeps no state between runs.

use seedfall_host::branch::{Boost, Branch};
use seedfall_host::knob::FaultConfig;
use seedfall_host::world::Kind;

/// How much a boosted kind's rate is multiplied: half of the boosts each.
pub const FACTORS: [u32; 2] = [8, 64];

/// The kinds a future may boost: those the config enables and a branch can
/// change (`FaultKind::boostable`), in registry order.
pub struct Mixes {
    kinds: Vec<&'static str>,
}

impl Mixes {
    pub fn of(config: &FaultConfig) -> Mixes {
        let kinds = Kind::all().filter(|k| k.imp().enabled(config) && k.imp().boostable()).map(Kind::name).collect();
        Mixes { kinds }
    }

    /// The branch at `step` with `reseed` and the mix that reseed draws.
    pub fn branch(&self, step: u64, reseed: u64) -> Branch {
        let boosted = reseed & 1 == 1 && !self.kinds.is_empty();
        let boost = boosted.then(|| {
            let kind = self.kinds[((reseed >> 1) % self.kinds.len() as u64) as usize];
            // Reseeds are hashes: bit 40 is as good as independent of the kind drawn.
            Boost { kind, factor: FACTORS[(reseed >> 40) as usize & 1] }
        });
        Branch { step, reseed, boost }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::knob::KnobValue;
    use seedfall_host::world::fault::{clog, crash};

    #[test]
    fn half_the_reseeds_boost_one_enabled_kind_and_none_without_any() {
        let config = FaultConfig::default()
            .with(&crash::PER_SEC, KnobValue::Number(0.01))
            .with(&clog::PER_SEC, KnobValue::Number(0.5));
        let mixes = Mixes::of(&config);
        let branches: Vec<Branch> = (0..400).map(|r| mixes.branch(5, r)).collect();
        let boosted: Vec<&str> = branches.iter().filter_map(|b| b.boost).map(|b| b.kind).collect();
        assert_eq!(boosted.len(), 200, "every odd reseed");
        for kind in ["crash", "clog"] {
            assert_eq!(boosted.iter().filter(|k| **k == kind).count(), 100, "{kind}: half of the boosts each");
        }
        assert!(branches.iter().all(|b| b.step == 5));
        let factor = |reseed: u64| mixes.branch(5, reseed).boost.map(|b| b.factor);
        assert_eq!((factor(3), factor(3 | 1 << 40)), (Some(FACTORS[0]), Some(FACTORS[1])), "bit 40 picks the factor");
        assert_eq!(mixes.branch(5, 7), mixes.branch(5, 7), "the reseed decides");
        let none = Mixes::of(&FaultConfig::default());
        assert!((0..50).all(|r| none.branch(1, r).boost.is_none()), "nothing enabled: nothing to boost");
    }
}
