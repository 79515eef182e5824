//! No silent passes (DESIGN.md §1) through `seedfall run`: a supervised
//! server crash-looping on a port clash is a `crash_loop` finding naming
//! its last stderr line; a workload whose history operations never
//! complete, or that calls sim.Progress nowhere it reaches, is
//! `no_progress`; a workload that never exits warns of the horizon unless
//! the config expects it; the fault line counts the seeds each enabled kind
//! fired in and warns of one that fired in none, in the text, `--json` and
//! the report's JSON. Neither verdict fires falsely: a workload using
//! neither sim.Progress nor the history passes, and a kvlog server crashed
//! twice a second with short downtimes is no crash loop.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn world_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("silent-passes").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `seedfall ARGS` with the world tests' shared cache: (exit code, stdout, stderr).
fn seedfall(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// `run -c CONFIG -seeds SEEDS --json` plus `extra`: exit code, stdout and the JSON document.
fn sweep(config: &Path, seeds: &str, extra: &[&str]) -> (i32, String, Value) {
    let json = scratch(&format!("{}-{seeds}", config.file_stem().unwrap().to_string_lossy())).join("run.json");
    let mut args = vec!["run", "-c", config.to_str().unwrap(), "-seeds", seeds, "--json", json.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = seedfall(&args);
    let doc = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, format!("{stdout}{stderr}"), serde_json::from_str(&doc).unwrap())
}

fn first_classes(doc: &Value) -> Vec<String> {
    let failing = doc["failures"].as_array().unwrap();
    failing.iter().map(|seed| seed["failures"][0]["class"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_server_crash_looping_on_a_port_clash_is_a_crash_loop_finding_naming_its_last_stderr_line() {
    let config = world_dir().join("crashloop.json");
    let (code, out, doc) = sweep(&config, "1", &["-check"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("  server#5: crash loop: "), "the fifth boot makes it a loop: {out}");
    // wasip1's errno text is capitalised ("Address already in use"), Linux's is not.
    let line = out.lines().find(|l| l.starts_with("  server#5: crash loop: ")).unwrap_or_default();
    assert!(
        line.to_lowercase().ends_with("(exited with status 1: listen tcp server:7000: bind: address already in use)"),
        "{out}"
    );
    assert_eq!(first_classes(&doc), ["crash_loop"], "{doc}");
    assert_eq!((doc["crash_loops"].as_u64(), doc["no_progress"].as_u64()), (Some(1), Some(0)));
    assert_eq!(doc["diverged"], serde_json::json!([]), "the same seed twice gives the same trace");
    let finding = &doc["findings"][0];
    assert_eq!((finding["class"].as_str(), finding["node"].as_str()), (Some("crash_loop"), Some("server")));
    let (code, replay, _) = seedfall(&["replay", "-c", config.to_str().unwrap(), "-seed", "1"]);
    assert_eq!(code, 1, "{replay}");
    assert!(replay.contains("server#5: crash loop: 5 boots in a row ended by themselves during boot"), "{replay}");
}

#[test]
fn a_workload_that_never_exits_warns_of_the_horizon_and_the_faults_that_never_fired() {
    let config = world_dir().join("horizon.json");
    let report = scratch("horizon-report").join("sweep.html");
    let (code, out, doc) = sweep(&config, "1-3", &["-report", report.to_str().unwrap()]);
    assert_eq!(code, 0, "a horizon passes: {out}");
    let warning = format!(
        "warning: 3 of 3 seeds hit the time horizon before the workload exited, lowest 1 (replay: seedfall replay \
         -c {} -seed 1)",
        config.display()
    );
    assert!(out.contains(&warning), "{out}");
    assert!(
        out.contains(r#"A workload meant to run until `duration` says so in the config: "expect": {"horizon": true}"#)
    );
    assert!(out.lines().any(|l| l == "faults: crash in 3 of 3 seeds, fsync_eio in 0 of 3 seeds"), "{out}");
    assert!(out.contains("warning: enabled but fired in none of 3 seeds: fsync_eio ("), "{out}");
    assert!(out.lines().any(|l| l == "ok 3 seeds passed (3 hit the time horizon)"), "{out}");
    assert_eq!((doc["horizon"].as_u64(), doc["lowest_horizon_seed"].as_u64()), (Some(3), Some(1)));
    let fault_seeds = serde_json::json!({"crash": 3, "fsync_eio": 0});
    assert_eq!(doc["fault_seeds"], fault_seeds);
    assert_eq!((doc["crash_loops"].as_u64(), doc["no_progress"].as_u64()), (Some(0), Some(0)), "uses neither");
    let page: Value = serde_json::from_str(&std::fs::read_to_string(report.with_extension("json")).unwrap()).unwrap();
    assert_eq!(page["summary"]["fault_seeds"], fault_seeds);
    assert_eq!((page["summary"]["horizon"].as_u64(), page["summary"]["crash_loops"].as_u64()), (Some(3), Some(0)));

    let (code, out, doc) = sweep(&world_dir().join("horizon-expected.json"), "1-3", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("warning:"), "the config expects the horizon: {out}");
    assert!(out.lines().any(|l| l == "ok 3 seeds passed (3 hit the time horizon)"), "{out}");
    assert_eq!(doc["expect"], serde_json::json!({"horizon": true}));
}

#[test]
fn a_workload_without_progress_fails_as_no_progress_and_one_using_neither_way_passes() {
    let (code, out, doc) = sweep(&world_dir().join("noack.json"), "1-2", &[]);
    assert_eq!(code, 1, "{out}");
    let line = "  client#1: no progress: sim.Progress was never called and no history operation completed \
                (5 operations and 0 transactions invoked)";
    assert!(out.contains(line), "{out}");
    assert_eq!(first_classes(&doc), ["no_progress", "no_progress"]);
    assert_eq!(doc["no_progress"].as_u64(), Some(2));

    let (code, out, doc) = sweep(&world_dir().join("noprogress.json"), "1", &[]);
    assert_eq!(code, 1, "imports sim.Progress, never reaches it: {out}");
    assert_eq!(first_classes(&doc), ["no_progress"]);
    let (code, out, _) = sweep(&world_dir().join("progress.json"), "1", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.lines().any(|l| l == "ok 1 seeds passed (0 hit the time horizon)"), "{out}");
}

#[test]
fn a_kvlog_server_crashed_twice_a_second_with_short_downtimes_is_no_crash_loop() {
    let kvlog = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(kvlog.join("seedfall.fixed.json")).unwrap()).unwrap();
    doc["faults"]["crash_per_sec"] = 2.into();
    doc["faults"]["crash_downtime"] = serde_json::json!(["10ms", "100ms"]);
    // Beside the original: its package paths are relative.
    let config = kvlog.join("crash-often-test.json");
    std::fs::write(&config, doc.to_string()).unwrap();
    let (code, out, doc) = sweep(&config, "1-3", &[]);
    let _ = std::fs::remove_file(&config);
    assert_eq!(code, 0, "{out}");
    assert_eq!(doc["crash_loops"].as_u64(), Some(0), "{out}");
    assert_eq!(doc["fault_seeds"]["crash"].as_u64(), Some(3), "{out}");
}
