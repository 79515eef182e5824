//! `seedfall crashstates -c CONFIG --seed N --node NAME --at OP
//! [--max-states 10000] [-j N]`: every disk state a crash of NAME in the
//! middle of its disk operation OP can leave, each checked by the workload.
//! The seed runs once as drawn; its faults are then replayed with a crash
//! of NAME at OP added (replacing one the seed had there), once per state: the operation taken in full or not at
//! all (for a write only in full, for a sync only not, since those cover the
//! other), times every combination of what the durability model lets a
//! crash keep (`fs::CrashSpace`): each file's in-order prefix of pending
//! writes, or under `reorder_writes` each file's ordered stream and each
//! page on its own, and each pending directory entry under `dir_reorder`. The node restarts after
//! `crash_downtime`'s minimum and the run goes on, so the workload's own
//! checks judge each state. Above `--max-states` a seeded sample is checked
//! and the output says "sampled K of N", never "all". Exit 0 when every
//! state checked passes, 1 when one fails, 2 on errors or Ctrl-C. It does
//! not merge states that happen to leave identical bytes.

use crate::run_cmd::setup;
use seedfall_host::fs::{CrashSpace, DiskOp, Prefix};
use seedfall_host::random::{Draw, Purpose, RandomStream};
use seedfall_host::vtime::SimTime;
use seedfall_host::world::fault::Trigger;
use seedfall_host::world::{self, CrashInto, Fault, Kind, RunResult, RunSpec, Verdict};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[derive(clap::Args)]
pub struct CrashStatesArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The seed to replay.
    #[arg(long)]
    seed: u64,
    /// The service node that crashes.
    #[arg(long, value_name = "NAME")]
    node: String,
    /// Its disk-operation number the crash comes in (as `crash_io`'s `op`).
    #[arg(long, value_name = "OP")]
    at: u64,
    /// Check at most this many states (a seeded sample above it).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_states: u64,
    /// Worker threads (default: all cores); the result is the same for any count.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall crashstates: {message}");
    ExitCode::from(2)
}

/// How much of operation OP itself took effect.
#[derive(Clone, Copy)]
enum OpDone {
    None,
    All,
}

impl OpDone {
    fn prefix(self) -> Prefix {
        match self {
            OpDone::None => Prefix::default(),
            // Bent to the operation's size when replayed: all of it.
            OpDone::All => Prefix { ops: usize::MAX, bytes: 0 },
        }
    }

    fn describe(self) -> &'static str {
        match self {
            OpDone::None => "op not done",
            OpDone::All => "op done",
        }
    }
}

/// One state: how the operation went and what each file keeps.
struct State<'s> {
    done: OpDone,
    space: &'s CrashSpace,
    prefixes: Vec<Prefix>,
}

impl State<'_> {
    fn describe(&self) -> String {
        // A choice over nothing (an empty ordered stream) has one state: not worth a word.
        let choices: Vec<String> = (self.space.choices.iter().zip(&self.prefixes))
            .filter(|(choice, _)| !choice.sizes.is_empty())
            .map(|(choice, p)| choice.describe(p))
            .collect();
        let choices = if choices.is_empty() { "no pending writes".to_string() } else { choices.join(", ") };
        format!("{}, {choices}", self.done.describe())
    }
}

