//! `disk_full` in a running world: ENOSPC inside its windows and only
//! there, reads that work throughout, exact replay, and a shortened window
//! (what shrink tries) honoured as written.

use super::super::Fault;
use crate::knob::KnobValue;
use crate::vtime::{SimDuration, SimTime};
use crate::world::tests::{clone_program, guest, program, run_logged, sleeper, spec, workload};
use crate::world::{RunSpec, Verdict};

/// WASI's ENOSPC.
const NOSPC: u64 = 51;

/// A service that, every 10 ms, prints its monotonic clock, then the errno
/// of appending one 4 KiB page to its file, then the errno of a read.
fn writer_cluster(seed: u64) -> RunSpec {
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l
           (call $print_u64 (call $clock (i32.const 1)))
           (i32.store (i32.const 512) (i32.const 8192))
           (i32.store (i32.const 516) (i32.const 4096))
           (call $print_u64 (i64.extend_i32_u
             (call $fd_write (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520))))
           (i32.store (i32.const 512) (i32.const 2048))
           (i32.store (i32.const 516) (i32.const 64))
           (call $print_u64 (i64.extend_i32_u
             (call $fd_read (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520))))
           (call $sleep (i64.const 10000000) (i32.const 0))
           (br $l))",
    );
    let mut s = spec(seed, vec![program("w", writer), workload(sleeper(1, 2000))]);
    s.faults.put("disk_full_per_sec", KnobValue::Number(4.0));
    s.faults.put("disk_full_length", KnobValue::Range(ms(50), ms(150)));
    s
}

fn ms(n: u64) -> SimDuration {
    SimDuration::from_ns(n * 1_000_000)
}

/// (when, write errno, read errno) of each round the writer printed.
fn rounds(log: &str) -> Vec<(SimTime, u64, u64)> {
    let numbers: Vec<u64> =
        log.lines().filter_map(|line| line.split_once("] w#1 | ")).map(|(_, n)| n.parse().expect("a number")).collect();
    numbers.chunks_exact(3).map(|r| (crate::clock::instant(r[0]), r[1], r[2])).collect()
}

fn windows(faults: &[Fault]) -> Vec<(SimTime, SimTime)> {
    faults.iter().filter(|f| f.kind.name() == "disk_full").map(|f| (f.at, f.until.expect("a window ends"))).collect()
}

/// Checks every round against the windows: ENOSPC inside, success outside.
fn check_rounds(log: &str, windows: &[(SimTime, SimTime)]) {
    let rounds = rounds(log);
    assert!(rounds.len() > 100, "{log}");
    for (at, write, read) in &rounds {
        let inside = windows.iter().any(|(from, until)| from <= at && at < until);
        assert_eq!(*write, if inside { NOSPC } else { 0 }, "the append at {at} (windows {windows:?})");
        assert_eq!(*read, 0, "a read at {at} works, full or not");
    }
    assert!(rounds.iter().any(|r| r.1 == NOSPC), "some append met a full disk");
}

#[test]
fn appends_fail_with_enospc_inside_a_window_and_only_there_while_reads_work() {
    let s = writer_cluster(3);
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let windows = windows(&result.faults);
    assert!(windows.len() >= 3, "{:?}", result.faults);
    assert!(log.contains("* disk_full w#1: disk full until ") && log.contains("w#1: disk has free space again"));
    check_rounds(&log, &windows);
    for fault in result.faults.iter().filter(|f| f.kind.name() == "disk_full") {
        assert_eq!(Fault::from_json(&fault.to_json()).as_ref(), Ok(fault), "a schedule entry reads back");
    }
}

#[test]
fn a_schedule_replays_exactly_and_a_shortened_window_is_honoured() {
    let drawn = writer_cluster(5);
    let (_, log, first) = run_logged(&drawn);
    let mut replay = writer_cluster(5);
    replay.faults = Default::default();
    replay.programs = drawn.programs.iter().map(clone_program).collect();
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((&second.faults, second.trace_hash), (&first.faults, first.trace_hash));
    assert_eq!(replay_log, log);

    // What shrink tries: the same fault, ending earlier.
    let mut shorter = first.faults.clone();
    let window = shorter.iter_mut().find(|f| f.kind.name() == "disk_full").expect("a window");
    let cut = window.at.plus(ms(20));
    assert!(window.until.is_some_and(|until| until > cut), "{window:?}");
    window.until = Some(cut);
    replay.schedule = Some(shorter.clone());
    let (_, short_log, third) = run_logged(&replay);
    assert_eq!(third.faults, shorter, "recorded as replayed");
    check_rounds(&short_log, &windows(&shorter));
}
