//! The schedule-file fields every fault has: `at` and `until` as Go duration
//! strings of virtual time, `kind`, `node` (or a partition's `groups`), `op`.
//! A kind's own fields are its module's (`FaultKind::write_json`).

use super::{Fault, Kind, Target};
use crate::vtime::{SimTime, go_signed_duration, parse_go_duration, parse_signed_go_duration};
use serde_json::{Map, Value, json};

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

pub fn read_common(o: &Map<String, Value>, kind: Kind) -> Result<Fault, String> {
    let at = time(o, "at")?.unwrap_or(SimTime::ZERO);
    let node = o.get("node").filter(|v| !v.is_null());
    let target = match node {
        Some(v) => Target::Node(v.as_str().ok_or("`node` must be a string")?.to_string()),
        None => Target::Node(String::new()),
    };
    let op =
        o.get("op").filter(|v| !v.is_null()).map(|v| v.as_u64().ok_or("`op` must be a whole number")).transpose()?;
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
pub fn time(o: &Map<String, Value>, name: &str) -> Result<Option<SimTime>, String> {
    let Some(v) = o.get(name).filter(|v| !v.is_null()) else { return Ok(None) };
    let text = v.as_str().ok_or(format!("`{name}` must be a duration string like \"427.268419ms\""))?;
    parse_go_duration(text).map(|ns| Some(SimTime::from_ns(ns))).map_err(|e| format!("`{name}`: {e}"))
}

/// A kind's signed `amount` as the Go duration string field `name`.
pub fn write_amount(name: &str, f: &Fault, o: &mut Map<String, Value>) {
    if let Some(ns) = f.amount {
        o.insert(name.into(), json!(go_signed_duration(ns)));
    }
}

/// Reads the signed duration field `name` into `amount` (required).
pub fn read_amount(name: &str, o: &Map<String, Value>, f: &mut Fault) -> Result<(), String> {
    let v = o.get(name).filter(|v| !v.is_null()).ok_or(format!("a {} fault needs `{name}`", f.kind.name()))?;
    let text = v.as_str().ok_or(format!("`{name}` must be a duration string like \"-1.5s\""))?;
    f.amount = Some(parse_signed_go_duration(text).map_err(|e| format!("`{name}`: {e}"))?);
    Ok(())
}
