//! The shrinker's passes over a fake runner: a closure says which
//! candidates "fail the same way", so no world runs and no guest is built.

use super::*;
use seedfall_host::world::Kind;
use seedfall_host::world::fault::Target;

const SIGNATURE: &str = "workload|client||lost write N";
/// Where every failing fake run fails.
const FAIL_AT: SimTime = SimTime::from_ns(123_400_000);

fn ms(n: u64) -> u64 {
    n * 1_000_000
}

fn at(n: u64) -> SimTime {
    SimTime::from_ns(ms(n))
}

/// A fault of `kind` on `node` from `from` ms, lasting `length` ms if it ends.
fn fault(kind: &str, node: &str, from: u64, length: Option<u64>) -> Fault {
    let mut f = Fault::on_node(at(from), Kind::from_name(kind).expect("registered"), node);
    f.until = length.map(|l| at(from + l));
    f
}

fn crash(node: &str, from: u64) -> Fault {
    fault("crash", node, from, Some(100))
}

fn has(c: &Candidate, node: &str) -> bool {
    c.faults.iter().any(|f| f.target.names(node))
}

fn candidate(faults: Vec<Fault>) -> Candidate {
    Candidate { faults, duration: SimDuration::from_ns(ms(10_000)), ops: None }
}

/// A shrinker whose runs fail (at `FAIL_AT`) exactly when `fails` says so.
fn shrinker(workers: usize, budget: Budget, fails: impl Fn(&Candidate) -> bool + Sync) -> Shrinker<impl Runner> {
    let runner = move |c: &Candidate| {
        Ok::<_, ScheduleError>(Outcome { signature: fails(c).then(|| SIGNATURE.to_string()), end: FAIL_AT })
    };
    Shrinker::new(runner, SIGNATURE.to_string(), workers, budget, FAIL_AT)
}

#[test]
fn removal_ends_one_minimal() {
    let faults: Vec<Fault> = (1..=9).map(|n| crash(&format!("n{n}"), n * 100)).collect();
    let wanted = vec![faults[0].clone(), faults[2].clone()];
    let mut counts = Vec::new();
    for workers in [1, 4] {
        let mut s = shrinker(workers, Budget::Unlimited, |c| has(c, "n1") && has(c, "n3"));
        let mut best = candidate(faults.clone());
        assert!(s.remove_faults(&mut best));
        assert_eq!(best.faults, wanted, "exactly the two faults the failure needs");
        assert!(!s.stopped_early);
        counts.push(s.runs);
    }
    assert_eq!(counts[0], counts[1], "the run count does not depend on the workers");
    let mut s = shrinker(2, Budget::Unlimited, |_| true);
    let mut best = candidate(faults);
    assert!(s.remove_faults(&mut best));
    assert_eq!(best.faults, [], "a failure that needs no fault keeps none");
}

#[test]
fn removal_keeps_a_fault_every_failure_needs() {
    let mut s = shrinker(3, Budget::Unlimited, |c| has(c, "n2"));
    let mut best = candidate(vec![crash("n2", 100)]);
    assert!(!s.remove_faults(&mut best));
    assert_eq!(best.faults, [crash("n2", 100)]);
    assert_eq!(s.runs, 1);
}

#[test]
fn the_workload_cap_is_bisected_to_the_smallest_that_fails() {
    let mut s = shrinker(4, Budget::Unlimited, |c| c.ops.unwrap_or(1000) >= 377);
    let mut best = candidate(vec![]);
    assert!(s.cap_ops(&mut best, Some(1000)));
    assert_eq!(best.ops, Some(377));
    assert_eq!(s.runs, 10, "bisection of 0..=1000: ten probes");
    let mut s = shrinker(4, Budget::Unlimited, |_| true);
    assert!(!s.cap_ops(&mut candidate(vec![]), None), "no cap to bisect without sim.Budget");
    assert_eq!(s.runs, 0);
}

#[test]
fn the_duration_is_trimmed_to_just_past_the_failure() {
    let mut s = shrinker(1, Budget::Unlimited, |c| c.duration.ns() >= FAIL_AT.ns());
    let mut best = candidate(vec![]);
    assert!(s.trim_duration(&mut best));
    assert_eq!(best.duration, SimDuration::from_ns(ms(124)), "the next 2 ms step after 123.4ms");
    // A failure that needs the run to go on past its end keeps the duration.
    let mut s = shrinker(1, Budget::Unlimited, |c| c.duration.ns() >= ms(5_000));
    let mut best = candidate(vec![]);
    assert!(!s.trim_duration(&mut best));
    assert_eq!(best.duration, SimDuration::from_ns(ms(10_000)));
}

