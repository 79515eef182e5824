//! The reference's names and output lines where scripts and agents read them
//! (DESIGN.md §1), each compared with the reference's own lines, copied into
//! `fixtures/reference_lines.txt` with their sources: shrink's progress,
//! summary and `faults before the failure (N):` list, the sweep's properties
//! table header, `"interleave": true` and `"calls": N` in `preempt`, the
//! shrink JSON's `minimal_faults` and `failure {reason, faults_before_failure}`,
//! every example config the reference names (with an expected verdict), and
//! `scripts/regress.sh`. One real shrink (kvlog, from a three-fault schedule)
//! shows the lines come out of `seedfall shrink` itself.

use seedfall::fault_phrase;
use seedfall::report::PropertyTable;
use seedfall::shrink::{Candidate, Change, Shrunk, Step};
use seedfall_host::node::PropertyKind;
use seedfall_host::preempt::strategy::Strategy;
use seedfall_host::vtime::{SimDuration, SimTime};
use seedfall_host::world::{Class, Failure, Fault, Kind};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const REFERENCE: &str = include_str!("fixtures/reference_lines.txt");

/// The fixture's block (lines between blank lines, comments dropped) whose first line starts with `start`.
fn block(start: &str) -> Vec<&'static str> {
    let blocks = REFERENCE.split("\n\n").map(|b| b.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>());
    blocks.into_iter().find(|b| b.first().is_some_and(|l| l.trim_start().starts_with(start))).expect(start)
}

