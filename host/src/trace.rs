//! The trace hash: a fingerprint of everything a run did that must be the same
//! for the same seed — every host call with its arguments and result, every
//! byte the host writes into guest memory (read data and counts, random
//! bytes, clock values, poll events), every scheduling step, and the node's
//! final memory. Real-time figures never go in. Two runs that hash equal
//! behaved the same byte for byte.
//!
//! With a `HashLog` attached, every event is also logged with its own
//! digest and where it happened (scheduler step, virtual time, node#k), so
//! two runs can be compared event by event and the first divergence named
//! (`seedfall run -check`, `replay --save-trace/--against`). A logged
//! event also carries two observations that are never hashed and never
//! compared: the goroutine the node ran at it (Go nodes) and, for the last
//! event before a node parked, what it parked on (`seedfall trace`).
//!
//! Events are encoded into a buffer that is hashed in large blocks (blake3 is
//! several times faster on long inputs than on many small updates), and the
//! final memory is hashed as the runs of pages that changed since
//! instantiation, with their positions: most of a Go node's memory is still
//! its data image or zeros, which cost a comparison instead of a hash.

use crate::watchdog::Progress;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// Bytes of encoded events buffered before they are hashed.
const BUFFER_BYTES: usize = 64 << 10;
/// The unit in which zero memory is skipped.
const PAGE: usize = 4096;

/// A trace hash (blake3).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TraceHash(pub [u8; 32]);

impl fmt::Display for TraceHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for TraceHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceHash({self})")
    }
}

/// Where the events being logged happen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// The scheduler step (0: before the first).
    pub step: u64,
    /// Virtual time since the start, in nanoseconds.
    pub at_ns: u64,
    /// `node#k`, or `world`.
    pub node: String,
}

/// One logged event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub position: Position,
    /// What it was, for people: `call fd_read(3, 1024, 1) = 0`.
    pub what: String,
    /// A digest of exactly what was hashed for it.
    pub digest: u64,
    /// The goroutine running at it (node events of Go nodes; 0: g0).
    /// Observation only: not hashed, not compared.
    pub goroutine: Option<u64>,
    /// Set on the last event before the node parked: what it waits on
    /// (`read fd 5`, `timer until 1.2s`). Observation only.
    pub block: Option<String>,
}

impl LogEntry {
    /// The same event in two runs: position, text and digest agree (the
    /// goroutine and block observations are not compared, so a log written
    /// before they existed compares as it did).
    pub fn same_event(&self, other: &LogEntry) -> bool {
        self.position == other.position && self.what == other.what && self.digest == other.digest
    }
}

/// The per-event log of a run, shared by the world and its nodes' traces.
#[derive(Default)]
pub struct HashLog {
    pub position: Position,
    pub entries: Vec<LogEntry>,
}

pub type SharedLog = Rc<RefCell<HashLog>>;

#[derive(Default)]
pub struct Trace {
    hasher: blake3::Hasher,
    buffer: Vec<u8>,
    events: u64,
    /// Bumped on every host call, for the watchdog (not part of the hash).
    pub progress: Progress,
    /// When set, every event is logged too.
    pub log: Option<SharedLog>,
    /// Set when the guest was found in a busy loop and waits for the
    /// watchdog's interrupt: how far it spins until then is real-time, so
    /// nothing after that point (events, final memory) may enter the hash.
    pub frozen: bool,
    /// The goroutine seen last at a host call or hook (Go nodes), logged
    /// with each event; never hashed.
    pub goroutine: Option<u64>,
}

impl Trace {
    /// A host call: its name, raw argument slots and result.
    pub fn host_call(&mut self, name: &str, args: &[u64], result: u64) {
        self.progress.bump();
        self.event(b"call", name.as_bytes(), args, result);
    }

    /// The preemption hook's call: like `host_call`, but it does not count as
    /// progress for the watchdog while the goroutine ignores requests.
    pub fn hook_call(&mut self, name: &str, args: &[u64], result: u64) {
        self.progress.bump_hook();
        self.event(b"call", name.as_bytes(), args, result);
    }

    /// The host wrote `bytes` into guest memory at `ptr`.
    pub fn memory_write(&mut self, ptr: u32, bytes: &[u8]) {
        self.event(b"write", bytes, &[ptr as u64], 0);
    }

    /// The node resumed at virtual time `now_ns`.
    pub fn resume(&mut self, now_ns: u64) {
        self.event(b"resume", &[], &[now_ns], 0);
    }

    /// Any other event: a tag, a name (or other bytes) and values.
    pub fn record(&mut self, tag: &[u8], name: &[u8], values: &[u64]) {
        self.event(tag, name, values, 0);
    }

    /// `record`, with `note` added to the log's text of it (never hashed).
    pub fn record_noted(&mut self, tag: &[u8], name: &[u8], values: &[u64], note: &str) {
        self.noted_event(tag, name, values, 0, note);
    }

