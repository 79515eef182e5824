//! The time fault kinds and the liveness phase, one rule a test, with WAT
//! guests: a clock skew moves a node's wall clock and never its monotonic
//! clock; a jump moves it at its time; a paused node takes no steps and its
//! timers fire late; the liveness phase stops faults, heals, restarts and
//! judges the workload by its deadline; a finally check runs after the
//! workload on the healed cluster and its exit code counts.

use super::tests::{at, clone_program, crash, guest, program, run_logged, sleeper, spec, workload};
use super::*;
use crate::knob::KnobValue;
use crate::vtime::SimDuration;

/// Prints its wall clock and its monotonic clock `n` times, `ms` apart.
fn clock_printer(n: u32, ms: u64) -> Arc<Code> {
    guest(&format!(
        "(loop $l (call $print_u64 (call $clock (i32.const 0))) (call $print_u64 (call $clock (i32.const 1)))
           (call $sleep (i64.const {}) (i32.const 0))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const {n}))))",
        ms * 1_000_000
    ))
}

/// (wall, monotonic) pairs node incarnation `who` printed.
fn readings(log: &str, who: &str) -> Vec<(i128, i128)> {
    let numbers: Vec<i128> = log
        .lines()
        .filter_map(|l| l.split(&format!("{who} | ")).nth(1))
        .map(|n| n.parse().expect("a number"))
        .collect();
    numbers.chunks(2).map(|c| (c[0], c[1])).collect()
}

/// How far a reading's wall clock is off true time (the wall read comes
/// one nanosecond before the monotonic one).
fn offset((wall, mono): (i128, i128)) -> i128 {
    let truth = crate::clock::EPOCH_UNIX_NS as i128 + (mono - 1 - crate::clock::MONOTONIC_START_NS as i128);
    wall - truth
}

fn kind(name: &str) -> Kind {
    Kind::from_name(name).expect("registered")
}

fn ms(n: u64) -> SimDuration {
    SimDuration::from_ns(n * 1_000_000)
}

#[test]
fn a_clock_skew_moves_each_incarnations_wall_clock_and_never_the_monotonic_one() {
    let cluster = |seed| spec(seed, vec![program("a", clock_printer(3, 10)), workload(clock_printer(3, 10))]);
    let (_, plain_log, _) = run_logged(&cluster(4));
    let mut skewed = cluster(4);
    skewed.faults.put("clock_skew", KnobValue::Duration(ms(500)));
    let (verdict, log, result) = run_logged(&skewed);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let skews: Vec<&Fault> = result.faults.iter().filter(|f| f.kind == kind("clock_skew")).collect();
    assert_eq!(skews.len(), 1, "one skew for a's one incarnation, none for the workload: {:?}", result.faults);
    let amount = skews[0].amount.expect("an offset") as i128;
    assert!(amount != 0 && amount.abs() <= 500_000_000, "{amount}");
    assert!(log.contains("clock skew a#1: its wall clock is off by"), "{log}");
    let (plain, now) = (readings(&plain_log, "a#1"), readings(&log, "a#1"));
    assert_eq!(now.len(), 3);
    for (p, n) in plain.iter().zip(&now) {
        assert_eq!(n.1, p.1, "the monotonic clock is the same with and without the skew");
        assert_eq!(offset(*n), amount, "the wall clock is off by exactly the skew");
    }
    assert!(readings(&log, "client#1").iter().all(|r| offset(*r) == 0), "the workload's clock is true");

    // The skew is a schedule entry: replayed, it is the same run; removed, the clock is true.
    let mut replay = cluster(4);
    replay.schedule = Some(result.faults.clone());
    let (_, _, again) = run_logged(&replay);
    assert_eq!(again.trace_hash, result.trace_hash);
    replay.schedule = Some(Vec::new());
    let (_, removed_log, _) = run_logged(&replay);
    assert!(readings(&removed_log, "a#1").iter().all(|r| offset(*r) == 0), "{removed_log}");
}