/// A line with its runs of spaces collapsed, for lines whose copy lost its columns.
fn collapsed(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ms(n: u64) -> SimDuration {
    SimDuration::from_ns(n * 1_000_000)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn shrink_progress_and_summary_are_the_references_lines() {
    let step = |runs, change| format!("  {}", Step { round: 1, change, runs, faults: 2 });
    let progress = [
        step(16, Change::Removed { removed: 1, of: 3 }),
        step(26, Change::Capped { ops: 107, of: 200 }),
        step(43, Change::Trimmed { to: ms(1965), from: ms(60_000) }),
    ];
    assert_eq!(progress.to_vec(), block("run   16"));

    let crash = Fault::on_node(SimTime::ZERO, Kind::from_name("crash").unwrap(), "server");
    let shrunk = Shrunk {
        seed: 1,
        before: Candidate { faults: vec![crash.clone(); 33], duration: ms(60_000), ops: None },
        after: Candidate { faults: vec![crash; 2], duration: ms(991), ops: Some(63) },
        default_ops: Some(200),
        branches: vec![],
        runs: 191,
        stopped_early: false,
        interrupted: false,
        elapsed: Duration::from_millis(14_296),
    };
    assert_eq!(shrunk.report().lines().collect::<Vec<_>>(), block("shrunk from"));
}

/// The two faults of the reference's rosedb shrink.
fn rosedb_faults() -> Vec<Fault> {
    let fault = |json: serde_json::Value| Fault::from_json(&json).unwrap();
    vec![
        fault(
            serde_json::json!({"at": "427.268ms", "kind": "crash_io", "node": "server", "until": "791.388ms", "op": 56}),
        ),
        fault(serde_json::json!({"at": "1.7052s", "kind": "crash", "node": "server", "until": "1.942589s"})),
    ]
}

#[test]
fn faults_before_the_failure_read_as_the_references() {
    let ours = fault_phrase::list(&rosedb_faults());
    let reference = block("faults before the failure");
    // The reference's two lines are not aligned alike (2 and 3 spaces before
    // times 9 and 7 long): words and order are compared, ours right-aligns.
    assert_eq!(
        ours.lines().map(collapsed).collect::<Vec<_>>(),
        reference.iter().map(|l| collapsed(l)).collect::<Vec<_>>()
    );
    assert_eq!(ours.lines().nth(2), Some("    1.7052s  crash server, restart at 1.942589s"));
}

#[test]
fn the_shrink_json_carries_the_references_fields() {
    let reference: serde_json::Value = serde_json::from_str(block("{ \"minimal_faults\"")[0]).unwrap();
    let faults = rosedb_faults();
    let candidate = |faults: Vec<Fault>| Candidate { faults, duration: ms(60_000), ops: None };
    let shrunk = Shrunk {
        seed: 1,
        before: candidate([faults.clone(), faults.clone()].concat()),
        after: candidate(faults),
        default_ops: None,
        branches: vec![],
        runs: 9,
        stopped_early: false,
        interrupted: false,
        elapsed: Duration::from_millis(900),
    };
    let failure = Failure {
        class: Class::Property,
        node: "client".into(),
        incarnation: 1,
        property: Some(PropertyKind::Fail),
        message: "acknowledged entry 27 lost: …".into(),
        at_ns: None,
    };
    let ours = seedfall::json_doc::shrunk(&shrunk, &failure, Path::new(".seedfall/seed-1.faults.json"));
    assert_eq!(ours["minimal_faults"], reference["minimal_faults"]);
    assert_eq!(ours["failure"]["reason"], reference["failure"]["reason"]);
    // Each of ours reads as the reference's line, which stops before the restart time.
    let lines = |doc: &serde_json::Value| -> Vec<String> {
        doc["failure"]["faults_before_failure"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| collapsed(l.as_str().unwrap()))
            .collect()
    };
    let (ours, theirs) = (lines(&ours), lines(&reference));
    assert_eq!(ours.len(), theirs.len());
    for (our, their) in ours.iter().zip(&theirs) {
        assert!(our.starts_with(their.as_str()), "{our:?} against the reference's {their:?}");
    }
}

#[test]
fn the_properties_table_is_headed_as_the_references() {
    let mut table = PropertyTable::default();
    table.add_counts("recovery found a torn tail", PropertyKind::Sometimes, 1000, 406);
    let ours = table.render();
    assert_eq!(ours.lines().map(collapsed).collect::<Vec<_>>(), block("property seeds reached"));
    // Our columns: each count right-aligned under its header.
    let header = ours.lines().next().unwrap();
    let row = ours.lines().nth(1).unwrap();
    assert_eq!(header.find("seeds reached").unwrap() + "seeds reached".len(), row.find("1000").unwrap() + 4, "{ours}");
    assert_eq!(header.len(), row.find("406").unwrap() + 3, "{ours}");
}

#[test]
fn the_references_preempt_names_are_config() {
    let lines = block("\"preempt\": {\"interleave\"");
    let strategy = |line: &str| {
        let text = format!(r#"{{"workload": {{"pkg": "./c"}}, {line}}}"#);
        seedfall::config::parse(&text, Path::new("/proj")).unwrap_or_else(|e| panic!("{line}: {e}")).preempt.strategy
    };
    assert_eq!(strategy(lines[0]), Strategy::Random);
    assert_eq!(strategy(lines[1]), Strategy::Calls { every: 8 });
}

#[test]
fn every_config_the_reference_names_exists_with_an_expected_verdict() {
    for name in block("examples/interleave/interleave.json") {
        let path = repo().join(name);
        assert!(path.is_file(), "{name} is missing");
        if name.ends_with(".faults.json") {
            continue;
        }
        let expected = path.parent().unwrap().join("expected.json");
        let entries: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        assert!(
            entries.as_array().unwrap().iter().any(|e| e["config"] == file),
            "{name} has no entry in {}",
            expected.display()
        );
    }
}

#[test]
fn scripts_regress_sh_runs_the_examples_runner_with_its_arguments() {
    let command = block("bash scripts/regress.sh")[0];
    let script = command.strip_prefix("bash ").unwrap();
    // An argument mistake the runner refuses before building anything: same words, same exit.
    let run = |script: &str| {
        let out = Command::new("bash")
            .arg(repo().join(script))
            .args(["--ledger", "ledger.md"])
            .env("REGRESS_SEEDS_MAX", "1")
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        (out.status.code(), text(&out))
    };
    let (code, said) = run(script);
    assert_eq!(
        (code, said.as_str()),
        (Some(2), "regress: --ledger runs every entry at its full range; unset REGRESS_SEEDS_MAX\n")
    );
    assert_eq!(run("examples/regress.sh"), (code, said));
}

#[test]
fn seedfall_shrink_prints_the_references_lines() {
    // A config of its own, so its saved schedule is this test's.
    let kvlog = repo().join("examples/kvlog");
    let config = kvlog.join("reference-names-test.json");
    std::fs::copy(kvlog.join("hostile-torn-tail.json"), &config).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kvlog-torn-tail.seed-1.three.faults.json");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["shrink", "-c", config.to_str().unwrap(), "-seed", "1", "-faults", from.to_str().unwrap()])
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&config);
    let _ = std::fs::remove_file(kvlog.join(".seedfall/reference-names-test.seed-1.faults.json"));
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let lines: Vec<&str> = said.lines().collect();
    let at = |start: &str| lines.iter().position(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start}: {said}"));
    assert!(lines.iter().any(|l| l.starts_with("  run ") && l.ends_with("2 faults  removed 1 of 3 faults")), "{said}");
    let summary = at("shrunk from 3 faults, 30s, 200 workload ops");
    assert!(lines[summary + 1].starts_with("         to 2 faults, "), "{said}");
    assert!(lines[summary + 2].starts_with("in ") && lines[summary + 2].contains(" runs, "), "{said}");
    let list = at("faults before the failure (2):");
    for line in &lines[list + 1..list + 3] {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(line.starts_with("  ") && words[0].ends_with('s'), "a time first: {said}");
        assert_eq!(words[1..6], ["crash", "server", "during", "disk", "op"], "{said}");
        assert!(words[6].starts_with('#') && line.contains(", restart at "), "{said}");
    }
}
