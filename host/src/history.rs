//! The run's history as the Go SDK records it (`sim.Put`, `Get`, `Invoke`, `sim.Txn`; docs/sdk-abi.md):
//! what each call said and the virtual time of its invocation and completion, shared by every node of the
//! run through `SimLink`. It only records: the checks run after the run (`world/history_check.rs`), and
//! the hashing of each call into the trace is the `seedfall` module's (`sdk.rs`).
//!
//! An operation keeps what the SDK said (put, get, invoke) rather than the model's text, because the text
//! depends on the model (`register` writes `write v` where `kv` writes `put v`): `checked_ops` writes it.

use crate::fs::Errno;
use crate::vtime::go_duration;
use seedfall_check::txn::{MicroOp, Status, Txn};
use seedfall_check::{Model, Op, Output};

/// Which SDK call invoked an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Put(String),
    Get,
    /// The model's operation text.
    Invoke(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    Ok,
    Returned(String),
    Missing,
    /// Definitely not applied: left out of the checked history.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryOp {
    pub client: u32,
    /// `Put` and `Get` have one, `Invoke` none (the model's single object).
    pub key: Option<String>,
    pub call: Call,
    /// Virtual ns since the run's start.
    pub invoke_ns: u64,
    /// None: never completed (indeterminate).
    pub completed: Option<(u64, Completion)>,
}

/// Every operation and transaction of one run, in invocation order; an id is an index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    pub ops: Vec<HistoryOp>,
    pub txns: Vec<Txn>,
}

impl History {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.txns.is_empty()
    }

    /// A new operation's id.
    pub fn invoke(&mut self, client: u32, key: Option<String>, call: Call, at_ns: u64) -> u64 {
        self.ops.push(HistoryOp { client, key, call, invoke_ns: at_ns, completed: None });
        self.ops.len() as u64 - 1
    }

    pub fn complete(&mut self, id: u64, completion: Completion, at_ns: u64) -> Result<(), Errno> {
        let op = self.ops.get_mut(id as usize).ok_or(Errno::INVAL)?;
        if op.completed.is_some() {
            return Err(Errno::INVAL);
        }
        op.completed = Some((at_ns, completion));
        Ok(())
    }

    /// A new transaction's id.
    pub fn txn_begin(&mut self, client: u32, at_ns: u64) -> u64 {
        self.txns.push(Txn { client, invoke_ns: at_ns, complete_ns: None, status: Status::Indeterminate, ops: vec![] });
        self.txns.len() as u64 - 1
    }

    fn open_txn(&mut self, id: u64) -> Result<&mut Txn, Errno> {
        match self.txns.get_mut(id as usize) {
            Some(txn) if txn.complete_ns.is_none() => Ok(txn),
            _ => Err(Errno::INVAL),
        }
    }

    pub fn txn_op(&mut self, id: u64, op: MicroOp) -> Result<(), Errno> {
        self.open_txn(id)?.ops.push(op);
        Ok(())
    }

    /// `status` is `Committed` or `Aborted`.
    pub fn txn_end(&mut self, id: u64, status: Status, at_ns: u64) -> Result<(), Errno> {
        let txn = self.open_txn(id)?;
        txn.status = status;
        txn.complete_ns = Some(at_ns);
        Ok(())
    }

    /// The history `seedfall_check::check` reads for `model`, without `Failed` operations, and the index in
    /// `ops` of each of its operations.
    pub fn checked_ops(&self, model: Model) -> (Vec<Op>, Vec<usize>) {
        let (write, read) = match model {
            Model::Register | Model::CasRegister => ("write", "read"),
            Model::Counter | Model::Set => ("put", "read"),
            Model::Kv | Model::Queue => ("put", "get"),
        };
        let mut checked = Vec::new();
        let mut index = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            let (complete_ns, output) = match &op.completed {
                Some((_, Completion::Failed)) => continue,
                Some((at, Completion::Ok)) => (Some(*at), None),
                Some((at, Completion::Returned(v))) => (Some(*at), Some(Output::Value(v.clone()))),
                Some((at, Completion::Missing)) => (Some(*at), Some(Output::Missing)),
                None => (None, None),
            };
            let input = match &op.call {
                Call::Put(v) => format!("{write} {v}"),
                Call::Get => read.to_string(),
                Call::Invoke(input) => input.clone(),
            };
            checked.push(Op {
                client: op.client,
                key: op.key.clone(),
                input,
                output,
                invoke_ns: op.invoke_ns,
                complete_ns,
            });
            index.push(i);
        }
        (checked, index)
    }

    /// Operation `i` in a line: `c1 put x=1 @10ms-20ms ok`, `c2 get x @30ms-31ms → missing`, `c3 inc 3 @5ms-? `.
    pub fn describe_op(&self, i: usize) -> String {
        let op = &self.ops[i];
        let key = op.key.as_deref().map_or(String::new(), |k| format!(" {}", quoted_if_needed(k)));
        let what = match &op.call {
            Call::Put(v) => format!("put{key}={v}"),
            Call::Get => format!("get{key}"),
            Call::Invoke(input) => format!("{input}{key}"),
        };
        let (end, result) = match &op.completed {
            Some((at, c)) => (
                go_duration(*at),
                match c {
                    Completion::Ok => "ok".to_string(),
                    Completion::Returned(v) => format!("→ {v:?}"),
                    Completion::Missing => "→ missing".to_string(),
                    Completion::Failed => "failed".to_string(),
                },
            ),
            None => ("?".to_string(), "indeterminate".to_string()),
        };
        format!("c{} {what} @{}-{end} {result}", op.client, go_duration(op.invoke_ns))
    }

    /// Transaction `i` in a line: `T3 c2 [append x 1, read y [1 2]] @10ms-12ms committed`.
    pub fn describe_txn(&self, i: usize) -> String {
        let txn = &self.txns[i];
        let ops: Vec<String> = txn
            .ops
            .iter()
            .map(|op| match op {
                MicroOp::Append { key, value } => format!("append {} {value}", quoted_if_needed(key)),
                MicroOp::Read { key, values } => format!("read {} {}", quoted_if_needed(key), list(values)),
            })
            .collect();
        let end = txn.complete_ns.map_or("?".to_string(), go_duration);
        let status = match txn.status {
            Status::Committed => "committed",
            Status::Aborted => "aborted",
            Status::Indeterminate => "indeterminate",
        };
        format!("T{i} c{} [{}] @{}-{end} {status}", txn.client, ops.join(", "), go_duration(txn.invoke_ns))
    }
}

