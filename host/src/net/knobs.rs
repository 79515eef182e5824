//! The network model's condition in a config's `faults`: `net_latency`, the
//! one-way latency of every segment and datagram. The network's fault kinds
//! (partitions, clogs, slowdowns, resets, datagram loss) declare their own
//! knobs under `world/fault/`.

use super::NetConfig;
use crate::knob::{FaultConfig, Knob};

pub static NET_LATENCY: Knob =
    Knob::range("net_latency", 50_000, 2_000_000, "the one-way latency of each segment, drawn uniformly");

pub static KNOBS: &[&Knob] = &[&NET_LATENCY];

impl NetConfig {
    /// The network options `config` sets.
    pub fn from_knobs(config: &FaultConfig) -> NetConfig {
        let (min, max) = config.range(&NET_LATENCY);
        NetConfig { latency_min: min, latency_max: max }
    }
}
