//! Fault schedule files (`.seedfall/[X.]seed-N.faults.json`), in the
//! reference tool's format: `seed`, `faults` (each fault's object is its
//! kind's, `seedfall_host::world::Fault::to_json`), `duration`, `ops` (the
//! `sim.Budget` cap), `shrunk_from` (`{faults, duration, ops}` before
//! shrinking), `shrink_runs`, and `branches` (`[{step, reseed}]`, where a
//! `cause` future left its seed's randomness; written only when there are some). Files written before (a bare JSON array of
//! faults, `shrunk_from` as a count, kind `crash_on_io`, partitions as
//! `"node": "a,b"`) are read too. Errors name the file and the fault.

use crate::schedule_error::ScheduleError;
use seedfall_host::branch::{Boost, Branch};
use seedfall_host::vtime::{SimDuration, go_duration, parse_go_duration};
use seedfall_host::world::Kind;
use seedfall_host::world::{Fault, RunResult, RunSpec};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
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
    /// Where the run left its seed's randomness (a `cause` future), in step order.
    pub branches: Vec<Branch>,
}

/// A schedule's size before shrinking.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShrunkFrom {
    pub faults: usize,
    pub duration: Option<SimDuration>,
    pub ops: Option<u64>,
}

impl Schedule {
    /// What replays `run` of `spec` exactly: its faults and branches.
    pub fn of_run(spec: &RunSpec, run: &RunResult) -> Schedule {
        Schedule {
            seed: Some(spec.seed),
            faults: run.faults.clone(),
            duration: Some(spec.duration),
            ops: spec.budget_cap,
            shrunk_from: None,
            shrink_runs: None,
            branches: run.branches.clone(),
        }
    }

    pub fn to_json(&self) -> String {
        let shrunk_from = self
            .shrunk_from
            .map(|s| json!({"faults": s.faults, "duration": s.duration.map(|d| go_duration(d.ns())), "ops": s.ops}));
        let mut doc = json!({
            "seed": self.seed,
            "faults": self.faults.iter().map(Fault::to_json).collect::<Vec<_>>(),
            "duration": self.duration.map(|d| go_duration(d.ns())),
            "ops": self.ops,
            "shrunk_from": shrunk_from,
            "shrink_runs": self.shrink_runs,
        });
        if !self.branches.is_empty() {
            let branches: Vec<Value> = self.branches.iter().map(branch_json).collect();
            doc["branches"] = Value::Array(branches);
        }
        serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n"
    }

    pub fn load(path: &Path) -> Result<Schedule, ScheduleError> {
        let text = crate::input::read_text(path, crate::input::TEXT_MAX_BYTES)
            .map_err(|error| ScheduleError::Read { file: path.to_path_buf(), error })?;
        Schedule::parse(&text).map_err(|e| match e {
            ScheduleError::Invalid { file: None, message } => {
                ScheduleError::Invalid { file: Some(path.to_path_buf()), message }
            }
            other => other,
        })
    }

    pub fn save(&self, path: &Path) -> Result<(), ScheduleError> {
        Ok(crate::safe_write::replace_or_say(path, self.to_json().as_bytes())?)
    }

    pub fn parse(text: &str) -> Result<Schedule, ScheduleError> {
        let doc: Document = serde_json::from_str(text).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => invalid(e.to_string()),
            _ => invalid(format!("not JSON: {e}")),
        })?;
        let (faults, object) = match doc {
            Document::Faults(faults) => (faults, Map::new()),
            Document::Object { faults: Some(faults), fields } => (faults, fields),
            Document::Object { faults: None, .. } => return Err(invalid("no `faults` array")),
        };
        let field = |name: &str| object.get(name).filter(|v| !v.is_null());
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
            Some(_) => return Err(invalid("`shrunk_from` is an object {faults, duration, ops}")),
        };
        Ok(Schedule {
            seed: number(field("seed"), "seed")?,
            faults,
            duration: duration(field("duration"), "duration")?,
            ops: number(field("ops"), "ops")?,
            shrunk_from,
            shrink_runs: number(field("shrink_runs"), "shrink_runs")?,
            branches: branches(field("branches"))?,
        })
    }
}

fn branch_json(b: &Branch) -> Value {
    let mut o = json!({"step": b.step, "reseed": b.reseed});
    if let Some(boost) = b.boost {
        o["boost"] = json!({"kind": boost.kind, "factor": boost.factor});
    }
    o
}

