//! The instant by which a failing partition is already non-linearizable: the earliest completion time t
//! such that the history as known at t fails. The history at t keeps the operations invoked by t; those
//! that had not completed by t become indeterminate (what they returned is not known yet at t). If the
//! whole history is linearizable, so is the history at any t (a linearization of the whole, cut at t, is
//! one), so failing is monotone in t and a binary search finds the earliest.
//!
//! Unlike a shrunk sub-history this says where the failure is without dropping any operation that could
//! explain it: every operation the history at t drops was invoked after t.

use super::search::{self, Timed};
use crate::models::Spec;

/// `unknown[i]` is `ops[i]` with its output forgotten (`None`: it then constrains nothing). The whole
/// partition must fail. When the budget runs out the search stops at a later instant that is known to fail.
pub(crate) fn earliest<S: Spec>(spec: &mut S, ops: &[Timed<S::Op>], unknown: &[Option<S::Op>], steps: &mut u64) -> u64 {
    let mut times: Vec<u64> = ops.iter().filter_map(|t| t.complete_ns).collect();
    times.sort_unstable();
    times.dedup();
    // times[hi] fails: at the last completion only indeterminate operations are left to come, and they can
    // all take effect after everything else, as they may in the whole history.
    let Some(mut hi) = times.len().checked_sub(1) else { return 0 };
    let mut lo = 0;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match fails_at(spec, ops, unknown, times[mid], steps) {
            Some(true) => hi = mid,
            Some(false) => lo = mid + 1,
            None => break,
        }
    }
    times[hi]
}

fn fails_at<S: Spec>(
    spec: &mut S,
    ops: &[Timed<S::Op>],
    unknown: &[Option<S::Op>],
    t: u64,
    steps: &mut u64,
) -> Option<bool> {
    let known = ops
        .iter()
        .zip(unknown)
        .filter(|(op, _)| op.invoke_ns <= t)
        .filter_map(|(op, unknown)| match op.complete_ns {
            Some(done) if done <= t => Some(op.clone()),
            _ => unknown.clone().map(|forgot| Timed { op: forgot, invoke_ns: op.invoke_ns, complete_ns: None }),
        })
        .collect();
    search::fails(spec, known, steps)
}
