//! `seedfall shrink`, fault schedules, `replay -faults`, `verify`, `inspect`
//! and `faults`, on the buggy kvlog variants under hostile configs: each
//! first failing seed (at least 10 faults) shrinks to at most 3; the saved
//! schedule replays to the same failure; removing any one remaining fault
//! makes the run pass or fail differently (1-minimal); `-j 1` and `-j 2` give
//! the same schedule and run count; a schedule that passes only because its
//! duration was cut short is not accepted by `verify`; a pct preemption point
//! is a schedule entry that replays the race it causes and can be removed;
//! `replay FILE` and `inspect FILE` take a schedule as their argument.

use seedfall_host::world::verdict::without_numbers;
use std::path::{Path, PathBuf};
use std::process::Output;

fn kvlog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog")
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shrink-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn seedfall(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The `  client#1: …` line of a failing replay, numbers kept.
fn failure_line(out: &str) -> Option<String> {
    let mut lines = out.lines().skip_while(|l| !l.starts_with("FAIL seed"));
    lines.next()?;
    lines.next().map(|l| l.trim().to_string())
}

fn faults_in(out: &str, label: &str) -> usize {
    let line = out.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("no {label} in {out}"));
    line.trim_start()[label.len()..].trim().split(' ').next().unwrap().parse().unwrap()
}

fn shrink_and_check(config_name: &str) {
    let config = kvlog().join(format!("{config_name}.json"));
    let config = config.to_str().unwrap();
    let out = seedfall(&["shrink", "-c", config, "-seed", "1"]);
    let report = text(&out);
    assert!(out.status.success(), "{report}");
    let before = faults_in(&report, "shrunk from");
    let after = faults_in(&report, "to ");
    assert!(before >= 10, "the hostile config's failing run carries at least 10 faults: {report}");
    assert!(after <= 3, "shrunk to at most 3 faults: {report}");
    let schedule = kvlog().join(format!(".seedfall/{config_name}.seed-1.faults.json"));
    assert!(report.contains(&format!("saved {}", schedule.display())) || report.contains("saved "), "{report}");
    let schedule_text = std::fs::read_to_string(&schedule).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&schedule_text).unwrap();
    assert_eq!(doc["shrunk_from"]["faults"], before, "the reference format: {schedule_text}");
    assert!(doc["shrunk_from"]["duration"].is_string(), "{schedule_text}");

    let original = failure_line(&text(&seedfall(&["replay", "-c", config, "-seed", "1"]))).expect("seed 1 fails");
    let replayed = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", schedule.to_str().unwrap()]);
    assert_eq!(replayed.status.code(), Some(1), "{}", text(&replayed));
    let replayed_line = failure_line(&text(&replayed)).expect("the schedule fails");
    assert_eq!(without_numbers(&replayed_line), without_numbers(&original), "fails the same way");

    for i in 0..after {
        let edited = tmp(&format!("{config_name}-without-{i}.json"));
        let out = seedfall(&[
            "faults",
            "-faults",
            schedule.to_str().unwrap(),
            "-remove",
            &i.to_string(),
            "-o",
            edited.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out));
        let run = text(&seedfall(&["replay", "-c", config, "-seed", "1", "-faults", edited.to_str().unwrap()]));
        let same = failure_line(&run).is_some_and(|l| without_numbers(&l) == without_numbers(&original));
        assert!(
            !same,
            "removing fault {i} must change the outcome (1-minimal), but it still fails the same way:\n{run}"
        );
    }
}

#[test]
fn ack_before_fsync_shrinks_to_a_minimal_schedule() {
    shrink_and_check("hostile");
}

#[test]
fn torn_tail_shrinks_to_a_minimal_schedule() {
    shrink_and_check("hostile-torn-tail");
}

#[test]
fn fsync_retry_shrinks_to_a_minimal_schedule() {
    shrink_and_check("hostile-fsync-retry");
}

#[test]
fn worker_count_changes_neither_the_schedule_nor_the_run_count() {
    // A copy of the config, so this test's saved schedule is its own.
    let config = kvlog().join("shrink-jobs-test.json");
    std::fs::copy(kvlog().join("hostile-fsync-retry.json"), &config).unwrap();
    let saved = kvlog().join(".seedfall/shrink-jobs-test.seed-1.faults.json");
    let shrink = |jobs: &str| {
        let out = seedfall(&["shrink", "-c", config.to_str().unwrap(), "-seed", "1", "-j", jobs]);
        assert!(out.status.success(), "{}", text(&out));
        let said = text(&out);
        let runs = said.lines().find_map(|l| l.strip_prefix("in ")?.split_once(" runs, ")).unwrap().0.to_string();
        (std::fs::read_to_string(&saved).unwrap(), runs)
    };
    let one = shrink("1");
    let two = shrink("2");
    let _ = std::fs::remove_file(&config);
    assert_eq!(one, two, "-j 1 and -j 2: same schedule, same run count");
}

