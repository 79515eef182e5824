//! The real-time watchdog: stops a guest that runs for too long without making
//! any host call (a loop with no calls and no loop counters never reaches the
//! preemption hook). It watches a progress counter that every host call bumps;
//! if the counter stands still for `limit` of real time it interrupts the
//! guest's thread, which traps with `TrapKind::Interrupted`. Real time is read
//! only here, never in the simulation, and never affects a run that finishes.

use seedfall_engine::Interrupter;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const DEFAULT_LIMIT: Duration = Duration::from_secs(10);

/// Host calls made so far; shared with the watchdog thread.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<AtomicU64>);

impl Progress {
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A running watchdog; stops when dropped.
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Watch `progress` on behalf of the calling thread.
    pub fn start(progress: Progress, limit: Duration) -> Watchdog {
        let interrupter = Interrupter::current();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let tick = (limit / 10).clamp(Duration::from_millis(1), Duration::from_millis(100));
        let thread = std::thread::spawn(move || {
            let (mut seen, mut since) = (progress.get(), Instant::now());
            while !stopped.load(Ordering::Relaxed) {
                // Parked, not slept: `drop` unparks it, so stopping never waits out a tick.
                std::thread::park_timeout(tick);
                let now = progress.get();
                if now != seen {
                    (seen, since) = (now, Instant::now());
                } else if since.elapsed() >= limit && !stopped.load(Ordering::Relaxed) {
                    interrupter.interrupt();
                    since = Instant::now();
                }
            }
        });
        Watchdog { stop, thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