fn branches(v: Option<&Value>) -> Result<Vec<Branch>, ScheduleError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let shape = || invalid("`branches` is an array of {\"step\": S, \"reseed\": R} (and optionally \"boost\")");
    let list = v.as_array().ok_or_else(shape)?;
    let mut out = Vec::with_capacity(list.len());
    for (i, b) in list.iter().enumerate() {
        let o = b.as_object().ok_or_else(shape)?;
        if let Some(key) = o.keys().find(|k| !["step", "reseed", "boost"].contains(&k.as_str())) {
            return Err(invalid(format!("branches[{i}]: unknown field `{key}` (a branch has step, reseed, boost)")));
        }
        let field = |name: &str| {
            number(o.get(name), &format!("branches[{i}].{name}"))?
                .ok_or_else(|| invalid(format!("branches[{i}]: `{name}` is missing")))
        };
        let boost =
            o.get("boost").map(|b| boost(b).map_err(|e| invalid(format!("branches[{i}].boost: {e}")))).transpose()?;
        out.push(Branch { step: field("step")?, reseed: field("reseed")?, boost });
    }
    if out.windows(2).any(|w| w[1].step < w[0].step) {
        return Err(invalid("`branches` must be in step order"));
    }
    Ok(out)
}

/// `{"kind": K, "factor": F}`: a kind a branch can boost, F a whole number from 1.
fn boost(v: &Value) -> Result<Boost, ScheduleError> {
    let o = v.as_object().ok_or_else(|| invalid("is {\"kind\": K, \"factor\": F}"))?;
    if let Some(key) = o.keys().find(|k| *k != "kind" && *k != "factor") {
        return Err(invalid(format!("unknown field `{key}` (a boost has kind, factor)")));
    }
    let name = o.get("kind").and_then(Value::as_str).ok_or_else(|| invalid("`kind` is missing or not a string"))?;
    let kind = Kind::from_name(name)
        .ok_or_else(|| invalid(format!("no fault kind `{name}` (known: {})", Kind::known_names())))?;
    if !kind.imp().boostable() {
        return Err(invalid(format!("`{name}` cannot be boosted after a branch")));
    }
    let factor = o.get("factor").and_then(Value::as_u64).filter(|f| (1..=u64::from(u32::MAX)).contains(f));
    let factor = factor.ok_or_else(|| invalid("`factor` must be a whole number from 1"))? as u32;
    Ok(Boost { kind: kind.name(), factor })
}

/// A schedule file as it is read: each fault becomes a `Fault` as soon as
/// its object is parsed, so a file of a million faults never exists as a
/// tree of JSON values (that tree was most of a 1.1 GiB peak).
enum Document {
    Faults(Vec<Fault>),
    Object { faults: Option<Vec<Fault>>, fields: Map<String, Value> },
}

/// The `faults` array, converted element by element.
struct FaultList(Vec<Fault>);

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DocumentVisitor)
    }
}

impl<'de> Deserialize<'de> for FaultList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(FaultListVisitor)
    }
}

struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Document;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a schedule: an object with `faults`, or an array of faults")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Document, A::Error> {
        FaultListVisitor.visit_seq(seq).map(|list| Document::Faults(list.0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
        let (mut faults, mut fields) = (None, Map::new());
        while let Some(key) = map.next_key::<String>()? {
            if key == "faults" {
                if faults.is_some() {
                    return Err(de::Error::duplicate_field("faults"));
                }
                faults = Some(map.next_value::<FaultList>()?.0);
            } else {
                fields.insert(key, map.next_value::<Value>()?);
            }
        }
        Ok(Document::Object { faults, fields })
    }
}

struct FaultListVisitor;

impl<'de> Visitor<'de> for FaultListVisitor {
    type Value = FaultList;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a `faults` array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FaultList, A::Error> {
        let mut faults = Vec::new();
        while let Some(value) = seq.next_element::<Value>()? {
            let fault =
                Fault::from_json(&value).map_err(|e| de::Error::custom(format!("fault {}: {e}", faults.len())))?;
            faults.push(fault);
        }
        Ok(FaultList(faults))
    }
}

/// A schedule that does not parse, with what is wrong (`load` adds the file).
fn invalid(message: impl Into<String>) -> ScheduleError {
    ScheduleError::Invalid { file: None, message: message.into() }
}

fn count(n: &serde_json::Number, name: &str) -> Result<u64, ScheduleError> {
    n.as_u64().ok_or_else(|| invalid(format!("`{name}` must be a whole number")))
}

fn number(v: Option<&Value>, name: &str) -> Result<Option<u64>, ScheduleError> {
    match v.filter(|v| !v.is_null()) {
        None => Ok(None),
        Some(Value::Number(n)) => count(n, name).map(Some),
        Some(_) => Err(invalid(format!("`{name}` must be a whole number"))),
    }
}