    fn event(&mut self, tag: &[u8], name: &[u8], args: &[u64], result: u64) {
        self.noted_event(tag, name, args, result, "");
    }

    fn noted_event(&mut self, tag: &[u8], name: &[u8], args: &[u64], result: u64, note: &str) {
        if self.frozen {
            return;
        }
        self.events += 1;
        let start = self.buffer.len();
        let b = &mut self.buffer;
        b.extend_from_slice(tag);
        b.extend_from_slice(&(name.len() as u64).to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(&(args.len() as u64).to_le_bytes());
        for a in args {
            b.extend_from_slice(&a.to_le_bytes());
        }
        b.extend_from_slice(&result.to_le_bytes());
        if let Some(log) = &self.log {
            let mut log = log.borrow_mut();
            let entry = LogEntry {
                position: log.position.clone(),
                what: what(tag, name, args, result) + note,
                digest: fnv(&b[start..]),
                goroutine: self.goroutine,
                block: None,
            };
            log.entries.push(entry);
        }
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
    /// `untouched` (per page, from `LinearMemory::untouched_pages`) names
    /// pages known to be as they started without reading them: a crash
    /// loop retires an incarnation per crash, and reading every page of
    /// each one's memory was most of a 10,000-crash replay (issue 19). It
    /// changes the cost, never the hash.
    pub fn finish(&self, memory: &[u8], initial: &[u8], untouched: Option<&[bool]>) -> TraceHash {
        static ZERO: [u8; PAGE] = [0; PAGE];
        let mut hasher = self.hasher.clone();
        hasher.update(&self.buffer);
        let memory = if self.frozen { &[][..] } else { memory };
        hasher.update(b"memory");
        hasher.update(&(memory.len() as u64).to_le_bytes());
        let unchanged = |i: usize, page: &[u8]| {
            untouched.and_then(|u| u.get(i)).copied().unwrap_or(false)
                || match initial.get(i * PAGE..i * PAGE + page.len()) {
                    Some(start) => start == page,
                    None => page == &ZERO[..page.len()],
                }
        };
        let mut run_start: Option<usize> = None;
        for (i, page) in memory.chunks(PAGE).enumerate() {
            match (unchanged(i, page), run_start) {
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
        TraceHash(*hasher.finalize().as_bytes())
    }
}

/// An event for people.
fn what(tag: &[u8], name: &[u8], args: &[u64], result: u64) -> String {
    let tag = String::from_utf8_lossy(tag);
    match &*tag {
        "call" => {
            let args: Vec<String> = args.iter().map(u64::to_string).collect();
            format!("host call {}({}) = {result}", String::from_utf8_lossy(name), args.join(", "))
        }
        "write" => format!("host wrote {} bytes at {:#x}", name.len(), args.first().copied().unwrap_or(0)),
        _ if name.iter().all(|b| b.is_ascii_graphic() || *b == b' ') => {
            format!("{tag} {} {args:?}", String::from_utf8_lossy(name))
        }
        _ => format!("{tag} ({} bytes) {args:?}", name.len()),
    }
}

/// FNV-1a: a cheap digest for the log (the hash itself is blake3).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(events: &[(&str, u64)], memory: &[u8]) -> TraceHash {
        let mut trace = Trace::default();
        for (name, arg) in events {
            trace.host_call(name, &[*arg], 0);
        }
        trace.finish(memory, &[], None)
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
            trace.finish(&memory, &initial, None),
            trace.finish(&changed_image, &initial, None),
            "a page that changed counts"
        );
        memory[7] = 9;
        changed_image[7] = 8;
        assert_ne!(
            trace.finish(&memory, &initial, None),
            trace.finish(&changed_image, &initial, None),
            "so does how it changed"
        );
        let many: Vec<(&str, u64)> = (0..20_000).map(|i| ("x", i)).collect();
        let mut changed = many.clone();
        changed[19_999].1 += 1;
        assert_ne!(hash(&many, &memory), hash(&changed, &memory), "events past a buffer flush count");
    }

    /// Pages said to be untouched are skipped, not hashed differently: the
    /// hash is the one reading every page gives.
    #[test]
    fn untouched_pages_change_the_cost_not_the_hash() {
        let initial = vec![9u8; 2 * PAGE];
        let mut memory = vec![0u8; 6 * PAGE];
        memory[..2 * PAGE].copy_from_slice(&initial);
        memory[4 * PAGE + 1] = 5;
        let trace = Trace::default();
        let all = trace.finish(&memory, &initial, None);
        let untouched = [true, false, true, true, false, true];
        assert_eq!(trace.finish(&memory, &initial, Some(&untouched)), all);
        assert_eq!(trace.finish(&memory, &initial, Some(&untouched[..2])), all, "pages past the list are read");
    }
}
