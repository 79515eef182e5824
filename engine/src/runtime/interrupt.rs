//! Stopping a guest from another thread, for the real-time watchdog: a guest
//! stuck in a loop with no host calls can only be stopped asynchronously. The
//! interrupt is a signal to the thread running the guest; the signal handler
//! turns it into a `TrapKind::Interrupted` trap when the thread is in guest
//! code, and ignores it otherwise. It costs nothing until it is sent.
//! Windows has no signals: there the thread is suspended and redirected
//! instead (`interrupt_windows`), with the same outcome.
//!
//! `pthread_kill` on a thread that has exited is undefined behaviour (its id
//! may even name a new thread), so an `Interrupter` does not hold a bare id:
//! the target thread registers itself in a shared, locked slot, and a
//! thread-local guard clears the slot when the thread exits. `interrupt`
//! signals under that lock, so the thread cannot finish exiting while a
//! signal is being sent to it, and an interrupt after the exit does nothing.

#[cfg(windows)]
pub use crate::runtime::interrupt_windows::current_thread_handle;
#[cfg(windows)]
use crate::runtime::interrupt_windows::{self as os, Thread, this_thread};
#[cfg(unix)]
use crate::runtime::{fault, signals};
use std::sync::{Arc, Mutex, MutexGuard};

#[cfg(unix)]
type Thread = libc::pthread_t;

/// The target thread's id while it is alive, None after it exited.
#[derive(Debug)]
struct Target(Mutex<Option<Thread>>);

impl Target {
    fn lock(&self) -> MutexGuard<'_, Option<Thread>> {
        // The slot is a plain value, consistent even if a holder panicked.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Clears the thread's slot when its thread-locals are destroyed at exit.
struct Registration(Arc<Target>);

impl Drop for Registration {
    fn drop(&mut self) {
        *self.0.lock() = None;
    }
}

thread_local! {
    static REGISTRATION: Registration = Registration(Arc::new(Target(Mutex::new(Some(this_thread())))));
}

/// Runs `f` with the calling thread's slot locked, so no watchdog is in the
/// middle of interrupting this thread while `f` runs (`fork_locks`).
pub(crate) fn with_this_thread_locked<R>(f: impl FnOnce() -> R) -> R {
    let target = REGISTRATION.with(|registration| registration.0.clone());
    let _slot = target.lock();
    f()
}

/// A handle on a thread that runs guests; `Send` and `Sync`, so a watchdog
/// thread can hold it, and harmless to use after that thread has exited.
#[derive(Debug, Clone)]
pub struct Interrupter {
    target: Arc<Target>,
}

impl Interrupter {
    /// A handle on the calling thread.
    ///
    /// Panics if called while the thread's thread-locals are being destroyed.
    pub fn current() -> Interrupter {
        #[cfg(unix)]
        signals::ensure_installed();
        #[cfg(windows)]
        crate::runtime::traps_windows::ensure_installed();
        let target = REGISTRATION.with(|registration| registration.0.clone());
        Interrupter { target }
    }

    /// Stop the guest code the thread is running, if any. Does nothing once
    /// the thread has exited.
    pub fn interrupt(&self) {
        let alive = self.target.lock();
        if let Some(thread) = &*alive {
            // SAFETY: the thread is alive: it clears the slot, under this lock,
            // before it exits, and we hold the lock. The handler for the signal
            // (on Windows, for the redirected fault) was installed by `current`
            // (process-wide, never removed).
            unsafe { send(thread) };
        }
    }

    /// Whether the thread is still running (it may exit right after).
    pub fn is_alive(&self) -> bool {
        self.target.lock().is_some()
    }
}

/// The calling thread, as `send` needs it.
#[cfg(unix)]
fn this_thread() -> Thread {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() }
}

/// Interrupt `thread`.
///
/// # Safety
/// `thread` must be alive, and the handler installed.
#[cfg(unix)]
unsafe fn send(thread: &Thread) {
    // SAFETY: the caller's promise.
    unsafe { libc::pthread_kill(*thread, fault::INTERRUPT) };
}

/// Interrupt `thread`.
///
/// # Safety
/// `thread` must be alive, and the handler installed.
#[cfg(windows)]
unsafe fn send(thread: &Thread) {
    // SAFETY: the caller's promise, passed on.
    unsafe { os::interrupt(thread) };
}