fn duration(v: Option<&Value>, name: &str) -> Result<Option<SimDuration>, ScheduleError> {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Ok(None) };
    let text =
        v.as_str().ok_or_else(|| invalid(format!("`{name}` must be a duration string like \"427.268419ms\"")))?;
    parse_go_duration(text).map(|ns| Some(SimDuration::from_ns(ns))).map_err(|e| invalid(format!("`{name}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::Target;

    #[test]
    fn branches_round_trip_and_bad_ones_are_named() {
        let text = r#"{"seed": 1, "faults": [], "branches": [{"step": 140, "reseed": 18446744073709551615},
            {"step": 150, "reseed": 3, "boost": {"kind": "crash_on_io", "factor": 8}}]}"#;
        let schedule = Schedule::parse(text).unwrap();
        let boost = Some(Boost { kind: "crash_io", factor: 8 });
        assert_eq!(schedule.branches, [Branch::new(140, u64::MAX), Branch { step: 150, reseed: 3, boost }]);
        assert_eq!(Schedule::parse(&schedule.to_json()).unwrap(), schedule);
        let plain = Schedule::parse(r#"{"faults": []}"#).unwrap();
        assert!(!plain.to_json().contains("branches"), "written only when there are some");
        for (bad, says) in [
            (r#"{"faults": [], "branches": {"step": 1}}"#, "is an array"),
            (r#"{"faults": [], "branches": [{"step": 1}]}"#, "branches[0]: `reseed` is missing"),
            (r#"{"faults": [], "branches": [{"step": 1, "reseed": 2, "at": 3}]}"#, "unknown field `at`"),
            (r#"{"faults": [], "branches": [{"step": -1, "reseed": 2}]}"#, "branches[0].step"),
            (r#"{"faults": [], "branches": [{"step": 5, "reseed": 1}, {"step": 4, "reseed": 1}]}"#, "step order"),
            (
                r#"{"faults": [], "branches": [{"step": 1, "reseed": 2, "boost": {"kind": "crahs", "factor": 2}}]}"#,
                "branches[0].boost: no fault kind `crahs`",
            ),
            (
                r#"{"faults": [], "branches": [{"step": 1, "reseed": 2, "boost": {"kind": "crash", "factor": 0}}]}"#,
                "`factor` must be a whole number from 1",
            ),
            (
                r#"{"faults": [], "branches": [{"step": 1, "reseed": 2, "boost": {"kind": "udp_loss", "factor": 2}}]}"#,
                "`udp_loss` cannot be boosted",
            ),
            (
                r#"{"faults": [], "branches": [{"step": 1, "reseed": 2, "boost": {"kind": "crash", "by": 2}}]}"#,
                "unknown field `by`",
            ),
        ] {
            let e = Schedule::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

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

        assert!(
            Schedule::parse(r#"[{"kind": "crash_io", "node": "a"}]"#).unwrap_err().to_string().contains("needs `op`")
        );
        assert!(
            Schedule::parse(r#"[{"kind": "crsh", "node": "a"}]"#).unwrap_err().to_string().contains("unknown kind")
        );
        let typo = Schedule::parse(r#"[{"kind": "crash", "node": "a", "whn": 1}]"#).unwrap_err().to_string();
        assert!(typo.contains("unknown field `whn`"), "{typo}");
        let groups = Schedule::parse(r#"[{"kind": "partition", "groups": "a"}]"#).unwrap_err().to_string();
        assert!(groups.contains("`groups` must be"), "{groups}");
    }
}

/// Property tests of the schedule reader (issue 19): any text is a schedule
/// or an error with a message, never a panic, and a schedule that reads
/// writes itself back to the same text (so `faults` edits and `shrink` saves
/// cannot drift). Faults are built from every kind's name and fields with
/// values of every type, extremes included. Cases: proptest's default 256,
/// or `PROPTEST_CASES`.
#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;
    use seedfall_host::world::Kind;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop_oneof![Just(u64::MAX), Just(1 << 63), Just(0), Just(1)].prop_map(Value::from),
            prop_oneof![
                Just("0s"),
                Just("1s"),
                Just("-1.5s"),
                Just("427.268419ms"),
                Just("18446744073709551615ns"),
                Just("18446744073709551616ns"),
                Just("9223372036854775807ns"),
                Just("99999999999h"),
                Just("1e9s"),
                Just("server"),
                Just("crash"),
                Just(""),
            ]
            .prop_map(Value::from),
            any::<String>().prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z_]{0,8}", inner), 0..4)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    /// A fault object: a kind (registered, an alias or a stranger) and
    /// fields drawn from every kind's own.
    fn fault() -> impl Strategy<Value = Value> {
        let mut kinds: Vec<String> = Kind::all().map(|k| k.name().to_string()).collect();
        kinds.extend(["crash_on_io", "nope", ""].map(String::from));
        let fields =
            ["at", "node", "until", "op", "applied", "groups", "oneway", "offset", "jump", "amount", "seed", "bogus"];
        let kind = proptest::sample::select(kinds);
        let field = proptest::sample::select(fields.to_vec());
        (kind, proptest::collection::vec((field, value()), 0..6)).prop_map(|(kind, fields)| {
            let mut o = serde_json::Map::new();
            o.insert("kind".into(), Value::from(kind));
            for (name, v) in fields {
                o.insert(name.into(), v);
            }
            Value::Object(o)
        })
    }

    /// A duration string, mostly one the reader accepts (Go's durations are
    /// i64 nanoseconds), sometimes past u64.
    fn duration_text() -> impl Strategy<Value = Value> {
        prop_oneof![
            (0..=i64::MAX as u64).prop_map(|ns| format!("{ns}ns")),
            (0u64..100_000).prop_map(|ms| format!("{ms}ms")),
            (0u64..1000, 0u64..1000).prop_map(|(s, ms)| format!("{s}.{ms:03}s")),
            Just("18446744073709551616ns".to_string()),
        ]
        .prop_map(Value::from)
    }

    /// A fault as shrink writes one: every field of the right type, so most
    /// read and the round trip is exercised.
    fn well_formed_fault() -> impl Strategy<Value = Value> {
        let kinds: Vec<String> = Kind::all().map(|k| k.name().to_string()).collect();
        let nodes = proptest::sample::select(vec!["server", "client", "n1", "n2"]);
        let groups = proptest::collection::vec(proptest::collection::vec(nodes.clone(), 1..3), 1..3);
        (
            proptest::sample::select(kinds),
            duration_text(),
            proptest::option::of(duration_text()),
            proptest::option::weighted(0.9, any::<u64>()),
            nodes,
            proptest::option::of((groups, any::<bool>())),
            proptest::option::of(prop_oneof![any::<i64>().prop_map(|n| format!("{n}ns")), Just("-1.5s".into())]),
        )
            .prop_map(|(kind, at, until, op, node, groups, signed)| {
                let mut o = serde_json::Map::new();
                o.insert("kind".into(), Value::from(kind.clone()));
                o.insert("at".into(), at);
                if let Some(until) = until {
                    o.insert("until".into(), until);
                }
                if let Some(op) = op {
                    o.insert("op".into(), Value::from(op));
                }
                // Only the fields this kind has (the reader rejects others).
                let has = |field: &str| Kind::from_name(&kind).is_some_and(|k| k.imp().json_fields().contains(&field));
                match groups {
                    Some((groups, oneway)) if has("groups") => {
                        o.insert("groups".into(), serde_json::json!(groups));
                        o.insert("oneway".into(), Value::from(oneway));
                    }
                    _ => {
                        o.insert("node".into(), Value::from(node));
                    }
                }
                for field in ["offset", "jump"].into_iter().filter(|f| has(f)) {
                    o.insert(field.into(), Value::from(signed.clone().unwrap_or_else(|| "1ms".into())));
                }
                Value::Object(o)
            })
    }

    fn document() -> impl Strategy<Value = Value> {
        let faults = proptest::collection::vec(prop_oneof![3 => well_formed_fault(), 1 => fault()], 0..6);
        let top_value = prop_oneof![any::<u64>().prop_map(Value::from), duration_text(), value()];
        let top = proptest::collection::vec(
            (proptest::sample::select(vec!["seed", "duration", "ops", "shrunk_from", "shrink_runs"]), top_value),
            0..4,
        );
        (faults, top, any::<bool>()).prop_map(|(faults, top, bare)| {
            if bare {
                return Value::Array(faults);
            }
            let mut o: serde_json::Map<String, Value> = top.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            o.insert("faults".into(), Value::Array(faults));
            Value::Object(o)
        })
    }

    fn check(text: &str) -> Result<(), TestCaseError> {
        match Schedule::parse(text) {
            Ok(schedule) => {
                let written = schedule.to_json();
                let again = Schedule::parse(&written);
                prop_assert!(
                    again.is_ok(),
                    "{text} wrote {written}, which does not read: {again:?}",
                    again = again.err()
                );
                prop_assert_eq!(again.unwrap().to_json(), written);
            }
            Err(e) => prop_assert!(!e.to_string().trim().is_empty(), "empty error for {text}"),
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn any_text_is_a_schedule_or_an_error(text in any::<String>()) {
            check(&text)?;
        }

        #[test]
        fn any_document_of_faults_is_a_schedule_or_an_error_and_round_trips(doc in document()) {
            check(&doc.to_string())?;
        }
    }
}
