//! The history through the `seedfall` imports, with a WAT workload: what `op_*` and `txn_*` record, at
//! which virtual times, that the history is in the trace hash, and that the config's checks turn a
//! non-linearizable history into a `linearizability` failure at its failure point.

use super::tests::{program, spec};
use super::*;
use crate::history::{Call, Completion};
use seedfall_check::txn::{MicroOp, Status};

const MS: u64 = 1_000_000;

/// A workload: c1 puts x=VALUE over [0, 10ms]; 10ms later c2 gets x over 1ms and finds it missing (then
/// completes it again, refused); c3's transaction appends 7 to x and reads [7] at once.
fn history_guest(value: &str) -> Arc<Code> {
    let wat = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "seedfall" "op_invoke" (func $invoke (param i32 i32 i32 i32 i32 i32) (result i64)))
  (import "seedfall" "op_complete" (func $complete (param i64 i32 i32 i32) (result i32)))
  (import "seedfall" "txn_begin" (func $begin (param i32) (result i64)))
  (import "seedfall" "txn_append" (func $append (param i64 i32 i32 i64) (result i32)))
  (import "seedfall" "txn_read" (func $read (param i64 i32 i32 i32 i32) (result i32)))
  (import "seedfall" "txn_end" (func $end (param i64 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 1100) "x")
  (data (i32.const 1104) "{value}")
  (func $sleep (param $ns i64)
    (i32.store (i32.const 16) (i32.const 1))
    (i64.store (i32.const 24) (local.get $ns))
    (drop (call $poll (i32.const 0) (i32.const 128) (i32.const 1) (i32.const 256))))
  (func (export "_start") (local $id i64)
    (local.set $id (call $invoke (i32.const 1) (i32.const 0) (i32.const 1100) (i32.const 1) (i32.const 1104) (i32.const 1)))
    (call $sleep (i64.const {ten_ms}))
    (drop (call $complete (local.get $id) (i32.const 0) (i32.const 0) (i32.const 0)))
    (call $sleep (i64.const {ten_ms}))
    (local.set $id (call $invoke (i32.const 2) (i32.const 1) (i32.const 1100) (i32.const 1) (i32.const 0) (i32.const 0)))
    (call $sleep (i64.const {one_ms}))
    (drop (call $complete (local.get $id) (i32.const 2) (i32.const 0) (i32.const 0)))
    ;; completing twice is refused: the result is stored for the test to see in the trace
    (i32.store (i32.const 1300) (call $complete (local.get $id) (i32.const 0) (i32.const 0) (i32.const 0)))
    (local.set $id (call $begin (i32.const 3)))
    (drop (call $append (local.get $id) (i32.const 1100) (i32.const 1) (i64.const 7)))
    (i64.store (i32.const 1200) (i64.const 7))
    (drop (call $read (local.get $id) (i32.const 1100) (i32.const 1) (i32.const 1200) (i32.const 1)))
    (drop (call $end (local.get $id) (i32.const 0)))))"#,
        ten_ms = 10 * MS,
        one_ms = MS,
    );
    let wasm = wat::parse_str(&wat).expect("valid WAT");
    let artifact = seedfall_engine::compile(&wasm, &seedfall_engine::CompileConfig::default()).expect("compiles");
    Arc::new(Code::load(artifact).expect("loads"))
}

fn history_spec(value: &str) -> RunSpec {
    spec(1, vec![NodeProgram { role: Role::Workload, ..program("client", history_guest(value)) }])
}

#[test]
fn the_sdk_calls_record_the_history_at_virtual_times() {
    let result = run(&history_spec("1"), None).unwrap();
    assert_eq!(result.verdict, Verdict::Pass);
    assert_eq!(result.linearizability, None, "no check without `linearizable`");
    let h = &result.history;
    assert_eq!(h.ops.len(), 2);
    let (put, get) = (&h.ops[0], &h.ops[1]);
    assert_eq!((put.client, put.key.as_deref(), &put.call), (1, Some("x"), &Call::Put("1".into())));
    let (put_done, get_done) = (put.completed.as_ref().unwrap(), get.completed.as_ref().unwrap());
    assert_eq!(put_done.1, Completion::Ok);
    // Each clock read advances 1ns: times are exact to the sleeps, within a few ns.
    assert!(put_done.0 - put.invoke_ns >= 10 * MS && put_done.0 - put.invoke_ns < 10 * MS + 100);
    assert_eq!((&get.call, &get_done.1), (&Call::Get, &Completion::Missing), "the second completion was refused");
    assert!(get.invoke_ns >= put_done.0 + 10 * MS);
    let txn = &h.txns[0];
    assert_eq!((txn.client, txn.status), (3, Status::Committed));
    let read = MicroOp::Read { key: "x".into(), values: vec![7] };
    assert_eq!(txn.ops, vec![MicroOp::Append { key: "x".into(), value: 7 }, read]);
}

#[test]
fn the_history_is_in_the_trace_hash() {
    let a = run(&history_spec("1"), None).unwrap();
    let b = run(&history_spec("1"), None).unwrap();
    let other = run(&history_spec("2"), None).unwrap();
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_ne!(a.trace_hash, other.trace_hash, "only the value put differs");
}

#[test]
fn a_non_linearizable_history_fails_the_run_at_its_failure_point() {
    let mut spec = history_spec("1");
    spec.linearizable = Some(seedfall_check::Model::Kv);
    spec.isolation = Some(seedfall_check::txn::Isolation::Serializable);
    let mut log = Vec::new();
    let result = run(&spec, Some(&mut log)).unwrap();
    let Verdict::Fail(failures) = &result.verdict else { panic!("{:?}", result.verdict) };
    assert_eq!(failures.len(), 1, "the transaction alone is serializable: {failures:?}");
    let f = &failures[0];
    let get_done = result.history.ops[1].completed.as_ref().unwrap().0;
    assert_eq!((f.class, f.node.as_str(), f.at_ns), (Class::Linearizability, "world", Some(get_done)));
    assert!(f.message.starts_with("key \"x\" is not linearizable: [c1 put x=1 @"), "{}", f.message);
    let log = String::from_utf8(log).unwrap();
    assert!(log.contains("* history: 2 operations, 1 transactions; not linearizable"), "{log}");
    assert_eq!(run(&spec, None).unwrap().trace_hash, result.trace_hash, "the verdict is hashed the same way");
}
