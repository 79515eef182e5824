//! Stopping a guest from another thread, for the real-time watchdog: a guest
//! stuck in a loop with no host calls can only be stopped asynchronously. The
//! interrupt is a signal to the thread running the guest; the signal handler
//! turns it into a `TrapKind::Interrupted` trap when the thread is in guest
//! code, and ignores it otherwise. It costs nothing until it is sent.

use crate::runtime::signals;

/// A handle on the thread that runs guests; `Send`, so a watchdog thread can hold it.
#[derive(Debug, Clone, Copy)]
pub struct Interrupter {
    thread: libc::pthread_t,
}

impl Interrupter {
    /// A handle on the calling thread.
    pub fn current() -> Interrupter {
        signals::ensure_installed();
        // SAFETY: pthread_self has no preconditions.
        Interrupter { thread: unsafe { libc::pthread_self() } }
    }

    /// Stop the guest code the thread is running, if any. The thread must
    /// still be alive (the watchdog stops before its worker exits).
    pub fn interrupt(&self) {
        // SAFETY: the thread exists (see above); the handler is installed.
        unsafe {
            libc::pthread_kill(self.thread, signals::INTERRUPT_SIGNAL);
        }
    }
}
