//! Linearizability of a `sim.Put`/`Get`/`Invoke` history: parse each operation with the model's grammar,
//! split the history by key (P-compositionality: a history is linearizable iff each key's sub-history is),
//! search each partition within one step budget, and explain the first failing partition: the instant it
//! was known to fail (`failure_point.rs`) and a 1-minimal failing sub-history (`minimise.rs`).
//!
//! Partitions share the budget in rounds of doubling slices, in key order, so one hard partition cannot
//! starve a later one that fails quickly, and the verdict depends only on the history and the budget.

mod bits;
mod failure_point;
mod minimise;
mod search;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::Op;
use crate::models::{CasRegister, Counter, Kv, Model, Queue, Seen, Set, Spec};
use search::{Progress, Search, Timed};

/// The outcome of [`check`] and the search steps it spent (deciding and explaining together).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Checked {
    pub verdict: Verdict,
    pub steps: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Linearizable,
    NotLinearizable(Violation),
    /// The budget ran out before these partitions were decided (none of the others failed).
    Unknown {
        keys: Vec<Option<String>>,
    },
}

/// A partition with no linearization. Operations are named by their index in the checked history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub key: Option<String>,
    /// The partition's operations that were searched, in history order. Reads that never returned constrain
    /// nothing and are left out.
    pub ops: Vec<usize>,
    /// A non-linearizable sub-history of `ops`, in history order: an illustration of the failure, not the
    /// evidence (`docs/linearizability.md`).
    pub minimal: Vec<usize>,
    /// Whether removing any one operation of `minimal` is known to leave a linearizable history, or a read
    /// with no write of the value it read; false when the budget ran out while shrinking, or
    /// `Budget::explain` was off.
    pub is_minimal: bool,
    /// The history is already not linearizable as known at this instant: the operations invoked by then,
    /// those that had not completed by then taken as indeterminate. The earliest such completion time, or a
    /// later one when the budget ran out first. Where the timeline should point.
    pub fails_by_ns: u64,
    /// The longest partial linearization of `ops` the search reached, in linearization order: the operations
    /// of `ops` not in it are the ones that could not be placed.
    pub longest: Vec<usize>,
}

/// An operation the model cannot parse, or whose times are inconsistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryError {
    /// Index of the operation (or, for `txn`, the transaction) in the history.
    pub op: usize,
    pub message: String,
}

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "history entry {}: {}", self.op, self.message)
    }
}

impl std::error::Error for HistoryError {}

/// The first slice of steps each undecided partition gets; it doubles every round.
const FIRST_SLICE: u64 = 1 << 12;

/// How much work [`check`] may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Search steps for deciding and explaining together. A step is one entry of the search's list visited,
    /// plus the memory the search's cache keeps (a step per 8 bytes), so the count, and the verdict, never
    /// depend on the machine, and memory is bounded by the budget.
    pub steps: u64,
    /// Explain a failing partition: find its failure point and shrink it to a 1-minimal sub-history. Off,
    /// only the verdict is worked out: `fails_by_ns` is the partition's last completion and `minimal` the
    /// whole partition.
    pub explain: bool,
}

impl Budget {
    /// `steps` steps, explaining a violation.
    pub fn steps(steps: u64) -> Budget {
        Budget { steps, explain: true }
    }
}

/// Checks `history` against `model` within `budget`.
pub fn check(model: Model, history: &[Op], budget: Budget) -> Result<Checked, HistoryError> {
    match model {
        Model::Kv | Model::Register => check_with(Kv::new(model), history, budget),
        Model::CasRegister => check_with(CasRegister::default(), history, budget),
        Model::Counter => check_with(Counter, history, budget),
        Model::Queue => check_with(Queue::default(), history, budget),
        Model::Set => check_with(Set::default(), history, budget),
    }
}

struct Partition<S: Spec> {
    key: Option<String>,
    /// History index of each operation.
    index: Vec<usize>,
    ops: Vec<Timed<S::Op>>,
    search: Search<S>,
}

