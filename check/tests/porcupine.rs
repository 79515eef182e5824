//! Conformance with Porcupine: every history of Porcupine v1.3.1's test data gets the verdict Porcupine's own
//! tests expect, within a fixed step budget (never Unknown), and every failing one shrinks to a sub-history
//! that is itself non-linearizable and 1-minimal, and names the earliest instant it is known to fail.

mod support;

use seedfall_check::{Budget, Model, Op, Output, Verdict, check};
use support::history::known_at;
use support::porcupine;

/// Generous for these histories: the hardest, etcd_099, takes 2.4 million steps, explaining included.
const BUDGET: u64 = 10_000_000;

/// `porcupine_test.go`, `TestEtcdJepsen000` ... `TestEtcdJepsen102`: `checkJepsen(t, N, linearizable)`.
/// There is no 95 ("etcd cluster failed to start up in test 95").
const ETCD: [(u32, bool); 102] = [
    (0, false),
    (1, false),
    (2, true),
    (3, false),
    (4, false),
    (5, true),
    (6, false),
    (7, true),
    (8, false),
    (9, false),
    (10, false),
    (11, false),
    (12, false),
    (13, false),
    (14, false),
    (15, false),
    (16, false),
    (17, false),
    (18, true),
    (19, false),
    (20, false),
    (21, false),
    (22, false),
    (23, false),
    (24, false),
    (25, true),
    (26, false),
    (27, false),
    (28, false),
    (29, false),
    (30, false),
    (31, true),
    (32, false),
    (33, false),
    (34, false),
    (35, false),
    (36, false),
    (37, false),
    (38, true),
    (39, false),
    (40, false),
    (41, false),
    (42, false),
    (43, false),
    (44, false),
    (45, true),
    (46, false),
    (47, false),
    (48, true),
    (49, true),
    (50, false),
    (51, true),
    (52, false),
    (53, true),
    (54, false),
    (55, false),
    (56, true),
    (57, false),
    (58, false),
    (59, false),
    (60, false),
    (61, false),
    (62, false),
    (63, false),
    (64, false),
    (65, false),
    (66, false),
    (67, true),
    (68, false),
    (69, false),
    (70, false),
    (71, false),
    (72, false),
    (73, false),
    (74, false),
    (75, true),
    (76, true),
    (77, false),
    (78, false),
    (79, false),
    (80, true),
    (81, false),
    (82, false),
    (83, false),
    (84, false),
    (85, false),
    (86, false),
    (87, true),
    (88, false),
    (89, false),
    (90, false),
    (91, false),
    (92, true),
    (93, false),
    (94, false),
    (96, false),
    (97, false),
    (98, true),
    (99, false),
    (100, true),
    (101, true),
    (102, true),
];

/// `porcupine_test.go`, `TestKv1ClientOk` ... `TestKv50ClientsBad`: `checkKv(t, name, linearizable, true)`.
const KV: [(&str, bool); 6] =
    [("c01-ok", true), ("c01-bad", false), ("c10-ok", true), ("c10-bad", false), ("c50-ok", true), ("c50-bad", false)];

/// Whether `op` writes a value an operation of `rest` observed and no other operation of `rest` writes: shrinking
/// keeps such a write (the crate's `lin/minimise.rs`). Written from the two models' grammars, independently
/// of the crate.
fn only_write_of_a_value_read(op: &Op, rest: &[Op]) -> bool {
    let written = |op: &Op| match op.input.split_once(' ') {
        Some(("write" | "put" | "append", v)) => Some(v.to_owned()),
        Some(("cas", _)) if op.output == Some(Output::Value("fail".into())) => None,
        Some(("cas", ab)) => ab.split_once(' ').map(|(_, b)| b.to_owned()),
        _ => None,
    };
    let Some(value) = written(op) else { return false };
    let observed = |other: &Op| match (other.input.split_once(' '), &other.output) {
        (None, Some(Output::Value(read))) if other.key.is_some() => read.contains(&value),
        (None, Some(Output::Value(read))) => *read == value,
        (Some(("cas", ab)), Some(Output::Value(answer))) => answer == "ok" && ab.split_once(' ').unwrap().0 == value,
        _ => false,
    };
    let writes = |other: &Op| written(other).as_ref() == Some(&value);
    rest.iter().enumerate().any(|(i, o)| observed(o) && !rest.iter().enumerate().any(|(j, w)| j != i && writes(w)))
}

