//! `queue`: `enq V` and `deq`, a FIFO queue. A completed `deq` returns the value it removed, or `Missing`
//! when the queue was empty; one that never completed removes the head if there is one.

use super::values::Values;
use super::{Model, Seen, Spec, no_arg, one_arg, unknown_verb, verb};
use crate::Output;

#[derive(Default)]
pub(crate) struct Queue {
    values: Values,
}

#[derive(Clone)]
pub(crate) enum QueueOp {
    Enq(u32),
    /// `Some(Some(v))`: returned v; `Some(None)`: found the queue empty; `None`: never completed.
    Deq(Option<Option<u32>>),
}

impl Spec for Queue {
    /// Head first. Queues in a history are short, so a plain vector clones faster than a shared structure.
    type State = Vec<u32>;
    type Op = QueueOp;

    fn init(&self) -> Vec<u32> {
        Vec::new()
    }

    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<QueueOp>, String> {
        let (verb, arg) = verb(input);
        Ok(Some(match verb {
            "enq" => QueueOp::Enq(self.values.id(one_arg(arg, input)?)),
            "deq" => {
                no_arg(arg, input)?;
                QueueOp::Deq(match seen {
                    Seen::Indeterminate => None,
                    Seen::Completed(Some(Output::Value(value))) => Some(Some(self.values.id(value))),
                    Seen::Completed(Some(Output::Missing)) => Some(None),
                    Seen::Completed(None) => return Err(format!("{input:?} completed without an output")),
                })
            }
            _ => return Err(unknown_verb(input, Model::Queue, "enq V, deq")),
        }))
    }

    fn produces(&self, op: &QueueOp) -> Option<u32> {
        match *op {
            QueueOp::Enq(value) => Some(value),
            QueueOp::Deq(_) => None,
        }
    }

    fn needs(&self, op: &QueueOp, produced: &[u32]) -> Vec<u32> {
        match *op {
            QueueOp::Deq(Some(Some(value))) => produced.iter().copied().filter(|&v| v == value).collect(),
            _ => Vec::new(),
        }
    }

    fn step(&mut self, queue: &Vec<u32>, op: &QueueOp) -> Option<Vec<u32>> {
        match *op {
            QueueOp::Enq(value) => {
                let mut next = queue.clone();
                next.push(value);
                Some(next)
            }
            QueueOp::Deq(Some(None)) => queue.is_empty().then(Vec::new),
            QueueOp::Deq(Some(Some(value))) => (queue.first() == Some(&value)).then(|| queue[1..].to_vec()),
            QueueOp::Deq(None) => Some(queue.get(1..).unwrap_or_default().to_vec()),
        }
    }
}
