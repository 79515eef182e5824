//! `seedfall shrink -c CONFIG -seed N [-j N] [-budget 300|10m]`: cuts a
//! failing seed's fault schedule down to the faults that matter (see
//! `shrink.rs`), printing each improvement with the runs used and the faults
//! left, then the sizes before and after, and saves the schedule to
//! `.seedfall/[X.]seed-N.faults.json` beside the config. Ctrl-C or SIGTERM
//! stops the passes at the next run and saves the best schedule found so far
//! (it fails the same way, but may not be minimal); that exits 2, as the
//! shrink did not finish.

use crate::run_cmd::setup;
use seedfall::config;
use seedfall::duration::parse_duration;
use seedfall::schedule::{Schedule, ShrunkFrom};
use seedfall::shrink::{Budget, Candidate, Shrinker, signature};
use seedfall_host::world::fault::Trigger;
use seedfall_host::world::{self, Verdict};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ShrinkArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The failing seed.
    #[arg(long)]
    seed: u64,
    /// Worker threads (default: all cores); the result is the same for any count.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Stop early after this many runs (300) or this much wall time (10m).
    #[arg(long, value_name = "RUNS|DURATION")]
    budget: Option<String>,
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    if let Ok(runs) = text.parse::<u64>() {
        return Ok(Budget::Runs(runs));
    }
    parse_duration(text).map(Budget::Time).map_err(|e| format!("--budget: {e} (or a number of runs)"))
}

fn sizes(c: &Candidate, default_ops: Option<u64>) -> String {
    let ops = c.ops.or(default_ops).map_or("default".to_string(), |n| n.to_string());
    format!("{} faults, duration {}, workload ops {ops}", c.faults.len(), c.duration)
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall shrink: {message}");
    ExitCode::from(2)
}

pub fn run(args: ShrinkArgs) -> ExitCode {
    let budget = match args.budget.as_deref().map(parse_budget).transpose() {
        Ok(b) => b.unwrap_or(Budget::Unlimited),
        Err(e) => return fail(e),
    };
    let interrupt = seedfall::interrupt::Interrupt::install();
    let (cluster, path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let started = Instant::now();
    let first = match world::run(&cluster.spec(args.seed), None) {
        Ok(run) => run,
        Err(e) => return fail(e),
    };
    let (Some(target), Verdict::Fail(failures)) = (signature(&first), &first.verdict) else {
        return fail(format!("seed {} passes: nothing to shrink", args.seed));
    };
    let default_ops = first.budget_default;
    let mut best = Candidate { faults: first.faults.clone(), duration: cluster.spec(args.seed).duration, ops: None };
    println!("shrink seed {}: {}", args.seed, failures[0]);
    let workers = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut shrinker = Shrinker::new(&cluster, args.seed, target, workers, budget, first.end);
    shrinker.interrupt_on(interrupt.stop.clone());
    match shrinker.run(&best).map(|r| signature(&r)) {
        Ok(Some(s)) if s == signature(&first).unwrap_or_default() => shrinker.runs += 1,
        Ok(_) => return fail(format!("seed {} does not fail the same way when its schedule is replayed", args.seed)),
        Err(e) => return fail(e),
    }
    let before = best.clone();
    let mut round = 0;
    loop {
        round += 1;
        let mut changed = false;
        if shrinker.remove_faults(&mut best) {
            println!("  round {round}: removed faults, {} left (runs {})", best.faults.len(), shrinker.runs);
            changed = true;
        }
        if shrinker.cap_ops(&mut best, default_ops) {
            println!("  round {round}: workload capped at {} ops (runs {})", best.ops.unwrap_or(0), shrinker.runs);
            changed = true;
        }
        if shrinker.trim_duration(&mut best) {
            println!("  round {round}: duration trimmed to {} (runs {})", best.duration, shrinker.runs);
            changed = true;
        }
        if shrinker.simplify(&mut best) {
            println!("  round {round}: faults simplified (runs {})", shrinker.runs);
            changed = true;
        }
        if !changed || shrinker.stopped_early {
            break;
        }
    }
    let elapsed = started.elapsed();
    println!("  before: {}", sizes(&before, default_ops));
    println!("  after:  {}", sizes(&best, default_ops));
    println!(
        "  {} runs in {:.1}s ({:.1} runs/s)",
        shrinker.runs,
        elapsed.as_secs_f64(),
        shrinker.runs as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    if shrinker.interrupted {
        println!(
            "  interrupted: saving the best schedule found so far (it fails the same way, but may not be minimal)"
        );
    } else if shrinker.stopped_early {
        println!("  stopped early (budget): the schedule may not be minimal");
    }
    // Faults recorded at a disk operation keep their op; their times are
    // only for people, so take them from the final run.
    if let Ok(last) = shrinker.run(&best) {
        for f in best.faults.iter_mut().filter(|f| f.kind.trigger().by_op()) {
            if let Some(seen) = last.faults.iter().find(|g| g.kind == f.kind && g.target == f.target && g.op == f.op) {
                let length = f.length();
                f.at = seen.at;
                // A preemption point's `until` is the reference's "0s" placeholder, not an end.
                if f.kind.trigger() != Trigger::CountedCall {
                    f.until = length.map(|l| seen.at.plus(l));
                }
            }
        }
    }
    let schedule = Schedule {
        seed: Some(args.seed),
        faults: best.faults.clone(),
        duration: Some(best.duration),
        ops: best.ops.or(default_ops),
        shrunk_from: Some(ShrunkFrom {
            faults: before.faults.len(),
            duration: Some(before.duration),
            ops: before.ops.or(default_ops),
        }),
        shrink_runs: Some(shrinker.runs),
    };
    let file = config::schedule_path(&path, args.seed);
    if let Err(e) = schedule.save(&file) {
        return fail(e);
    }
    for (i, f) in best.faults.iter().enumerate() {
        println!("  [{i}] {}", f.describe());
    }
    println!("saved {}", file.display());
    if shrinker.interrupted { ExitCode::from(2) } else { ExitCode::SUCCESS }
}
