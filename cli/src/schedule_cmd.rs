//! Commands on a saved fault schedule:
//! - `replay -seed N -faults FILE` (in `replay_cmd.rs`) runs it exactly;
//! - `verify -faults FILE`: replays it for the config's full duration and
//!   budget, the only run that counts as proof of a fix (a schedule whose
//!   duration shrink trimmed can pass only because it was cut short), and
//!   proves only what ran: a fault naming a node the config lacks is an
//!   error before anything runs, and a fault that never fired (a crash at a
//!   disk operation the run never reached) is listed as not applied and the
//!   result is not "verified" (exit 2, unless the run failed: exit 1), nor is
//!   a run whose linearizability check ran out of budget (unknown);
//! - `inspect -faults FILE`: prints it readably;
//! - `faults -faults FILE -shift I=DELTA | -remove I [-o OUT]`: edits it to
//!   test an explanation; DELTA is in the fault's own unit (a duration for
//!   timed faults, a count for faults recorded at a disk operation).

use crate::duration::parse_duration;
use crate::run_cmd::setup;
use crate::schedule::Schedule;
use seedfall_host::vtime::{SimDuration, SimTime};
use seedfall_host::world::fault::{Target, Trigger};
use seedfall_host::world::history_check::LinOutcome;
use seedfall_host::world::{self, Fault, Verdict};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The schedule to verify.
    #[arg(long, value_name = "FILE")]
    faults: PathBuf,
    /// The seed (default: the schedule's).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(clap::Args)]
pub struct InspectArgs {
    #[arg(long, value_name = "FILE")]
    faults: PathBuf,
}

#[derive(clap::Args)]
pub struct FaultsArgs {
    #[arg(long, value_name = "FILE")]
    faults: PathBuf,
    /// Move fault I by DELTA (-50ms, 1s; or -1000 operations for faults recorded by op).
    #[arg(long, value_name = "I=DELTA", allow_hyphen_values = true)]
    shift: Vec<String>,
    /// Remove fault I (indices as `inspect` prints them, before any removal).
    #[arg(long, value_name = "I")]
    remove: Vec<usize>,
    /// Write the result here instead of over FILE.
    #[arg(short = 'o', long, value_name = "OUT")]
    out: Option<PathBuf>,
}

fn fail(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall {command}: {message}");
    ExitCode::from(2)
}

pub fn inspect(args: InspectArgs) -> ExitCode {
    let schedule = match Schedule::load(&args.faults) {
        Ok(s) => s,
        Err(e) => return fail("inspect", e),
    };
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |n| n.to_string());
    println!(
        "seed {}, duration {}, workload ops {}, {} faults{}",
        opt(schedule.seed),
        schedule.duration.map_or("(the config's)".into(), |d| d.to_string()),
        opt(schedule.ops),
        schedule.faults.len(),
        schedule.shrunk_from.map_or(String::new(), |s| format!(
            " (shrunk from {} in {} runs)",
            s.faults,
            opt(schedule.shrink_runs)
        )),
    );
    for (i, f) in schedule.faults.iter().enumerate() {
        println!("[{i}] {}", f.describe());
    }
    ExitCode::SUCCESS
}

pub fn verify(args: VerifyArgs) -> ExitCode {
    let schedule = match Schedule::load(&args.faults) {
        Ok(s) => s,
        Err(e) => return fail("verify", e),
    };
    let Some(seed) = args.seed.or(schedule.seed) else {
        return fail("verify", "the schedule names no seed: pass -seed N");
    };
    let (cluster, _) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    // The config's full duration and the workload's full size, whatever the
    // schedule was trimmed to.
    let mut spec = cluster.spec(seed);
    let names: Vec<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
    if let Some(problem) = unknown_nodes(&schedule.faults, &names) {
        return fail("verify", problem);
    }
    spec.schedule = Some(schedule.faults.clone());
    let result = match world::run(&spec, None) {
        Ok(r) => r,
        Err(e) => return fail("verify", e),
    };
    let full = spec.duration;
    let unapplied = not_applied(&schedule.faults, &result.faults);
    for line in not_applied_lines(&unapplied, |i| format!("not applied: [{i}] {}", schedule.faults[i].describe())) {
        println!("{line}");
    }
    if !unapplied.is_empty() && !matches!(result.verdict, Verdict::Fail(_)) {
        println!(
            "not verified: {} of {} faults never fired over the full run ({full}), so the run does not prove they are handled",
            unapplied.len(),
            schedule.faults.len()
        );
        return ExitCode::from(2);
    }
    if let (Some(LinOutcome::Unknown { keys }), false) =
        (&result.linearizability, matches!(result.verdict, Verdict::Fail(_)))
    {
        println!(
            "not verified: the linearizability check ran out of its search budget on keys {keys:?}, so the run proves nothing"
        );
        return ExitCode::from(2);
    }
    match &result.verdict {
        Verdict::Pass => {
            println!("verified: seed {seed} with {} faults passes over the full run ({full})", schedule.faults.len());
            ExitCode::SUCCESS
        }
        Verdict::Horizon => {
            println!(
                "verified: seed {seed} with {} faults reaches the full duration {full} without a failure",
                schedule.faults.len()
            );
            ExitCode::SUCCESS
        }
        Verdict::Fail(_) => {
            print!("{}", crate::report::fail_block(seed, &result));
            println!("not verified: the schedule still fails over the full run ({full})");
            ExitCode::from(1)
        }
    }
}

