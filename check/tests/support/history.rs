//! Test support: history transformations the tests check the crate's answers against.

use seedfall_check::Op;

/// The history as known at `t`: what was invoked by then, and what had not completed taken as indeterminate.
pub fn known_at(history: &[Op], t: u64) -> Vec<Op> {
    let known = history.iter().filter(|op| op.invoke_ns <= t).cloned();
    known
        .map(
            |op| if op.complete_ns.is_some_and(|c| c <= t) { op } else { Op { output: None, complete_ns: None, ..op } },
        )
        .collect()
}
