//! The real-time watchdog: stops a guest that runs for too long without making
//! any host call or function call (a loop with no calls and no loop counters
//! never reaches the preemption hook). It watches a progress counter that every
//! host call bumps and the guest's call counter; if both stand still while the
//! guest's thread spends `limit` of CPU time it interrupts the guest's thread,
//! which traps with `TrapKind::Interrupted`. CPU time of that thread, not wall
//! time (every platform has a per-thread CPU clock: Linux's
//! `pthread_getcpuclockid`, macOS's Mach `thread_info`, Windows's
//! `GetThreadTimes` in `watchdog_windows`): a
//! machine loaded by other work delays the guest without making it spin, and
//! must not turn a long computation into a verdict. Real time is read only
//! here, never in the simulation, and never affects a run that finishes.
//!
//! The counter stops counting as progress while the running goroutine ignores
//! preemption requests (`set_stalled`, set by the hook at a slice end whose
//! previous request is still pending, without loop counters): its loop calls
//! only functions that cannot take a request (runtime or internal packages),
//! so it would keep every other goroutine of its node from running forever.
//! Then only host calls other than the hook count, and the watchdog stops it
//! after `limit` like a call-free loop. With loop counters the hook finds such
//! a loop deterministically instead (`preempt::BUSY_SLICES`).
//!
//! The preemption hook can also ask for an interrupt at once (`request_stop`)
//! when it has found a busy loop deterministically: the hook itself cannot
//! name the function that spins, the interrupt lands in it and does.

use seedfall_engine::Interrupter;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub const DEFAULT_LIMIT: Duration = Duration::from_secs(10);
/// The shortest limit accepted: below it a verdict would depend on the machine's speed (a slow or
/// loaded runner takes longer than that between two host calls in ordinary code, Go's start-up
/// included).
pub const MIN_LIMIT: Duration = Duration::from_millis(100);

/// Refuses a limit under [`MIN_LIMIT`]; the message names the minimum, the caller the field.
pub fn check_limit(limit: Duration) -> Result<(), LimitTooShort> {
    if limit < MIN_LIMIT {
        return Err(LimitTooShort(limit));
    }
    Ok(())
}

/// A watchdog limit under [`MIN_LIMIT`] (the limit found).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitTooShort(pub Duration);

impl std::fmt::Display for LimitTooShort {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "must be at least {}ms (a shorter limit makes the verdict depend on the machine's speed), found {:?}",
            MIN_LIMIT.as_millis(),
            self.0
        )
    }
}

impl std::error::Error for LimitTooShort {}

/// What the watchdog watches: host calls made so far, and optionally the
/// guest's preemption counter, which every function entry decrements — so a
/// guest that keeps calling functions (a long computation between two hooks,
/// like comparing megabytes in Go's `bytes` tests) is making progress too.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    host_calls: Arc<AtomicU64>,
    /// Host calls other than the preemption hook.
    other_calls: Arc<AtomicU64>,
    /// The running goroutine ignores preemption requests: only `other_calls` count.
    stalled: Arc<AtomicBool>,
    /// The address of the watched counter (0: none). Locked while the
    /// watchdog reads through it, so `unwatch_counter` returning means the
    /// instance that owns it may be dropped.
    counter: Arc<Mutex<usize>>,
    /// Set when the running guest must be interrupted now; the watchdog
    /// thread to wake for it.
    stop_now: Arc<AtomicBool>,
    waker: Arc<Mutex<Option<std::thread::Thread>>>,
}

impl Progress {
    /// Host calls made so far.
    pub fn host_calls(&self) -> u64 {
        self.host_calls.load(Ordering::Relaxed)
    }

    /// A host call other than the preemption hook.
    pub fn bump(&self) {
        self.other_calls.fetch_add(1, Ordering::Relaxed);
        self.host_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// The preemption hook ran.
    pub fn bump_hook(&self) {
        self.host_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether the running goroutine ignores preemption requests (see the module doc).
    pub fn set_stalled(&self, stalled: bool) {
        self.stalled.store(stalled, Ordering::Relaxed);
    }

    /// Whether the last slice-end request was ignored.
    pub fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
    }

    /// Also watch the 8-byte counter at `slot` (a global of the running instance).
    ///
    /// # Safety
    /// `slot` must stay valid and 8-byte aligned until `unwatch_counter` or
    /// another `watch_counter` returns, or the watchdog stops.
    pub unsafe fn watch_counter(&self, slot: *mut u64) {
        *self.counter.lock().unwrap_or_else(|e| e.into_inner()) = slot as usize;
    }

    /// Interrupt the running guest as soon as it is in guest code.
    pub fn request_stop(&self) {
        self.stop_now.store(true, Ordering::Relaxed);
        if let Some(thread) = self.waker.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            thread.unpark();
        }
    }

    /// The guest stopped (or ended): no interrupt is wanted any more.
    pub fn clear_stop(&self) {
        self.stop_now.store(false, Ordering::Relaxed);
    }

    /// Stop watching the counter; afterwards its instance may be dropped.
    pub fn unwatch_counter(&self) {
        *self.counter.lock().unwrap_or_else(|e| e.into_inner()) = 0;
    }

