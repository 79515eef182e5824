//! Ctrl-C and SIGTERM (what CI cancellation and `timeout` send) for the
//! long-running commands (`run`, `shrink`): the first signal sets a flag the
//! command polls between runs, so it stops at a clean point and still reports
//! what it found; a second signal ends the process at once (exit 130), for a
//! run that never reaches such a point. It does not stop a guest in the
//! middle of a run: that is the watchdog's job.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Installs the handler (SIGINT, SIGTERM, SIGHUP through ctrlc's
/// `termination` feature) and returns the flag it sets. Best effort: if a
/// handler cannot be installed the command simply cannot be interrupted
/// cleanly, which is how it behaved before.
pub fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopper = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if stopper.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
    stop
}
