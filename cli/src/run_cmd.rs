//! `seedfall run -c CONFIG -seeds 1-500 [-j N] [-check] [--json FILE]
//! [--shard I/N]`: a parallel sweep (of one shard of the list, with `--shard`). Prints each failing seed as it is found (the exact
//! `FAIL seed N …` block), a progress line with ETA on a terminal, then the
//! summary: counts, the lowest failing seed, the property table, and where
//! the real time went. Exit 0 when every seed passes, 1 on a finding, 2 on
//! a usage, config, build or internal error. Ctrl-C or SIGTERM stops the
//! sweep and still reports what was found; an interrupted sweep says so (and
//! `"interrupted": true` in the JSON) and never exits 0: 1 if it found a
//! failure, else 2, since the seeds it did not run prove nothing. A second
//! signal does not wait for the seeds in progress (one may hang until the
//! watchdog): it prints the same summary of what finished and exits.

use seedfall::cluster::{Cluster, LoadOptions};
use seedfall::config;
use seedfall::finding_history::{self, Status};
use seedfall::interrupt::Interrupt;
use seedfall::progress::Progress;
use seedfall::report::{Tally, hidden_line, outcome_text};
use seedfall::seeds::parse_seeds;
use seedfall::shard::Shard;
use seedfall::shrink::{self, Budget, ShrinkOptions};
use seedfall::summary::{FailOn, Summary, file_hash};
use seedfall::sweep::{self, SweepOptions};
use seedfall::sweep_report::{self, ReportRun};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
    /// Run only shard I of N of the seed list (I from 0); merge the shards'
    /// JSON with `seedfall report merge`. A shard keeps no findings history.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Print at most N `FAIL` blocks (the first to finish); the findings
    /// table lists every distinct failure.
    #[arg(long, default_value_t = 10, value_name = "N")]
    show_fails: usize,
    /// Exit 1 on any failing seed, only on a finding that is new (or
    /// regressed), or only on a regressed one. Divergences and properties
    /// never reached always exit 1.
    #[arg(long, value_enum, default_value_t = FailOn::Any, value_name = "WHAT")]
    fail_on: FailOn,
    /// Write the sweep as a page, FILE.html, and FILE.json beside it: each
    /// finding with its history, seeds, fault kinds and trace tail.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Shrink the lowest seed of each new finding (within --budget each) and
    /// save its schedule beside the config, as `seedfall shrink` does.
    #[arg(long)]
    shrink_new: bool,
    /// With --shrink-new: each shrink's budget, runs (300) or wall time (10m).
    #[arg(long, value_name = "RUNS|DURATION")]
    budget: Option<String>,
}

/// Loads the config and prepares the cluster, printing errors (exit 2).
pub fn setup(config_arg: Option<&Path>) -> Result<(Cluster, PathBuf), ExitCode> {
    setup_with(config_arg, LoadOptions::default())
}

/// `setup`, with the code compiled as `options` asks (`cause`: the function bitmap).
pub fn setup_with(config_arg: Option<&Path>, options: LoadOptions) -> Result<(Cluster, PathBuf), ExitCode> {
    let (path, config) = config::open(config_arg).map_err(|e| {
        eprintln!("seedfall: {e}");
        ExitCode::from(2)
    })?;
    let state_dir = config::state_dir(&path);
    let cluster = Cluster::prepare_with(config, &path, &state_dir, options).map_err(|e| {
        eprintln!("seedfall: {e}");
        ExitCode::from(2)
    })?;
    Ok((cluster, path))
}

/// The seed list of `--seeds`, printing the error (exit 2).
pub fn seed_list(text: &str) -> Result<Vec<u64>, ExitCode> {
    seedfall::seeds::say_if_single(text);
    parse_seeds(text).map_err(|e| {
        eprintln!("seedfall: --seeds: {e}");
        ExitCode::from(2)
    })
}

