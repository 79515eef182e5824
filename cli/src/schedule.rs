//! Fault schedule files (`.seedfall/[X.]seed-N.faults.json`), in the
//! reference tool's format: `seed`, `faults` (each fault's object is its
//! kind's, `seedfall_host::world::Fault::to_json`), `duration`, `ops` (the
//! `sim.Budget` cap), `shrunk_from` (`{faults, duration, ops}` before
//! shrinking) and `shrink_runs`. Files written before (a bare JSON array of
//! faults, `shrunk_from` as a count, kind `crash_on_io`, partitions as
//! `"node": "a,b"`) are read too. Errors name the file and the fault.

use seedfall_host::world::Fault;
use seedfall_host::world::vtime::{SimDuration, go_duration, parse_go_duration};
use serde_json::{Value, json};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub seed: Option<u64>,
    pub faults: Vec<Fault>,
    /// Virtual-time horizon of the run (None: the config's).
    pub duration: Option<SimDuration>,
    /// Cap on `sim.Budget` (None: the workload's default).
    pub ops: Option<u64>,
    /// What the run was before shrinking, and the runs it took.
    pub shrunk_from: Option<ShrunkFrom>,
    pub shrink_runs: Option<u64>,
}

/// A schedule's size before shrinking.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShrunkFrom {
    pub faults: usize,
    pub duration: Option<SimDuration>,
    pub ops: Option<u64>,
}

impl Schedule {
    pub fn to_json(&self) -> String {
        let shrunk_from = self
            .shrunk_from
            .map(|s| json!({"faults": s.faults, "duration": s.duration.map(|d| go_duration(d.ns())), "ops": s.ops}));
        let doc = json!({
            "seed": self.seed,
            "faults": self.faults.iter().map(Fault::to_json).collect::<Vec<_>>(),
            "duration": self.duration.map(|d| go_duration(d.ns())),
            "ops": self.ops,
            "shrunk_from": shrunk_from,
            "shrink_runs": self.shrink_runs,
        });
        serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n"
    }

    pub fn load(path: &Path) -> Result<Schedule, String> {
        let name = path.display();
        let text = crate::input::read_text(path, crate::input::TEXT_MAX_BYTES)
            .map_err(|e| format!("{name}: cannot read: {e}"))?;
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
        let shrunk_from = match field("shrunk_from") {
            None => None,
            // Older files: the fault count alone.
            Some(Value::Number(n)) => {
                Some(ShrunkFrom { faults: count(n, "shrunk_from")? as usize, ..Default::default() })
            }
            Some(Value::Object(o)) => Some(ShrunkFrom {
                faults: number(o.get("faults"), "shrunk_from.faults")?.unwrap_or(0) as usize,
                duration: duration(o.get("duration"), "shrunk_from.duration")?,
                ops: number(o.get("ops"), "shrunk_from.ops")?,
            }),
            Some(_) => return Err("`shrunk_from` is an object {faults, duration, ops}".into()),
        };
        Ok(Schedule {
            seed: number(field("seed"), "seed")?,
            faults: faults
                .iter()
                .enumerate()
                .map(|(i, f)| Fault::from_json(f).map_err(|e| format!("fault {i}: {e}")))
                .collect::<Result<_, _>>()?,
            duration: duration(field("duration"), "duration")?,
            ops: number(field("ops"), "ops")?,
            shrunk_from,
            shrink_runs: number(field("shrink_runs"), "shrink_runs")?,
        })
    }
}

fn count(n: &serde_json::Number, name: &str) -> Result<u64, String> {
    n.as_u64().ok_or(format!("`{name}` must be a whole number"))
}

fn number(v: Option<&Value>, name: &str) -> Result<Option<u64>, String> {
    match v.filter(|v| !v.is_null()) {
        None => Ok(None),
        Some(Value::Number(n)) => count(n, name).map(Some),
        Some(_) => Err(format!("`{name}` must be a whole number")),
    }
}

fn duration(v: Option<&Value>, name: &str) -> Result<Option<SimDuration>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Ok(None) };
    let text = v.as_str().ok_or(format!("`{name}` must be a duration string like \"427.268419ms\""))?;
    parse_go_duration(text).map(|ns| Some(SimDuration::from_ns(ns))).map_err(|e| format!("`{name}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::{Kind, Target};

    #[test]
    fn reads_the_reference_format_and_older_files() {
        let reference = r#"{
          "seed": 1,
          "faults": [
            { "at": "427.268419ms", "kind": "crash_io", "node": "server", "until": "761.268419ms", "op": 56 },
            { "at": "802ms", "kind": "crash", "node": "server", "until": "802ms" },
            { "at": "10ns", "kind": "preempt", "node": "journal", "until": "0s", "op": 259662 },
            { "at": "1s", "kind": "partition", "groups": [["a"], ["b", "c"]], "oneway": true, "until": "2s" }
          ],
          "duration": "991ms",
          "ops": 63,
          "shrunk_from": { "faults": 33, "duration": "1m0s", "ops": 200 },
          "shrink_runs": 191
        }"#;
        let schedule = Schedule::parse(reference).unwrap();
        assert_eq!(schedule.faults.len(), 4);
        assert_eq!(schedule.faults[0].kind, Kind::from_name("crash_io").unwrap());
        assert_eq!(schedule.faults[0].op, Some(56));
        assert_eq!(
            schedule.faults[3].target,
            Target::Groups { groups: vec![vec!["a".into()], vec!["b".into(), "c".into()]], oneway: true }
        );
        let from = schedule.shrunk_from.unwrap();
        assert_eq!((from.faults, from.duration, from.ops), (33, Some(SimDuration::from_ns(60_000_000_000)), Some(200)));
        let text = schedule.to_json();
        assert_eq!(Schedule::parse(&text).unwrap(), schedule, "round trip:\n{text}");
        let written: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(written["shrunk_from"]["duration"], "1m0s");
        assert_eq!(written["faults"][0]["kind"], "crash_io");
        assert_eq!(written["faults"][3]["groups"][1][1], "c");

        // What earlier versions wrote.
        let old = r#"{"seed": 3, "shrunk_from": 14, "faults": [
            {"at": "1s", "kind": "crash_on_io", "node": "s", "until": "2s", "op": 142, "applied": {"ops": 0, "bytes": 5}},
            {"at": "1s", "kind": "partition", "node": "a,b", "until": "2s"}]}"#;
        let old = Schedule::parse(old).unwrap();
        assert_eq!(old.shrunk_from.unwrap().faults, 14);
        assert_eq!(old.faults[0].kind.name(), "crash_io");
        assert_eq!(old.faults[0].applied.unwrap().bytes, 5);
        assert_eq!(old.faults[1].target, Target::Groups { groups: vec![vec!["a".into(), "b".into()]], oneway: false });
        let bare = Schedule::parse(r#"[{"at": "1s", "kind": "crash", "node": "a", "until": "2s"}]"#).unwrap();
        assert_eq!(bare.duration, None);

        assert!(Schedule::parse(r#"[{"kind": "crash_io", "node": "a"}]"#).unwrap_err().contains("needs `op`"));
        assert!(Schedule::parse(r#"[{"kind": "crsh", "node": "a"}]"#).unwrap_err().contains("unknown kind"));
        let typo = Schedule::parse(r#"[{"kind": "crash", "node": "a", "whn": 1}]"#).unwrap_err();
        assert!(typo.contains("unknown field `whn`"), "{typo}");
        let groups = Schedule::parse(r#"[{"kind": "partition", "groups": "a"}]"#).unwrap_err();
        assert!(groups.contains("`groups` must be"), "{groups}");
    }
}
