//! The trace hash: a fingerprint of everything a run did that must be the same
//! for the same seed — every host call with its arguments and result, every
//! scheduling step, and the node's final memory. Real-time figures never go
//! in. Two runs that hash equal behaved the same byte for byte.

use crate::watchdog::Progress;

#[derive(Default)]
pub struct Trace {
    hasher: blake3::Hasher,
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

    fn event(&mut self, tag: &[u8], name: &[u8], args: &[u64], result: u64) {
        self.events += 1;
        self.hasher.update(tag);
        self.hasher.update(&(name.len() as u64).to_le_bytes());
        self.hasher.update(name);
        self.hasher.update(&(args.len() as u64).to_le_bytes());
        for a in args {
            self.hasher.update(&a.to_le_bytes());
        }
        self.hasher.update(&result.to_le_bytes());
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    /// The final hash, over the events and the node's memory at the end.
    pub fn finish(&self, memory: &[u8]) -> String {
        let mut hasher = self.hasher.clone();
        hasher.update(b"memory");
        hasher.update(memory);
        hasher.finalize().to_hex().to_string()
    }
}