fn check_with<S: Spec>(mut spec: S, history: &[Op], budget: Budget) -> Result<Checked, HistoryError> {
    let mut parts = partitions(&mut spec, history)?;
    let mut left = budget.steps;
    let mut open: Vec<usize> = (0..parts.len()).collect();
    let mut slice = FIRST_SLICE;
    while !open.is_empty() {
        let mut undecided = Vec::new();
        for (n, &p) in open.iter().enumerate() {
            if left == 0 {
                undecided.extend_from_slice(&open[n..]);
                let keys = undecided.iter().map(|&p| parts[p].key.clone()).collect();
                return Ok(Checked { verdict: Verdict::Unknown { keys }, steps: budget.steps });
            }
            let mut allowance = slice.min(left);
            let granted = allowance;
            let progress = parts[p].search.run(&mut spec, &mut allowance);
            left -= granted - allowance;
            match progress {
                Progress::Linearizable => {}
                Progress::Paused => undecided.push(p),
                Progress::NotLinearizable => {
                    let part = parts.swap_remove(p);
                    let (fails_by_ns, (minimal, is_minimal)) = if budget.explain {
                        let unknown: Vec<_> = part.index.iter().map(|&i| forget(&mut spec, &history[i])).collect();
                        let fails_by_ns = failure_point::earliest(&mut spec, &part.ops, &unknown, &mut left);
                        (fails_by_ns, minimise::minimise(&mut spec, &part.ops, &mut left))
                    } else {
                        let last = part.ops.iter().filter_map(|t| t.complete_ns).max().unwrap_or(0);
                        (last, ((0..part.ops.len()).collect(), false))
                    };
                    let violation = Violation {
                        minimal: minimal.iter().map(|&i| part.index[i]).collect(),
                        is_minimal,
                        fails_by_ns,
                        longest: part.search.longest().iter().map(|&i| part.index[i]).collect(),
                        ops: part.index,
                        key: part.key,
                    };
                    return Ok(Checked { verdict: Verdict::NotLinearizable(violation), steps: budget.steps - left });
                }
            }
        }
        open = undecided;
        slice = slice.saturating_mul(2);
    }
    Ok(Checked { verdict: Verdict::Linearizable, steps: budget.steps - left })
}

/// `op` parsed as if it had never completed: `None` when it then constrains nothing. It parsed before, with
/// its output, and the output is all that changes.
fn forget<S: Spec>(spec: &mut S, op: &Op) -> Option<S::Op> {
    spec.parse(&op.input, Seen::Indeterminate).expect("an operation that parsed with its output parses without")
}

/// A partition's operations and their indices in the history, while grouping.
type Grouped<O> = (Vec<usize>, Vec<Timed<O>>);

/// Parses every operation and groups them by key, in key order.
fn partitions<S: Spec>(spec: &mut S, history: &[Op]) -> Result<Vec<Partition<S>>, HistoryError> {
    let mut by_key: BTreeMap<Option<&str>, Grouped<S::Op>> = BTreeMap::new();
    for (i, op) in history.iter().enumerate() {
        let error = |message: String| HistoryError { op: i, message };
        let seen = match op.complete_ns {
            Some(done) if done < op.invoke_ns => {
                return Err(error(format!("completed at {done}ns, before its invocation at {}ns", op.invoke_ns)));
            }
            Some(_) => Seen::Completed(op.output.as_ref()),
            None => Seen::Indeterminate,
        };
        if let Some(parsed) = spec.parse(&op.input, seen).map_err(error)? {
            let (index, ops) = by_key.entry(op.key.as_deref()).or_default();
            index.push(i);
            ops.push(Timed { op: parsed, invoke_ns: op.invoke_ns, complete_ns: op.complete_ns });
        }
    }
    Ok(by_key
        .into_iter()
        .map(|(key, (index, ops))| Partition {
            key: key.map(str::to_owned),
            index,
            search: Search::new(spec, ops.clone()),
            ops,
        })
        .collect())
}
