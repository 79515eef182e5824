//! After a run: the history checks the config asks for (`linearizable`, `isolation`), each turned into at
//! most one failure of class `linearizability` or `isolation` (DESIGN.md §1), and what the timeline
//! (`seedfall replay`) needs of the linearizability search. The checkers are `seedfall-check`'s; this
//! module only chooses the budget, names operations, and words the messages.
//!
//! A failure names the node "world" (incarnation 0): a history is the whole run's, made by several
//! clients, and no one client is at fault. The message's headline, before the first ": ", is what shrink
//! compares (`Failure::signature`): the key, or the anomaly and the level, so a shrunk run that fails on the
//! same key with another minimal sub-history still fails "the same way".

use super::verdict::{Class, Failure};
use crate::history::History;
use seedfall_check::txn::{self, Isolation};
use seedfall_check::{Budget, Model, Op, Verdict, Violation};

/// Search steps for one run's linearizability check, deciding and shrinking together (docs/config.md). A
/// step count, never time, so the verdict is the same on every machine; past it the verdict is unknown.
pub const LIN_STEP_BUDGET: u64 = 10_000_000;

/// What the linearizability check of a run found, for the sweep (unknown counts) and the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinOutcome {
    Linearizable {
        steps: u64,
    },
    /// Operations named by their index in `History::ops`.
    NotLinearizable(Violation),
    /// The budget ran out on these keys.
    Unknown {
        keys: Vec<Option<String>>,
    },
    /// An operation the model cannot read (a workload bug): a failure too.
    Invalid(String),
}

/// Checks `history` as the config asks; the failures to add to the run's verdict.
pub fn check(
    history: &History,
    model: Option<Model>,
    isolation: Option<Isolation>,
) -> (Option<LinOutcome>, Vec<Failure>) {
    let mut failures = Vec::new();
    let lin = model.map(|model| linearizability(history, model));
    match &lin {
        Some(LinOutcome::NotLinearizable(v)) => {
            failures.push(world_failure(Class::Linearizability, lin_message(history, v), Some(v.fails_by_ns)))
        }
        Some(LinOutcome::Invalid(message)) => failures.push(world_failure(
            Class::Linearizability,
            format!("the history cannot be checked against model {}: {message}", model.expect("checked")),
            None,
        )),
        _ => {}
    }
    if let Some(level) = isolation {
        match txn::check(&history.txns, level) {
            Ok(anomalies) => {
                if let Some(a) = anomalies.first() {
                    let at = a.txns.iter().filter_map(|&t| history.txns[t].complete_ns).max();
                    let txns: Vec<String> = a.txns.iter().map(|&t| history.describe_txn(t)).collect();
                    // A cycle's own message is the cycle; a direct anomaly's repeats whole reads, which the
                    // transactions show anyway.
                    let witness = if a.cycle.is_empty() {
                        a.txns.iter().map(|t| format!("T{t}")).collect::<Vec<_>>().join(", ")
                    } else {
                        a.message.clone()
                    };
                    let message = format!("{} forbidden by {level}: {witness}: [{}]", a.kind.name(), txns.join(", "));
                    failures.push(world_failure(Class::Isolation, message, at));
                }
            }
            Err(e) => failures.push(world_failure(
                Class::Isolation,
                format!("the transactions cannot be checked: transaction {}: {}", e.op, e.message),
                None,
            )),
        }
    }
    (lin, failures)
}

fn linearizability(history: &History, model: Model) -> LinOutcome {
    let (ops, index) = history.checked_ops(model);
    let checked = match seedfall_check::check(model, &ops, Budget::steps(LIN_STEP_BUDGET)) {
        Ok(checked) => checked,
        Err(e) => return LinOutcome::Invalid(format!("operation {}: {}", history.describe_op(index[e.op]), e.message)),
    };
    match checked.verdict {
        Verdict::Linearizable => LinOutcome::Linearizable { steps: checked.steps },
        Verdict::Unknown { keys } => LinOutcome::Unknown { keys },
        Verdict::NotLinearizable(v) => {
            let (minimal, is_minimal) = minimal_by(&ops, model, &v);
            let map = |list: &[usize]| list.iter().map(|&i| index[i]).collect();
            LinOutcome::NotLinearizable(Violation {
                ops: map(&v.ops),
                minimal: map(&minimal),
                is_minimal,
                longest: map(&v.longest),
                ..v
            })
        }
    }
}

/// A minimal failing sub-history that fails by `v.fails_by_ns`, so that the message shows the violation
/// the failure's time points at. The checker shrinks the whole partition, which can end at a later
/// violation than the earliest; shrinking the history as known at `fails_by_ns` (operations invoked by
/// then, those completing later indeterminate) cannot. Falls back to `v.minimal` if that check does not
/// fail within the budget, which the checker's definition of `fails_by_ns` rules out but the budget may not.
fn minimal_by(ops: &[Op], model: Model, v: &Violation) -> (Vec<usize>, bool) {
    let t = v.fails_by_ns;
    let late = |i: &usize| ops[*i].complete_ns.is_none_or(|done| done > t);
    if !v.minimal.iter().any(late) {
        return (v.minimal.clone(), v.is_minimal);
    }
    let known: Vec<usize> = (0..ops.len()).filter(|&i| ops[i].invoke_ns <= t).collect();
    let prefix: Vec<Op> = known
        .iter()
        .map(|&i| match ops[i].complete_ns {
            Some(done) if done > t => Op { output: None, complete_ns: None, ..ops[i].clone() },
            _ => ops[i].clone(),
        })
        .collect();
    match seedfall_check::check(model, &prefix, Budget::steps(LIN_STEP_BUDGET)).map(|c| c.verdict) {
        Ok(Verdict::NotLinearizable(early)) => (early.minimal.iter().map(|&i| known[i]).collect(), early.is_minimal),
        _ => (v.minimal.clone(), v.is_minimal),
    }
}

