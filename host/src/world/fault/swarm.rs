//! Swarm testing (TigerBeetle's VOPR, Groce et al. 2012): with `swarm`, each
//! seed keeps a seeded subset of the enabled fault kinds, each at a seeded
//! intensity, so a sweep also covers runs where one fault kind is absent or
//! rare. Drawn from its own stream, one draw pair per enabled kind in
//! registry order; at least one enabled kind is always kept.

use super::{FaultConfig, FaultKind, KINDS, Knob};
use crate::random::{Purpose, RandomStream};

pub static SWARM: Knob =
    Knob::switch("swarm", "each seed keeps a seeded subset of the enabled kinds at seeded intensities");

/// The lowest intensity a kept kind runs at (a fraction of the config's).
const MIN_FACTOR: f64 = 0.1;

/// What swarm chose for one kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub kind: &'static str,
    /// The fraction of the config's intensity kept (0: dropped).
    pub factor: f64,
}

/// The config this seed runs with, and the choices (empty when swarm is off
/// or no kind is enabled).
pub fn apply(seed: u64, config: &FaultConfig) -> (FaultConfig, Vec<Choice>) {
    let mut out = config.clone();
    if !config.switch(&SWARM) {
        return (out, Vec::new());
    }
    let mut stream = RandomStream::new(seed, Purpose::Swarm, "", 0);
    let enabled: Vec<&dyn FaultKind> = KINDS.iter().copied().filter(|k| k.enabled(config)).collect();
    let mut draws: Vec<(bool, f64)> =
        enabled.iter().map(|_| (stream.below(2) == 1, MIN_FACTOR + (1.0 - MIN_FACTOR) * stream.unit())).collect();
    if !draws.is_empty() && draws.iter().all(|(keep, _)| !keep) {
        let first = stream.below(draws.len() as u64) as usize;
        draws[first].0 = true;
    }
    let choices = enabled
        .iter()
        .zip(draws)
        .map(|(kind, (keep, factor))| {
            kind.scale(&mut out, if keep { factor } else { 0.0 });
            Choice { kind: kind.name(), factor: if keep { factor } else { 0.0 } }
        })
        .collect();
    (out, choices)
}

/// The line `replay` prints at the top.
pub fn describe(choices: &[Choice]) -> String {
    let parts: Vec<String> = choices
        .iter()
        .map(|c| if c.factor > 0.0 { format!("{} x{:.2}", c.kind, c.factor) } else { format!("{} off", c.kind) })
        .collect();
    format!("swarm: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::{KnobValue, crash, crash_io, disk_error, partition};
    use super::*;

    fn config() -> FaultConfig {
        FaultConfig::default()
            .with(&crash::PER_SEC, KnobValue::Number(1.0))
            .with(&partition::PER_SEC, KnobValue::Number(0.5))
            .with(&crash_io::PROBABILITY, KnobValue::Number(0.01))
            .with(disk_error::FSYNC_EIO.knobs()[0], KnobValue::Number(0.02))
            .with(&SWARM, KnobValue::Switch(true))
    }

    #[test]
    fn seeds_keep_different_subsets_and_always_one() {
        let mut subsets = std::collections::BTreeSet::new();
        for seed in 1..200 {
            let (out, choices) = apply(seed, &config());
            assert_eq!(choices, apply(seed, &config()).1, "seeded");
            assert_eq!(choices.len(), 4, "the four enabled kinds");
            let kept: Vec<bool> = choices.iter().map(|c| c.factor > 0.0).collect();
            assert!(kept.contains(&true), "seed {seed} keeps at least one kind");
            for c in &choices {
                assert!(c.factor == 0.0 || (MIN_FACTOR..=1.0).contains(&c.factor));
            }
            assert_eq!(out.number(&crash::PER_SEC), choices[1].factor, "crash's rate is scaled by its factor");
            subsets.insert(kept);
        }
        assert!(subsets.len() >= 12, "most of the 15 non-empty subsets occur: {}", subsets.len());
        let off = config().with(&SWARM, KnobValue::Switch(false));
        assert_eq!(apply(3, &off), (off.clone(), Vec::new()), "swarm off changes nothing");
    }
}
