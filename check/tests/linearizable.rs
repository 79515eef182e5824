//! The linearizability checker on small hand-written histories: each model passing and failing, the
//! treatment of indeterminate operations, partitions by key, the step budget, shrinking and the JSON form.

use seedfall_check::{Budget, Model, Op, Output, Verdict, check};

/// `(client, key, input, output, invoke, complete)`; output `"-"` is none, `"missing"` is `Output::Missing`.
fn op(client: u32, key: Option<&str>, input: &str, output: &str, invoke_ns: u64, complete_ns: Option<u64>) -> Op {
    let output = match output {
        "-" => None,
        "missing" => Some(Output::Missing),
        v => Some(Output::Value(v.to_owned())),
    };
    Op { client, key: key.map(str::to_owned), input: input.to_owned(), output, invoke_ns, complete_ns }
}

/// An operation of the model's single object.
fn at(client: u32, input: &str, output: &str, invoke_ns: u64, complete_ns: u64) -> Op {
    op(client, None, input, output, invoke_ns, Some(complete_ns))
}

fn verdict(model: Model, history: &[Op]) -> Verdict {
    check(model, history, Budget::steps(1_000_000)).unwrap().verdict
}

fn linearizable(model: Model, history: &[Op]) -> bool {
    match verdict(model, history) {
        Verdict::Linearizable => true,
        Verdict::NotLinearizable(_) => false,
        Verdict::Unknown { .. } => panic!("budget exhausted"),
    }
}

#[test]
fn register_read_sees_concurrent_write_but_not_a_later_one() {
    let concurrent = [at(0, "write 1", "-", 0, 10), at(1, "read", "1", 5, 15)];
    assert!(linearizable(Model::Register, &concurrent));
    let stale = [at(0, "write 1", "-", 0, 10), at(1, "read", "missing", 11, 15)];
    assert!(!linearizable(Model::Register, &stale));
    let future = [at(1, "read", "1", 0, 5), at(0, "write 1", "-", 6, 10)];
    assert!(!linearizable(Model::Register, &future));
}

#[test]
fn operations_that_touch_are_concurrent() {
    // Porcupine's closed intervals: a read invoked at the instant a write returns may precede it.
    let touching = [at(0, "write 1", "-", 0, 10), at(1, "read", "missing", 10, 12)];
    assert!(linearizable(Model::Register, &touching));
}

#[test]
fn cas_register_swaps_only_on_a_match() {
    let ok = [
        at(0, "write 1", "-", 0, 1),
        at(0, "cas 1 2", "ok", 2, 3),
        at(1, "cas 1 3", "fail", 4, 5),
        at(1, "read", "2", 6, 7),
    ];
    assert!(linearizable(Model::CasRegister, &ok));
    let bad = [at(0, "write 1", "-", 0, 1), at(0, "cas 2 3", "ok", 2, 3)];
    assert!(!linearizable(Model::CasRegister, &bad));
    // No output is an acknowledged (swapped) cas.
    let acked = [at(0, "write 1", "-", 0, 1), at(0, "cas 1 2", "-", 2, 3), at(0, "read", "2", 4, 5)];
    assert!(linearizable(Model::CasRegister, &acked));
}

