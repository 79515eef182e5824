//! Seeded random streams. Every consumer of randomness gets its own ChaCha8
//! stream derived from (seed, purpose, node, incarnation), so adding or
//! removing one consumer does not shift the numbers another one sees.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

pub struct RandomStream {
    rng: ChaCha8Rng,
}

impl RandomStream {
    /// The stream for `purpose` (e.g. "random_get") of node `node`, boot `incarnation`.
    pub fn new(seed: u64, purpose: &str, node: &str, incarnation: u32) -> RandomStream {
        let mut hasher = blake3::Hasher::new_derive_key("seedfall random stream v1");
        hasher.update(&seed.to_le_bytes());
        for part in [purpose, node] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher.update(&incarnation.to_le_bytes());
        RandomStream { rng: ChaCha8Rng::from_seed(*hasher.finalize().as_bytes()) }
    }

    /// Fill `buf`. A non-empty output is never all zero bytes: Go's runtime
    /// treats that as a failed read and falls back to time-based seeding.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.rng.fill_bytes(buf);
        if !buf.is_empty() && buf.iter().all(|b| *b == 0) {
            buf[0] = 1;
        }
    }

    pub fn next_u64(&mut self) -> u64 {
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
        RandomStream::new(seed, "random_get", node, incarnation).fill(&mut out);
        out
    }

    #[test]
    fn same_inputs_same_stream_and_any_change_differs() {
        assert_eq!(bytes(1, "a", 1), bytes(1, "a", 1));
        assert_ne!(bytes(1, "a", 1), bytes(2, "a", 1));
        assert_ne!(bytes(1, "a", 1), bytes(1, "b", 1));
        assert_ne!(bytes(1, "a", 1), bytes(1, "a", 2));
    }
}
