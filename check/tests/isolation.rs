//! The list-append isolation checker on hand-written histories: one per anomaly kind, each checked
//! against every isolation level, plus a clean serializable history and write skew.

use seedfall_check::txn::{self, AnomalyKind, DepKind, Isolation, MicroOp, Status, Txn};

/// A micro-op: `"a x 1"` appends 1 to x, `"r x 1 2"` read x = [1, 2], `"r x"` read x = [].
fn micro(text: &str) -> MicroOp {
    let mut words = text.split(' ');
    let (f, key) = (words.next().unwrap(), words.next().unwrap().to_owned());
    let mut numbers = words.map(|w| w.parse().unwrap());
    match f {
        "a" => MicroOp::Append { key, value: numbers.next().unwrap() },
        "r" => MicroOp::Read { key, values: numbers.collect() },
        _ => panic!("{text}"),
    }
}

/// A transaction of client `client`, invoked at `10 * client`, with its micro-ops separated by commas.
fn txn(client: u32, status: Status, ops: &str) -> Txn {
    let complete_ns = (status != Status::Indeterminate).then_some(10 * u64::from(client) + 5);
    Txn { client, invoke_ns: 10 * u64::from(client), complete_ns, status, ops: ops.split(", ").map(micro).collect() }
}

fn ok(client: u32, ops: &str) -> Txn {
    txn(client, Status::Committed, ops)
}

fn kinds(history: &[Txn]) -> Vec<AnomalyKind> {
    txn::anomalies(history).unwrap().iter().map(|a| a.kind).collect()
}

/// The levels that reject `history`.
fn rejected_by(history: &[Txn]) -> Vec<Isolation> {
    Isolation::ALL.into_iter().filter(|&level| !txn::check(history, level).unwrap().is_empty()).collect()
}

const ALL: [Isolation; 3] = Isolation::ALL;
const SER_AND_SI: [Isolation; 2] = [Isolation::Serializable, Isolation::Snapshot];

#[test]
fn a_serializable_history_passes_every_level() {
    let history = [
        ok(0, "a x 1, a y 1"),
        ok(1, "r x 1, a x 2"),
        ok(2, "r x 1 2, r y 1, a y 2"),
        txn(3, Status::Aborted, "a x 9"),
        txn(4, Status::Indeterminate, "a x 3, r y 7"),
        ok(5, "r x 1 2 3, r y 1 2"),
    ];
    assert_eq!(kinds(&history), []);
    assert_eq!(rejected_by(&history), []);
}

#[test]
fn g0_write_cycle() {
    // x says T0 appended before T1, y says the reverse.
    let history = [ok(0, "a x 1, a y 2"), ok(1, "a x 2, a y 1"), ok(2, "r x 1 2, r y 1 2")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::G0]);
    assert_eq!(found[0].txns, [0, 1]);
    assert_eq!(
        found[0].cycle.iter().map(|d| (d.kind, d.key.as_str())).collect::<Vec<_>>(),
        [(DepKind::Ww, "x"), (DepKind::Ww, "y")]
    );
    assert_eq!(found[0].message, "T0 -ww x-> T1 -ww y-> T0");
    assert_eq!(rejected_by(&history), ALL);
}

