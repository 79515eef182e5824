//! The sweeps `seedfall_run` started, by handle: each runs on its own
//! thread (build, sweep, summary, findings history, as `seedfall run` does)
//! while `seedfall_status` reads its progress, and once done its summary
//! with a page of per-seed detail (`page`). A handle (`run-N`) lives as
//! long as the server. A sweep ends by itself or when its stop flag is set
//! (the call waiting for it was cancelled, or input ended); a stopped sweep
//! reports and records what it ran, marked `interrupted`, as `seedfall run`
//! does on Ctrl-C.

use super::error::McpError;
use super::out::panic_text;
use super::page::{self, Page};
use crate::cluster::{Cluster, LoadOptions};
use crate::finding_history;
use crate::report::Tally;
use crate::summary::{Summary, file_hash};
use crate::sweep::{self, SweepOptions};
use crate::watch::Watch;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where one sweep is.
pub enum State {
    /// Building the config's programs.
    Building,
    Running,
    /// The summary's text and its `run` document (docs/json.md).
    Done {
        text: String,
        doc: Value,
    },
    /// It could not start or finish: why.
    Error(String),
}

/// One sweep as `seedfall_status` sees it.
pub struct Sweep {
    pub config: PathBuf,
    pub seed_list: String,
    pub failed: Vec<u64>,
    pub started: Instant,
    pub state: State,
}

/// A sweep and what another thread reads of it.
pub struct Shared {
    pub sweep: Mutex<Sweep>,
    pub watch: Watch,
}

impl Shared {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Sweep> {
        self.sweep.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn finished(&self) -> bool {
        matches!(self.lock().state, State::Done { .. } | State::Error(_))
    }
}

#[derive(Default)]
pub struct Handles {
    next: AtomicU64,
    sweeps: Mutex<HashMap<String, Arc<Shared>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Handles {
    /// Starts sweeping `seeds` (as given in `seed_list`) of the config at
    /// `config` on `workers` threads until done or `stop` is set; its handle.
    pub fn start(
        &self,
        config: PathBuf,
        seeds: Vec<u64>,
        seed_list: String,
        workers: usize,
        stop: Arc<AtomicBool>,
    ) -> (String, Arc<Shared>) {
        let handle = format!("run-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let sweep = Sweep {
            config: config.clone(),
            seed_list: seed_list.clone(),
            failed: Vec::new(),
            started: Instant::now(),
            state: State::Building,
        };
        let shared = Arc::new(Shared { sweep: Mutex::new(sweep), watch: Watch::new(stop) });
        shared.watch.set_total(seeds.len() as u64);
        shared.watch.note(format!("{handle}: building {}", config.display()));
        self.sweeps.lock().unwrap_or_else(|e| e.into_inner()).insert(handle.clone(), shared.clone());
        let spawned = std::thread::Builder::new().name(format!("mcp {handle}")).spawn({
            let (shared, handle) = (shared.clone(), handle.clone());
            move || {
                let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    run(&shared, &handle, &config, &seeds, seed_list, workers)
                }));
                let end = ran.unwrap_or_else(|panic| Err(McpError::Internal(panic_text(&panic))));
                shared.lock().state = match end {
                    Ok((text, doc)) => State::Done { text, doc },
                    Err(e) => State::Error(e.to_string()),
                };
            }
        });
        match spawned {
            Ok(thread) => self.threads.lock().unwrap_or_else(|e| e.into_inner()).push(thread),
            Err(e) => shared.lock().state = State::Error(format!("cannot start a thread: {e}")),
        }
        (handle, shared)
    }

    pub fn get(&self, handle: &str) -> Option<Arc<Shared>> {
        self.sweeps.lock().unwrap_or_else(|e| e.into_inner()).get(handle).cloned()
    }

    /// Stops every sweep (the end of input) and waits until they have
    /// reported or `deadline` passed.
    pub fn stop_all(&self, deadline: Instant) {
        for shared in self.sweeps.lock().unwrap_or_else(|e| e.into_inner()).values() {
            shared.watch.stop.store(true, Ordering::Relaxed);
        }
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        wait_for(threads, deadline);
    }
}

