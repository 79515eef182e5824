//! Property tests of the config reader (issue 19): whatever the text, `parse`
//! returns a config or an error with a message, and never panics. Three generators: arbitrary text, JSON trees
//! built from the schema's own field names with values of every type
//! (extremes included), and the design example cut or with a byte replaced.
//! They prove the absence of panics and empty messages only; what each
//! message says is `tests.rs`'s job. Cases: proptest's default 256, or
//! `PROPTEST_CASES` (docs/testing.md).

use super::read::field_names;
use super::*;
use proptest::prelude::*;

const BASE: &str = "/proj/kv";

/// Every field name the reader knows, plus near misses and strangers.
fn names() -> Vec<String> {
    let mut names: Vec<String> = field_names().into_iter().flat_map(|(_, fields)| fields).map(String::from).collect();
    names.extend(["within", "pkg", "args", "crash_per_secc", "", "\u{0}", "nodes[0]", "ß"].map(String::from));
    names.sort();
    names.dedup();
    names
}

/// JSON scalars, biased toward values the reader must reject.
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        prop_oneof![
            Just("1e308"),
            Just("-0"),
            Just("1e-300"),
            Just("18446744073709551616"),
            Just("4294967296"),
            Just("16777216")
        ]
        .prop_map(String::from),
        prop_oneof![
            Just("10s"),
            Just("-1s"),
            Just("0s"),
            Just("1h2m3.5s"),
            Just("99999999999h"),
            Just("pct"),
            Just("./server"),
            Just("/abs/x.wasm"),
            Just(""),
            Just("a\u{0}b"),
        ]
        .prop_map(|s| serde_json::to_string(s).unwrap()),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

/// A JSON document (as text) whose object keys come from `names`.
fn tree(names: Vec<String>) -> impl Strategy<Value = String> {
    let key = proptest::sample::select(names);
    scalar().prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|fields| {
                let fields: Vec<String> =
                    fields.iter().map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap())).collect();
                format!("{{{}}}", fields.join(","))
            }),
        ]
    })
}

/// A valid config to damage.
const VALID: &str = r#"{
  "nodes": [
    { "name": "server", "pkg": "./server", "args": ["-fixed"], "env": {"K": "V"} },
    { "name": "n", "pkg": "./raftnode", "count": 3 },
    { "name": "cache", "wasm": "./prebuilt/cache.wasm", "supervise": true }
  ],
  "workload": { "name": "client", "pkg": "./client" },
  "duration": "60s", "watchdog": "10s", "memory": 268435456,
  "preempt": { "strategy": "pct", "depth": 2, "steps": 400000, "loops": false },
  "faults": { "crash_per_sec": 0.5, "crash_downtime": ["100ms", "1s"], "crash_on_io": 0.005,
    "torn_writes": true, "fsync_eio": 0.01, "strict_dirs": true,
    "partition_per_sec": 0.2, "partition_length": ["200ms", "2s"], "clock_skew": "500ms" },
  "liveness": { "within": "30s" }, "finally": { "pkg": "./check", "args": [] }
}"#;

/// `parse` must answer, not panic; an error must say something.
fn check(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = parse(text, Path::new(BASE)) {
        prop_assert!(!e.message.trim().is_empty(), "empty message for {text:?}: {e:?}");
        prop_assert!(!e.to_string().trim().is_empty());
    }
    Ok(())
}

#[test]
fn the_valid_config_parses() {
    parse(VALID, Path::new(BASE)).unwrap();
}

proptest! {
    #[test]
    fn any_text_is_a_config_or_an_error(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn any_tree_of_known_fields_is_a_config_or_an_error(text in tree(names())) {
        check(&text)?;
    }

    #[test]
    fn a_workload_with_any_top_level_fields_is_a_config_or_an_error(
        fields in proptest::collection::vec((proptest::sample::select(names()), tree(names())), 0..5)
    ) {
        let mut text = String::from(r#"{"workload": {"pkg": "./client"}"#);
        for (k, v) in &fields {
            text.push_str(&format!(",{}:{v}", serde_json::to_string(k).unwrap()));
        }
        text.push('}');
        check(&text)?;
    }

    #[test]
    fn the_valid_config_cut_or_with_a_byte_changed_is_a_config_or_an_error(
        at in 0..VALID.len(), byte in any::<u8>(), cut in any::<bool>()
    ) {
        let mut bytes = VALID.as_bytes().to_vec();
        if cut { bytes.truncate(at) } else { bytes[at] = byte }
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