/// `key "x" is not linearizable: [c1 put x=1 @10ms-20ms ok, c2 get x @30ms-31ms → missing]`.
fn lin_message(history: &History, v: &Violation) -> String {
    let object = match &v.key {
        Some(key) => format!("key {key:?}"),
        None => "the object".to_string(),
    };
    let ops: Vec<String> = v.minimal.iter().map(|&i| history.describe_op(i)).collect();
    let minimal = if v.is_minimal { "" } else { " (not shrunk to a minimal one within the budget)" };
    format!("{object} is not linearizable: [{}]{minimal}", ops.join(", "))
}

fn world_failure(class: Class, message: String, at_ns: Option<u64>) -> Failure {
    Failure { class, node: "world".into(), incarnation: 0, property: None, message, at_ns }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Call, Completion};
    use seedfall_check::txn::{MicroOp, Status};

    const MS: u64 = 1_000_000;

    fn stale_read() -> History {
        let mut h = History::default();
        let put = h.invoke(1, Some("x".into()), Call::Put("1".into()), 10 * MS);
        h.complete(put, Completion::Ok, 20 * MS).unwrap();
        let other = h.invoke(3, Some("y".into()), Call::Put("1".into()), 21 * MS);
        h.complete(other, Completion::Ok, 22 * MS).unwrap();
        let get = h.invoke(2, Some("x".into()), Call::Get, 30 * MS);
        h.complete(get, Completion::Missing, 31 * MS).unwrap();
        h
    }

    #[test]
    fn a_stale_read_is_a_linearizability_failure_naming_the_key_and_the_minimal_ops() {
        let (lin, failures) = check(&stale_read(), Some(Model::Kv), None);
        let Some(LinOutcome::NotLinearizable(v)) = lin else { panic!("{lin:?}") };
        assert_eq!((v.minimal, v.fails_by_ns), (vec![0, 2], 31 * MS));
        assert_eq!(failures.len(), 1);
        let f = &failures[0];
        assert_eq!(
            (f.class, f.node.as_str(), f.incarnation, f.at_ns),
            (Class::Linearizability, "world", 0, Some(31 * MS))
        );
        assert_eq!(
            f.message,
            r#"key "x" is not linearizable: [c1 put x=1 @10ms-20ms ok, c2 get x @30ms-31ms → missing]"#
        );
        assert_eq!(f.signature(), r#"linearizability|world||key "x" is not linearizable"#);
    }

    #[test]
    fn a_linearizable_history_and_no_config_give_no_failure() {
        let mut h = stale_read();
        h.ops.truncate(2);
        let (lin, failures) = check(&h, Some(Model::Kv), None);
        assert!(matches!(lin, Some(LinOutcome::Linearizable { .. })), "{lin:?}");
        assert!(failures.is_empty());
        assert_eq!(check(&stale_read(), None, None), (None, vec![]));
    }

    #[test]
    fn an_operation_the_model_cannot_read_fails_the_run() {
        let (lin, failures) = check(&stale_read(), Some(Model::Counter), None);
        assert!(matches!(lin, Some(LinOutcome::Invalid(_))), "{lin:?}");
        assert!(
            failures[0]
                .message
                .starts_with("the history cannot be checked against model counter: operation c1 put x=1")
        );
    }

    #[test]
    fn a_lost_update_is_an_isolation_failure_naming_the_transactions() {
        let mut h = History::default();
        for client in [1, 2] {
            let t = h.txn_begin(client, client as u64 * MS);
            h.txn_op(t, MicroOp::Read { key: "x".into(), values: vec![] }).unwrap();
            h.txn_op(t, MicroOp::Append { key: "x".into(), value: client as i64 }).unwrap();
            h.txn_end(t, Status::Committed, 10 * MS).unwrap();
        }
        let t = h.txn_begin(3, 11 * MS);
        h.txn_op(t, MicroOp::Read { key: "x".into(), values: vec![1, 2] }).unwrap();
        h.txn_end(t, Status::Committed, 12 * MS).unwrap();
        let (_, failures) = check(&h, None, Some(Isolation::Serializable));
        assert_eq!(failures.len(), 1, "{failures:?}");
        let f = &failures[0];
        assert_eq!(f.class, Class::Isolation);
        assert!(f.message.contains("forbidden by serializable: "), "{}", f.message);
        assert!(f.message.contains("T0 c1 [read x [], append x 1] @1ms-10ms committed"), "{}", f.message);
        let (_, none) = check(&h, None, Some(Isolation::ReadCommitted));
        assert!(none.is_empty(), "{none:?}");
    }
}
