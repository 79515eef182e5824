//! A `sim.Txn` history as the host records it in the trace (serde JSON): transactions over list-append keys,
//! Elle's model. Each key holds a list of integers; a transaction appends to lists and reads whole lists.

use serde::{Deserialize, Serialize};

/// One transaction: `sim.Txn(client)`, its micro-operations in program order, and how it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Txn {
    pub client: u32,
    pub invoke_ns: u64,
    /// Absent: it never completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete_ns: Option<u64>,
    pub status: Status,
    pub ops: Vec<MicroOp>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Committed,
    Aborted,
    /// Neither `Committed()` nor `Aborted()`: it may or may not have committed. Its appends may be seen;
    /// its reads are not trusted (a transaction that later aborted may read anything).
    Indeterminate,
}

/// `Tx.Append(key, value)` or `Tx.Read(key, values)`. Appended values must be unique per key, so that a
/// read names the transactions it observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "f", rename_all = "snake_case")]
pub enum MicroOp {
    Append { key: String, value: i64 },
    Read { key: String, values: Vec<i64> },
}
