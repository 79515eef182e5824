//! Every command's `--json` document has exactly the top-level fields
//! docs/json.md lists for it (both ways: nothing undocumented, nothing
//! missing), on examples/kvlog; and `--json -` leaves stdout to the JSON.

// Only `example` of the shared helpers is needed here.
#[allow(dead_code)]
mod example_finding;

use example_finding::example;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

/// docs/json.md's `Fields:` line of each `## name` section.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/json.md")).unwrap();
    let mut out = BTreeMap::new();
    let mut section = None;
    let mut fields: Option<String> = None;
    for line in text.lines().chain(["## end"]) {
        if let Some(name) = line.strip_prefix("## ") {
            if let (Some(s), Some(f)) = (section.take(), fields.take()) {
                let names = f.split('`').skip(1).step_by(2).map(str::to_string).collect();
                out.insert(s, names);
            }
            section = Some(name.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("Fields: ") {
            fields = Some(rest.to_string());
        } else if let Some(f) = fields.as_mut().filter(|_| !line.trim().is_empty() && !line.starts_with("- ")) {
            f.push(' ');
            f.push_str(line);
        } else if line.trim().is_empty() {
            // A blank line ends a Fields paragraph; keep what was read.
            if let (Some(s), Some(f)) = (section.clone(), fields.take()) {
                out.insert(s, f.split('`').skip(1).step_by(2).map(str::to_string).collect());
            }
        }
    }
    out
}

/// Runs seedfall in examples/kvlog.
fn seedfall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .current_dir(example("kvlog"))
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap()
}

/// Runs seedfall in examples/kvlog with `--json -`: the exit code and the document on stdout.
fn json_of(args: &[&str]) -> (i32, Value) {
    let out = seedfall(&[args, &["--json", "-"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{args:?}: stdout is not one JSON document ({e}):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), doc)
}

fn keys(doc: &Value) -> BTreeSet<String> {
    doc.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn every_command_writes_the_fields_docs_json_lists() {
    let docs = documented();
    let check = |name: &str, (code, doc): (i32, Value), expected_code: i32| {
        assert_eq!(code, expected_code, "{name}: {doc}");
        let fields = docs.get(name).unwrap_or_else(|| panic!("docs/json.md has no `## {name}` with Fields"));
        assert_eq!(&keys(&doc), fields, "{name}: the document against docs/json.md");
        doc
    };
    let summary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json-docs-run.json");
    let out = seedfall(&["run", "-c", "seedfall.json", "-seeds", "1-4", "--json", summary.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    check("run", (1, serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap()), 1);
    let refused = seedfall(&["run", "-c", "seedfall.json", "-seeds", "1", "--json", "-"]);
    assert_eq!(refused.status.code(), Some(2), "a sweep's text takes stdout: `--json -` is refused");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--json FILE"));
    assert!(!example("kvlog").join("-").exists(), "and no file named `-` is written");
    let replayed = check("replay", json_of(&["replay", "-c", "seedfall.json", "-seed", "1"]), 1);
    assert_eq!(replayed["verdict"], "fail");
    assert!(replayed["failures"][0]["signature"].is_string());
    let shrunk = check("shrink", json_of(&["shrink", "-c", "seedfall.json", "-seed", "1"]), 0);
    let schedule = shrunk["schedule"].as_str().unwrap().to_string();
    let verified = check("verify", json_of(&["verify", "-c", "seedfall.fixed.json", "-faults", &schedule]), 0);
    assert_eq!(verified["verified"], true);
    assert_eq!(keys(&verified["run"]), keys(&replayed).intersection(&keys(&verified["run"])).cloned().collect());
    let inspected = check("inspect", json_of(&["inspect", "-faults", &schedule]), 0);
    assert_eq!(inspected["lines"].as_array().unwrap().len(), inspected["faults"].as_array().unwrap().len());
    check("cause", json_of(&["cause", "-c", "seedfall.json", "-seed", "1", "-futures", "2", "-moments", "2"]), 0);
    let mutated = check("mutate", json_of(&["mutate", "-c", "seedfall.fixed.json", "-seeds", "1-3"]), 0);
    assert_eq!((mutated["mutants"].as_array().unwrap().len(), &mutated["killed"]), (4, &Value::from(4)));
    let states = check(
        "crashstates",
        json_of(&["crashstates", "-c", "seedfall.fixed.json", "-seed", "1", "--node", "server", "--at", "20"]),
        0,
    );
    assert_eq!(states["states"].as_array().unwrap().len() as u64, states["checked_states"].as_u64().unwrap());
}

#[test]
fn the_report_json_has_the_fields_docs_json_lists() {
    let page = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json-docs-report.html");
    let out = seedfall(&["run", "-c", "seedfall.json", "-seeds", "1-3", "-report", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(page.with_extension("json")).unwrap()).unwrap();
    assert_eq!(&keys(&doc), documented().get("report").unwrap());
}

#[test]
fn the_test_json_has_the_fields_docs_json_lists() {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["test", "./banksafe", "-run", "TestSingleWithdrawal", "-seeds", "1-2", "--json", "-"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gotest"))
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("gotest-cache"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(out.status.code(), Some(0), "{doc}");
    assert_eq!(&keys(&doc), documented().get("test").unwrap());
    assert_eq!(doc["packages"][0]["tests"][0]["seeds"], 2);
}

#[test]
fn the_trace_tools_write_the_fields_docs_json_lists() {
    let docs = documented();
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json-docs-trace.log");
    let events = "0\t0\tworld\t00000000000000aa\tboot [0, 1, 0]\n\
        1\t5\tserver#1\t00000000000000ab\thost call fd_read(5, 8, 1) = 6\tg7\tread fd 5\n";
    std::fs::write(&file, events).unwrap();
    let file = file.to_str().unwrap();
    for (name, args) in [
        ("trace view", vec!["trace", "view", file]),
        ("trace diff", vec!["trace", "diff", file, file]),
        ("trace stats", vec!["trace", "stats", file]),
    ] {
        let (code, doc) = json_of(&args);
        assert_eq!(code, 0, "{name}: {doc}");
        let fields = docs.get(name).unwrap_or_else(|| panic!("docs/json.md has no `## {name}` with Fields"));
        assert_eq!(&keys(&doc), fields, "{name}: the document against docs/json.md");
    }
}

#[test]
fn the_explore_json_has_the_fields_docs_json_lists() {
    let (code, doc) = json_of(&["explore", "-c", "seedfall.fixed.json", "-seeds", "1-2", "-budget", "6"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(&keys(&doc), documented().get("explore").unwrap());
    assert_eq!(doc["runs"], 6);
}