    /// What counts as progress now: all host calls and the counter, or, while stalled, only
    /// the host calls other than the hook.
    fn get(&self) -> (u64, u64, bool) {
        if self.stalled.load(Ordering::Relaxed) {
            return (self.other_calls.load(Ordering::Relaxed), 0, true);
        }
        let slot = self.counter.lock().unwrap_or_else(|e| e.into_inner());
        // The guest thread writes the slot with plain aligned 8-byte stores;
        // an atomic load of it from here reads a whole value, stale at worst.
        // SAFETY: see `watch_counter`; the lock keeps it valid while read.
        let counter = if *slot == 0 { 0 } else { unsafe { (*(*slot as *const AtomicU64)).load(Ordering::Relaxed) } };
        (self.host_calls.load(Ordering::Relaxed), counter, false)
    }
}

/// How much CPU time the guest's thread has had.
#[cfg_attr(not(windows), derive(Clone, Copy))]
struct GuestClock {
    #[cfg(target_os = "linux")]
    cpu: libc::clockid_t,
    /// The guest thread's Mach port, which `thread_info` reads the CPU time of.
    #[cfg(target_os = "macos")]
    port: libc::mach_port_t,
    #[cfg(windows)]
    cpu: crate::watchdog_windows::ThreadCpuClock,
}

impl GuestClock {
    /// The clock of the calling thread (the guest's), readable from any thread.
    fn of_this_thread() -> GuestClock {
        #[cfg(target_os = "linux")]
        {
            let mut cpu: libc::clockid_t = 0;
            // SAFETY: pthread_self is the calling thread; `cpu` is a valid out-pointer.
            let found = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut cpu) };
            assert_eq!(found, 0, "every Linux thread has a CPU-time clock");
            GuestClock { cpu }
        }
        #[cfg(target_os = "macos")]
        {
            // SAFETY: pthread_self is the calling thread, which has a Mach port.
            GuestClock { port: unsafe { libc::pthread_mach_thread_np(libc::pthread_self()) } }
        }
        #[cfg(windows)]
        {
            GuestClock { cpu: crate::watchdog_windows::ThreadCpuClock::of_this_thread() }
        }
    }

    fn now(&self) -> Duration {
        #[cfg(target_os = "linux")]
        {
            let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: `t` is a valid out-pointer; the clock id stays valid while
            // the guest's thread lives, which outlives this watchdog (it drops it).
            unsafe { libc::clock_gettime(self.cpu, &mut t) };
            Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
        }
        #[cfg(target_os = "macos")]
        {
            // SAFETY: `thread_basic_info` is plain data, valid all-zero.
            let mut info: libc::thread_basic_info = unsafe { std::mem::zeroed() };
            let mut count = libc::THREAD_BASIC_INFO_COUNT;
            // SAFETY: `info` has room for THREAD_BASIC_INFO_COUNT words; the port
            // names the guest's thread, which outlives this watchdog.
            #[allow(deprecated)]
            unsafe {
                libc::thread_info(self.port, libc::THREAD_BASIC_INFO as _, (&raw mut info).cast(), &mut count)
            };
            let micros = |t: libc::time_value_t| t.seconds as u64 * 1_000_000 + t.microseconds as u64;
            Duration::from_micros(micros(info.user_time) + micros(info.system_time))
        }
        #[cfg(windows)]
        {
            self.cpu.now()
        }
    }
}

/// A running watchdog; stops when dropped.
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Watch `progress` on behalf of the calling thread.
    #[allow(clippy::disallowed_methods)] // the watchdog's limit is real time by design (module doc)
    pub fn start(progress: Progress, limit: Duration) -> Watchdog {
        let interrupter = Interrupter::current();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let tick = (limit / 10).clamp(Duration::from_millis(1), Duration::from_millis(100));
        let waker = progress.waker.clone();
        let clock = GuestClock::of_this_thread();
        let thread = std::thread::spawn(move || {
            let (mut seen, mut since) = (progress.get(), clock.now());
            while !stopped.load(Ordering::Relaxed) {
                // Parked, not slept: `drop` unparks it, so stopping never waits out a tick.
                let requested = progress.stop_now.load(Ordering::Relaxed);
                std::thread::park_timeout(if requested { Duration::from_millis(1) } else { tick });
                let now = progress.get();
                if progress.stop_now.load(Ordering::Relaxed) && !stopped.load(Ordering::Relaxed) {
                    // Ignored while the thread is in host code: asked again until it lands.
                    interrupter.interrupt();
                } else if now != seen {
                    (seen, since) = (now, clock.now());
                } else if clock.now().saturating_sub(since) >= limit && !stopped.load(Ordering::Relaxed) {
                    interrupter.interrupt();
                    since = clock.now();
                }
            }
        });
        *waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread.thread().clone());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The watchdog's clock counts the guest thread's CPU time: a thread
    /// that waits (as one starved by a loaded machine does) does not age it.
    #[test]
    #[cfg(any(target_os = "linux", windows))]
    #[allow(clippy::disallowed_methods)] // the test measures real time on purpose
    fn the_clock_counts_the_threads_cpu_time_not_its_waits() {
        let clock = GuestClock::of_this_thread();
        let before = clock.now();
        std::thread::sleep(Duration::from_millis(300));
        let waited = clock.now() - before;
        assert!(waited < Duration::from_millis(100), "sleeping aged the clock by {waited:?}");
        let spin_until = std::time::Instant::now() + Duration::from_millis(200);
        let mut x = 0u64;
        while std::time::Instant::now() < spin_until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        // Read from another thread, as the watchdog does.
        let spun = std::thread::spawn(move || clock.now()).join().unwrap() - before;
        assert!(spun >= Duration::from_millis(20), "spinning aged it by only {spun:?}");
    }
}
