//! Shrinks a non-linearizable partition to a 1-minimal non-linearizable sub-history: one from which removing
//! any single operation leaves a linearizable history. Delta debugging: remove halves, quarters, ... while
//! the rest still fails, then single operations, repeating the single pass until one removes nothing (a
//! removal can make an earlier kept operation removable, since linearizability is not monotone in the set
//! of operations: dropping a write can orphan a read).
//!
//! Every check spends the caller's step budget; when it runs out the smallest failing history found so far
//! is returned, marked as possibly not minimal.

use super::search::{Progress, Search, Timed};
use crate::models::Spec;

/// Indices into `ops` of a failing sub-history, and whether it is known to be 1-minimal.
pub(crate) fn minimise<S: Spec>(spec: &mut S, ops: &[Timed<S::Op>], steps: &mut u64) -> (Vec<usize>, bool) {
    let mut kept: Vec<usize> = (0..ops.len()).collect();
    let mut chunk = kept.len() / 2;
    while chunk > 1 {
        let mut at = 0;
        while at < kept.len() {
            let end = (at + chunk).min(kept.len());
            let rest: Vec<usize> = kept[..at].iter().chain(&kept[end..]).copied().collect();
            match fails(spec, ops, &rest, steps) {
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
            match fails(spec, ops, &rest, steps) {
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

/// Whether the sub-history `subset` is not linearizable; `None` when the budget ran out first.
fn fails<S: Spec>(spec: &mut S, ops: &[Timed<S::Op>], subset: &[usize], steps: &mut u64) -> Option<bool> {
    let timed = subset.iter().map(|&i| ops[i].clone()).collect();
    match Search::new(spec, timed).run(spec, steps) {
        Progress::NotLinearizable => Some(true),
        Progress::Linearizable => Some(false),
        Progress::Paused => None,
    }
}
