//! Ctrl-C and SIGTERM (what CI cancellation and `timeout` send) for the
//! long-running commands (`run`, `shrink`, `mutate`): the first signal sets a flag the
//! command polls between runs, so it stops at a clean point and still reports
//! what it found. A second signal does not wait for that point (a guest may
//! spin until the watchdog): it runs the command's `on_second` report, if it
//! set one, and exits with its code (else 130). It does not stop a guest in
//! the middle of a run: that is the watchdog's job.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

type Report = Box<dyn FnMut() -> u8 + Send>;

pub struct Interrupt {
    /// Set by the first signal.
    pub stop: Arc<AtomicBool>,
    report: Arc<Mutex<Option<Report>>>,
}

impl Interrupt {
    /// Installs the handler (SIGINT, SIGTERM, SIGHUP through ctrlc's
    /// `termination` feature). Best effort: if a handler cannot be installed
    /// the command simply cannot be interrupted cleanly.
    pub fn install() -> Interrupt {
        let stop = Arc::new(AtomicBool::new(false));
        let report: Arc<Mutex<Option<Report>>> = Arc::new(Mutex::new(None));
        let (stopper, reporter) = (stop.clone(), report.clone());
        // ctrlc runs this on its own thread, not in signal context, so it
        // may lock and print.
        let _ = ctrlc::set_handler(move || {
            if stopper.swap(true, Ordering::Relaxed) {
                let report = reporter.lock().unwrap_or_else(|e| e.into_inner()).take();
                std::process::exit(report.map_or(130, |mut report| i32::from(report())));
            }
        });
        Interrupt { stop, report }
    }

    /// What a second signal reports before the process exits with its code.
    pub fn on_second(&self, report: impl FnMut() -> u8 + Send + 'static) {
        *self.report.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(report));
    }
}
