//! Config knobs: the settings of a config's `faults` object, each declared
//! once, as a `Knob`, by the module it governs (a fault kind under
//! `world/fault/`, the disk model in `fs/knobs.rs`, the network model in
//! `net/knobs.rs`), and `FaultConfig`, the values one config gives them.
//!
//! A knob says its config name, its type (which also fixes its range check),
//! its default and one line of doc. The config reader walks the registry
//! (`world::fault::knobs`) and sets values through `FaultConfig::set`; the
//! governing module reads its own knobs back with the typed getters. Nothing
//! outside the declaring module names a knob's field, so a new kind adds its
//! knobs without touching the reader, the CLI or this file.
//!
//! Not here: the JSON syntax and the wording of config errors (the CLI's
//! `config/read.rs`), what a value does (its module).

use crate::vtime::SimDuration;
use std::collections::BTreeMap;

/// The rates a config accepts besides 0 (off): outside them the gaps are
/// beyond any horizon or a fault every few nanoseconds.
pub const RATE_PER_SEC_MIN: f64 = 1e-6;
pub const RATE_PER_SEC_MAX: f64 = 1e6;

/// What a knob holds, and so how the config reader checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnobType {
    /// Planned faults per second: 0 (off) or in [RATE_PER_SEC_MIN, RATE_PER_SEC_MAX].
    Rate,
    /// A per-operation probability in [0, 1].
    Probability,
    Switch,
    /// A positive duration.
    Duration,
    /// `[min, max]`, two positive durations with min <= max.
    Range,
    /// A whole number in [min, max]; `max_note` says what the bound is, for errors.
    Whole {
        min: u64,
        max: u64,
        max_note: &'static str,
    },
    /// A power of two in [1, max] (sizes that must divide one another).
    PowerOfTwo {
        max: u64,
    },
    /// One of these names; `noun` is what one is called, for errors ("model").
    OneOf {
        names: &'static [&'static str],
        noun: &'static str,
    },
    /// A non-empty set of these names (a bit per name, in this order).
    SetOf {
        names: &'static [&'static str],
        noun: &'static str,
    },
}

/// A knob's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KnobValue {
    Number(f64),
    Switch(bool),
    Duration(SimDuration),
    Range(SimDuration, SimDuration),
    Whole(u64),
    /// The index of the name in `KnobType::OneOf`.
    OneOf(usize),
    /// Bit i: the i-th name of `KnobType::SetOf`.
    SetOf(u32),
}

/// One setting of `faults`.
#[derive(Debug)]
pub struct Knob {
    /// The config name (`faults.NAME`).
    pub name: &'static str,
    pub ty: KnobType,
    /// The value when the config does not give one.
    pub default: KnobValue,
    /// One line for people (docs/config.md has the long form).
    pub doc: &'static str,
}

impl Knob {
    /// A rate, off by default.
    pub const fn rate(name: &'static str, doc: &'static str) -> Knob {
        Knob { name, ty: KnobType::Rate, default: KnobValue::Number(0.0), doc }
    }

    /// A probability, 0 by default.
    pub const fn probability(name: &'static str, doc: &'static str) -> Knob {
        Knob { name, ty: KnobType::Probability, default: KnobValue::Number(0.0), doc }
    }

    /// A switch, off by default.
    pub const fn switch(name: &'static str, doc: &'static str) -> Knob {
        Knob { name, ty: KnobType::Switch, default: KnobValue::Switch(false), doc }
    }

    pub const fn duration(name: &'static str, default_ns: u64, doc: &'static str) -> Knob {
        Knob { name, ty: KnobType::Duration, default: KnobValue::Duration(SimDuration::from_ns(default_ns)), doc }
    }

    pub const fn range(name: &'static str, min_ns: u64, max_ns: u64, doc: &'static str) -> Knob {
        let default = KnobValue::Range(SimDuration::from_ns(min_ns), SimDuration::from_ns(max_ns));
        Knob { name, ty: KnobType::Range, default, doc }
    }

    /// Whether `value` is of this knob's type (its range is the reader's to check).
    pub fn accepts(&self, value: &KnobValue) -> bool {
        match (self.ty, value) {
            (KnobType::Rate | KnobType::Probability, KnobValue::Number(_)) => true,
            (KnobType::Switch, KnobValue::Switch(_)) => true,
            (KnobType::Duration, KnobValue::Duration(_)) => true,
            (KnobType::Range, KnobValue::Range(min, max)) => min <= max,
            (KnobType::Whole { .. }, KnobValue::Whole(_)) => true,
            (KnobType::PowerOfTwo { max }, KnobValue::Whole(n)) => n.is_power_of_two() && *n <= max,
            (KnobType::OneOf { names, .. }, KnobValue::OneOf(i)) => *i < names.len(),
            (KnobType::SetOf { names, .. }, KnobValue::SetOf(bits)) => {
                *bits != 0 && (names.len() >= 32 || *bits >> names.len() == 0)
            }
            _ => false,
        }
    }
}

/// The values of one config's knobs: those it gives, by knob name; every
/// other knob has its default. Ordered, so equal configs compare and hash
/// alike whatever order their fields were written in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultConfig {
    values: BTreeMap<&'static str, KnobValue>,
}

