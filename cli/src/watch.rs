//! A long library call (a sweep, a shrink, `cause`'s futures) as another
//! thread sees it: a stop flag the call polls between runs, so it ends at a
//! clean point, and how many of its runs are done out of how many, with a
//! line saying where it is. The MCP server sets the flag when a client
//! cancels and turns the counts into progress notifications. A set flag
//! does not stop a run in the middle (the watchdog bounds a run).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct Watch {
    pub stop: Arc<AtomicBool>,
    done: AtomicU64,
    /// 0 while unknown.
    total: AtomicU64,
    note: Mutex<String>,
}

impl Watch {
    /// A watch stopped by `stop`.
    pub fn new(stop: Arc<AtomicBool>) -> Watch {
        Watch { stop, ..Watch::default() }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    /// One more run done.
    pub fn add_done(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// `done` runs done so far.
    pub fn set_done(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }

    /// Where the call is, in a few words.
    pub fn note(&self, note: impl Into<String>) {
        *self.note.lock().unwrap_or_else(|e| e.into_inner()) = note.into();
    }

    /// Runs done, runs in all (None while unknown), and the last note.
    pub fn read(&self) -> (u64, Option<u64>, String) {
        let total = self.total.load(Ordering::Relaxed);
        let note = self.note.lock().unwrap_or_else(|e| e.into_inner()).clone();
        (self.done.load(Ordering::Relaxed), (total > 0).then_some(total), note)
    }
}
