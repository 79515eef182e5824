//! `cas-register`: `read`, `write V` and `cas A B` (set to B if the value is A), the etcd-style register of
//! Jepsen's and Porcupine's tests. A cas that completed returns `ok` (or no output) when it swapped and
//! `fail` when the value was not A.

use super::values::Values;
use super::{Model, Seen, Spec, no_arg, one_arg, returned, unknown_verb, verb};
use crate::Output;

#[derive(Default)]
pub(crate) struct CasRegister {
    values: Values,
}

#[derive(Clone)]
pub(crate) enum CasOp {
    /// A read that returned this value (`None`: missing).
    Read(Option<u32>),
    Write(u32),
    /// `swapped`: what the cas answered, `None` when it never completed.
    Cas {
        from: u32,
        to: u32,
        swapped: Option<bool>,
    },
}

impl Spec for CasRegister {
    type State = Option<u32>;
    type Op = CasOp;

    fn init(&self) -> Option<u32> {
        None
    }

    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<CasOp>, String> {
        let (verb, arg) = verb(input);
        Ok(Some(match verb {
            "read" => {
                no_arg(arg, input)?;
                match returned(seen, input)? {
                    None => return Ok(None),
                    Some(Output::Missing) => CasOp::Read(None),
                    Some(Output::Value(value)) => CasOp::Read(Some(self.values.id(value))),
                }
            }
            "write" => CasOp::Write(self.values.id(one_arg(arg, input)?)),
            "cas" => {
                let (from, to) = one_arg(arg, input)?
                    .split_once(' ')
                    .ok_or_else(|| format!("{input:?}: cas takes two values, \"cas A B\""))?;
                let swapped = match seen {
                    Seen::Indeterminate => None,
                    Seen::Completed(None) => Some(true),
                    Seen::Completed(Some(Output::Value(answer))) if answer == "ok" => Some(true),
                    Seen::Completed(Some(Output::Value(answer))) if answer == "fail" => Some(false),
                    Seen::Completed(Some(_)) => return Err(format!("{input:?} returns \"ok\" or \"fail\"")),
                };
                CasOp::Cas { from: self.values.id(from), to: self.values.id(to), swapped }
            }
            _ => return Err(unknown_verb(input, Model::CasRegister, "read, write V, cas A B")),
        }))
    }

    fn produces(&self, op: &CasOp) -> Option<u32> {
        match *op {
            // A cas that answered `fail` wrote nothing.
            CasOp::Write(value) | CasOp::Cas { to: value, swapped: Some(true) | None, .. } => Some(value),
            CasOp::Read(_) | CasOp::Cas { swapped: Some(false), .. } => None,
        }
    }

    fn needs(&self, op: &CasOp, produced: &[u32]) -> Vec<u32> {
        let seen = match *op {
            CasOp::Read(Some(value)) | CasOp::Cas { from: value, swapped: Some(true), .. } => value,
            _ => return Vec::new(),
        };
        produced.iter().copied().filter(|&v| v == seen).collect()
    }

    fn step(&mut self, &state: &Option<u32>, op: &CasOp) -> Option<Option<u32>> {
        match *op {
            CasOp::Read(expected) => (state == expected).then_some(state),
            CasOp::Write(value) => Some(Some(value)),
            CasOp::Cas { from, to, swapped } => {
                let matches = state == Some(from);
                if swapped.is_some_and(|swapped| swapped != matches) {
                    return None;
                }
                Some(if matches { Some(to) } else { state })
            }
        }
    }
}