#[test]
fn faults_are_simplified_as_their_kind_allows() {
    // Fails while the crash lasts 100 ms or more and comes at 200 ms or later.
    let crash_long_and_late = |c: &Candidate| {
        c.faults
            .iter()
            .any(|f| f.kind.name() == "crash" && f.at >= at(200) && f.length() >= Some(SimDuration::from_ns(ms(100))))
    };
    let mut s = shrinker(2, Budget::Unlimited, crash_long_and_late);
    let mut by_op = fault("crash_io", "n2", 700, Some(400));
    by_op.op = Some(42);
    let fsync = {
        let mut f = fault("fsync_eio", "n3", 900, None);
        f.op = Some(7);
        f
    };
    let mut best = candidate(vec![fault("crash", "n1", 300, Some(500)), by_op.clone(), fsync.clone()]);
    assert!(s.simplify(&mut best));
    let crash = &best.faults[0];
    let length = crash.length().expect("a crash ends").ns();
    assert!((ms(100)..=ms(102)).contains(&length), "shortened to within 2 ms: {length}");
    assert!((ms(200)..=ms(202)).contains(&crash.at.ns()), "moved earlier to within 2 ms: {}", crash.at);
    // crash_io is placed by op: shorter, never earlier; an fsync error has nothing to simplify.
    assert_eq!((best.faults[1].at, best.faults[1].op), (by_op.at, Some(42)));
    assert!(best.faults[1].length() < by_op.length());
    assert_eq!(best.faults[2], fsync);
}

/// `disk_full` declares itself shortenable and movable like `pause`: the
/// shrinker needs nothing of its own for it.
#[test]
fn a_full_disk_window_shrinks_shorter_and_earlier() {
    let full_long_and_late = |c: &Candidate| {
        let long = |f: &Fault| f.length() >= Some(SimDuration::from_ns(ms(100)));
        c.faults.iter().any(|f| f.kind.name() == "disk_full" && f.at >= at(200) && long(f))
    };
    let mut s = shrinker(2, Budget::Unlimited, full_long_and_late);
    let mut best = candidate(vec![fault("disk_full", "n1", 900, Some(800))]);
    assert!(s.simplify(&mut best));
    let window = &best.faults[0];
    let length = window.length().expect("a window ends").ns();
    assert!((ms(100)..=ms(102)).contains(&length), "shortened to within 2 ms: {length}");
    assert!((ms(200)..=ms(202)).contains(&window.at.ns()), "moved earlier to within 2 ms: {}", window.at);
}

#[test]
fn skews_shrink_toward_zero_and_partitions_narrow() {
    let mut skew = fault("clock_skew", "n1", 0, None);
    skew.amount = Some(-(ms(500) as i64));
    let partition = Fault {
        target: Target::Groups {
            groups: vec![vec!["n1".into(), "n2".into()], vec!["n3".into(), "n4".into(), "n5".into()]],
            oneway: false,
        },
        ..fault("partition", "n1", 100, Some(300))
    };
    let fails = |c: &Candidate| {
        let skewed = c.faults.iter().any(|f| f.amount.is_some_and(|a| a <= -(ms(50) as i64)));
        let cut = c.faults.iter().any(|f| match &f.target {
            Target::Groups { groups, .. } => {
                let group_of = |n: &str| groups.iter().position(|g| g.iter().any(|m| m == n));
                group_of("n1") != group_of("n3")
            }
            _ => false,
        });
        skewed && cut
    };
    let mut s = shrinker(1, Budget::Unlimited, fails);
    let mut best = candidate(vec![skew, partition]);
    assert!(s.simplify(&mut best));
    let amount = best.faults[0].amount.expect("a skew has an amount");
    assert!((-(ms(52) as i64)..=-(ms(50) as i64)).contains(&amount), "toward zero, sign kept: {amount}");
    let Target::Groups { groups, .. } = &best.faults[1].target else { panic!("still a partition") };
    assert_eq!(groups[0], ["n1"], "only the node the failure needs is cut off: {groups:?}");
}