/// The first fault naming a node that is not in `names`, as a message.
pub(crate) fn unknown_nodes(faults: &[Fault], names: &[&str]) -> Option<String> {
    faults.iter().enumerate().find_map(|(i, f)| {
        let named: Vec<&str> = match &f.target {
            Target::Node(n) => vec![n.as_str()],
            Target::Groups { groups, .. } => groups.iter().flatten().map(String::as_str).collect(),
            Target::Link { from, to } => vec![from.as_str(), to.as_str()],
        };
        let missing = named.into_iter().find(|n| !names.contains(n))?;
        Some(format!(
            "fault [{i}] ({}) names node `{missing}`, which the config does not have (nodes: {})",
            f.kind.name(),
            names.join(", ")
        ))
    })
}

/// The indices of the schedule's faults the run did not record: a fault
/// fired when the run's faults hold one of its kind and target at the same
/// operation (for kinds placed by op) or the same time.
pub(crate) fn not_applied(schedule: &[Fault], fired: &[Fault]) -> Vec<usize> {
    // Looked up by kind and moment, not compared pairwise: a schedule of a
    // million faults that fired would be 10^12 comparisons.
    let key = |f: &Fault| (f.kind.name(), if f.kind.trigger().by_op() { f.op } else { Some(f.at.ns()) });
    let mut targets: BTreeMap<_, Vec<&Target>> = BTreeMap::new();
    for g in fired {
        targets.entry(key(g)).or_default().push(&g.target);
    }
    let fired = |f: &Fault| targets.get(&key(f)).is_some_and(|t| t.contains(&&f.target));
    (0..schedule.len()).filter(|&i| !fired(&schedule[i])).collect()
}

/// The most faults listed one by one as not applied; the rest are counted.
const NOT_APPLIED_LISTED: usize = 20;

/// The lines saying which faults did not apply (`unapplied`, each described
/// by `line`): the first `NOT_APPLIED_LISTED`, then how many more.
pub(crate) fn not_applied_lines(unapplied: &[usize], line: impl Fn(usize) -> String) -> Vec<String> {
    let mut lines: Vec<String> = unapplied.iter().take(NOT_APPLIED_LISTED).map(|&i| line(i)).collect();
    if unapplied.len() > NOT_APPLIED_LISTED {
        lines.push(format!("... and {} more faults not applied", unapplied.len() - NOT_APPLIED_LISTED));
    }
    lines
}

pub fn edit(args: FaultsArgs) -> ExitCode {
    let mut schedule = match Schedule::load(&args.faults) {
        Ok(s) => s,
        Err(e) => return fail("faults", e),
    };
    let count = schedule.faults.len();
    for shift in &args.shift {
        let Some((index, delta)) = shift.split_once('=') else {
            return fail("faults", format!("--shift {shift:?} is not I=DELTA"));
        };
        let Some(fault) = index.parse::<usize>().ok().and_then(|i| schedule.faults.get_mut(i)) else {
            return fail("faults", format!("--shift {shift:?}: no fault {index} (the schedule has {count})"));
        };
        let (negative, magnitude) = match delta.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, delta.strip_prefix('+').unwrap_or(delta)),
        };
        // Earlier than the start is the start (1 for an op); later than
        // u64 can count is rejected, never wrapped.
        let apply = |value: u64, by: u64| {
            if negative { Some(value.saturating_sub(by)) } else { value.checked_add(by) }
        };
        let too_far =
            || fail("faults", format!("--shift {shift:?}: moves fault {index} past the largest value u64 holds"));
        if fault.kind.trigger().by_op() {
            let Ok(by) = magnitude.parse::<u64>() else {
                let unit = match fault.kind.trigger() {
                    Trigger::CountedCall => "counted call",
                    Trigger::Datagram => "datagram on its link",
                    _ => "disk operation",
                };
                return fail(
                    "faults",
                    format!("--shift {shift:?}: fault {index} is recorded by {unit}: DELTA is a count"),
                );
            };
            match fault.op.map(|op| apply(op, by)) {
                Some(None) => return too_far(),
                Some(Some(op)) => fault.op = Some(op.max(1)),
                None => {}
            }
        } else {
            let by = match parse_duration(magnitude).map(|d| u64::try_from(d.as_nanos())) {
                Ok(Ok(ns)) => ns,
                Ok(Err(_)) => return too_far(),
                Err(e) => return fail("faults", format!("--shift {shift:?}: {e}")),
            };
            let length = fault.length();
            let Some(at) = apply(fault.at.ns(), by) else { return too_far() };
            if length.is_some_and(|l: SimDuration| at.checked_add(l.ns()).is_none()) {
                return too_far();
            }
            fault.at = SimTime::from_ns(at);
            fault.until = length.map(|l: SimDuration| fault.at.plus(l));
        }
    }
    let mut remove = args.remove.clone();
    remove.sort_unstable();
    remove.dedup();
    for &i in remove.iter().rev() {
        if i >= count {
            return fail("faults", format!("--remove {i}: no such fault (the schedule has {count})"));
        }
        schedule.faults.remove(i);
    }
    let out = args.out.unwrap_or(args.faults);
    if let Err(e) = schedule.save(&out) {
        return fail("faults", e);
    }
    println!("{} faults written to {}", schedule.faults.len(), out.display());
    ExitCode::SUCCESS
}