pub fn run(args: CrashStatesArgs) -> ExitCode {
    let interrupt = crate::interrupt::Interrupt::install();
    let (cluster, _) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let base = cluster.spec(args.seed);
    let services: Vec<&str> = base.programs.iter().filter(|p| p.is_service()).map(|p| p.name.as_str()).collect();
    if !services.contains(&args.node.as_str()) {
        return fail(format!(
            "--node {}: not a service node of the config (nodes: {})",
            args.node,
            services.join(", ")
        ));
    }
    if args.max_states == 0 {
        return fail("--max-states must be at least 1");
    }
    let drawn = match world::run(&base, None) {
        Ok(run) => run,
        Err(e) => return fail(e),
    };
    // The seed's own faults, but the one this crash replaces: the run goes
    // on as the seed would, so a state that only breaks at a later crash
    // (a torn tail the next recovery trips over) is found too.
    let faults: Vec<Fault> = drawn
        .faults
        .into_iter()
        .filter(|f| !(f.kind.trigger() == Trigger::DiskOp && f.node() == Some(&args.node) && f.op == Some(args.at)))
        .collect();
    let spec_for = |faults: &[Fault], done: OpDone, prefixes: Vec<Prefix>| {
        let mut spec = cluster.spec(args.seed);
        let mut crash = Fault::on_node(SimTime::ZERO, Kind::from_name("crash_io").expect("registered"), &args.node);
        crash.op = Some(args.at);
        crash.applied = Some(done.prefix());
        crash.until = Some(SimTime::ZERO.plus(spec.faults.crash_downtime.0));
        let mut schedule = faults.to_vec();
        schedule.push(crash);
        spec.schedule = Some(schedule);
        spec.crash_into = Some(CrashInto { node: args.node.clone(), op: args.at, prefixes });
        spec
    };
    let probe = |faults: &[Fault], done: OpDone| -> Result<(DiskOp, CrashSpace, SimTime), String> {
        let run = world::run(&spec_for(faults, done, Vec::new()), None).map_err(|e| e.to_string())?;
        let at = run.faults.iter().find(|f| f.kind.name() == "crash_io" && f.op == Some(args.at)).map(|f| f.at);
        match (run.crash_space, at) {
            (Some((on, space)), Some(at)) => Ok((on, space, at)),
            _ => Err(format!(
                "{} never reached disk operation {} in seed {} (or it was down then)",
                args.node, args.at, args.seed
            )),
        }
    };
    let (on, all, crash_at) = match probe(&faults, OpDone::All) {
        Ok(found) => found,
        Err(e) => return fail(e),
    };
    let mut spaces = Vec::new();
    if on != DiskOp::Sync {
        spaces.push((OpDone::All, all));
    }
    if on != DiskOp::Write {
        match probe(&faults, OpDone::None) {
            Ok((_, none, _)) => spaces.insert(0, (OpDone::None, none)),
            Err(e) => return fail(e),
        }
    }
    let total = spaces.iter().fold(0u64, |n, (_, s)| n.saturating_add(s.count()));
    let chosen = choose(total, args.max_states, args.seed, &args.node, args.at);
    let states: Vec<State> = chosen.iter().map(|&i| state(&spaces, i)).collect();
    let scope = if chosen.len() as u64 == total {
        format!("all {total}")
    } else {
        format!("sampled {} of {total}", chosen.len())
    };
    println!(
        "crashstates seed {}: {} crashes in disk op {} ({}) at {crash_at}, with the seed's {} other faults: {scope} states",
        args.seed,
        args.node,
        args.at,
        on.name(),
        faults.len()
    );

    let workers = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let results = run_states(&states, workers, &interrupt.stop, |s| spec_for(&faults, s.done, s.prefixes.clone()));
    if interrupt.stop.load(Ordering::Relaxed) {
        return fail("interrupted");
    }
    let mut failed = 0;
    for (k, (s, result)) in states.iter().zip(results).enumerate() {
        let verdict = match result {
            Some(Ok(run)) => verdict_line(&run, &mut failed),
            Some(Err(e)) => return fail(format!("state {}: {e}", k + 1)),
            None => return fail("interrupted"),
        };
        println!("  state {}: {} -> {verdict}", k + 1, s.describe());
    }
    let checked = if chosen.len() as u64 == total { format!("checked all {total}") } else { scope };
    println!("{checked} states: {} pass, {failed} fail", states.len() - failed);
    ExitCode::from(if failed > 0 { 1 } else { 0 })
}

fn verdict_line(run: &RunResult, failed: &mut usize) -> String {
    match &run.verdict {
        Verdict::Fail(failures) => {
            *failed += 1;
            format!("FAIL {}", failures.first().map_or(String::new(), |f| f.to_string()))
        }
        Verdict::Horizon => "pass (time horizon)".into(),
        Verdict::Pass => "pass".into(),
    }
}

/// The state indices to check, ascending: all of them up to `max`, else a
/// seeded sample of `max` distinct ones (Floyd's algorithm).
fn choose(total: u64, max: u64, seed: u64, node: &str, op: u64) -> Vec<u64> {
    if total <= max {
        return (0..total).collect();
    }
    let mut random = RandomStream::new(seed, Purpose::Fault("crashstates", Draw::Shape), node, op as u32);
    let mut picked = BTreeSet::new();
    for j in total - max..total {
        let t = random.below(j + 1);
        if !picked.insert(t) {
            picked.insert(j);
        }
    }
    picked.into_iter().collect()
}

/// State `index` across the operation's outcomes, in order.
fn state(spaces: &[(OpDone, CrashSpace)], mut index: u64) -> State<'_> {
    for (done, space) in spaces {
        if index < space.count() {
            return State { done: *done, space, prefixes: space.state(index) };
        }
        index -= space.count();
    }
    unreachable!("index below the total")
}

/// Runs every state on `workers` threads; results in the states' order
/// (None: not run, interrupted).
fn run_states(
    states: &[State],
    workers: usize,
    stop: &AtomicBool,
    spec: impl Fn(&State) -> RunSpec + Sync,
) -> Vec<Option<Result<RunResult, String>>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RunResult, String>>>> = Mutex::new((0..states.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, states.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= states.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = world::run(&spec(&states[i]), None).map_err(|e| e.to_string());
                    results.lock().expect("no worker panics")[i] = Some(result);
                }
            });
        }
    });
    results.into_inner().expect("no worker panics")
}
