//! `seedfall run -c CONFIG -seeds 1-500 [-j N] [-check] [--json FILE]`: a
//! parallel sweep. Prints each failing seed as it is found (the exact
//! `FAIL seed N …` block), a progress line with ETA on a terminal, then the
//! summary: counts, the lowest failing seed, the property table, and where
//! the real time went. Exit 0 when every seed passes, 1 on a finding, 2 on
//! a usage, config, build or internal error. Ctrl-C or SIGTERM stops the
//! sweep and still reports what was found; an interrupted sweep says so (and
//! `"interrupted": true` in the JSON) and never exits 0: 1 if it found a
//! failure, else 2, since the seeds it did not run prove nothing. A second
//! signal does not wait for the seeds in progress (one may hang until the
//! watchdog): it prints the same summary of what finished and exits.

use crate::cluster::Cluster;
use crate::config;
use crate::progress::Progress;
use crate::report::{Tally, fail_block};
use crate::seeds::parse_seeds;
use crate::sweep::sweep;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What every sweeping command takes: the config, the seeds, the workers.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Seeds to run: 7, 1-500, 1,5,9-12.
    #[arg(long, default_value = "1-100", value_name = "LIST")]
    pub seeds: String,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
}

impl SweepArgs {
    pub fn workers(&self) -> usize {
        self.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    sweep: SweepArgs,
    /// Run every seed twice and fail on any difference in the trace hash.
    #[arg(long)]
    check: bool,
    /// Also write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// Loads the config and prepares the cluster, printing errors (exit 2).
pub fn setup(config_arg: Option<&Path>) -> Result<(Cluster, PathBuf), ExitCode> {
    let path = config::config_path(config_arg);
    let config = config::load(&path).map_err(|e| {
        eprintln!("seedfall: {e}");
        ExitCode::from(2)
    })?;
    let state_dir = config::state_dir(&path);
    let cluster = Cluster::prepare(config, &path, &state_dir).map_err(|e| {
        eprintln!("seedfall: {e}");
        ExitCode::from(2)
    })?;
    Ok((cluster, path))
}

pub fn run(args: RunArgs) -> ExitCode {
    let seeds = match parse_seeds(&args.sweep.seeds) {
        Ok(seeds) => seeds,
        Err(e) => {
            eprintln!("seedfall: --seeds: {e}");
            return ExitCode::from(2);
        }
    };
    // Before the build, so a signal while building still ends in a summary
    // (of no seeds) and the JSON CI waits for.
    let interrupt = crate::interrupt::Interrupt::install();
    let (cluster, path) = match setup(args.sweep.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let workers = args.sweep.workers();
    let summary = Summary {
        total: seeds.len() as u64,
        workers,
        started: Instant::now(),
        config: path,
        json: args.json.clone(),
        build_time: cluster.build_time,
        load_time: cluster.load_time,
    };
    let tally = Arc::new(Mutex::new(Tally::default()));
    // A second signal while a seed hangs (a guest spinning until the
    // watchdog) does not wait for it: it reports what finished and exits.
    let (shared, again) = (tally.clone(), summary.clone());
    interrupt.on_second(move || {
        let tally = shared.lock().unwrap_or_else(|e| e.into_inner());
        println!("interrupted again: not waiting for the seeds in progress");
        again.report(&tally, true)
    });
    let mut progress = Progress::new(seeds.len() as u64);
    sweep(&cluster, &seeds, workers, args.check, &interrupt.stop, |outcome| {
        let mut tally = tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.add(&outcome);
        let mut found = String::new();
        if let Ok(run) = &outcome.result {
            found.push_str(&fail_block(outcome.seed, run));
        }
        if let Some(divergence) = &outcome.divergence {
            found.push_str(&format!("FAIL seed {} is not deterministic: {divergence}\n", outcome.seed));
        }
        if let Err(e) = &outcome.result {
            found.push_str(&format!("ERROR seed {}: {e}\n", outcome.seed));
        }
        progress.clear();
        print!("{found}");
        progress.update(tally.seeds, tally.failed.len() as u64);
    });
    progress.clear();
    let tally = tally.lock().unwrap_or_else(|e| e.into_inner());
    let interrupted = interrupt.stop.load(Ordering::Relaxed) && tally.seeds < seeds.len() as u64;
    ExitCode::from(summary.report(&tally, interrupted))
}

/// What the summary needs besides the tally; cloned into the handler of a
/// second signal, which reports from another thread.
#[derive(Clone)]
struct Summary {
    total: u64,
    workers: usize,
    started: Instant,
    config: PathBuf,
    json: Option<PathBuf>,
    build_time: Duration,
    load_time: Duration,
}

impl Summary {
    /// Prints the summary, writes the JSON if asked, and returns the exit code.
    fn report(&self, tally: &Tally, interrupted: bool) -> u8 {
        let elapsed = self.started.elapsed();
        let found = tally.found_something();
        let code: u8 = if !tally.errors.is_empty() {
            2
        } else if found {
            1
        } else if interrupted {
            2
        } else {
            0
        };
        let rate = tally.seeds as f64 / elapsed.as_secs_f64().max(1e-9);
        if interrupted {
            println!("interrupted after {} of {} seeds (the rest were not run)", tally.seeds, self.total);
        }
        println!(
            "{} seeds in {:.1}s ({rate:.1} seeds/s on {} workers): {} passed, {} failed{}",
            tally.seeds,
            elapsed.as_secs_f64(),
            self.workers,
            tally.passed,
            tally.failed.len(),
            if tally.horizon > 0 { format!(" ({} seeds hit the time horizon)", tally.horizon) } else { String::new() },
        );
        if !tally.diverged.is_empty() {
            println!("not deterministic: seeds {:?}", tally.diverged);
        }
        for message in tally.properties.never_true() {
            println!("FAIL sometimes never true in any seed: {message}");
        }
        if let Some(seed) = tally.lowest_failing() {
            println!("lowest failing seed: {seed} (replay: seedfall replay -c {} -seed {seed})", self.config.display());
        }
        print!("{}", tally.properties.render());
        println!("{}", tally.timing_line(self.build_time, self.load_time));
        if let Some(json_path) = &self.json {
            let mut doc = tally.json(&self.config.display().to_string(), code);
            doc["interrupted"] = serde_json::Value::Bool(interrupted);
            let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
            if let Err(e) = std::fs::write(json_path, text + "\n") {
                eprintln!("seedfall: cannot write {}: {e}", json_path.display());
                return 2;
            }
        }
        // The handler of a second signal exits the process right after.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    }
}
