//! The watchdog's clock on Windows: the guest thread's CPU time (user plus
//! kernel), read with `GetThreadTimes` from the watchdog's thread through a
//! real handle on the guest thread (a duplicate of the pseudo-handle
//! `GetCurrentThread` returns, which names whichever thread uses it). The
//! handle keeps the thread object alive, so reading it after the thread
//! exited is harmless (the times just stop). Closed when the clock drops.
//!
//! Windows updates these times at the scheduler tick (about 15.6 ms), far
//! below the watchdog's 100 ms minimum limit. If reading fails the clock
//! falls back to wall time since it was made, so the watchdog still fires.

use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE};
use windows_sys::Win32::System::Threading::GetThreadTimes;

/// A thread's CPU-time clock, readable from any thread.
pub(crate) struct ThreadCpuClock {
    /// Null when duplicating failed (then only `start` is used).
    handle: HANDLE,
    start: Instant,
}

// SAFETY: a thread handle is a process-wide kernel object reference, usable
// from any thread; GetThreadTimes only reads through it.
unsafe impl Send for ThreadCpuClock {}

impl ThreadCpuClock {
    #[allow(clippy::disallowed_methods)] // the wall-time fallback; never read by the simulation
    pub(crate) fn of_this_thread() -> ThreadCpuClock {
        let handle = seedfall_engine::runtime::interrupt::current_thread_handle().unwrap_or(std::ptr::null_mut());
        ThreadCpuClock { handle, start: Instant::now() }
    }

    /// The thread's user plus kernel time.
    pub(crate) fn now(&self) -> Duration {
        let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        // SAFETY: our own live handle (closed only on drop) and four valid
        // out-pointers.
        let ok = !self.handle.is_null()
            && unsafe { GetThreadTimes(self.handle, &mut created, &mut exited, &mut kernel, &mut user) } != 0;
        if !ok {
            return self.start.elapsed();
        }
        let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
        // FILETIME durations count 100 ns ticks.
        Duration::from_nanos((ticks(kernel) + ticks(user)).saturating_mul(100))
    }
}

impl Drop for ThreadCpuClock {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: our own handle, closed once.
            unsafe { CloseHandle(self.handle) };
        }
    }
}
