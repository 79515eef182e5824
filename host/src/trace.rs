//! The trace hash: a fingerprint of everything a run did that must be the same
//! for the same seed — every host call with its arguments and result, every
//! scheduling step, and the node's final memory. Real-time figures never go
//! in. Two runs that hash equal behaved the same byte for byte.
//!
//! Events are encoded into a buffer that is hashed in large blocks (blake3 is
//! several times faster on long inputs than on many small updates), and the
//! final memory is hashed as the runs of pages that changed since
//! instantiation, with their positions: most of a Go node's memory is still
//! its data image or zeros, which cost a comparison instead of a hash.

use crate::watchdog::Progress;

/// Bytes of encoded events buffered before they are hashed.
const BUFFER_BYTES: usize = 64 << 10;
/// The unit in which zero memory is skipped.
const PAGE: usize = 4096;

#[derive(Default)]
pub struct Trace {
    hasher: blake3::Hasher,
    buffer: Vec<u8>,
    events: u64,
    /// Bumped on every host call, for the watchdog (not part of the hash).
    pub progress: Progress,
}

impl Trace {
    /// A host call: its name, raw argument slots and result.
    pub fn host_call(&mut self, name: &str, args: &[u64], result: u64) {
        self.progress.bump();
        self.event(b"call", name.as_bytes(), args, result);
    }

    /// The node resumed at virtual time `now_ns`.
    pub fn resume(&mut self, now_ns: u64) {
        self.event(b"resume", &[], &[now_ns], 0);
    }

    /// Any other event: a tag, a name (or other bytes) and values.
    pub fn record(&mut self, tag: &[u8], name: &[u8], values: &[u64]) {
        self.event(tag, name, values, 0);
    }

    fn event(&mut self, tag: &[u8], name: &[u8], args: &[u64], result: u64) {
        self.events += 1;
        let b = &mut self.buffer;
        b.extend_from_slice(tag);
        b.extend_from_slice(&(name.len() as u64).to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(&(args.len() as u64).to_le_bytes());
        for a in args {
            b.extend_from_slice(&a.to_le_bytes());
        }
        b.extend_from_slice(&result.to_le_bytes());
        if b.len() >= BUFFER_BYTES {
            self.hasher.update(b);
            b.clear();
        }
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    /// The final hash, over the events and the node's memory at the end:
    /// its size and every run of pages that differ from how they started
    /// (`initial`, the module's memory image; zeros past it), with offsets.
    pub fn finish(&self, memory: &[u8], initial: &[u8]) -> String {
        let mut hasher = self.hasher.clone();
        hasher.update(&self.buffer);
        hasher.update(b"memory");
        hasher.update(&(memory.len() as u64).to_le_bytes());
        let unchanged = |at: usize, page: &[u8]| match initial.get(at..at + page.len()) {
            Some(start) => start == page,
            None => page.iter().fold(0u8, |acc, b| acc | b) == 0,
        };
        let mut run_start: Option<usize> = None;
        for (i, page) in memory.chunks(PAGE).enumerate() {
            match (unchanged(i * PAGE, page), run_start) {
                (false, None) => run_start = Some(i * PAGE),
                (true, Some(start)) => {
                    hasher.update(&(start as u64).to_le_bytes());
                    hasher.update(&memory[start..i * PAGE]);
                    run_start = None;
                }
                _ => {}
            }
        }
        if let Some(start) = run_start {
            hasher.update(&(start as u64).to_le_bytes());
            hasher.update(&memory[start..]);
        }
        hasher.finalize().to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(events: &[(&str, u64)], memory: &[u8]) -> String {
        let mut trace = Trace::default();
        for (name, arg) in events {
            trace.host_call(name, &[*arg], 0);
        }
        trace.finish(memory, &[])
    }

    #[test]
    fn every_event_and_every_non_zero_byte_counts() {
        let mut memory = vec![0u8; 5 * PAGE];
        let base = hash(&[("a", 1), ("b", 2)], &memory);
        assert_eq!(base, hash(&[("a", 1), ("b", 2)], &memory));
        assert_ne!(base, hash(&[("a", 1), ("b", 3)], &memory));
        assert_ne!(base, hash(&[("b", 2), ("a", 1)], &memory), "order counts");
        assert_ne!(base, hash(&[("a", 1), ("b", 2)], &memory[..4 * PAGE]), "the size counts");
        memory[3 * PAGE + 7] = 1;
        let one = hash(&[("a", 1), ("b", 2)], &memory);
        assert_ne!(base, one);
        memory[3 * PAGE + 7] = 0;
        memory[2 * PAGE + 7] = 1;
        assert_ne!(one, hash(&[("a", 1), ("b", 2)], &memory), "where a byte is counts");
        let initial = vec![9u8; PAGE];
        let mut trace = Trace::default();
        trace.host_call("a", &[1], 0);
        let mut changed_image = memory.clone();
        changed_image[7] = 9;
        assert_ne!(
            trace.finish(&memory, &initial),
            trace.finish(&changed_image, &initial),
            "a page that changed counts"
        );
        memory[7] = 9;
        changed_image[7] = 8;
        assert_ne!(trace.finish(&memory, &initial), trace.finish(&changed_image, &initial), "so does how it changed");
        let many: Vec<(&str, u64)> = (0..20_000).map(|i| ("x", i)).collect();
        let mut changed = many.clone();
        changed[19_999].1 += 1;
        assert_ne!(hash(&many, &memory), hash(&changed, &memory), "events past a buffer flush count");
    }
}