/// A value a knob cannot hold (of another type, or out of its range).
#[derive(Debug, Clone, PartialEq)]
pub struct KnobValueError {
    pub knob: &'static str,
    pub value: KnobValue,
}

impl std::fmt::Display for KnobValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "`{}` cannot hold {:?}", self.knob, self.value)
    }
}

impl std::error::Error for KnobValueError {}

impl FaultConfig {
    /// Sets `knob` to `value`; an error if the value is not of the knob's type.
    pub fn set(&mut self, knob: &'static Knob, value: KnobValue) -> Result<(), KnobValueError> {
        if !knob.accepts(&value) {
            return Err(KnobValueError { knob: knob.name, value });
        }
        if value == knob.default {
            self.values.remove(knob.name);
        } else {
            self.values.insert(knob.name, value);
        }
        Ok(())
    }

    /// `self` with `knob` set: for building configs in code and tests.
    pub fn with(mut self, knob: &'static Knob, value: KnobValue) -> FaultConfig {
        if let Err(e) = self.set(knob, value) {
            panic!("{e}");
        }
        self
    }

    pub fn get(&self, knob: &Knob) -> KnobValue {
        self.values.get(knob.name).copied().unwrap_or(knob.default)
    }

    /// A rate's or a probability's value.
    pub fn number(&self, knob: &Knob) -> f64 {
        match self.get(knob) {
            KnobValue::Number(x) => x,
            _ => 0.0,
        }
    }

    pub fn switch(&self, knob: &Knob) -> bool {
        matches!(self.get(knob), KnobValue::Switch(true))
    }

    pub fn duration(&self, knob: &Knob) -> SimDuration {
        match self.get(knob) {
            KnobValue::Duration(d) => d,
            _ => SimDuration::ZERO,
        }
    }

    pub fn range(&self, knob: &Knob) -> (SimDuration, SimDuration) {
        match self.get(knob) {
            KnobValue::Range(min, max) => (min, max),
            _ => (SimDuration::ZERO, SimDuration::ZERO),
        }
    }

    pub fn whole(&self, knob: &Knob) -> u64 {
        match self.get(knob) {
            KnobValue::Whole(n) => n,
            _ => 0,
        }
    }

    /// The chosen name's index in `KnobType::OneOf`.
    pub fn one_of(&self, knob: &Knob) -> usize {
        match self.get(knob) {
            KnobValue::OneOf(i) => i,
            _ => 0,
        }
    }

    /// The chosen names, a bit each, in `KnobType::SetOf`'s order.
    pub fn set_of(&self, knob: &Knob) -> u32 {
        match self.get(knob) {
            KnobValue::SetOf(bits) => bits,
            _ => 0,
        }
    }

    /// Multiplies a rate or probability by `factor` (swarm below 1, an
    /// explored branch's boost above), kept within what the knob accepts.
    pub fn scale(&mut self, knob: &'static Knob, factor: f64) {
        let most = match knob.ty {
            KnobType::Probability => 1.0,
            _ => RATE_PER_SEC_MAX,
        };
        let scaled = KnobValue::Number((self.number(knob) * factor).min(most));
        // A knob of another type is left alone: only numbers scale.
        let _ = self.set(knob, scaled);
    }
}

#[cfg(test)]
impl FaultConfig {
    /// Sets the knob named `name`, for tests that think in config names.
    pub fn put(&mut self, name: &str, value: KnobValue) {
        let knob = crate::world::fault::knobs().into_iter().find(|k| k.name == name);
        let knob = knob.unwrap_or_else(|| panic!("no knob {name}"));
        self.set(knob, value).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RATE: Knob = Knob::rate("moon_per_sec", "moons");
    static LENGTH: Knob = Knob::range("moon_length", 1, 5, "how long");

    #[test]
    fn unset_knobs_read_their_default_and_setting_the_default_forgets_it() {
        let mut config = FaultConfig::default();
        assert_eq!(config.range(&LENGTH), (SimDuration::from_ns(1), SimDuration::from_ns(5)));
        config.set(&RATE, KnobValue::Number(2.0)).unwrap();
        assert_eq!(config.number(&RATE), 2.0);
        config.set(&RATE, KnobValue::Number(0.0)).unwrap();
        assert_eq!(config, FaultConfig::default(), "a value equal to the default is no value");
    }

    #[test]
    fn a_value_of_another_type_is_refused() {
        let mut config = FaultConfig::default();
        assert!(config.set(&RATE, KnobValue::Switch(true)).is_err());
        let backwards = KnobValue::Range(SimDuration::from_ns(5), SimDuration::from_ns(1));
        assert!(config.set(&LENGTH, backwards).is_err(), "min > max");
        assert_eq!(config, FaultConfig::default(), "nothing was set");
    }

    #[test]
    fn scaling_multiplies_a_number() {
        let mut config = FaultConfig::default().with(&RATE, KnobValue::Number(3.0));
        config.scale(&RATE, 0.5);
        assert_eq!(config.number(&RATE), 1.5);
    }
}