#[test]
fn g1a_aborted_read() {
    let history = [txn(0, Status::Aborted, "a x 1"), ok(1, "r x 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::G1a]);
    assert_eq!(found[0].txns, [0, 1]);
    assert_eq!(rejected_by(&history), ALL);
}

#[test]
fn g1b_intermediate_read() {
    let history = [ok(0, "a x 1, a x 2"), ok(1, "r x 1")];
    // T1 also comes after T0 (it read 1) and before it (it missed 2, which no read saw but which follows
    // every version read): a G-single as well.
    assert_eq!(kinds(&history), [AnomalyKind::G1b, AnomalyKind::GSingle]);
    assert_eq!(rejected_by(&history), ALL);
    // Reading its own intermediate state is no anomaly.
    assert_eq!(kinds(&[ok(0, "a x 1, r x 1, a x 2")]), []);
}

#[test]
fn g1c_circular_information_flow() {
    // Each read the other's append.
    let history = [ok(0, "a x 1, r y 1"), ok(1, "a y 1, r x 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::G1c]);
    assert_eq!(found[0].message, "T0 -wr x-> T1 -wr y-> T0");
    assert_eq!(rejected_by(&history), ALL);
}

#[test]
fn g_single_read_skew() {
    // T0 saw T1's y but not T1's x.
    let history = [ok(0, "r x, r y 1"), ok(1, "a x 1, a y 1"), ok(2, "r x 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::GSingle]);
    assert_eq!(found[0].message, "T0 -rw x-> T1 -wr y-> T0");
    assert_eq!(rejected_by(&history), SER_AND_SI);
}

#[test]
fn write_skew_on_appends_no_read_saw() {
    // Each read a key empty and appended to the other; nobody read afterwards. A committed append comes
    // after every version read, so each read is before the other's append: two rw edges.
    let history = [ok(0, "r x, a y 1"), ok(1, "r y, a x 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::G2Item]);
    assert_eq!(found[0].message, "T0 -rw x-> T1 -rw y-> T0");
    assert_eq!(rejected_by(&history), [Isolation::Serializable]);
    // An indeterminate transaction's append may never have happened: no edge to it.
    let history = [ok(0, "r x, a y 1"), txn(1, Status::Indeterminate, "r y, a x 1")];
    assert_eq!(kinds(&history), []);
    // Unless a committed read saw another of its appends: then it committed, and all its appends are in.
    let history = [txn(0, Status::Indeterminate, "a y 1, a x 1"), ok(1, "r y 1, r x")];
    assert_eq!(kinds(&history), [AnomalyKind::GSingle]);
}

#[test]
fn g2_item_write_skew_passes_snapshot_but_not_serializable() {
    // Each read both keys empty and appended to one: neither saw the other.
    let history = [ok(0, "r x, r y, a x 1"), ok(1, "r x, r y, a y 1"), ok(2, "r x 1, r y 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::G2Item]);
    assert_eq!(found[0].message, "T0 -rw y-> T1 -rw x-> T0");
    assert_eq!(rejected_by(&history), [Isolation::Serializable]);
}

#[test]
fn g_nonadjacent_passes_neither_snapshot_nor_serializable() {
    // T0 -rw x-> T1 -wr y-> T2 -rw z-> T3 -wr w-> T0: two rw edges, never adjacent. Snapshot isolation
    // cannot produce it (every cycle it allows has two rw edges in a row), though there is no G-single.
    let history =
        [ok(0, "r x, r w 1"), ok(1, "a x 1, a y 1"), ok(2, "r y 1, r z"), ok(3, "a z 1, a w 1"), ok(4, "r x 1, r z 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found.iter().map(|a| a.kind).collect::<Vec<_>>(), [AnomalyKind::GNonadjacent]);
    assert_eq!(found[0].message, "T0 -rw x-> T1 -wr y-> T2 -rw z-> T3 -wr w-> T0");
    assert_eq!(rejected_by(&history), SER_AND_SI);
}

#[test]
fn two_unread_appends_to_one_key_conflict_in_either_order() {
    // T0 and T1 each read one key empty and appended to both; nobody read after. Whichever appended to x
    // first, the other missed it: a cycle with one rw edge in either order.
    let history = [ok(0, "r y, a y 2, a x 3"), ok(1, "r x, a x 4, a y 5")];
    let found = txn::anomalies(&history).unwrap();
    let kinds: Vec<_> = found.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AnomalyKind::GSingle], "{found:#?}");
    assert_eq!(found[0].txns, [0, 1]);
    assert_eq!(rejected_by(&history), SER_AND_SI);
}

#[test]
fn lost_update() {
    // Both read x empty and appended to it; one of the two updates was made without seeing the other.
    let history = [ok(0, "r x, a x 1"), ok(1, "r x, a x 2"), ok(2, "r x 1 2")];
    let found = kinds(&history);
    assert!(found.contains(&AnomalyKind::LostUpdate), "{found:?}");
    let lost = txn::anomalies(&history).unwrap().into_iter().find(|a| a.kind == AnomalyKind::LostUpdate).unwrap();
    assert_eq!(lost.txns, [0, 1]);
    assert_eq!(rejected_by(&history), SER_AND_SI);
    // Read committed allows it: its report lists nothing.
    assert_eq!(txn::check(&history, Isolation::ReadCommitted).unwrap(), []);
}

#[test]
fn incompatible_orders() {
    let history = [ok(0, "a x 1"), ok(1, "a x 2"), ok(2, "r x 1 2"), ok(3, "r x 2 1")];
    let found = txn::anomalies(&history).unwrap();
    assert_eq!(found[0].kind, AnomalyKind::IncompatibleOrder);
    assert_eq!(found[0].txns, [2, 3]);
    assert_eq!(rejected_by(&history), ALL);
    assert_eq!(kinds(&[ok(0, "a x 1"), ok(1, "r x 1 1")])[0], AnomalyKind::IncompatibleOrder);
    // A list that reorders one transaction's appends (ending at the first of them, it is a G1b as well).
    assert_eq!(kinds(&[ok(0, "a x 1, a x 2"), ok(1, "r x 2 1")]), [AnomalyKind::IncompatibleOrder, AnomalyKind::G1b]);
}

#[test]
fn garbage_read() {
    let history = [ok(0, "a x 1"), ok(1, "r x 1 7")];
    assert_eq!(kinds(&history), [AnomalyKind::Garbage]);
    assert_eq!(rejected_by(&history), ALL);
}

#[test]
fn reads_of_transactions_that_did_not_commit_are_not_evidence() {
    // An indeterminate or aborted transaction's reads may be anything; its appends may still be read.
    let history = [txn(0, Status::Indeterminate, "r x 5, a x 1"), txn(1, Status::Aborted, "r x 6"), ok(2, "r x 1")];
    assert_eq!(kinds(&history), []);
}

#[test]
fn the_witness_cycle_is_the_shortest_then_smallest() {
    // Two G1c cycles: T1 <-> T2 and T0 -> T3 -> T4 -> T0; the shorter wins though T0 is smaller.
    let history = [
        ok(0, "a a 1, r c 1"),
        ok(1, "a x 1, r y 1"),
        ok(2, "a y 1, r x 1"),
        ok(3, "r a 1, a b 1"),
        ok(4, "r b 1, a c 1"),
    ];
    let g1c: Vec<_> = txn::anomalies(&history).unwrap().into_iter().filter(|a| a.kind == AnomalyKind::G1c).collect();
    assert_eq!(g1c.len(), 1);
    assert_eq!(g1c[0].txns, [1, 2]);
    // Two cycles of one length: the one through the smaller transaction.
    let history = [ok(0, "a p 1, r q 1"), ok(1, "a x 1, r y 1"), ok(2, "a y 1, r x 1"), ok(3, "a q 1, r p 1")];
    let g1c: Vec<_> = txn::anomalies(&history).unwrap().into_iter().filter(|a| a.kind == AnomalyKind::G1c).collect();
    assert_eq!(g1c[0].txns, [0, 3]);
}

#[test]
fn duplicate_appends_are_a_history_error() {
    let error = txn::anomalies(&[ok(0, "a x 1"), ok(1, "a x 1")]).unwrap_err();
    assert_eq!(error.op, 1);
    assert_eq!("read_committed".parse::<Isolation>(), Ok(Isolation::ReadCommitted));
    assert!("rc".parse::<Isolation>().is_err());
}

#[test]
fn the_json_form_is_what_the_trace_records() {
    let history = [ok(0, "a x 1, r x 1"), txn(1, Status::Indeterminate, "r y")];
    let json = serde_json::to_string(&history).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"[{"client":0,"invoke_ns":0,"complete_ns":5,"status":"committed","ops":[{"f":"append","key":"x","value":1},"#,
            r#"{"f":"read","key":"x","values":[1]}]},{"client":1,"invoke_ns":10,"status":"indeterminate","ops":[{"f":"read","key":"y","values":[]}]}]"#
        )
    );
    assert_eq!(serde_json::from_str::<Vec<Txn>>(&json).unwrap(), history);
}

/// A long serial history over ten keys: transaction i appends i to key i % 10 and reads that key whole.
fn serial(n: i64) -> Vec<Txn> {
    (0..n)
        .map(|i| {
            let key = format!("k{}", i % 10);
            let values: Vec<i64> = (0..=i).filter(|v| v % 10 == i % 10).collect();
            let ops = vec![MicroOp::Append { key: key.clone(), value: i }, MicroOp::Read { key, values }];
            Txn {
                client: 0,
                invoke_ns: 10 * i as u64,
                complete_ns: Some(10 * i as u64 + 5),
                status: Status::Committed,
                ops,
            }
        })
        .collect()
}

#[test]
fn a_long_clean_history_is_checked_without_searching_for_cycles() {
    // 3000 transactions and as many ww and wr edges: no cycle, so no search runs (the components are
    // trivial). Searching from every edge would be quadratic.
    assert_eq!(kinds(&serial(3000)), []);
}

#[test]
fn many_unread_appends_to_one_key_are_cheap() {
    // 3000 transactions append to x and nobody reads it: 4.5 million pairs whose order is unknown, none
    // in a cycle, so none is searched.
    let history: Vec<Txn> = (0..3000).map(|i| ok(i, &format!("a x {i}"))).collect();
    assert_eq!(kinds(&history), []);
}

#[test]
fn a_cycle_in_a_long_history_is_found() {
    let mut history = serial(3000);
    let k1 = join(&(0..3000).filter(|v| v % 10 == 1).collect::<Vec<_>>());
    let k2 = join(&(0..3000).filter(|v| v % 10 == 2).collect::<Vec<_>>());
    // Read skew at the end: T3001 sees T3000's append to k1 but not its append to k2.
    history.push(ok(3000, "a k1 5001, a k2 5002"));
    history.push(ok(3001, &format!("r k1 {k1} 5001, r k2 {k2}")));
    history.push(ok(3002, &format!("r k2 {k2} 5002")));
    let found: Vec<_> = txn::anomalies(&history).unwrap().into_iter().map(|a| (a.kind, a.txns)).collect();
    assert_eq!(found, [(AnomalyKind::GSingle, vec![3000, 3001])]);
}

#[test]
fn a_long_history_full_of_cycles_is_checked_quickly() {
    // 2000 transactions, each reading its key one element stale before appending to it, and the next key
    // whole: thousands of rw edges in one strongly connected component. Searches stop at the best cycle
    // length found so far; without that this took seconds per thousand transactions.
    let history: Vec<Txn> = (0..2000i64)
        .map(|i| {
            let (key, next) = (format!("k{}", i % 10), format!("k{}", (i + 1) % 10));
            let mut stale: Vec<i64> = (0..i).filter(|v| v % 10 == i % 10).collect();
            if stale.len() > 1 {
                stale.pop();
            }
            let whole: Vec<i64> = (0..i).filter(|v| v % 10 == (i + 1) % 10).collect();
            let ops = vec![
                MicroOp::Read { key: key.clone(), values: stale },
                MicroOp::Read { key: next, values: whole },
                MicroOp::Append { key, value: i },
            ];
            Txn { client: 0, invoke_ns: 0, complete_ns: None, status: Status::Committed, ops }
        })
        .collect();
    let found = kinds(&history);
    assert!(found.contains(&AnomalyKind::GSingle) && found.contains(&AnomalyKind::LostUpdate), "{found:?}");
}

fn join(values: &[i64]) -> String {
    values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ")
}

#[test]
fn internal_inconsistency() {
    // T0 appended 1 to x and then read x without it.
    let history = [ok(0, "a x 1, r x 2"), ok(2, "a x 2")];
    let found = txn::anomalies(&history).unwrap();
    let internal: Vec<_> = found.iter().filter(|a| a.kind == AnomalyKind::Internal).map(|a| a.txns.clone()).collect();
    assert_eq!(internal, [vec![0]]);
    assert_eq!(rejected_by(&history), ALL);
    // Reading another version the second time is not internal: read committed allows it (non-repeatable
    // read, even backwards), and the stronger levels see it as a G-single.
    for history in [[ok(0, "r x, a x 1, r x 2 1"), ok(1, "a x 2")], [ok(0, "r x 2, r x"), ok(1, "a x 2")]] {
        assert_eq!(kinds(&history), [AnomalyKind::GSingle]);
        assert_eq!(rejected_by(&history), SER_AND_SI);
    }
}
