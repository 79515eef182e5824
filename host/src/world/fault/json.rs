//! The schedule-file fields every fault has: `at` and `until` as Go duration
//! strings of virtual time, `kind`, `node` (or a partition's `groups`), `op`.
//! A kind's own fields are its module's (`FaultKind::write_json`).

use super::{Fault, Kind, Target};
use crate::vtime::{DurationError, SimTime, go_signed_duration, parse_go_duration, parse_signed_go_duration};
use serde_json::{Map, Value, json};
use std::fmt;

/// Why a schedule file's fault does not read. Its Display is the message
/// users see (after `fault N: `), naming the field and what it must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultJsonError {
    NotAnObject,
    NoKind,
    UnknownKind {
        name: String,
        known: String,
    },
    /// A field the kind does not have; `fields` lists those it has.
    UnknownField {
        field: String,
        kind: String,
        fields: String,
    },
    /// A field is missing: "a `what` needs `field`", then `hint` (what it holds).
    Needs {
        what: String,
        field: String,
        hint: &'static str,
    },
    /// A fault triggered by a count needs `op`, in `unit`s.
    NeedsOp {
        kind: String,
        unit: &'static str,
    },
    /// A field is there but `field` must be `want`.
    WrongType {
        field: String,
        want: &'static str,
    },
    /// A duration field that does not parse.
    BadDuration {
        field: String,
        error: DurationError,
    },
    /// A whole number past what a fault holds (i64).
    TooLarge(&'static str),
    UnknownClog(String),
    /// A rule between a kind's fields, broken.
    Rule(&'static str),
}

impl FaultJsonError {
    pub(super) fn needs(what: impl Into<String>, field: &str, hint: &'static str) -> FaultJsonError {
        FaultJsonError::Needs { what: what.into(), field: field.to_string(), hint }
    }

    pub(super) fn wrong_type(field: impl Into<String>, want: &'static str) -> FaultJsonError {
        FaultJsonError::WrongType { field: field.into(), want }
    }
}

impl fmt::Display for FaultJsonError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FaultJsonError::NotAnObject => f.write_str("a fault is an object {at, kind, node, until, op}"),
            FaultJsonError::NoKind => f.write_str("`kind` is missing"),
            FaultJsonError::UnknownKind { name, known } => write!(f, "unknown kind {name:?} ({known})"),
            FaultJsonError::UnknownField { field, kind, fields } => {
                write!(f, "unknown field `{field}` (a {kind} fault has {fields})")
            }
            FaultJsonError::Needs { what, field, hint } => write!(f, "a {what} needs `{field}`{hint}"),
            FaultJsonError::NeedsOp { kind, unit } => write!(f, "a {kind} fault needs `op` (a {unit} number)"),
            FaultJsonError::WrongType { field, want } => write!(f, "`{field}` must be {want}"),
            FaultJsonError::BadDuration { field, error } => write!(f, "`{field}`: {error}"),
            FaultJsonError::TooLarge(field) => write!(f, "`{field}` is too large"),
            FaultJsonError::UnknownClog(name) => write!(f, "unknown clog {name:?} (stop, jam or slow)"),
            FaultJsonError::Rule(rule) => f.write_str(rule),
        }
    }
}

impl std::error::Error for FaultJsonError {}

pub const COMMON_FIELDS: &[&str] = &["at", "kind", "node", "until", "op"];

pub fn common(f: &Fault) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("at".into(), json!(f.at.to_string()));
    o.insert("kind".into(), json!(f.kind.name()));
    if let Target::Node(node) = &f.target {
        o.insert("node".into(), json!(node));
    }
    if let Some(until) = f.until {
        o.insert("until".into(), json!(until.to_string()));
    }
    if let Some(op) = f.op {
        o.insert("op".into(), json!(op));
    }
    o
}

pub fn read_common(o: &Map<String, Value>, kind: Kind) -> Result<Fault, FaultJsonError> {
    let at = time(o, "at")?.unwrap_or(SimTime::ZERO);
    let node = o.get("node").filter(|v| !v.is_null());
    let target = match node {
        Some(v) => Target::Node(v.as_str().ok_or(FaultJsonError::wrong_type("node", "a string"))?.to_string()),
        None => Target::Node(String::new()),
    };
    let whole = || FaultJsonError::wrong_type("op", "a whole number");
    let op = o.get("op").filter(|v| !v.is_null()).map(|v| v.as_u64().ok_or_else(whole)).transpose()?;
    Ok(Fault {
        at,
        kind,
        target,
        until: time(o, "until")?,
        op,
        applied: None,
        amount: None,
        to: None,
        form: None,
        site: None,
    })
}

/// A Go duration string field, as virtual time since the start.
pub fn time(o: &Map<String, Value>, name: &str) -> Result<Option<SimTime>, FaultJsonError> {
    let Some(v) = o.get(name).filter(|v| !v.is_null()) else { return Ok(None) };
    let text = v.as_str().ok_or_else(|| FaultJsonError::wrong_type(name, "a duration string like \"427.268419ms\""))?;
    let bad = |error| FaultJsonError::BadDuration { field: name.to_string(), error };
    parse_go_duration(text).map(|ns| Some(SimTime::from_ns(ns))).map_err(bad)
}

/// A kind's signed `amount` as the Go duration string field `name`.
pub fn write_amount(name: &str, f: &Fault, o: &mut Map<String, Value>) {
    if let Some(ns) = f.amount {
        o.insert(name.into(), json!(go_signed_duration(ns)));
    }
}

/// Reads the signed duration field `name` into `amount` (required).
pub fn read_amount(name: &str, o: &Map<String, Value>, f: &mut Fault) -> Result<(), FaultJsonError> {
    let needs = || FaultJsonError::needs(format!("{} fault", f.kind.name()), name, "");
    let v = o.get(name).filter(|v| !v.is_null()).ok_or_else(needs)?;
    let text = v.as_str().ok_or_else(|| FaultJsonError::wrong_type(name, "a duration string like \"-1.5s\""))?;
    let bad = |error| FaultJsonError::BadDuration { field: name.to_string(), error };
    f.amount = Some(parse_signed_go_duration(text).map_err(bad)?);
    Ok(())
}