#[test]
fn a_restarted_node_boots_with_a_skew_of_its_own() {
    let mut s = spec(2, vec![program("a", clock_printer(100, 10)), workload(sleeper(1, 300))]);
    s.faults.put("clock_skew", KnobValue::Duration(ms(800)));
    s.schedule = None;
    let drawn = run_logged(&s).2;
    let first: Vec<i64> = drawn.faults.iter().filter_map(|f| f.amount).collect();
    let mut with_crash = spec(2, s.programs.iter().map(clone_program).collect());
    with_crash.faults.put("clock_skew", KnobValue::Duration(ms(800)));
    let mut schedule: Vec<Fault> = drawn.faults.clone();
    schedule.push(crash("a", 100, 150));
    let mut second_skew = Fault::on_node(at(150), kind("clock_skew"), "a");
    second_skew.amount = Some(-123_000_000);
    schedule.push(second_skew);
    with_crash.schedule = Some(schedule);
    let (verdict, log, result) = run_logged(&with_crash);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let all = readings(&log, "a#1");
    assert!(all.iter().all(|r| offset(*r) == first[0] as i128), "a#1 keeps its skew");
    let second = readings(&log, "a#2");
    assert!(!second.is_empty() && second.iter().all(|r| offset(*r) == -123_000_000), "a#2 has its own: {log}");
    assert_eq!(result.faults.iter().filter(|f| f.kind == kind("clock_skew")).count(), 2);
}

#[test]
fn a_clock_jump_moves_the_wall_clock_at_its_time_and_only_the_wall_clock() {
    let mut s = spec(1, vec![program("a", clock_printer(6, 20)), workload(sleeper(1, 200))]);
    let mut jump = Fault::on_node(at(50), kind("clock_jump"), "a");
    jump.amount = Some(-2_000_000_000);
    s.schedule = Some(vec![jump]);
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(log.contains("[50ms] * clock jump a#1 by -2s"), "{log}");
    let r = readings(&log, "a#1");
    let (before, after): (Vec<_>, Vec<_>) =
        r.iter().partition(|(_, mono)| (*mono as u64) < crate::clock::MONOTONIC_START_NS + 50_000_000);
    assert_eq!((before.len(), after.len()), (3, 3), "{log}");
    assert!(before.iter().all(|x| offset(*x) == 0) && after.iter().all(|x| offset(*x) == -2_000_000_000));
    assert!(r.windows(2).all(|w| w[1].1 > w[0].1), "the monotonic clock only moves forward");
    assert_eq!(result.faults.len(), 1);

    // Drawn: seeded, within the largest jump, and the same run twice.
    let mut drawn = spec(9, s.programs.iter().map(clone_program).collect());
    drawn.faults.put("clock_jump_per_sec", KnobValue::Number(40.0));
    drawn.faults.put("clock_jump", KnobValue::Duration(ms(1000)));
    let (_, drawn_log, one) = run_logged(&drawn);
    let jumps: Vec<i64> = one.faults.iter().filter(|f| f.kind == kind("clock_jump")).filter_map(|f| f.amount).collect();
    assert!(!jumps.is_empty() && jumps.iter().all(|j| j.abs() <= 1_000_000_000), "{jumps:?}\n{drawn_log}");
    assert_eq!(run_logged(&drawn).2.trace_hash, one.trace_hash);
}

#[test]
fn a_paused_node_takes_no_steps_and_its_timers_fire_late() {
    let mut s = spec(1, vec![program("a", sleeper(30, 10)), workload(sleeper(1, 400))]);
    let mut pause = Fault::on_node(at(55), kind("pause"), "a");
    pause.until = Some(at(255));
    s.schedule = Some(vec![pause]);
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(log.contains("[55ms] * pause a#1 until 255ms"), "{log}");
    let ticks: Vec<u64> = log
        .lines()
        .filter(|l| l.contains("a#1 | tick"))
        .map(|l| crate::vtime::parse_go_duration(&l[1..l.find(']').unwrap()]).unwrap() / 1_000_000)
        .collect();
    assert!(ticks.iter().all(|&t| !(56..255).contains(&t)), "no steps while paused: {ticks:?}");
    assert!(ticks.contains(&255), "the timer due at 60ms fires when the pause ends: {ticks:?}");
    assert_eq!(result.faults.len(), 1);

    // Drawn pauses are seeded and recorded with their length.
    let mut drawn = spec(3, s.programs.iter().map(clone_program).collect());
    drawn.faults.put("pause_per_sec", KnobValue::Number(10.0));
    drawn.faults.put("pause_length", KnobValue::Range(ms(20), ms(50)));
    let (_, _, one) = run_logged(&drawn);
    let pauses: Vec<&Fault> = one.faults.iter().filter(|f| f.kind == kind("pause")).collect();
    assert!(!pauses.is_empty());
    assert!(pauses.iter().all(|f| f.length().is_some_and(|l| (ms(20)..=ms(50)).contains(&l))), "{pauses:?}");
    assert_eq!(run_logged(&drawn).2.trace_hash, one.trace_hash);
}

