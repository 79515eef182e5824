//! Which goroutine a Go node is running, as the host sees it: the id of the
//! g in Go's g global at every host call and preemption hook. A node's
//! schedule *shape* is the sequence of goroutine switches it made (an id
//! recorded each time it differs from the last one seen), folded into a hash
//! (`seedfall test -novelty` counts distinct shapes). g0, the scheduler's own
//! stack, counts as goroutine 0.
//!
//! Observation only: nothing here is hashed into the trace or changes what a
//! guest sees. What it does not see: switches between two host calls with no
//! host call or hook in the middle (the instrumentation's hooks bound how
//! long that can be).

use crate::preempt::goruntime::{self, GoOffsets};

/// One node incarnation's goroutine switches.
#[derive(Clone, Debug)]
pub struct Goroutines {
    offsets: GoOffsets,
    /// The goroutine seen last (0: g0 or none yet).
    current: u64,
    shape: blake3::Hasher,
    switches: u64,
}

impl Goroutines {
    pub fn new(offsets: GoOffsets) -> Goroutines {
        Goroutines { offsets, current: 0, shape: blake3::Hasher::new(), switches: 0 }
    }

    /// Notes the goroutine on `g` (the g global's value) as running now.
    pub fn observe(&mut self, memory: &[u8], g: u64) {
        let id = goruntime::goid(memory, g, &self.offsets);
        if id != self.current {
            self.current = id;
            self.switches += 1;
            self.shape.update(&id.to_le_bytes());
        }
    }

    /// The goroutine seen last.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Switches seen so far.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// The shape so far: a hash of every switch in order.
    pub fn shape(&self) -> u64 {
        let hash = self.shape.finalize();
        u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
    }
}

/// A node's shape over all its incarnations, in a run's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeShape {
    pub node: String,
    /// A hash of every incarnation's shape, in order.
    pub shape: u64,
    pub switches: u64,
}

impl NodeShape {
    pub fn new(node: &str) -> NodeShape {
        NodeShape { node: node.to_string(), shape: 0, switches: 0 }
    }

    /// Adds an ended incarnation's switches.
    pub fn absorb(&mut self, incarnation: &Goroutines) {
        let mut fold = blake3::Hasher::new();
        fold.update(&self.shape.to_le_bytes());
        fold.update(&incarnation.shape().to_le_bytes());
        self.shape = u64::from_le_bytes(fold.finalize().as_bytes()[..8].try_into().expect("8 bytes"));
        self.switches += incarnation.switches;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFSETS: GoOffsets = GoOffsets {
        g_stackguard0: 16,
        g_m: 48,
        g_atomicstatus: 144,
        g_preempt: 177,
        m_g0: 0,
        m_curg: 136,
        g_goid: 152,
    };

    /// Memory with a g at 0x100 (goid 7) and one at 0x400 (goid 9).
    fn memory() -> Vec<u8> {
        let mut memory = vec![0u8; 0x1000];
        memory[0x100 + 152..0x100 + 160].copy_from_slice(&7u64.to_le_bytes());
        memory[0x400 + 152..0x400 + 160].copy_from_slice(&9u64.to_le_bytes());
        memory
    }

    fn shape_of(gs: &[u64]) -> (u64, u64) {
        let memory = memory();
        let mut seen = Goroutines::new(OFFSETS);
        for &g in gs {
            seen.observe(&memory, g);
        }
        (seen.shape(), seen.switches())
    }

    #[test]
    fn a_shape_is_the_sequence_of_switches() {
        // Repeats of the running goroutine are one switch; g = 0 is goroutine 0.
        assert_eq!(shape_of(&[0x100, 0x100, 0x400]), shape_of(&[0x100, 0x400, 0x400]));
        assert_eq!(shape_of(&[0x100, 0x400]).1, 2);
        assert_ne!(shape_of(&[0x100, 0x400]), shape_of(&[0x400, 0x100]));
        assert_ne!(shape_of(&[0x100, 0, 0x100]), shape_of(&[0x100]));
        // A g outside memory reads as goroutine 0, never a panic.
        assert_eq!(shape_of(&[0xFFFF_FFFF]), shape_of(&[]));
    }
}
