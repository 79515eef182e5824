//! `kv` (`get`, `put V`, `append V`) and `register` (`read`, `write V`): a string value that may be missing.
//! Both are the same specification under two grammars; `kv` is checked one key at a time by the caller's
//! partitioning, so the state here is a single value.

use super::strings::Strings;
use super::{Model, Seen, Spec, no_arg, one_arg, returned, unknown_verb, verb};
use crate::Output;

/// The state of a key that was never written.
const MISSING: u32 = u32::MAX;

pub(crate) struct Kv {
    model: Model,
    /// Interning makes `put "ab"` and `put "a"; append "b"` the same state for the search's cache.
    values: Strings,
}

#[derive(Clone)]
pub(crate) enum KvOp {
    /// A read that returned this state.
    Get(u32),
    Put(u32),
    Append(u32),
}

impl Kv {
    /// `model` is `Model::Kv` or `Model::Register`: it only picks the grammar.
    pub(crate) fn new(model: Model) -> Kv {
        debug_assert!(matches!(model, Model::Kv | Model::Register));
        Kv { model, values: Strings::default() }
    }
}

impl Spec for Kv {
    type State = u32;
    type Op = KvOp;

    fn init(&self) -> u32 {
        MISSING
    }

    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<KvOp>, String> {
        let (read, write, grammar) = match self.model {
            Model::Kv => ("get", "put", "get, put V, append V"),
            _ => ("read", "write", "read, write V"),
        };
        let (verb, arg) = verb(input);
        Ok(Some(match verb {
            v if v == read => {
                no_arg(arg, input)?;
                match returned(seen, input)? {
                    None => return Ok(None),
                    Some(Output::Missing) => KvOp::Get(MISSING),
                    Some(Output::Value(value)) => KvOp::Get(self.values.text(value)),
                }
            }
            v if v == write => KvOp::Put(self.values.text(one_arg(arg, input)?)),
            "append" if self.model == Model::Kv => KvOp::Append(self.values.text(one_arg(arg, input)?)),
            _ => return Err(unknown_verb(input, self.model, grammar)),
        }))
    }

    fn produces(&self, op: &KvOp) -> Option<u32> {
        match *op {
            KvOp::Put(value) | KvOp::Append(value) => Some(value),
            KvOp::Get(_) => None,
        }
    }

    /// A get observed every write whose value is part of what it read. Values that happen to occur inside
    /// other values only make the shrunk history keep a write more than it needs.
    fn needs(&self, op: &KvOp, produced: &[u32]) -> Vec<u32> {
        match *op {
            KvOp::Get(state) if state != MISSING => {
                let read = self.values.spell(state);
                produced.iter().copied().filter(|&v| read.contains(&self.values.spell(v))).collect()
            }
            _ => Vec::new(),
        }
    }

    fn step(&mut self, &state: &u32, op: &KvOp) -> Option<u32> {
        match *op {
            KvOp::Get(expected) => (state == expected).then_some(state),
            KvOp::Put(value) => Some(value),
            KvOp::Append(value) if state == MISSING => Some(value),
            KvOp::Append(value) => Some(self.values.join(state, value)),
        }
    }
}
