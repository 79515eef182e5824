//! Probes watch and never change: a run with every probe installed and the
//! same run with none have the same trace hash, event by event.

use super::probes::{self, FaultState, FaultStates, FaultSteps};
use super::tests::{guest, program, sleeper, spec, workload};
use super::*;
use crate::knob::KnobValue;
use crate::vtime::SimDuration;

/// A writer that appends and syncs every 10ms while crashes on its disk
/// operations, write errors and partitions come.
fn faulted(seed: u64) -> RunSpec {
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    let mut s = spec(seed, vec![program("w", writer), workload(sleeper(1, 2000))]);
    s.faults.put("crash_on_io", KnobValue::Number(0.2));
    s.faults.put("torn_writes", KnobValue::Switch(true));
    s.faults.put("write_eio", KnobValue::Number(0.05));
    s.faults.put("crash_downtime", KnobValue::Range(SimDuration::from_ns(5_000_000), SimDuration::from_ns(50_000_000)));
    s.hash_log = true;
    s
}

#[test]
fn every_probe_installed_or_none_gives_the_same_run() {
    for seed in 1..=3 {
        let s = faulted(seed);
        let bare = run(&s, None).expect("no engine error");
        let watched = run_probed(&s, None, probes::all()).expect("no engine error");
        assert_eq!(watched.trace_hash, bare.trace_hash, "seed {seed}");
        assert_eq!((watched.steps, watched.end, &watched.faults), (bare.steps, bare.end, &bare.faults));
        let (a, b) = (watched.hash_log.expect("logged"), bare.hash_log.expect("logged"));
        assert_eq!(a.len(), b.len(), "seed {seed}");
        assert!(a.iter().zip(&b).all(|(x, y)| x.digest == y.digest), "seed {seed}");

        // And the probes saw the run: a step and a state per fault recorded while stepping.
        let (steps, states) = (FaultSteps::of(&watched.probes), FaultStates::of(&watched.probes));
        assert!(!steps.is_empty() && steps.len() == states.len(), "seed {seed}: {steps:?} {states:?}");
        assert!(steps.windows(2).all(|w| w[0] <= w[1]), "steps only grow: {steps:?}");
        let crashed = states.iter().filter(|s| s.crash.is_some()).count();
        let crashes = watched.faults.iter().filter(|f| f.kind.name() == "crash_io").count();
        assert!(crashed > 0 && crashed <= crashes, "seed {seed}: {crashed} of {crashes}: {states:?}");
        assert!(FaultSteps::of(&bare.probes).is_empty() && FaultStates::of(&bare.probes).is_empty());
    }
}

#[test]
fn a_fault_state_is_the_crash_s_disk_then_the_network_around_its_node() {
    let watched = run_probed(&faulted(1), None, probes::all()).expect("no engine error");
    let state: &FaultState =
        FaultStates::of(&watched.probes).iter().find(|s| s.crash.is_some()).expect("a crash was recorded");
    let parts = state.parts();
    assert_eq!(parts[0], "crash");
    assert!(parts[1].starts_with("during="), "{parts:?}");
    assert!(parts.iter().any(|p| p.starts_with("cut=")), "a crash is a node's fault: {parts:?}");
}
