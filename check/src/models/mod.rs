//! The sequential specifications a history is checked against, one file per model, and the text grammar
//! each one reads (`docs/linearizability.md`). A model here only parses operations and steps its state; the
//! search that orders operations lives in `lin/`.

mod cas_register;
mod counter;
mod kv;
mod queue;
mod set;
mod strings;
mod values;

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

pub(crate) use cas_register::CasRegister;
pub(crate) use counter::Counter;
pub(crate) use kv::Kv;
pub(crate) use queue::Queue;
pub(crate) use set::Set;

use crate::Output;

/// The config's `linearizable` model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Model {
    /// A string register per key with `get`, `put` and `append`.
    Kv,
    /// A string register with `read` and `write`.
    Register,
    /// A register with `read`, `write` and compare-and-set.
    CasRegister,
    /// An integer counter with `inc` and `read`.
    Counter,
    /// A FIFO queue with `enq` and `deq`.
    Queue,
    /// A grow-only set with `add` and `read`.
    Set,
}

impl Model {
    pub const ALL: [Model; 6] =
        [Model::Kv, Model::Register, Model::CasRegister, Model::Counter, Model::Queue, Model::Set];

    /// The name the config uses.
    pub fn name(self) -> &'static str {
        match self {
            Model::Kv => "kv",
            Model::Register => "register",
            Model::CasRegister => "cas-register",
            Model::Counter => "counter",
            Model::Queue => "queue",
            Model::Set => "set",
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Model {
    type Err = String;

    fn from_str(s: &str) -> Result<Model, String> {
        crate::names::parse(&Model::ALL, Model::name, s, "linearizability model")
    }
}

/// What is known of an operation's result when it is parsed.
#[derive(Clone, Copy)]
pub(crate) enum Seen<'a> {
    /// It completed, with this output (`None`: `Ok()` without one).
    Completed(Option<&'a Output>),
    /// It never completed: the model must accept whatever it would have returned.
    Indeterminate,
}

/// A sequential specification: how one operation changes the state of one object.
pub(crate) trait Spec {
    type State: Clone + Eq + Hash;
    type Op: Clone;

    fn init(&self) -> Self::State;

    /// `Ok(None)`: the operation constrains nothing (a read that never returned) and is left out of the search.
    fn parse(&mut self, input: &str, seen: Seen<'_>) -> Result<Option<Self::Op>, String>;

    /// The state after `op`, or `None` when `op` cannot have returned what it did in `state`.
    fn step(&mut self, state: &Self::State, op: &Self::Op) -> Option<Self::State>;

    /// The value `op` writes, if it writes one a later operation can observe (interned like every value).
    fn produces(&self, _op: &Self::Op) -> Option<u32> {
        None
    }

    /// Which of `produced` (every value the partition's operations write) `op` observed, so that some
    /// operation writing it must stay in a shrunk history. Without this, shrinking would end at a lone read
    /// of a value whose write it removed: non-linearizable, and no help to anyone.
    fn needs(&self, _op: &Self::Op, _produced: &[u32]) -> Vec<u32> {
        Vec::new()
    }
}

/// Splits `"verb rest of the line"`; the argument is everything after the first space, verbatim.
fn verb(input: &str) -> (&str, Option<&str>) {
    match input.split_once(' ') {
        Some((verb, arg)) => (verb, Some(arg)),
        None => (input, None),
    }
}

fn no_arg(arg: Option<&str>, input: &str) -> Result<(), String> {
    match arg {
        None => Ok(()),
        Some(_) => Err(format!("{input:?} takes no argument")),
    }
}

fn one_arg<'a>(arg: Option<&'a str>, input: &str) -> Result<&'a str, String> {
    arg.ok_or_else(|| format!("{input:?} needs an argument"))
}

/// The text a completed read returned; `Missing` is the empty object.
fn returned<'a>(seen: Seen<'a>, input: &str) -> Result<Option<&'a Output>, String> {
    match seen {
        Seen::Completed(Some(output)) => Ok(Some(output)),
        Seen::Completed(None) => Err(format!("{input:?} completed without an output")),
        Seen::Indeterminate => Ok(None),
    }
}

fn unknown_verb(input: &str, model: Model, grammar: &str) -> String {
    format!("{input:?} is not an operation of model {model} (expected {grammar})")
}