#[test]
fn a_run_budget_stops_the_passes_with_a_failing_candidate() {
    let faults: Vec<Fault> = (1..=16).map(|n| crash(&format!("n{n}"), n * 100)).collect();
    for budget in [0, 1, 5, 12] {
        let mut s = shrinker(4, Budget::Runs(budget), |c| has(c, "n5") && has(c, "n11"));
        let mut best = candidate(faults.clone());
        s.minimize(&mut best, Some(50), |_| {});
        assert!(s.stopped_early && !s.interrupted, "budget {budget}");
        assert!(s.runs <= budget, "budget {budget}: {} runs", s.runs);
        assert!(has(&best, "n5") && has(&best, "n11"), "the best candidate still fails");
    }
}

#[test]
fn an_interrupt_stops_before_the_next_run() {
    let flag = Arc::new(AtomicBool::new(true));
    let mut s = shrinker(2, Budget::Unlimited, |_| true);
    s.interrupt_on(flag);
    let mut best = candidate(vec![crash("n1", 100), crash("n2", 200)]);
    s.minimize(&mut best, None, |_| panic!("no improvement after an interrupt"));
    assert!(s.interrupted && s.stopped_early);
    assert_eq!((s.runs, best.faults.len()), (0, 2));
}

#[test]
fn worker_count_changes_neither_the_result_nor_the_run_count() {
    let faults: Vec<Fault> = (1..=12).map(|n| fault("crash", &format!("n{n}"), n * 150, Some(400))).collect();
    let fails = |c: &Candidate| {
        let late_n4 = c.faults.iter().any(|f| f.target.names("n4") && f.at >= at(250));
        late_n4 && has(c, "n9") && c.ops.unwrap_or(64) >= 20 && c.duration.ns() >= FAIL_AT.ns()
    };
    let results: Vec<(Candidate, u64, Vec<Step>)> = [1, 2, 4, 7]
        .into_iter()
        .map(|workers| {
            let mut s = shrinker(workers, Budget::Unlimited, fails);
            let mut best = candidate(faults.clone());
            let mut steps = Vec::new();
            assert!(s.replays(&best).unwrap());
            s.minimize(&mut best, Some(64), |step| steps.push(step.clone()));
            (best, s.runs, steps)
        })
        .collect();
    let (best, _, steps) = &results[0];
    assert_eq!(best.faults.len(), 2);
    assert_eq!((best.ops, best.duration), (Some(20), SimDuration::from_ns(ms(124))));
    assert_eq!(steps[0].change, Change::Removed { removed: 10, of: 12 });
    for other in &results[1..] {
        assert_eq!(other, &results[0]);
    }
}

#[test]
fn what_shrink_prints() {
    // The reference's own lines are checked in cli/tests/reference_names.rs.
    let step = |change| Step { round: 2, change, runs: 131, faults: 3 }.to_string();
    assert_eq!(step(Change::Simplified), "run  131    3 faults  faults simplified");
    let trimmed = Change::Trimmed { to: SimDuration::from_ns(ms(124)), from: SimDuration::from_ns(ms(10_000)) };
    assert_eq!(step(trimmed), "run  131    3 faults  duration 124ms instead of 10s");
    let mut shrunk = Shrunk {
        seed: 7,
        before: candidate(vec![crash("n1", 100), crash("n2", 200)]),
        after: Candidate { ops: Some(5), ..candidate(vec![crash("n2", 200)]) },
        default_ops: Some(40),
        branches: vec![],
        runs: 10,
        stopped_early: false,
        interrupted: false,
        elapsed: Duration::from_secs(4),
    };
    assert_eq!(
        shrunk.report(),
        "shrunk from 2 faults, 10s, 40 workload ops\n         to 1 faults, 10s, 5 workload ops\nin 10 runs, 4s\n"
    );
    shrunk.stopped_early = true;
    assert!(shrunk.report().ends_with("  stopped early (budget): the schedule may not be minimal\n"));
    let schedule = shrunk.schedule();
    assert_eq!((schedule.seed, schedule.ops, schedule.shrink_runs), (Some(7), Some(5), Some(10)));
    assert_eq!(schedule.shrunk_from.map(|s| (s.faults, s.ops)), Some((2, Some(40))));
    shrunk.default_ops = None;
    shrunk.after.ops = None;
    assert!(shrunk.report().starts_with("shrunk from 2 faults, 10s\n         to 1 faults, 10s\n"), "no sim.Budget");
}

#[test]
fn budgets_are_runs_or_wall_time() {
    assert_eq!(Budget::parse("300").unwrap(), Budget::Runs(300));
    assert_eq!(Budget::parse("10m").unwrap(), Budget::Time(Duration::from_secs(600)));
    assert!(Budget::parse("soon").unwrap_err().to_string().ends_with("(or a number of runs)"));
}