/// Most list elements a read shows: its last ones, which are what orders it among the others.
const READ_TAIL: usize = 3;

/// `[1 2]`, or `[… 7 8 9] (12)` for a longer list.
fn list(values: &[i64]) -> String {
    let tail: Vec<String> = values.iter().rev().take(READ_TAIL).rev().map(i64::to_string).collect();
    if values.len() <= READ_TAIL {
        format!("[{}]", tail.join(" "))
    } else {
        format!("[… {}] ({})", tail.join(" "), values.len())
    }
}

/// A key as a message shows it: bare when it is a plain word, else quoted.
fn quoted_if_needed(key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    if plain { key.to_string() } else { format!("{key:?}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> History {
        let mut h = History::default();
        let put = h.invoke(1, Some("x".into()), Call::Put("1".into()), 10_000_000);
        let get = h.invoke(2, Some("x".into()), Call::Get, 30_000_000);
        let failed = h.invoke(3, Some("x".into()), Call::Put("9".into()), 31_000_000);
        let _lost = h.invoke(3, Some("x".into()), Call::Put("2".into()), 32_000_000);
        h.complete(put, Completion::Ok, 20_000_000).unwrap();
        h.complete(get, Completion::Missing, 31_000_000).unwrap();
        h.complete(failed, Completion::Failed, 33_000_000).unwrap();
        h
    }

    #[test]
    fn an_operation_completes_once() {
        let mut h = sample();
        assert_eq!(h.complete(0, Completion::Ok, 40), Err(Errno::INVAL));
        assert_eq!(h.complete(99, Completion::Ok, 40), Err(Errno::INVAL));
        assert_eq!(h.complete(3, Completion::Ok, 40), Ok(()));
    }

    #[test]
    fn the_checked_history_drops_failed_ops_and_speaks_the_model() {
        let h = sample();
        let (ops, index) = h.checked_ops(Model::Kv);
        assert_eq!(index, vec![0, 1, 3]);
        let inputs: Vec<&str> = ops.iter().map(|o| o.input.as_str()).collect();
        assert_eq!(inputs, ["put 1", "get", "put 2"]);
        assert_eq!((ops[1].output.clone(), ops[1].complete_ns), (Some(Output::Missing), Some(31_000_000)));
        assert_eq!((ops[2].output.clone(), ops[2].complete_ns), (None, None));
        let (ops, _) = h.checked_ops(Model::Register);
        assert_eq!(ops[0].input, "write 1");
        assert_eq!(ops[1].input, "read");
    }

    #[test]
    fn operations_read_compactly() {
        let h = sample();
        assert_eq!(h.describe_op(0), "c1 put x=1 @10ms-20ms ok");
        assert_eq!(h.describe_op(1), "c2 get x @30ms-31ms → missing");
        assert_eq!(h.describe_op(3), "c3 put x=2 @32ms-? indeterminate");
    }

    #[test]
    fn a_transaction_records_until_it_ends() {
        let mut h = History::default();
        let t = h.txn_begin(4, 1_000_000);
        h.txn_op(t, MicroOp::Append { key: "x".into(), value: 1 }).unwrap();
        h.txn_op(t, MicroOp::Read { key: "a b".into(), values: vec![1, 2] }).unwrap();
        h.txn_op(t, MicroOp::Read { key: "y".into(), values: vec![1, 2, 3, 4, 5] }).unwrap();
        h.txn_end(t, Status::Committed, 2_000_000).unwrap();
        assert_eq!(h.txn_op(t, MicroOp::Append { key: "x".into(), value: 2 }), Err(Errno::INVAL));
        assert_eq!(h.txn_end(t, Status::Aborted, 3), Err(Errno::INVAL));
        assert_eq!(
            h.describe_txn(0),
            "T0 c4 [append x 1, read \"a b\" [1 2], read y [… 3 4 5] (5)] @1ms-2ms committed"
        );
        let open = h.txn_begin(5, 4_000_000);
        assert_eq!(h.txns[open as usize].status, Status::Indeterminate);
    }
}
