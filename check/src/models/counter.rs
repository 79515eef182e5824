//! `counter`: `inc N` (N may be negative; `inc` alone is `inc 1`) and `read`, which returns the count in
//! decimal. The counter starts at 0. A read depends on a sum of increments, not on one write, so shrinking
//! does not keep increments for a read (`Spec::needs`): a counter's minimal history can be a lone read.

use super::{Model, Seen, Spec, no_arg, returned, unknown_verb, verb};
use crate::Output;

pub(crate) struct Counter;

#[derive(Clone)]
pub(crate) enum CounterOp {
    Inc(i64),
    Read(i64),
}

fn number(text: &str, input: &str) -> Result<i64, String> {
    text.parse().map_err(|_| format!("{input:?}: {text:?} is not an integer"))
}

impl Spec for Counter {
    type State = i64;
    type Op = CounterOp;

    fn init(&self) -> i64 {
        0
    }

    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<CounterOp>, String> {
        let (verb, arg) = verb(input);
        Ok(Some(match verb {
            "inc" => CounterOp::Inc(arg.map_or(Ok(1), |n| number(n, input))?),
            "read" => {
                no_arg(arg, input)?;
                match returned(seen, input)? {
                    None => return Ok(None),
                    Some(Output::Value(count)) => CounterOp::Read(number(count, input)?),
                    Some(Output::Missing) => return Err(format!("{input:?}: a counter is never missing")),
                }
            }
            _ => return Err(unknown_verb(input, Model::Counter, "inc N, read")),
        }))
    }

    fn step(&mut self, &count: &i64, op: &CounterOp) -> Option<i64> {
        match *op {
            // Wrapping: a history that overflows an i64 is still checked rather than crashing the checker.
            CounterOp::Inc(n) => Some(count.wrapping_add(n)),
            CounterOp::Read(expected) => (count == expected).then_some(count),
        }
    }
}
