//! `set`: `add V` and `read`, a grow-only set. A read returns the elements separated by spaces, in any
//! order (so elements cannot contain spaces); the empty set reads as `""` or `Missing`.

use super::values::Values;
use super::{Model, Seen, Spec, no_arg, one_arg, returned, unknown_verb, verb};
use crate::Output;

#[derive(Default)]
pub(crate) struct Set {
    values: Values,
}

#[derive(Clone)]
pub(crate) enum SetOp {
    Add(u32),
    /// Sorted, without duplicates.
    Read(Vec<u32>),
}

impl Spec for Set {
    /// Sorted, without duplicates, so equal sets are equal vectors.
    type State = Vec<u32>;
    type Op = SetOp;

    fn init(&self) -> Vec<u32> {
        Vec::new()
    }

    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<SetOp>, String> {
        let (verb, arg) = verb(input);
        Ok(Some(match verb {
            "add" => {
                let value = one_arg(arg, input)?;
                if value.contains(' ') {
                    return Err(format!("{input:?}: set elements cannot contain spaces"));
                }
                SetOp::Add(self.values.id(value))
            }
            "read" => {
                no_arg(arg, input)?;
                let mut elements: Vec<u32> = match returned(seen, input)? {
                    None => return Ok(None),
                    Some(Output::Missing) => Vec::new(),
                    Some(Output::Value(text)) => text.split_whitespace().map(|v| self.values.id(v)).collect(),
                };
                elements.sort_unstable();
                elements.dedup();
                SetOp::Read(elements)
            }
            _ => return Err(unknown_verb(input, Model::Set, "add V, read")),
        }))
    }

    fn produces(&self, op: &SetOp) -> Option<u32> {
        match *op {
            SetOp::Add(value) => Some(value),
            SetOp::Read(_) => None,
        }
    }

    fn needs(&self, op: &SetOp, produced: &[u32]) -> Vec<u32> {
        match op {
            SetOp::Read(elements) => produced.iter().copied().filter(|v| elements.binary_search(v).is_ok()).collect(),
            SetOp::Add(_) => Vec::new(),
        }
    }

    fn step(&mut self, set: &Vec<u32>, op: &SetOp) -> Option<Vec<u32>> {
        match op {
            SetOp::Add(value) => Some(match set.binary_search(value) {
                Ok(_) => set.clone(),
                Err(at) => {
                    let mut next = set.clone();
                    next.insert(at, *value);
                    next
                }
            }),
            SetOp::Read(expected) => (set == expected).then(|| set.clone()),
        }
    }
}
