//! History checkers for seedfall runs: pure functions over recorded histories, with no world, clock or I/O.
//!
//! - [`check`] decides whether a single-object history (the Go SDK's `sim.Put`, `sim.Get` and `sim.Invoke`,
//!   recorded as [`Op`]s) is linearizable under a [`Model`] (the config's `linearizable`). The host builds
//!   the history from the trace, leaving out operations the workload marked `Failed()`, calls
//!   `check(model, &history, Budget::steps(n))`, and reports a [`Verdict::NotLinearizable`] as verdict class
//!   `linearizability`: the key, the instant the history was known to fail, the longest partial
//!   linearization and a 1-minimal failing sub-history. The budget counts search steps, never time, so a
//!   verdict is the same on every machine; [`Verdict::Unknown`] means the budget was too small to decide.
//! - [`txn::check`] finds Elle's anomalies in a `sim.Txn` history of list-append transactions and returns the
//!   ones the config's `isolation` level forbids (verdict class `isolation`).
//!
//! Each model's text grammar and the reasons behind the design are in `docs/linearizability.md`.
//!
//! ```
//! use seedfall_check::{Budget, Model, Op, Output, Verdict, check};
//!
//! let op = |client, input: &str, output: Option<&str>, invoke_ns, complete_ns| Op {
//!     client,
//!     key: Some("x".into()),
//!     input: input.into(),
//!     output: output.map(|v| Output::Value(v.into())),
//!     invoke_ns,
//!     complete_ns: Some(complete_ns),
//! };
//! // A put that completed at 20ns, then a get at 30ns that still sees the key missing.
//! let mut history = vec![op(1, "put a", None, 10, 20), op(2, "get", None, 30, 40)];
//! history[1].output = Some(Output::Missing);
//! let checked = check(Model::Kv, &history, Budget::steps(1_000_000)).unwrap();
//! let Verdict::NotLinearizable(violation) = checked.verdict else { panic!() };
//! assert_eq!((violation.key.as_deref(), violation.minimal, violation.fails_by_ns), (Some("x"), vec![0, 1], 40));
//! ```

mod history;
mod lin;
mod models;
mod names;
pub mod txn;

pub use history::{Op, Output};
pub use lin::{Budget, Checked, HistoryError, Verdict, Violation, check};
pub use models::Model;
