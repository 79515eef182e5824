//! Fibers: guests suspended inside host calls, interleaved, abandoned, and
//! created and abandoned many times without leaking memory or mappings.

mod common;

use seedfall_engine::*;

/// `run(n)` calls the host's `pause(i)` n times; each call suspends the guest
/// and the value it is resumed with is added to a running sum.
const PAUSING: &str = r#"(module
  (import "host" "pause" (func $pause (param i32) (result i32)))
  (memory 1)
  (func (export "run") (param $n i32) (result i32)
    (local $i i32) (local $sum i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $sum (i32.add (local.get $sum) (call $pause (local.get $i))))
      (i32.store (i32.const 0) (local.get $sum))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $sum)))"#;

fn pausing_linker() -> Linker<u32> {
    let mut linker = Linker::new();
    linker.func("host", "pause", &[ValType::I32], &[ValType::I32], |caller, values| {
        *caller.data_mut() += 1;
        values[0] = caller.suspend(values[0]);
        Ok(())
    });
    linker
}

#[test]
fn three_instances_interleave_through_a_suspending_host_function() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let code = common::load_wat(PAUSING, mode);
        let linker = pausing_linker();
        let mut nodes: Vec<Instance<u32>> =
            (0..3).map(|_| Instance::new(code.clone(), &linker, 0).expect("instantiate")).collect();
        let mut order = Vec::new();
        let mut runs: Vec<Run> = nodes.iter_mut().map(|n| n.call("run", &[Val::I32(4)]).unwrap()).collect();
        // Round robin: resume each suspended node with 10 * node + its pause value.
        while runs.iter().any(|r| matches!(r, Run::Suspended(_))) {
            for (id, node) in nodes.iter_mut().enumerate() {
                if let Run::Suspended(value) = runs[id] {
                    order.push((id, value));
                    runs[id] = node.resume(10 * id as u64 + value).unwrap();
                }
            }
        }
        let expected_order: Vec<(usize, u64)> = (0..4).flat_map(|i| (0..3).map(move |id| (id, i))).collect();
        assert_eq!(order, expected_order, "{mode:?}: nodes take turns");
        for (id, run) in runs.iter().enumerate() {
            let sum = (0..4).map(|i| 10 * id as i32 + i).sum::<i32>();
            assert_eq!(*run, Run::Returned(vec![Val::I32(sum)]), "{mode:?} node {id}");
            assert_eq!(*nodes[id].data(), 4, "each pause ran once");
        }
    }
}

#[test]
fn an_instance_abandoned_mid_call_leaves_others_running_and_can_be_called_again() {
    let code = common::load_wat(PAUSING, TrapMode::Signals);
    let linker = pausing_linker();
    let mut victim = Instance::new(code.clone(), &linker, 0).unwrap();
    let mut survivor = Instance::new(code, &linker, 0).unwrap();
    assert_eq!(victim.call("run", &[Val::I32(3)]).unwrap(), Run::Suspended(0));
    assert_eq!(survivor.call("run", &[Val::I32(2)]).unwrap(), Run::Suspended(0));
    assert_eq!(victim.resume(5).unwrap(), Run::Suspended(1));
    victim.abandon();
    assert!(!victim.is_suspended());
    assert!(victim.resume(0).is_err(), "nothing left to resume");
    // The memory written before the abandonment is still there.
    assert_eq!(victim.memory().unwrap().bytes()[0], 5);
    assert_eq!(survivor.resume(1).unwrap(), Run::Suspended(1));
    assert_eq!(survivor.resume(2).unwrap(), Run::Returned(vec![Val::I32(3)]));
    // A fresh call on the abandoned instance works.
    assert_eq!(victim.call("run", &[Val::I32(1)]).unwrap(), Run::Suspended(0));
    assert_eq!(victim.resume(7).unwrap(), Run::Returned(vec![Val::I32(7)]));
    // Dropping an instance while it is suspended is also fine.
    let mut dropped = Instance::new(victim.code().clone(), &linker, 0).unwrap();
    assert_eq!(dropped.call("run", &[Val::I32(2)]).unwrap(), Run::Suspended(0));
    drop(dropped);
}

fn mapping_count() -> usize {
    std::fs::read_to_string("/proc/self/maps").unwrap().lines().count()
}

fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4
}

#[test]
fn ten_thousand_create_and_abandon_cycles_do_not_grow_memory_or_mappings() {
    let code = common::load_wat(PAUSING, TrapMode::Signals);
    let linker = pausing_linker();
    let cycle = || {
        let mut node = Instance::new(code.clone(), &linker, 0).unwrap();
        assert_eq!(node.call("run", &[Val::I32(5)]).unwrap(), Run::Suspended(0));
        assert_eq!(node.resume(1).unwrap(), Run::Suspended(1));
        node.abandon();
    };
    // Warm up the stack pool and the allocator.
    for _ in 0..200 {
        cycle();
    }
    let (maps_before, rss_before) = (mapping_count(), resident_kib());
    for _ in 0..10_000 {
        cycle();
    }
    let (maps_after, rss_after) = (mapping_count(), resident_kib());
    // Other tests in this binary run in parallel threads and map and unmap
    // their own memory, so allow a little slack, far below one leak per cycle.
    assert!(maps_after <= maps_before + 16, "mappings grew from {maps_before} to {maps_after}");
    assert!(rss_after <= rss_before + 8 * 1024, "resident memory grew from {rss_before} KiB to {rss_after} KiB");
}
