//! A saved fault schedule for people: `inspect` prints it readably, and
//! `faults` edits it to test an explanation (shift a fault, remove one).
//! DELTA is in the fault's own unit: a duration for timed faults, a count
//! for faults recorded at a disk operation, counted call or datagram. It
//! neither runs a schedule (`verify.rs`, `replay.rs`) nor reads or writes
//! the file (`schedule.rs`).

use crate::duration::parse_duration;
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use seedfall_host::vtime::{SimDuration, SimTime};
use seedfall_host::world::fault::Trigger;

/// The schedule readably: a line of what it is, then one per fault.
pub fn inspect(schedule: &Schedule) -> String {
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |n| n.to_string());
    let mut out = format!(
        "seed {}, duration {}, workload ops {}, {} faults{}\n",
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
        out.push_str(&format!("[{i}] {}\n", f.describe()));
    }
    out
}

/// Applies `--shift I=DELTA` (`shift` as given, for messages).
pub fn shift(schedule: &mut Schedule, shift: &str) -> Result<(), ScheduleError> {
    let count = schedule.faults.len();
    let Some((index, delta)) = shift.split_once('=') else {
        return Err(ScheduleError::Edit(format!("--shift {shift:?} is not I=DELTA")));
    };
    let Some(fault) = index.parse::<usize>().ok().and_then(|i| schedule.faults.get_mut(i)) else {
        return Err(ScheduleError::Edit(format!("--shift {shift:?}: no fault {index} (the schedule has {count})")));
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
        || ScheduleError::Edit(format!("--shift {shift:?}: moves fault {index} past the largest value u64 holds"));
    if fault.kind.trigger().by_op() {
        let Ok(by) = magnitude.parse::<u64>() else {
            let unit = match fault.kind.trigger() {
                Trigger::CountedCall => "counted call",
                Trigger::Datagram => "datagram on its link",
                _ => "disk operation",
            };
            return Err(ScheduleError::Edit(format!(
                "--shift {shift:?}: fault {index} is recorded by {unit}: DELTA is a count"
            )));
        };
        match fault.op.map(|op| apply(op, by)) {
            Some(None) => return Err(too_far()),
            Some(Some(op)) => fault.op = Some(op.max(1)),
            None => {}
        }
    } else {
        let by = match parse_duration(magnitude).map(|d| u64::try_from(d.as_nanos())) {
            Ok(Ok(ns)) => ns,
            Ok(Err(_)) => return Err(too_far()),
            Err(e) => return Err(ScheduleError::Edit(format!("--shift {shift:?}: {e}"))),
        };
        let length = fault.length();
        let Some(at) = apply(fault.at.ns(), by) else { return Err(too_far()) };
        if length.is_some_and(|l: SimDuration| at.checked_add(l.ns()).is_none()) {
            return Err(too_far());
        }
        fault.at = SimTime::from_ns(at);
        fault.until = length.map(|l: SimDuration| fault.at.plus(l));
    }
    Ok(())
}

/// Removes the faults at `indices` (as `inspect` numbers them, before any
/// removal; repeats are one).
pub fn remove(schedule: &mut Schedule, indices: &[usize]) -> Result<(), ScheduleError> {
    let count = schedule.faults.len();
    let mut remove = indices.to_vec();
    remove.sort_unstable();
    remove.dedup();
    for &i in remove.iter().rev() {
        if i >= count {
            return Err(ScheduleError::Edit(format!("--remove {i}: no such fault (the schedule has {count})")));
        }
        schedule.faults.remove(i);
    }
    Ok(())
}
