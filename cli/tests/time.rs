//! Time faults through the CLI, on examples/lease: a paused replica goes
//! silent and its peers time out during the pause; shrink shortens a pause
//! and brings a clock skew and a clock jump toward zero, and each shrunk
//! schedule replays the same failure; a finally check that fails fails the
//! run on node `finally` with the last line it wrote.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

/// The lease configs share one build directory: one test at a time.
static LEASE: Mutex<()> = Mutex::new(());

fn lease(config: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/lease").join(config).display().to_string()
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

fn ns(go: &str) -> u64 {
    seedfall_host::vtime::parse_go_duration(go).unwrap_or_else(|e| panic!("{go}: {e}"))
}

fn signed_ns(go: &str) -> i64 {
    seedfall_host::vtime::parse_signed_go_duration(go).unwrap_or_else(|e| panic!("{go}: {e}"))
}

/// The `[t]` of a trace line, in ns.
fn time_of(line: &str) -> u64 {
    ns(&line[1..line.find(']').expect("a trace line")])
}

/// Shrinks `seed` of `config` and returns the saved schedule's faults.
fn shrink(config: &str, seed: &str) -> Vec<serde_json::Value> {
    let out = seedfall(&["shrink", "-c", &lease(config), "-seed", seed]);
    assert!(out.status.success(), "{}", text(&out));
    let stem = config.strip_suffix(".json").unwrap();
    let prefix = if stem == "seedfall" { String::new() } else { format!("{stem}.") };
    let file: PathBuf = Path::new(&lease(".seedfall")).join(format!("{prefix}seed-{seed}.faults.json"));
    let schedule: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let replay = seedfall(&["replay", "-c", &lease(config), "-seed", seed, "-faults", file.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(1), "the shrunk schedule still fails: {}", text(&replay));
    assert!(text(&replay).contains("stale read"), "the same way: {}", text(&replay));
    schedule["faults"].as_array().unwrap().clone()
}

#[test]
fn a_paused_replica_is_silent_and_its_peers_time_out_meanwhile() {
    let _one = LEASE.lock().unwrap_or_else(|e| e.into_inner());
    let out = seedfall(&["replay", "-c", &lease("seedfall.json"), "-seed", "4"]);
    let trace = text(&out);
    assert_eq!(out.status.code(), Some(1), "{trace}");
    let pause = trace.lines().find(|l| l.contains("* pause r1#1 until ")).expect("r1 is paused");
    let (from, until) = (time_of(pause), ns(pause.rsplit(' ').next().unwrap()));
    let r1_lines: Vec<u64> = trace.lines().filter(|l| l.contains("] r1#1")).map(time_of).collect();
    assert!(r1_lines.iter().all(|t| !(from + 1..until).contains(t)), "r1 says nothing while paused");
    let timeouts: Vec<u64> =
        trace.lines().filter(|l| l.contains("to r1:7000") && l.contains("i/o timeout")).map(time_of).collect();
    assert!(timeouts.iter().any(|t| (from..until).contains(t)), "the client's calls to r1 time out: {timeouts:?}");
    assert!(trace.contains("stale read: r1 answered"), "{trace}");
}

#[test]
fn shrink_shortens_pauses_and_brings_skews_and_jumps_toward_zero() {
    let _one = LEASE.lock().unwrap_or_else(|e| e.into_inner());
    let drawn = |config: &str, seed: &str, marker: &str| -> Vec<String> {
        let out = seedfall(&["replay", "-c", &lease(config), "-seed", seed]);
        text(&out).lines().filter(|l| l.contains(marker)).map(str::to_string).collect()
    };

    let pause = drawn("seedfall.json", "4", "* pause r1#1 until ");
    let original = ns(pause[0].rsplit(' ').next().unwrap()) - time_of(&pause[0]);
    let faults = shrink("seedfall.json", "4");
    let pauses: Vec<&serde_json::Value> = faults.iter().filter(|f| f["kind"] == "pause").collect();
    assert_eq!(pauses.len(), 1, "{faults:?}");
    let length = ns(pauses[0]["until"].as_str().unwrap()) - ns(pauses[0]["at"].as_str().unwrap());
    assert!(length < original, "the pause was shortened: {length} ns of {original}");

    for (config, seed, marker, kind, field) in [
        ("skew.json", "1", "its wall clock is off by ", "clock_skew", "offset"),
        ("jump.json", "2", " by ", "clock_jump", "jump"),
    ] {
        let originals: Vec<i64> = drawn(config, seed, &format!("* {}", kind.replace('_', " ")))
            .iter()
            .map(|l| signed_ns(l.split(marker).nth(1).unwrap().split(' ').next().unwrap()))
            .collect();
        let largest = originals.iter().map(|o| o.unsigned_abs()).max().expect("the seed draws one");
        let faults = shrink(config, seed);
        let kept: Vec<i64> =
            faults.iter().filter(|f| f["kind"] == kind).map(|f| signed_ns(f[field].as_str().unwrap())).collect();
        assert!(!kept.is_empty(), "{config}: {faults:?}");
        assert!(kept.iter().all(|k| k.unsigned_abs() <= largest), "{config}: {kept:?} within {originals:?}");
        assert!(
            kept.iter().any(|k| !originals.contains(k)),
            "{config}: a {kind} was brought toward zero: {kept:?} from {originals:?}"
        );
    }
}

#[test]
fn a_failing_finally_check_fails_the_run_with_its_last_words() {
    let _one = LEASE.lock().unwrap_or_else(|e| e.into_inner());
    let out = seedfall(&["run", "-c", &lease("finally-fails.json"), "-seeds", "1"]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("  finally#1: exited with status 1: lease check: no replica served a read within 1s"),
        "{report}"
    );
}