/// Checks one history and, when it fails, its minimal sub-history (non-linearizable, and linearizable
/// without any one of its operations unless that removes the only write of a value a kept operation read)
/// and its failure point (the history as known then fails, as known at the completion before it passes).
fn verdict(model: Model, history: &[Op], name: &str) -> bool {
    let checked = check(model, history, Budget::steps(BUDGET)).unwrap_or_else(|e| panic!("{name}: {e}"));
    match checked.verdict {
        Verdict::Linearizable => true,
        Verdict::Unknown { keys } => panic!("{name}: budget of {BUDGET} steps exhausted on {keys:?}"),
        Verdict::NotLinearizable(v) => {
            assert!(v.is_minimal, "{name}: minimisation ran out of budget");
            let sub = |skip: Option<usize>| -> Vec<Op> {
                v.minimal.iter().filter(|&&i| Some(i) != skip).map(|&i| history[i].clone()).collect()
            };
            let fails = |ops: &[Op]| {
                matches!(check(model, ops, Budget::steps(BUDGET)).unwrap().verdict, Verdict::NotLinearizable(_))
            };
            assert!(fails(&sub(None)), "{name}: the minimal sub-history {:?} is linearizable", v.minimal);
            for &i in &v.minimal {
                let rest = sub(Some(i));
                assert!(
                    !fails(&rest) || only_write_of_a_value_read(&history[i], &rest),
                    "{name}: {:?} still fails without op {i}",
                    v.minimal
                );
            }
            assert!(v.longest.len() < v.ops.len(), "{name}: a complete linearization of a failing partition");
            let partition: Vec<Op> = v.ops.iter().map(|&i| history[i].clone()).collect();
            assert!(fails(&known_at(&partition, v.fails_by_ns)), "{name}: passes as known at {}", v.fails_by_ns);
            let before = partition.iter().filter_map(|op| op.complete_ns).filter(|&t| t < v.fails_by_ns).max();
            if let Some(before) = before {
                assert!(!fails(&known_at(&partition, before)), "{name}: already fails at {before}");
            }
            false
        }
    }
}

#[test]
fn etcd_jepsen_logs_match_porcupine() {
    let dir = porcupine::module_dir().join("test_data/jepsen");
    let mut wrong = Vec::new();
    for (n, expected) in ETCD {
        let name = format!("etcd_{n:03}.log");
        let history = porcupine::etcd_log(&dir.join(&name));
        if verdict(Model::CasRegister, &history, &name) != expected {
            wrong.push(name);
        }
    }
    assert!(wrong.is_empty(), "verdicts differ from porcupine_test.go: {wrong:?}");
}

#[test]
fn every_etcd_log_is_covered() {
    let listed: Vec<String> = ETCD.iter().map(|(n, _)| format!("etcd_{n:03}.log")).collect();
    let present: Vec<String> = porcupine::files("jepsen", ".log")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("etcd_"))
        .collect();
    assert_eq!(listed, present.into_iter().filter(|n| n != "etcd_095.log").collect::<Vec<_>>());
}

#[test]
fn kv_logs_match_porcupine() {
    let dir = porcupine::module_dir().join("test_data/kv");
    for (name, expected) in KV {
        let history = porcupine::kv_log(&dir.join(format!("{name}.txt")));
        assert_eq!(verdict(Model::Kv, &history, name), expected, "{name}");
    }
}