#[test]
fn kv_keys_are_independent_and_append_concatenates() {
    let ok = [
        op(0, Some("a"), "put x", "-", 0, Some(1)),
        op(0, Some("a"), "append y", "-", 2, Some(3)),
        op(1, Some("b"), "get", "missing", 2, Some(3)),
        op(1, Some("a"), "get", "xy", 4, Some(5)),
        op(1, Some("c"), "append z", "-", 6, Some(7)),
        op(1, Some("c"), "get", "z", 8, Some(9)),
    ];
    assert!(linearizable(Model::Kv, &ok));
    let bad = [op(0, Some("a"), "put x", "-", 0, Some(1)), op(1, Some("b"), "get", "x", 2, Some(3))];
    match verdict(Model::Kv, &bad) {
        Verdict::NotLinearizable(v) => {
            assert_eq!(v.key.as_deref(), Some("b"));
            assert_eq!(v.minimal, [1]);
            assert!(v.is_minimal);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn counter_queue_and_set() {
    let counter =
        [at(0, "inc 3", "-", 0, 10), at(1, "inc", "-", 0, 10), at(2, "read", "1", 1, 2), at(2, "read", "4", 11, 12)];
    assert!(linearizable(Model::Counter, &counter));
    assert!(!linearizable(Model::Counter, &[at(0, "inc 3", "-", 0, 1), at(1, "read", "2", 2, 3)]));

    let queue = [
        at(0, "enq a", "-", 0, 1),
        at(0, "enq b", "-", 2, 3),
        at(1, "deq", "a", 4, 5),
        at(1, "deq", "b", 6, 7),
        at(1, "deq", "missing", 8, 9),
    ];
    assert!(linearizable(Model::Queue, &queue));
    let lifo = [at(0, "enq a", "-", 0, 1), at(0, "enq b", "-", 2, 3), at(1, "deq", "b", 4, 5)];
    assert!(!linearizable(Model::Queue, &lifo));

    let set =
        [at(0, "add a", "-", 0, 1), at(1, "add b", "-", 0, 5), at(2, "read", "a", 2, 3), at(2, "read", "b a", 6, 7)];
    assert!(linearizable(Model::Set, &set));
    assert!(!linearizable(Model::Set, &[at(0, "add a", "-", 0, 1), at(1, "read", "", 2, 3)]));
}

#[test]
fn an_indeterminate_operation_may_take_effect_late_or_never() {
    let lost = op(0, None, "write 1", "-", 0, None);
    // Never: a later read still sees the initial value.
    assert!(linearizable(Model::Register, &[lost.clone(), at(1, "read", "missing", 5, 6)]));
    // Late: long after its invocation, between two reads.
    let late = [lost.clone(), at(1, "read", "missing", 5, 6), at(1, "read", "1", 100, 101)];
    assert!(linearizable(Model::Register, &late));
    // But not before its invocation.
    let early = [at(1, "read", "1", 0, 1), op(0, None, "write 1", "-", 2, None)];
    assert!(!linearizable(Model::Register, &early));
    // Its output is unknown, whatever was recorded: an indeterminate cas may have swapped or not.
    let cas = [at(0, "write 1", "-", 0, 1), op(1, None, "cas 1 2", "fail", 2, None), at(2, "read", "2", 3, 4)];
    assert!(linearizable(Model::CasRegister, &cas));
    let deq = [at(0, "enq a", "-", 0, 1), op(1, None, "deq", "-", 2, None), at(2, "deq", "missing", 3, 4)];
    assert!(linearizable(Model::Queue, &deq));
}

#[test]
fn shrinking_finds_the_two_operations_that_conflict() {
    // Ten writes, each read back, and one read that still sees the initial value after two writes.
    let mut history: Vec<Op> = (0..10)
        .flat_map(|i| {
            [
                at(0, &format!("write {i}"), "-", 10 * i, 10 * i + 1),
                at(1, "read", &i.to_string(), 10 * i + 2, 10 * i + 3),
            ]
        })
        .collect();
    history.insert(4, at(2, "read", "missing", 15, 16));
    match verdict(Model::Register, &history) {
        Verdict::NotLinearizable(v) => {
            assert!(v.is_minimal);
            assert_eq!(v.minimal.len(), 2, "{:?}", v.minimal);
            let write = &history[v.minimal[0]];
            assert!(write.input.starts_with("write") && write.complete_ns < Some(15), "{write:?}");
            assert_eq!(v.minimal[1], 4);
            assert_eq!(v.fails_by_ns, 16, "when the stale read returned");
            assert_eq!(v.ops.len(), history.len());
            // Everything up to the stale read can be placed, and the read itself cannot.
            assert!(v.longest.len() >= 3 && !v.longest.contains(&4), "{:?}", v.longest);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn shrinking_removes_one_operation_at_a_time_to_a_1_minimal_history() {
    let history = [at(0, "write 1", "-", 0, 1), at(0, "write 2", "-", 2, 3), at(1, "read", "missing", 4, 5)];
    match verdict(Model::Register, &history) {
        // Without write 1 it still fails; without write 2 as well it would not.
        Verdict::NotLinearizable(v) => assert_eq!((v.minimal, v.is_minimal), (vec![1, 2], true)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_exhausted_budget_is_unknown_never_a_guess() {
    // Many concurrent writes and one read of a value nobody wrote: the search must try every order.
    let mut history: Vec<Op> = (0..12).map(|i| at(i, &format!("write {i}"), "-", 0, 100)).collect();
    history.push(at(99, "read", "none of them", 0, 100));
    let small = check(Model::Register, &history, Budget::steps(100)).unwrap();
    assert_eq!(small.verdict, Verdict::Unknown { keys: vec![None] });
    assert_eq!(small.steps, 100);
    let ample = check(Model::Register, &history, Budget::steps(10_000_000)).unwrap();
    assert!(matches!(ample.verdict, Verdict::NotLinearizable(_)));
    // The same history and budget always take the same number of steps.
    assert_eq!(check(Model::Register, &history, Budget::steps(10_000_000)).unwrap(), ample);
}

#[test]
fn a_hard_partition_does_not_hide_a_failing_one() {
    // Key "a" is expensive to decide; key "b" fails at once. Budget slices reach "b" first.
    let mut history: Vec<Op> = (0..14).map(|i| op(i, Some("a"), &format!("put {i}"), "-", 0, Some(100))).collect();
    history.push(op(99, Some("a"), "get", "13", 0, Some(100)));
    history.push(op(0, Some("b"), "get", "ghost", 0, Some(1)));
    match check(Model::Kv, &history, Budget::steps(50_000)).unwrap().verdict {
        Verdict::NotLinearizable(v) => assert_eq!(v.key.as_deref(), Some("b")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_operations_are_errors_naming_the_operation() {
    let error =
        check(Model::Counter, &[at(0, "inc 1", "-", 0, 1), at(0, "dec", "-", 2, 3)], Budget::steps(10)).unwrap_err();
    assert_eq!(error.op, 1);
    assert!(error.message.contains("inc N, read"), "{error}");
    let backwards = check(Model::Counter, &[at(0, "inc 1", "-", 5, 1)], Budget::steps(10)).unwrap_err();
    assert!(backwards.message.contains("before its invocation"), "{backwards}");
    assert!(check(Model::Register, &[at(0, "read", "-", 0, 1)], Budget::steps(10)).is_err());
    assert_eq!("cas-register".parse::<Model>(), Ok(Model::CasRegister));
    assert!("cas".parse::<Model>().unwrap_err().contains("cas-register"));
}

#[test]
fn the_json_form_is_what_the_trace_records() {
    let history = [
        op(1, Some("k"), "put v", "-", 10, Some(20)),
        op(2, Some("k"), "get", "missing", 11, Some(12)),
        op(2, Some("k"), "get", "v", 21, Some(22)),
        op(3, None, "inc 3", "-", 30, None),
    ];
    let json = serde_json::to_string(&history).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"[{"client":1,"key":"k","input":"put v","invoke_ns":10,"complete_ns":20},"#,
            r#"{"client":2,"key":"k","input":"get","output":"missing","invoke_ns":11,"complete_ns":12},"#,
            r#"{"client":2,"key":"k","input":"get","output":{"value":"v"},"invoke_ns":21,"complete_ns":22},"#,
            r#"{"client":3,"input":"inc 3","invoke_ns":30}]"#
        )
    );
    assert_eq!(serde_json::from_str::<Vec<Op>>(&json).unwrap(), history);
}

#[test]
fn without_explaining_only_the_verdict_is_worked_out() {
    let history = [at(0, "write 1", "-", 0, 1), at(0, "write 2", "-", 2, 3), at(1, "read", "missing", 4, 5)];
    let quick = check(Model::Register, &history, Budget { steps: 1000, explain: false }).unwrap();
    let full = check(Model::Register, &history, Budget::steps(1000)).unwrap();
    assert!(quick.steps < full.steps);
    match (quick.verdict, full.verdict) {
        (Verdict::NotLinearizable(quick), Verdict::NotLinearizable(full)) => {
            assert_eq!((quick.minimal, quick.is_minimal, quick.fails_by_ns), (vec![0, 1, 2], false, 5));
            assert_eq!((full.minimal, full.is_minimal, full.fails_by_ns), (vec![1, 2], true, 5));
            assert_eq!(quick.longest, full.longest);
        }
        other => panic!("{other:?}"),
    }
}
