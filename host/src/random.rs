//! Seeded random streams. Every consumer of randomness gets its own ChaCha8
//! stream derived from (seed, purpose, node, incarnation), so adding or
//! removing one consumer does not shift the numbers another one sees.
//! Purposes are an enum whose labels are pinned by a test: a label is part
//! of every stream derived from it, so changing one changes every trace.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// What a stream is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A node's `random_get` bytes.
    RandomGet,
    /// Which of several nodes due at the same instant runs first.
    Schedule,
    /// Network latency of each chunk.
    NetLatency,
    /// How long each fsync waits (`disk_latency`).
    DiskLatency,
    /// Which pending writes survive a crash (`torn_writes`).
    TornWrites,
    /// What survives of pending writes at one crash, keyed by the crash
    /// itself (`reorder_writes`, `corrupt_on_crash`).
    Crash(CrashKey),
    /// Which fault kinds a seed keeps, and how strongly (`swarm`).
    Swarm,
    /// A fault kind's own draws, by the kind's schedule name.
    Fault(&'static str, Draw),
}

/// Which crash a stream belongs to: one in the middle of a disk operation
/// by that operation's number, any other by its virtual time, so that
/// removing other faults (which moves times and renumbers incarnations)
/// leaves a crash's draws alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashKey {
    DiskOp(u64),
    /// The crash's absolute monotonic clock reading: streams were keyed
    /// by it first, and a key must not change.
    Time(u64),
}

/// The draws of one fault kind, each its own stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    /// When planned occurrences arrive (the kind's name alone, as label).
    Times,
    /// How long each lasts (downtimes, lengths).
    Lengths,
    /// Which nodes a cluster-wide fault cuts, and how.
    Shape,
    /// Per disk operation: whether it fails, and how much of it applies.
    DiskOps,
    /// Counted-call points (the preemption strategy's draws).
    Points,
    /// Signed sizes (a clock skew's offset, a jump).
    Amounts,
    /// Per datagram on one link: whether it is lost or duplicated.
    Datagrams,
}

impl Purpose {
    /// The label mixed into the stream's key.
    pub fn label(self) -> String {
        match self {
            Purpose::RandomGet => "random_get".into(),
            Purpose::Schedule => "schedule".into(),
            Purpose::NetLatency => "net latency".into(),
            Purpose::DiskLatency => "disk latency".into(),
            Purpose::TornWrites => "disk torn_writes".into(),
            Purpose::Crash(CrashKey::DiskOp(op)) => format!("disk crash at op {op}"),
            Purpose::Crash(CrashKey::Time(at_ns)) => format!("disk crash at {at_ns}"),
            Purpose::Swarm => "swarm".into(),
            Purpose::Fault(kind, Draw::Times | Draw::Points) => kind.into(),
            Purpose::Fault(kind, Draw::Lengths) => format!("{kind} downtime"),
            Purpose::Fault(kind, Draw::Shape) => format!("{kind} shape"),
            Purpose::Fault(kind, Draw::DiskOps) => format!("disk {kind}"),
            Purpose::Fault(kind, Draw::Amounts) => format!("{kind} amount"),
            Purpose::Fault(kind, Draw::Datagrams) => format!("datagram {kind}"),
        }
    }
}

pub struct RandomStream {
    rng: ChaCha8Rng,
    /// The key it was made with, before any branch.
    base: [u8; 32],
    /// The depth of the lineage `rng` follows (`branch::Lineage`).
    depth: u32,
}

impl RandomStream {
    /// The stream for `purpose` of node `node` ("" for the cluster), boot `incarnation`.
    pub fn new(seed: u64, purpose: Purpose, node: &str, incarnation: u32) -> RandomStream {
        let mut hasher = blake3::Hasher::new_derive_key("seedfall random stream v1");
        hasher.update(&seed.to_le_bytes());
        let label = purpose.label();
        for part in [label.as_str(), node] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher.update(&incarnation.to_le_bytes());
        let base = *hasher.finalize().as_bytes();
        RandomStream { rng: ChaCha8Rng::from_seed(base), base, depth: 0 }
    }

    /// Follows the thread's lineage: after a branch, the stream draws from
    /// its branched key, from that stream's beginning.
    fn follow_lineage(&mut self) {
        let lineage = crate::branch::current();
        if lineage.depth() != self.depth {
            self.rng = ChaCha8Rng::from_seed(lineage.rekey(&self.base));
            self.depth = lineage.depth();
        }
    }

    /// Fill `buf`. A non-empty output is never all zero bytes: Go's runtime
    /// treats that as a failed read and falls back to time-based seeding.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.follow_lineage();
        self.rng.fill_bytes(buf);
        if !buf.is_empty() && buf.iter().all(|b| *b == 0) {
            buf[0] = 1;
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.follow_lineage();
        self.rng.next_u64()
    }

    /// Uniform in `0..n` (`n` > 0), by the multiply-shift method (no modulo bias, no loop).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `min..=max`.
    pub fn between(&mut self, min: u64, max: u64) -> u64 {
        debug_assert!(min <= max);
        let span = u128::from(max - min) + 1;
        min + ((u128::from(self.next_u64()) * span) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`; draws nothing when `p` is not above 0, so a
    /// fault that is switched off never shifts its stream.
    pub fn chance(&mut self, p: f64) -> bool {
        if p.is_nan() || p <= 0.0 {
            return false;
        }
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(seed: u64, node: &str, incarnation: u32) -> [u8; 16] {
        let mut out = [0; 16];
        RandomStream::new(seed, Purpose::RandomGet, node, incarnation).fill(&mut out);
        out
    }

    #[test]
    fn purpose_labels_are_pinned() {
        // A label change changes every trace and every schedule drawn from a seed.
        let pinned = [
            (Purpose::RandomGet, "random_get"),
            (Purpose::Schedule, "schedule"),
            (Purpose::NetLatency, "net latency"),
            (Purpose::TornWrites, "disk torn_writes"),
            (Purpose::Swarm, "swarm"),
            (Purpose::Fault("k", Draw::Times), "k"),
            (Purpose::Fault("k", Draw::Points), "k"),
            (Purpose::Fault("k", Draw::Lengths), "k downtime"),
            (Purpose::Fault("k", Draw::Shape), "k shape"),
            (Purpose::Fault("k", Draw::Amounts), "k amount"),
            (Purpose::Fault("k", Draw::DiskOps), "disk k"),
            (Purpose::Fault("k", Draw::Datagrams), "datagram k"),
        ];
        for (purpose, label) in pinned {
            assert_eq!(purpose.label(), label, "{purpose:?}");
        }
        let mut a = RandomStream::new(7, Purpose::RandomGet, "n", 1);
        assert_eq!(a.next_u64(), 0x969f_b26f_37cf_ecf5, "the derivation itself is pinned too");
    }

    #[test]
    fn same_inputs_same_stream_and_any_change_differs() {
        assert_eq!(bytes(1, "a", 1), bytes(1, "a", 1));
        assert_ne!(bytes(1, "a", 1), bytes(2, "a", 1));
        assert_ne!(bytes(1, "a", 1), bytes(1, "b", 1));
        assert_ne!(bytes(1, "a", 1), bytes(1, "a", 2));
    }
}