/// Joins `threads` that end before `deadline`; the others are left to the
/// process's exit.
pub fn wait_for(threads: Vec<JoinHandle<()>>, deadline: Instant) {
    for thread in threads {
        while !thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

/// `seedfall run` without a terminal: the summary's text and document.
fn run(
    shared: &Shared,
    handle: &str,
    path: &Path,
    seeds: &[u64],
    seed_list: String,
    workers: usize,
) -> Result<(String, Value), McpError> {
    let config = crate::config::load(path).map_err(|e| McpError::File(e.to_string()))?;
    let state_dir = crate::config::state_dir(path);
    let cluster = Cluster::prepare_with(config, path, &state_dir, LoadOptions::default())?;
    let config_hash = file_hash(path).map_err(|error| McpError::Read { file: path.to_path_buf(), error })?;
    shared.lock().state = State::Running;
    shared.watch.note(format!("{handle}: sweeping {}", path.display()));
    let summary = Summary::of(&cluster, path.to_path_buf(), config_hash, seed_list, seeds.len() as u64, workers);
    let mut tally = Tally::for_sweep(&cluster);
    let started = Instant::now();
    let options = SweepOptions { workers, check: false };
    let swept = sweep::run(&cluster, seeds, &options, &shared.watch.stop, |outcome| {
        let failed = matches!(&outcome.result, Ok(r) if matches!(r.verdict, seedfall_host::world::Verdict::Fail(_)));
        if failed {
            shared.lock().failed.push(outcome.seed);
        }
        shared.watch.add_done();
        tally.add(&outcome);
    });
    let history = finding_history::path(path);
    let mut text = Vec::new();
    let reported = summary.report_to(&mut text, &tally, swept.interrupted, started.elapsed(), Some(&history));
    if swept.interrupted {
        eprintln!(
            "seedfall mcp: {handle}: stopped after {} of {} seeds (recorded as interrupted)",
            tally.seeds,
            seeds.len()
        );
    }
    Ok((String::from_utf8_lossy(&text).into_owned(), reported.doc))
}

/// `seedfall_status`'s document and text: the handle, its state, its
/// progress, and once done the summary with the per-seed detail of `page`.
pub fn status(handle: &str, shared: &Shared, page: Page) -> Result<(Value, String), McpError> {
    let sweep = shared.lock();
    let (done, total, _) = shared.watch.read();
    let progress = json!({
        "seeds_done": done,
        "seeds_total": total.unwrap_or(0),
        "failed_so_far": sweep.failed.len(),
        "lowest_failing_so_far": sweep.failed.iter().min(),
        "elapsed_ms": sweep.started.elapsed().as_millis() as u64,
    });
    let base = json!({"handle": handle, "config": sweep.config.display().to_string(), "seed_list": sweep.seed_list,
                      "seeds_total": total.unwrap_or(0), "progress": progress});
    let (mut doc, text) = match &sweep.state {
        State::Building => (base, format!("{handle}: building {}", sweep.config.display())),
        State::Running => (
            base,
            format!(
                "{handle}: running, {done} of {} seeds done, {} failed so far",
                total.unwrap_or(0),
                sweep.failed.len()
            ),
        ),
        State::Done { text, doc } => {
            let mut paged = page::paged(doc, page);
            for (key, value) in base.as_object().into_iter().flatten() {
                paged[key.as_str()] = value.clone();
            }
            paged["state"] = json!("done");
            (paged, format!("{handle}: done\n{text}{}", page::failure_lines(doc, page)))
        }
        State::Error(e) => {
            let (handle, config, error) = (handle.to_string(), sweep.config.clone(), e.clone());
            return Err(McpError::SweepFailed { handle, config, error });
        }
    };
    if doc.get("state").is_none() {
        doc["state"] = json!("running");
    }
    Ok((doc, text))
}
