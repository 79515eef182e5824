//! Fault schedule files (`.seedfall/[X.]seed-N.faults.json`): the faults of
//! a run as `{at, kind, node, until, op}` (times as Go duration strings of
//! virtual time; `op` the node's disk-operation number for faults drawn at a
//! disk operation; `applied` how much of the operation a `crash_on_io`
//! let through), with `seed`, `duration`, `ops` (the `sim.Budget` cap),
//! `shrunk_from` and `shrink_runs`. A bare JSON array of faults is read too.
//! Errors name the file and the fault.

use crate::duration::parse_duration;
use seedfall_host::fs::Prefix;
use seedfall_host::world::vtime::go_duration;
use seedfall_host::world::{Fault, FaultKind};
use serde_json::{Map, Value, json};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub seed: Option<u64>,
    pub faults: Vec<Fault>,
    /// Virtual-time horizon of the run (None: the config's).
    pub duration_ns: Option<u64>,
    /// Cap on `sim.Budget` (None: the workload's default).
    pub ops: Option<u64>,
    /// Faults before shrinking, and the runs it took.
    pub shrunk_from: Option<usize>,
    pub shrink_runs: Option<u64>,
}

pub fn fault_json(f: &Fault) -> Value {
    let mut o = Map::new();
    o.insert("at".into(), json!(go_duration(f.at_ns)));
    o.insert("kind".into(), json!(f.kind.name()));
    o.insert("node".into(), json!(f.node));
    if let Some(until) = f.until_ns {
        o.insert("until".into(), json!(go_duration(until)));
    }
    if let Some(op) = f.op {
        o.insert("op".into(), json!(op));
    }
    if let Some(p) = f.applied {
        o.insert("applied".into(), json!({"ops": p.ops, "bytes": p.bytes}));
    }
    Value::Object(o)
}

impl Schedule {
    pub fn to_json(&self) -> String {
        let doc = json!({
            "seed": self.seed,
            "duration": self.duration_ns.map(go_duration),
            "ops": self.ops,
            "shrunk_from": self.shrunk_from,
            "shrink_runs": self.shrink_runs,
            "faults": self.faults.iter().map(fault_json).collect::<Vec<_>>(),
        });
        serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n"
    }

    pub fn load(path: &Path) -> Result<Schedule, String> {
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Schedule::parse(&text).map_err(|e| format!("{name}: {e}"))
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        // Written beside and renamed: a reader never sees half a schedule.
        let partial = path.with_extension(format!("json.{}.partial", std::process::id()));
        std::fs::write(&partial, self.to_json())
            .and_then(|()| std::fs::rename(&partial, path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Schedule, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let (object, faults) = match &doc {
            Value::Array(faults) => (None, faults),
            Value::Object(o) => (Some(o), o.get("faults").and_then(Value::as_array).ok_or("no `faults` array")?),
            _ => return Err("a schedule is an object with `faults`, or an array of faults".into()),
        };
        let field = |name: &str| object.and_then(|o| o.get(name)).filter(|v| !v.is_null());
        let number = |name: &str| -> Result<Option<u64>, String> {
            field(name).map(|v| v.as_u64().ok_or(format!("`{name}` must be a whole number"))).transpose()
        };
        let duration_ns = field("duration").map(|v| duration_ns(v, "duration")).transpose()?;
        Ok(Schedule {
            seed: number("seed")?,
            faults: faults
                .iter()
                .enumerate()
                .map(|(i, f)| fault(f).map_err(|e| format!("fault {i}: {e}")))
                .collect::<Result<_, _>>()?,
            duration_ns,
            ops: number("ops")?,
            shrunk_from: number("shrunk_from")?.map(|n| n as usize),
            shrink_runs: number("shrink_runs")?,
        })
    }
}

fn duration_ns(v: &Value, name: &str) -> Result<u64, String> {
    let text = v.as_str().ok_or(format!("`{name}` must be a duration string like \"427.268419ms\""))?;
    Ok(parse_duration(text).map_err(|e| format!("`{name}`: {e}"))?.as_nanos() as u64)
}

fn fault(v: &Value) -> Result<Fault, String> {
    let o = v.as_object().ok_or("a fault is an object {at, kind, node, until, op}")?;
    for key in o.keys() {
        if !["at", "kind", "node", "until", "op", "applied"].contains(&key.as_str()) {
            return Err(format!("unknown field `{key}` (a fault has at, kind, node, until, op, applied)"));
        }
    }
    let kind_name = o.get("kind").and_then(Value::as_str).ok_or("`kind` is missing")?;
    let kind = FaultKind::from_name(kind_name)
        .ok_or(format!("unknown kind {kind_name:?} (crash, crash_on_io, fsync_eio, partition, preempt)"))?;
    let node = o.get("node").and_then(Value::as_str).ok_or("`node` is missing")?.to_string();
    let at_ns = o.get("at").map(|v| duration_ns(v, "at")).transpose()?.unwrap_or(0);
    let until_ns = o.get("until").filter(|v| !v.is_null()).map(|v| duration_ns(v, "until")).transpose()?;
    let op =
        o.get("op").filter(|v| !v.is_null()).map(|v| v.as_u64().ok_or("`op` must be a whole number")).transpose()?;
    if kind.by_op() && op.is_none() {
        return Err(format!("a {kind_name} fault needs `op` (a disk-operation or counted-call number)"));
    }
    let applied = match o.get("applied") {
        Some(Value::Object(p)) => Some(Prefix {
            ops: p.get("ops").and_then(Value::as_u64).unwrap_or(0) as usize,
            bytes: p.get("bytes").and_then(Value::as_u64).unwrap_or(0) as usize,
        }),
        _ => None,
    };
    Ok(Fault { at_ns, kind, node, until_ns, op, applied })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_bare_arrays() {
        let schedule = Schedule {
            seed: Some(3),
            faults: vec![
                Fault {
                    at_ns: 427_268_419,
                    kind: FaultKind::Crash,
                    node: "server".into(),
                    until_ns: Some(900_000_000),
                    op: None,
                    applied: None,
                },
                Fault {
                    at_ns: 1_000_000_001,
                    kind: FaultKind::CrashOnIo,
                    node: "server".into(),
                    until_ns: Some(1_500_000_000),
                    op: Some(142),
                    applied: Some(Prefix { ops: 0, bytes: 5 }),
                },
            ],
            duration_ns: Some(20_000_000_000),
            ops: Some(13),
            shrunk_from: Some(14),
            shrink_runs: Some(57),
        };
        let text = schedule.to_json();
        assert!(text.contains("\"at\": \"427.268419ms\""), "{text}");
        assert_eq!(Schedule::parse(&text).unwrap(), schedule);
        let bare = r#"[{"at": "1s", "kind": "partition", "node": "a,b", "until": "2s"}]"#;
        let parsed = Schedule::parse(bare).unwrap();
        assert_eq!(parsed.faults[0].nodes(), vec!["a", "b"]);
        assert_eq!(parsed.duration_ns, None);
        assert!(Schedule::parse(r#"[{"kind": "crash_on_io", "node": "a"}]"#).unwrap_err().contains("needs `op`"));
        assert!(Schedule::parse(r#"[{"kind": "crsh", "node": "a"}]"#).unwrap_err().contains("unknown kind"));
        assert!(
            Schedule::parse(r#"[{"kind": "crash", "node": "a", "whn": 1}]"#)
                .unwrap_err()
                .contains("unknown field `whn`")
        );
    }
}
