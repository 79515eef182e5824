//! History checkers for seedfall runs. Pure functions over recorded histories: no world, no clock, no I/O.
//!
//! - [`check`] decides whether a single-object history (the Go SDK's `sim.Put`, `sim.Get` and `sim.Invoke`,
//!   recorded as [`Op`]s) is linearizable under a [`Model`] (the config's `linearizable`). The host builds
//!   the history from the trace, leaving out operations the workload marked `Failed()`, calls
//!   `check(model, &history, Budget::steps(n))`, and reports a [`Verdict::NotLinearizable`] as verdict class
//!   `linearizability`, naming the key and the operations of its 1-minimal failing sub-history. The budget
//!   counts search steps, never time, so a verdict is the same on every machine;
//!   [`Verdict::Unknown`] means the budget was too small to decide.
//! - [`txn::check`] finds Elle's anomalies in a `sim.Txn` history of list-append transactions and returns the
//!   ones the config's `isolation` level forbids (verdict class `isolation`).
//!
//! The text grammar of each model's inputs and outputs is in `docs/linearizability.md`.

mod history;
mod lin;
mod models;
pub mod txn;

pub use history::{Op, Output};
pub use lin::{Budget, Checked, HistoryError, Verdict, Violation, check};
pub use models::Model;
