//! Shrinks a non-linearizable partition to a 1-minimal non-linearizable sub-history: removing any single
//! operation leaves a linearizable history, or removes the only write of a value a kept operation read. The
//! second clause keeps shrinking from ending at a lone read whose write it removed, which fails for a
//! reason the original history does not have. A value nobody in the partition wrote is no such constraint:
//! that read is the failure.
//!
//! Delta debugging: remove halves, quarters, ... while the rest still fails, then single operations,
//! repeating the single pass until one removes nothing (a removal can make an earlier kept operation
//! removable, since linearizability is not monotone in the set of operations). Every check spends the
//! caller's step budget; when it runs out the smallest failing history found so far is returned, marked as
//! possibly not minimal.

use super::search::{self, Timed};
use crate::models::Spec;

/// Indices into `ops` of a failing sub-history, and whether it is known to be 1-minimal.
pub(crate) fn minimise<S: Spec>(spec: &mut S, ops: &[Timed<S::Op>], steps: &mut u64) -> (Vec<usize>, bool) {
    let needs = needs(spec, ops);
    let mut kept: Vec<usize> = (0..ops.len()).collect();
    let mut chunk = kept.len() / 2;
    while chunk > 1 {
        let mut at = 0;
        while at < kept.len() {
            let end = (at + chunk).min(kept.len());
            let rest: Vec<usize> = kept[..at].iter().chain(&kept[end..]).copied().collect();
            match fails(spec, ops, &needs, &rest, steps) {
                Some(true) => kept = rest,
                Some(false) => at = end,
                None => return (kept, false),
            }
        }
        chunk /= 2;
    }
    loop {
        let mut removed = false;
        let mut at = 0;
        while at < kept.len() {
            let rest: Vec<usize> = kept.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, &k)| k).collect();
            match fails(spec, ops, &needs, &rest, steps) {
                Some(true) => {
                    kept = rest;
                    removed = true;
                }
                Some(false) => at += 1,
                None => return (kept, false),
            }
        }
        if !removed {
            return (kept, true);
        }
    }
}

/// For each operation, the groups of operations of which a shrunk history must keep at least one: for each
/// value it observed, the other operations that wrote that value.
fn needs<S: Spec>(spec: &S, ops: &[Timed<S::Op>]) -> Vec<Vec<Vec<usize>>> {
    let produced: Vec<Option<u32>> = ops.iter().map(|t| spec.produces(&t.op)).collect();
    let mut values: Vec<u32> = produced.iter().flatten().copied().collect();
    values.sort_unstable();
    values.dedup();
    ops.iter()
        .enumerate()
        .map(|(i, t)| {
            let groups = spec.needs(&t.op, &values).into_iter();
            groups
                .map(|value| (0..ops.len()).filter(|&j| j != i && produced[j] == Some(value)).collect::<Vec<_>>())
                .filter(|writers| !writers.is_empty())
                .collect()
        })
        .collect()
}

/// Whether the sub-history `subset` is a non-linearizable history that keeps a write for every value its
/// operations observed; `None` when the budget ran out first.
fn fails<S: Spec>(
    spec: &mut S,
    ops: &[Timed<S::Op>],
    needs: &[Vec<Vec<usize>>],
    subset: &[usize],
    steps: &mut u64,
) -> Option<bool> {
    let mut kept = vec![false; ops.len()];
    for &i in subset {
        kept[i] = true;
    }
    if !subset.iter().all(|&i| needs[i].iter().all(|writers| writers.iter().any(|&w| kept[w]))) {
        return Some(false);
    }
    search::fails(spec, subset.iter().map(|&i| ops[i].clone()).collect(), steps)
}
