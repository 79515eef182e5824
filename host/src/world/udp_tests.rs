//! The datagram fault kinds in a whole run, with WAT guests over the
//! `seedfall` UDP imports: drawn `udp_loss`/`udp_dup` are schedule entries
//! at their link's datagram number, a replay of the schedule is the same
//! run, and an entry removed from it (`seedfall faults -remove`) does not
//! fire while the others still do. The network's own rules (U1-U9) are
//! `net/udp_tests.rs`.

use super::tests::{clone_program, program, run_logged, sleeper, spec, workload};
use super::*;
use crate::knob::KnobValue;
use crate::net::ip;
use crate::node_id::NodeId;

/// A guest with `listen(network, port)`, `udp_sendto` and `udp_recvfrom`
/// from the `seedfall` module and a `sleep(ns)`; `_start` is `body`.
fn udp_guest(body: &str) -> Arc<Code> {
    let wat = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "seedfall" "listen" (func $listen (param i32 i32) (result i32)))
  (import "seedfall" "udp_sendto" (func $sendto (param i32 i32 i32 i32 i32) (result i32)))
  (import "seedfall" "udp_recvfrom" (func $recvfrom (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "got\n")
  (func $sleep (param $ns i64)
    (i32.store (i32.const 16) (i32.const 1))
    (i64.store (i32.const 24) (local.get $ns))
    (i32.store16 (i32.const 40) (i32.const 0))
    (drop (call $poll (i32.const 0) (i32.const 128) (i32.const 1) (i32.const 256))))
  (func $got
    (i32.store (i32.const 512) (i32.const 1024))
    (i32.store (i32.const 516) (i32.const 4))
    (drop (call $fd_write (i32.const 1) (i32.const 512) (i32.const 1) (i32.const 520))))
  (func (export "_start") (local $i i32) (local $fd i32)
    {body}))"#
    );
    let wasm = wat::parse_str(&wat).expect("test guests are valid WAT");
    let artifact = seedfall_engine::compile(&wasm, &seedfall_engine::CompileConfig::default()).expect("compiles");
    Arc::new(Code::load(artifact).expect("loads"))
}

/// Sends 300 datagrams of 4 bytes to port 9000 of node 1, 1ms apart,
/// from 10ms on (after whatever the workload does at its first step).
fn sender() -> Arc<Code> {
    let to = ip::node_ip(NodeId::new(1));
    udp_guest(&format!(
        "(local.set $fd (call $listen (i32.const 1) (i32.const 0)))
         (call $sleep (i64.const 10000000))
         (loop $l
           (drop (call $sendto (local.get $fd) (i32.const {to}) (i32.const 9000) (i32.const 1024) (i32.const 4)))
           (call $sleep (i64.const 1000000))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const 300))))
         (loop $idle (call $sleep (i64.const 1000000000)) (br $idle))"
    ))
}

/// Binds port 9000 and prints "got" for every datagram it receives.
fn receiver() -> Arc<Code> {
    udp_guest(
        "(local.set $fd (call $listen (i32.const 1) (i32.const 9000)))
         (loop $l
           (call $sleep (i64.const 1000000))
           (block $empty
             (loop $drain
               (br_if $empty (i32.lt_s (call $recvfrom (local.get $fd) (i32.const 2048) (i32.const 64) (i32.const 4000))
                 (i32.const 0)))
               (call $got)
               (br $drain)))
           (br $l))",
    )
}

fn received(log: &str) -> usize {
    log.lines().filter(|l| l.contains("b#1") && l.ends_with("got")).count()
}

#[test]
fn drawn_udp_loss_and_dup_are_schedule_entries_that_replay_and_a_removed_one_does_not_fire() {
    let programs = || vec![program("a", sender()), program("b", receiver()), workload(sleeper(1, 1000))];
    let mut drawn = spec(3, programs());
    drawn.faults.put("udp_loss", KnobValue::Number(0.1));
    drawn.faults.put("udp_dup", KnobValue::Number(0.1));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let of = |faults: &[Fault], name: &str| faults.iter().filter(|f| f.kind.name() == name).count();
    let (lost, doubled) = (of(&first.faults, "udp_loss"), of(&first.faults, "udp_dup"));
    assert!(lost >= 10 && doubled >= 10, "{:?}", first.faults);
    // Every datagram arrives once, none twice, or twice: 300 - lost + doubled.
    assert_eq!(received(&log), 300 - lost + doubled, "{log}");
    let entry = first.faults.iter().find(|f| f.kind.name() == "udp_dup").unwrap();
    assert!(entry.op.is_some() && entry.amount.is_some_and(|ns| ns >= 50_000), "{entry:?}");
    assert!(entry.describe().contains("a -> b") && entry.describe().contains(" at datagram "), "{}", entry.describe());
    assert!(log.contains("udp_loss a -> b: datagram ") && log.contains(" lost"), "{log}");
    assert!(log.contains("udp_dup a -> b: datagram ") && log.contains(" sent twice, the copy after "), "{log}");
    for f in &first.faults {
        assert_eq!(Fault::from_json(&f.to_json()).as_ref(), Ok(f), "{}", f.to_json());
    }

    // Replayed with no probability, only the recorded datagrams: the same run.
    let mut replay = spec(3, drawn.programs.iter().map(clone_program).collect());
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((&second.faults, second.trace_hash), (&first.faults, first.trace_hash));
    assert_eq!(replay_log, log);

    // Without one loss, that datagram arrives; every other entry still fires.
    let removed = first.faults.iter().position(|f| f.kind.name() == "udp_loss").unwrap();
    let mut without = first.faults.clone();
    without.remove(removed);
    replay.schedule = Some(without.clone());
    let (_, third_log, third) = run_logged(&replay);
    assert_eq!(third.faults, without);
    assert_eq!(received(&third_log), received(&log) + 1);
    assert_ne!(third.trace_hash, first.trace_hash);
}

#[test]
fn datagram_faults_wait_for_a_quiet_window_to_end() {
    // Faults start at once here; a schedule entry at a datagram sent inside
    // a window would not fire, so a window over the whole run records none.
    let programs = || vec![program("a", sender()), program("b", receiver()), workload(sleeper(1, 1000))];
    let mut drawn = spec(3, programs());
    drawn.faults.put("udp_loss", KnobValue::Number(0.1));
    drawn.faults.put("udp_dup", KnobValue::Number(0.1));
    let (_, _, first) = run_logged(&drawn);
    let mut quiet = spec(3, programs());
    quiet.faults.put("udp_loss", KnobValue::Number(0.1));
    quiet.faults.put("udp_dup", KnobValue::Number(0.1));
    quiet.programs[2] = workload(super::tests::guest(
        "(call $quiet (i64.const 2000000000)) (call $sleep (i64.const 1000000000) (i32.const 0))",
    ));
    let (verdict, log, second) = run_logged(&quiet);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(!first.faults.is_empty());
    assert!(second.faults.is_empty(), "{:?}", second.faults);
    assert_eq!(received(&log), 300, "{log}");
}
