//! The registry of loaded code ranges, read by the signal handler to decide
//! whether a fault happened in guest code. Lock-free and allocation-free on the
//! read side: a fixed array of (start, end) atomics scanned linearly.

use std::sync::atomic::{AtomicUsize, Ordering};

const SLOTS: usize = 4096;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot { start: AtomicUsize::new(0), end: AtomicUsize::new(0) };
static RANGES: [Slot; SLOTS] = [EMPTY; SLOTS];

/// A registered range; unregistered when dropped.
#[derive(Debug)]
pub struct Registration(usize);

/// Register `[start, end)`. Fails only when `SLOTS` modules are loaded at once.
pub fn register(start: usize, end: usize) -> Option<Registration> {
    for (i, slot) in RANGES.iter().enumerate() {
        if slot.start.compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            slot.end.store(end, Ordering::Release);
            return Some(Registration(i));
        }
    }
    None
}

impl Drop for Registration {
    fn drop(&mut self) {
        let slot = &RANGES[self.0];
        slot.end.store(0, Ordering::Release);
        slot.start.store(0, Ordering::Release);
    }
}

/// Whether `pc` lies in registered code. Async-signal-safe.
pub fn contains(pc: usize) -> bool {
    RANGES.iter().any(|slot| {
        let start = slot.start.load(Ordering::Acquire);
        start != 0 && pc >= start && pc < slot.end.load(Ordering::Acquire)
    })
}
