//! The history of single-object operations as the host records it in the trace (serde JSON) and the
//! linearizability checker reads it. Inputs and outputs are text here: each model parses its own grammar
//! (`docs/linearizability.md`), so this module knows no model.

use serde::{Deserialize, Serialize};

/// One operation the Go SDK recorded with `sim.Put`, `sim.Get` or `sim.Invoke`, and how it completed.
///
/// An operation the workload marked `Failed()` definitely did not take effect; the host leaves it out of the
/// history rather than recording it, so every `Op` here may have taken effect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    pub client: u32,
    /// The object the operation acts on; operations on different keys are checked independently. `sim.Put`
    /// and `sim.Get` carry one, `sim.Invoke` none (the model's single object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The model's input text: `"put v"`, `"get"`, `"inc 3"`, `"cas 1 2"`, ...
    pub input: String,
    /// What the operation returned: absent for `Ok()` and for an operation that never completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    pub invoke_ns: u64,
    /// Absent: indeterminate (timeout, crash, lost reply). It may take effect at any time after its
    /// invocation, or never, and whatever it returned is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete_ns: Option<u64>,
}

/// A completed operation's result: `Returned(v)` is `Value(v)`, `Missing()` is `Missing`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    Value(String),
    Missing,
}