#[test]
fn the_liveness_phase_stops_faults_heals_and_restarts_then_lets_the_workload_finish() {
    let cluster = |seed, workload_ms| {
        let mut s = spec(seed, vec![program("a", sleeper(1000, 10)), workload(sleeper(1, workload_ms))]);
        s.duration = ms(1000);
        s.liveness = Some(ms(3000));
        s.faults.put("crash_per_sec", KnobValue::Number(20.0));
        s.faults.put("crash_downtime", KnobValue::Range(ms(5000), ms(5000)));
        s.faults.put("pause_per_sec", KnobValue::Number(5.0));
        s
    };
    let (verdict, log, result) = run_logged(&cluster(1, 2500));
    assert_eq!(verdict, Verdict::Pass, "the workload finishes inside the window: {log}");
    assert!(log.contains("[1s] * liveness: faults stop"), "{log}");
    let after: Vec<&Fault> = result.faults.iter().filter(|f| f.at > at(1000)).collect();
    assert!(after.is_empty(), "no fault acts in the liveness phase: {after:?}");
    // a crashed with a 5 s downtime before 1 s: it restarts when the phase begins.
    let last_crash = log.lines().rev().find(|l| l.contains("* crash a#")).expect("a crashed");
    let k: u32 =
        last_crash.split("a#").nth(1).unwrap().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
    assert!(log.contains(&format!("[1s] * boot a#{}", k + 1)), "{log}");

    let (verdict, log, result) = run_logged(&cluster(1, 5000));
    let Verdict::Fail(failures) = verdict else { panic!("a workload still running at the deadline: {log}") };
    assert_eq!((failures[0].class, failures[0].node.as_str()), (Class::Liveness, "client"));
    assert_eq!(failures[0].message, "the workload did not finish within 3s of the liveness phase (which began at 1s)");
    assert_eq!(result.end, at(4000));
    assert_eq!(run_logged(&cluster(1, 5000)).2.trace_hash, result.trace_hash, "deterministic");

    // Without `liveness` the same run ends at the horizon.
    let mut plain = cluster(1, 5000);
    plain.liveness = None;
    assert_eq!(run_logged(&plain).0, Verdict::Horizon);
}

#[test]
fn finally_runs_after_the_workload_on_the_healed_cluster_and_its_exit_counts() {
    let finally = |code: i32| NodeProgram {
        name: "finally".into(),
        role: Role::Finally,
        ..program("finally", guest(&format!("(call $tick) (call $exit (i32.const {code}))")))
    };
    let cluster = |code| {
        let mut s = spec(1, vec![program("a", sleeper(1000, 10)), workload(sleeper(1, 100)), finally(code)]);
        let mut partition = Fault::on_node(at(50), kind("partition"), "");
        partition.target = Target::Groups { groups: vec![vec!["a".into()], vec!["client".into()]], oneway: false };
        partition.until = Some(at(5000));
        s.schedule = Some(vec![partition, crash("a", 60, 9000)]);
        s
    };
    let (verdict, log, _) = run_logged(&cluster(0));
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let exit = log.find("client#1 exited with status 0").expect("the workload exits");
    let heal = log.find("heal the network").expect("the cluster heals");
    let restart = log.find("boot a#2").expect("the crashed node restarts");
    let boot = log.find("boot finally#1").expect("finally runs");
    assert!(exit < heal && heal < boot && restart < boot, "{log}");
    assert!(log.contains("finally#1 | tick"), "{log}");

    let (verdict, log, _) = run_logged(&cluster(3));
    let Verdict::Fail(failures) = verdict else { panic!("a failing finally fails the run: {log}") };
    assert_eq!((failures[0].class, failures[0].node.as_str()), (Class::Workload, "finally"));
    assert_eq!(failures[0].message, "exited with status 3");
}