#[test]
fn verify_rejects_a_schedule_that_passes_only_because_it_was_cut_short() {
    // A copy of the config, so this test's saved schedule is its own.
    let config_file = kvlog().join("shrink-verify-test.json");
    std::fs::copy(kvlog().join("hostile.json"), &config_file).unwrap();
    let config = config_file.to_str().unwrap();
    // Seed 1's failing run, shrunk, then cut short before its failure.
    let out = seedfall(&["shrink", "-c", config, "-seed", "1", "-budget", "200"]);
    assert!(out.status.success(), "{}", text(&out));
    let shrunk = std::fs::read_to_string(kvlog().join(".seedfall/shrink-verify-test.seed-1.faults.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&shrunk).unwrap();
    doc["duration"] = "1ms".into();
    let cut = tmp("cut-short.faults.json");
    std::fs::write(&cut, doc.to_string()).unwrap();

    let replay = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", cut.to_str().unwrap()]);
    let replay_text = text(&replay);
    assert_eq!(replay.status.code(), Some(0), "{replay_text}");
    assert!(replay_text.contains("hit the time horizon at t=1ms"), "{replay_text}");
    assert!(
        replay_text.contains("cut short at 1ms (the config runs 30s): a pass here is not proof of a fix"),
        "{replay_text}"
    );

    let verify = seedfall(&["verify", "-c", config, "-faults", cut.to_str().unwrap()]);
    let verify_text = text(&verify);
    assert_eq!(verify.status.code(), Some(1), "{verify_text}");
    assert!(verify_text.contains("not verified: the schedule still fails over the full run (30s)"), "{verify_text}");

    let inspect = text(&seedfall(&["inspect", "-faults", cut.to_str().unwrap()]));
    let _ = std::fs::remove_file(&config_file);
    assert!(inspect.contains("seed 1, duration 1ms") && inspect.contains("crash"), "{inspect}");
}

/// `seedfall inspect FILE` and `seedfall replay FILE`: the schedule as the
/// argument; replay takes the seed from it and, without -c, the config whose
/// `.seedfall/` holds it, and runs exactly what the -c/-seed/-faults form runs.
#[test]
fn replay_and_inspect_take_a_schedule_as_their_argument() {
    let config_file = kvlog().join("positional-test.json");
    std::fs::copy(kvlog().join("seedfall.json"), &config_file).unwrap();
    let schedule = kvlog().join(".seedfall/positional-test.seed-4.faults.json");
    std::fs::create_dir_all(schedule.parent().unwrap()).unwrap();
    let crash = r#"{"at": "100ms", "kind": "crash", "node": "server", "until": "300ms"}"#;
    std::fs::write(&schedule, format!(r#"{{"seed": 4, "faults": [{crash}], "duration": "2s"}}"#)).unwrap();
    let (config, file) = (config_file.to_str().unwrap(), schedule.to_str().unwrap());

    let inspect = seedfall(&["inspect", file]);
    assert!(inspect.status.success(), "{}", text(&inspect));
    assert_eq!(inspect.stdout, seedfall(&["inspect", "-faults", file]).stdout);
    assert!(text(&inspect).contains("seed 4, duration 2s"), "{}", text(&inspect));

    let by_flags = seedfall(&["replay", "-c", config, "-seed", "4", "-faults", file]);
    let positional = seedfall(&["replay", file]);
    let seed_only = seedfall(&["replay", "-c", config, "4"]);
    let seed_flag = seedfall(&["replay", "-c", config, "-seed", "4"]);
    let _ = std::fs::remove_file(&config_file);
    let hash = |out: &Output| text(out).lines().find(|l| l.starts_with("trace hash ")).map(str::to_string);
    assert!(hash(&by_flags).is_some(), "{}", text(&by_flags));
    assert_eq!(hash(&positional), hash(&by_flags), "{}", text(&positional));
    assert!(hash(&seed_flag).is_some(), "{}", text(&seed_flag));
    assert_eq!(hash(&seed_only), hash(&seed_flag), "`replay 4` is seed 4: {}", text(&seed_only));
    assert!(
        text(&positional).contains(&format!("the config beside the schedule's .seedfall/: {config}")),
        "{}",
        text(&positional)
    );
}

#[test]
fn schedule_edits_and_bad_files_are_reported() {
    let file = tmp("edit.faults.json");
    std::fs::write(
        &file,
        r#"[{"at": "100ms", "kind": "crash", "node": "server", "until": "300ms"},
            {"at": "1s", "kind": "fsync_eio", "node": "server", "op": 5000}]"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = seedfall(&["faults", "-faults", f, "-shift", "0=-50ms", "-shift", "1=-1000"]);
    assert!(out.status.success(), "{}", text(&out));
    let edited = std::fs::read_to_string(&file).unwrap();
    assert!(edited.contains("\"at\": \"50ms\"") && edited.contains("\"until\": \"250ms\""), "{edited}");
    assert!(edited.contains("\"op\": 4000"), "{edited}");
    let out = seedfall(&["faults", "-faults", f, "-shift", "1=-5ms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("recorded by disk operation: DELTA is a count"), "{}", text(&out));
    // Issue 19: shifts wrapped silently; past u64 they are rejected and the file is untouched.
    for shift in ["1=18446744073709551615", "1=+18446744073709547616"] {
        let out = seedfall(&["faults", "-faults", f, "-shift", shift]);
        assert_eq!(out.status.code(), Some(2), "{shift}: {}", text(&out));
        assert!(text(&out).contains("past the largest value u64 holds"), "{shift}: {}", text(&out));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
    let out = seedfall(&["faults", "-faults", f, "-remove", "7"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("--remove 7: no such fault (the schedule has 2)"), "{}", text(&out));
    std::fs::write(&file, r#"{"faults": [{"kind": "crash", "nod": "x"}]}"#).unwrap();
    let out = seedfall(&["inspect", "-faults", f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("fault 0: unknown field `nod`"), "{}", text(&out));
}

#[test]
fn a_lost_write_shrinks_to_it_and_its_crash_and_removing_it_makes_the_run_pass() {
    // A copy of the config, so this test's saved schedule is its own.
    let config_file = kvlog().join("shrink-lost-write-test.json");
    std::fs::copy(kvlog().join("lost-write.json"), &config_file).unwrap();
    let config = config_file.to_str().unwrap();
    let out = seedfall(&["shrink", "-c", config, "-seed", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    let schedule = kvlog().join(".seedfall/shrink-lost-write-test.seed-1.faults.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&schedule).unwrap()).unwrap();
    let faults = doc["faults"].as_array().unwrap();
    let lost = faults.iter().position(|f| f["kind"] == "lost_write").unwrap_or_else(|| panic!("{doc}"));
    let (op, page) = (faults[lost]["op"].as_u64().unwrap(), faults[lost]["page"].as_u64().unwrap());
    assert!(faults.len() <= 3, "the lost write and the crash that shows it: {doc}");
    let inspect = text(&seedfall(&["inspect", "-faults", schedule.to_str().unwrap()]));
    assert!(inspect.contains(&format!("lost_write  server at disk op {op}, page {page} left old")), "{inspect}");

    let replayed = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", schedule.to_str().unwrap()]);
    let replayed_text = text(&replayed);
    assert_eq!(replayed.status.code(), Some(1), "{replayed_text}");
    let line = format!("* server: disk op {op} (sync): page {page} lost, the sync reported success");
    assert!(replayed_text.contains(&line), "the trace says where it fired: {replayed_text}");
    assert!(replayed_text.contains("acknowledged entry"), "{replayed_text}");

    let without = tmp("lost-write-removed.json");
    let out = seedfall(&[
        "faults",
        "-faults",
        schedule.to_str().unwrap(),
        "-remove",
        &lost.to_string(),
        "-o",
        without.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let passed = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", without.to_str().unwrap()]);
    let _ = std::fs::remove_file(&config_file);
    let passed_text = text(&passed);
    assert_eq!(passed.status.code(), Some(0), "without the lost write the run passes: {passed_text}");
    assert!(!passed_text.contains("the sync reported success"), "and it does not fire: {passed_text}");
}

#[test]
fn lost_and_misdirected_write_entries_are_edited_by_op_and_need_their_pages() {
    let file = tmp("misplaced.faults.json");
    std::fs::write(
        &file,
        r#"[{"at": "1s", "kind": "lost_write", "node": "server", "op": 40, "page": 2},
            {"at": "2s", "kind": "misdirected_write", "node": "server", "op": 90, "page": 0, "to": 3}]"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let inspect = text(&seedfall(&["inspect", "-faults", f]));
    assert!(inspect.contains("lost_write  server at disk op 40, page 2 left old"), "{inspect}");
    assert!(inspect.contains("misdirected_write server at disk op 90, page 0 written to page 3"), "{inspect}");
    let out = seedfall(&["faults", "-faults", f, "-shift", "0=+5", "-shift", "1=-10"]);
    assert!(out.status.success(), "{}", text(&out));
    let edited: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let ops: Vec<u64> = edited["faults"].as_array().unwrap().iter().map(|f| f["op"].as_u64().unwrap()).collect();
    assert_eq!(ops, [45, 80], "shifted in disk operations: {edited}");
    assert_eq!((edited["faults"][1]["page"].as_u64(), edited["faults"][1]["to"].as_u64()), (Some(0), Some(3)));
    let out = seedfall(&["faults", "-faults", f, "-shift", "0=-5ms"]);
    assert!(text(&out).contains("recorded by disk operation: DELTA is a count"), "{}", text(&out));
    let out = seedfall(&["faults", "-faults", f, "-remove", "0"]);
    assert!(out.status.success(), "{}", text(&out));
    let left = std::fs::read_to_string(&file).unwrap();
    assert!(!left.contains("lost_write") && left.contains("misdirected_write"), "{left}");
    std::fs::write(&file, r#"[{"at": "1s", "kind": "misdirected_write", "node": "server", "op": 4, "page": 1}]"#)
        .unwrap();
    let out = seedfall(&["inspect", "-faults", f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("a misdirected_write fault needs `to` (a page number)"), "{}", text(&out));
}

#[test]
fn preemption_points_are_schedule_entries_that_replay_and_can_be_removed() {
    // The check-then-act race of the preemption tests, as a workload under pct.
    let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world");
    let config = world.join("race.json");
    let config = config.to_str().unwrap();
    let out = seedfall(&["shrink", "-c", config, "-seed", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("preempt race at counted call #"), "{}", text(&out));
    let schedule = world.join(".seedfall/race.seed-1.faults.json");
    let replayed = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", schedule.to_str().unwrap()]);
    assert_eq!(replayed.status.code(), Some(1), "the preemption point reproduces the race: {}", text(&replayed));
    let without = tmp("race-without-preempt.json");
    let out =
        seedfall(&["faults", "-faults", schedule.to_str().unwrap(), "-remove", "0", "-o", without.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let passed = seedfall(&["replay", "-c", config, "-seed", "1", "-faults", without.to_str().unwrap()]);
    assert_eq!(passed.status.code(), Some(0), "without the point the race does not happen: {}", text(&passed));
}

#[test]
fn pct_replay_says_its_change_points_and_counts_in_the_reference_format() {
    let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world");
    let config = world.join("race.json");
    let config = config.to_str().unwrap();
    let out = seedfall(&["replay", "-c", config, "-seed", "1"]);
    let out = text(&out);
    let header =
        "* preempt: pct, depth 2, change points per node: 1, drawn over the first 400000 counted function calls";
    assert!(out.lines().next().is_some_and(|l| l.ends_with(header)), "{out}");
    let fired: Vec<&str> = out.lines().filter(|l| l.contains("* fault preempt ")).collect();
    assert_eq!(fired.len(), 1, "{out}");
    // The point names the Go function it fired in: the loop's `work`, at its `func` line.
    let (op, site) = fired[0]
        .split_once("* fault preempt race#1's running goroutine at counted call ")
        .and_then(|(_, rest)| rest.split_once(' '))
        .unwrap_or_else(|| panic!("{out}"));
    let op: u64 = op.parse().unwrap();
    assert_eq!(site, "(in main.work, main.go:18)", "{out}");
    let last = out.lines().find(|l| l.contains("* pct: race ran ")).unwrap_or_else(|| panic!("{out}"));
    let (ran, points) =
        last.split_once("* pct: race ran ").unwrap().1.split_once(" counted calls, change points fired: ").unwrap();
    assert!(ran.parse::<u64>().unwrap() > op && points == "1", "{last}");

    // The schedule entry, as the reference writes it.
    let saved = seedfall(&["shrink", "-c", config, "-seed", "1"]);
    assert!(saved.status.success(), "{}", text(&saved));
    let schedule = world.join(".seedfall/race.seed-1.faults.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&schedule).unwrap()).unwrap();
    let entry = &doc["faults"][0];
    assert_eq!(
        (entry["kind"].as_str(), entry["node"].as_str(), entry["until"].as_str()),
        (Some("preempt"), Some("race"), Some("0s")),
        "{entry}"
    );
    assert_eq!(entry["op"].as_u64(), Some(op), "{entry}");
    // The reference's fields, and `where` for people (its reader need not know it).
    assert_eq!(entry["where"], "main.work, main.go:18", "{entry}");
    let mut keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["at", "kind", "node", "op", "until", "where"], "{entry}");
}