/// A sweep's text takes stdout (failures as they come), so its JSON goes
/// to a file; `-` is refused rather than written as a file named `-`.
pub fn json_file(json: Option<&Path>) -> Result<(), ExitCode> {
    if seedfall::json_doc::to_stdout(json) {
        eprintln!("seedfall: --json -: a sweep's summary goes to a file (its text takes stdout): --json FILE");
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// Refuses a `--json` or `-report` (its page or the JSON beside it) that is
/// the config or another of them, before anything runs (exit 2).
pub fn outputs_apart(config_arg: Option<&Path>, json: Option<&Path>, report: Option<&Path>) -> Result<(), ExitCode> {
    let report_json = report.map(sweep_report::json_path);
    let outputs = [("--json", json), ("-report", report), ("-report's JSON file", report_json.as_deref())];
    apart(config_arg, &outputs, &[])
}

/// Refuses, before anything runs (exit 2), an output (each named by its
/// flag; `-` is stdout) that is the config, one of `inputs` or another output.
pub fn apart(
    config_arg: Option<&Path>,
    outputs: &[(&str, Option<&Path>)],
    inputs: &[(&str, Option<&Path>)],
) -> Result<(), ExitCode> {
    let config = config::config_path(config_arg);
    let outputs: Vec<(&str, &Path)> =
        outputs.iter().filter_map(|(name, path)| path.filter(|p| p.as_os_str() != "-").map(|p| (*name, p))).collect();
    let mut all_inputs = vec![("the config", config.as_path())];
    all_inputs.extend(inputs.iter().filter_map(|(name, path)| path.map(|p| (*name, p))));
    seedfall::safe_write::outputs_apart(&outputs, &all_inputs).map_err(|e| {
        eprintln!("seedfall: {e}");
        ExitCode::from(2)
    })
}

pub fn run(args: RunArgs) -> ExitCode {
    if let Err(code) = json_file(args.json.as_deref()) {
        return code;
    }
    if let Err(code) = outputs_apart(args.sweep.config.as_deref(), args.json.as_deref(), args.report.as_deref()) {
        return code;
    }
    let mut seeds = match seed_list(&args.sweep.seeds) {
        Ok(seeds) => seeds,
        Err(code) => return code,
    };
    let budget = match args.budget.as_deref().map(Budget::parse).transpose() {
        Ok(budget) => budget.unwrap_or(Budget::Unlimited),
        Err(e) => {
            eprintln!("seedfall: {e}");
            return ExitCode::from(2);
        }
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(shard) => shard,
        Err(e) => {
            eprintln!("seedfall: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(shard) = shard {
        seeds = shard.select(&seeds);
    }
    // Before the build, so a signal while building still ends in a summary
    // (of no seeds) and the JSON CI waits for.
    let interrupt = Interrupt::install();
    let (cluster, path) = match setup(args.sweep.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let history = shard.is_none().then(|| finding_history::path(&path));
    let config_hash = match file_hash(&path) {
        Ok(hash) => hash,
        Err(e) => {
            eprintln!("seedfall: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let options = SweepOptions { workers: sweep::workers(args.sweep.jobs), check: args.check };
    let started = Instant::now();
    let mut summary =
        Summary::of(&cluster, path, config_hash, args.sweep.seeds.clone(), seeds.len() as u64, options.workers);
    summary.json = args.json.clone();
    summary.identity.check = args.check;
    summary.identity.shard = shard;
    summary.fail_on = args.fail_on;
    let tally = Arc::new(Mutex::new(Tally::for_sweep(&cluster)));
    // A second signal while a seed hangs (a guest spinning until the
    // watchdog) does not wait for it: it reports what finished and exits.
    let (shared, again) = (tally.clone(), summary.clone());
    interrupt.on_second(move || {
        let tally = shared.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(std::io::stdout(), "interrupted again: not waiting for the seeds in progress");
        again.report(&tally, true, started.elapsed(), None).code
    });
    let mut progress = Progress::new(seeds.len() as u64);
    let mut hidden = 0u64;
    let swept = sweep::run(&cluster, &seeds, &options, &interrupt.stop, |outcome| {
        let mut tally = tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.add(&outcome);
        progress.clear();
        let over = tally.failed.contains_key(&outcome.seed) && tally.failed.len() > args.show_fails;
        hidden += u64::from(over);
        // Not `print!`: stdout may be a pipe its reader closed (`| head`); the sweep goes on, nothing panics.
        let _ = write!(std::io::stdout(), "{}", outcome_text(&outcome, !over));
        progress.update(tally.seeds, tally.failed.len() as u64);
    });
    progress.clear();
    if hidden > 0 {
        let _ = write!(std::io::stdout(), "{}", hidden_line(hidden, args.show_fails));
    }
    let tally = tally.lock().unwrap_or_else(|e| e.into_inner());
    summary.lazy_compiles = cluster.lazy_compiles();
    let reported = summary.report(&tally, swept.interrupted, started.elapsed(), history.as_deref());
    let mut code = reported.code;
    let mut schedules = BTreeMap::new();
    if args.shrink_new && !swept.interrupted {
        let options = ShrinkOptions { workers: options.workers, budget };
        let new = reported.records.iter().filter(|r| r.status == Status::New);
        for finding in new.filter_map(|r| reported.found.iter().find(|f| f.id == r.id)) {
            let seed = finding.lowest_seed();
            match shrink::shrink_and_save(&cluster, &summary.config, seed, &options, interrupt.stop.clone()) {
                Ok((shrunk, file)) => {
                    let (after, before) = (shrunk.after.faults.len(), shrunk.before.faults.len());
                    let _ = writeln!(
                        std::io::stdout(),
                        "shrunk {} (seed {seed}): {after} faults of {before}, {} runs; saved {}",
                        finding.id,
                        shrunk.runs,
                        file.display()
                    );
                    schedules.insert(finding.id.clone(), file);
                }
                Err(e) => {
                    eprintln!("seedfall: shrink of seed {}: {e}", finding.lowest_seed());
                    code = 2;
                }
            }
        }
    }
    if let Some(page) = &args.report {
        let config = summary.config.display().to_string();
        let run = ReportRun {
            config: &config,
            seed_list: &summary.identity.seed_list,
            run_at: &reported.run_at,
            commit: reported.commit.as_deref(),
            linearizable: cluster.config.linearizable.map(|m| m.name()),
            schedules: &schedules,
        };
        match sweep_report::write(page, &cluster, &run, &tally, &reported.found, &reported.records) {
            Ok(json) => {
                let _ = writeln!(std::io::stdout(), "report: {} and {}", page.display(), json.display());
            }
            Err(e) => {
                eprintln!("seedfall: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::from(code)
}
