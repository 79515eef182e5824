//! The sweeps `seedfall_run` started, by handle: each runs on its own
//! thread (build, sweep, summary, findings history, as `seedfall run` does)
//! while `seedfall_status` reads its progress. A handle (`run-N`) lives as
//! long as the server; a sweep is never stopped by the server, only by its
//! end or the server's.

use super::protocol::panic_text;
use crate::cluster::{Cluster, LoadOptions};
use crate::finding_history;
use crate::report::Tally;
use crate::summary::{Summary, file_hash};
use crate::sweep::{self, SweepOptions};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
    pub seeds_total: u64,
    pub seeds_done: u64,
    pub failed: Vec<u64>,
    pub started: Instant,
    pub state: State,
}

#[derive(Default)]
pub struct Handles {
    next: AtomicU64,
    sweeps: Mutex<HashMap<String, Arc<Mutex<Sweep>>>>,
}

impl Handles {
    /// Starts sweeping `seeds` (as given in `seed_list`) of the config at
    /// `config` on `workers` threads and returns its handle at once.
    pub fn start(&self, config: PathBuf, seeds: Vec<u64>, seed_list: String, workers: usize) -> String {
        let handle = format!("run-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let sweep = Arc::new(Mutex::new(Sweep {
            config: config.clone(),
            seeds_total: seeds.len() as u64,
            seeds_done: 0,
            failed: Vec::new(),
            started: Instant::now(),
            state: State::Building,
        }));
        self.sweeps.lock().unwrap_or_else(|e| e.into_inner()).insert(handle.clone(), sweep.clone());
        let name = format!("mcp {handle}");
        let spawned = std::thread::Builder::new().name(name).spawn({
            let sweep = sweep.clone();
            move || {
                let ran =
                    std::panic::catch_unwind(AssertUnwindSafe(|| run(&sweep, &config, &seeds, seed_list, workers)));
                let end = ran.unwrap_or_else(|panic| Err(format!("internal error: {}", panic_text(&panic))));
                let mut sweep = sweep.lock().unwrap_or_else(|e| e.into_inner());
                sweep.state = match end {
                    Ok((text, doc)) => State::Done { text, doc },
                    Err(e) => State::Error(e),
                };
            }
        });
        if let Err(e) = spawned {
            sweep.lock().unwrap_or_else(|e| e.into_inner()).state = State::Error(format!("cannot start a thread: {e}"));
        }
        handle
    }

    pub fn get(&self, handle: &str) -> Option<Arc<Mutex<Sweep>>> {
        self.sweeps.lock().unwrap_or_else(|e| e.into_inner()).get(handle).cloned()
    }
}

/// `seedfall run` without a terminal: the summary's text and document.
fn run(
    shared: &Mutex<Sweep>,
    path: &std::path::Path,
    seeds: &[u64],
    seed_list: String,
    workers: usize,
) -> Result<(String, Value), String> {
    let config = crate::config::load(path).map_err(|e| e.to_string())?;
    let state_dir = crate::config::state_dir(path);
    let cluster = Cluster::prepare_with(config, path, &state_dir, LoadOptions::default()).map_err(|e| e.to_string())?;
    let config_hash = file_hash(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    shared.lock().unwrap_or_else(|e| e.into_inner()).state = State::Running;
    let summary = Summary::of(&cluster, path.to_path_buf(), config_hash, seed_list, seeds.len() as u64, workers);
    let mut tally = Tally::default();
    tally.properties.add_catalog(&cluster.catalog);
    tally.properties.make_optional(&cluster.config.optional_properties);
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let swept = sweep::run(&cluster, seeds, &SweepOptions { workers, check: false }, &stop, |outcome| {
        let failed = matches!(&outcome.result, Ok(r) if matches!(r.verdict, seedfall_host::world::Verdict::Fail(_)));
        let mut sweep = shared.lock().unwrap_or_else(|e| e.into_inner());
        sweep.seeds_done += 1;
        if failed {
            sweep.failed.push(outcome.seed);
        }
        drop(sweep);
        tally.add(&outcome);
    });
    let history = finding_history::path(path);
    let mut text = Vec::new();
    let reported = summary.report_to(&mut text, &tally, swept.interrupted, started.elapsed(), Some(&history));
    Ok((String::from_utf8_lossy(&text).into_owned(), reported.doc))
}

/// `seedfall_status`'s document: the handle, its state, its progress, and
/// once done the `run` document's fields beside them.
pub fn status(handle: &str, sweep: &Sweep) -> Result<(Value, String), String> {
    let progress = json!({
        "seeds_done": sweep.seeds_done,
        "seeds_total": sweep.seeds_total,
        "failed_so_far": sweep.failed.len(),
        "lowest_failing_so_far": sweep.failed.iter().min(),
        "elapsed_ms": sweep.started.elapsed().as_millis() as u64,
    });
    let mut doc = json!({"handle": handle, "progress": progress});
    let text = match &sweep.state {
        State::Building => {
            doc["state"] = json!("running");
            format!("{handle}: building {}", sweep.config.display())
        }
        State::Running => {
            doc["state"] = json!("running");
            format!(
                "{handle}: running, {} of {} seeds done, {} failed so far",
                sweep.seeds_done,
                sweep.seeds_total,
                sweep.failed.len()
            )
        }
        State::Done { text, doc: summary } => {
            doc["state"] = json!("done");
            for (key, value) in summary.as_object().into_iter().flatten() {
                doc[key.as_str()] = value.clone();
            }
            format!("{handle}: done\n{text}")
        }
        State::Error(e) => return Err(format!("{handle}: the sweep of {} failed: {e}", sweep.config.display())),
    };
    Ok((doc, text))
}
