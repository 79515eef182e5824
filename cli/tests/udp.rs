//! UDP end to end under net_overlay: cli/tests/go/udppair, a plain Go
//! client and echo server (`net.DialUDP`, `net.ListenUDP`, `ReadFromUDP`,
//! `WriteToUDP`, read deadlines) on two nodes. One seed twice is the same
//! trace; drawn `udp_loss`/`udp_dup` and the per-datagram latency show in
//! what the client counts (missing, duplicated, out of order); and a
//! hand-written schedule of datagram faults replays exactly, with
//! `seedfall faults -remove` and `-shift` editing it by datagram number.
//! A check that any lost datagram breaks (`-every`) shrinks from the
//! sweep's many datagram faults to the one loss.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn udppair() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/udppair")
}

fn seedfall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-overlay-cache"))
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn config() -> String {
    udppair().join("seedfall.json").to_str().unwrap().to_string()
}

/// The client's summary: (received, missing, duplicated, out of order).
fn counts(trace: &str) -> (u32, u32, u32, u32) {
    let line = trace.lines().find_map(|l| l.split_once("client#1 | received ")).expect("a summary").1;
    let numbers: Vec<u32> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
    assert_eq!(numbers[1], 200, "{line}");
    (numbers[0], numbers[2], numbers[3], numbers[4])
}

fn trace_hash(trace: &str) -> &str {
    trace.lines().find_map(|l| l.strip_prefix("trace hash ")).expect("a trace hash")
}

#[test]
fn a_go_pair_exchanges_datagrams_that_are_lost_duplicated_and_reordered_the_same_way_twice() {
    let first = seedfall(&["replay", "-c", &config(), "-seed", "1"]);
    let trace = text(&first);
    assert_eq!(first.status.code(), Some(0), "{trace}");
    assert!(trace.contains("client#1 | dialed 10.0.0.1:9000 from 10.0.0.2"), "{trace}");
    assert!(trace.contains("server#1 | first datagram from 10.0.0.2"), "{trace}");
    let (received, missing, duplicated, late) = counts(&trace);
    assert!(missing > 0 && duplicated > 0 && late > 0, "{trace}");
    assert_eq!(received + missing, 200 + duplicated, "every number came back once, never or more: {trace}");
    assert!(trace.contains("* udp_loss client -> server: datagram "), "{trace}");
    assert!(trace.contains("* udp_dup server -> client: datagram "), "{trace}");
    let second = text(&seedfall(&["replay", "-c", &config(), "-seed", "1"]));
    assert_eq!(trace_hash(&second), trace_hash(&trace), "same seed, same trace");
    assert_eq!(counts(&second), counts(&trace));
    // Every seed twice: no divergence anywhere in the trace.
    let sweep = seedfall(&["run", "-c", &config(), "-seeds", "1-10", "-check"]);
    assert_eq!(sweep.status.code(), Some(0), "{}", text(&sweep));
}

#[test]
fn a_schedule_of_datagram_faults_replays_exactly_and_edits_by_datagram_number() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("udp-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("udp.faults.json");
    std::fs::write(
        &file,
        r#"[{"at": "10ms", "kind": "udp_loss", "node": "client", "to": "server", "op": 5},
            {"at": "11ms", "kind": "udp_dup", "node": "server", "to": "client", "op": 7, "latency": "1ms"}]"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let replay = || {
        let out = seedfall(&["replay", "-c", &config(), "-seed", "1", "-faults", f]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        text(&out)
    };
    // Only the schedule's faults, whatever the config's probabilities.
    let trace = replay();
    let (received, missing, duplicated, _) = counts(&trace);
    assert_eq!((received, missing, duplicated), (200, 1, 1), "{trace}");
    assert!(trace.contains("* udp_loss client -> server: datagram 5 lost"), "{trace}");
    assert!(trace.contains("* udp_dup server -> client: datagram 7 sent twice, the copy after 1ms"), "{trace}");
    let inspect = text(&seedfall(&["inspect", "-faults", f]));
    assert!(inspect.contains("udp_loss    client -> server at datagram 5"), "{inspect}");

    let out = seedfall(&["faults", "-faults", f, "-shift", "1=+3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(replay().contains("* udp_dup server -> client: datagram 10 sent twice"));
    let out = seedfall(&["faults", "-faults", f, "-shift", "0=-5ms"]);
    assert!(text(&out).contains("recorded by datagram on its link: DELTA is a count"), "{}", text(&out));
    let out = seedfall(&["faults", "-faults", f, "-remove", "0"]);
    assert!(out.status.success(), "{}", text(&out));
    let trace = replay();
    let (received, missing, duplicated, _) = counts(&trace);
    assert_eq!((received, missing, duplicated), (201, 0, 1), "the loss is gone, the duplicate stays: {trace}");
    assert!(!trace.contains("udp_loss"), "{trace}");
}

#[test]
fn shrink_cuts_datagram_faults_to_the_one_loss_that_matters() {
    let every = udppair().join("every.json");
    let out = seedfall(&["shrink", "-c", every.to_str().unwrap(), "-seed", "1"]);
    let report = text(&out);
    assert!(out.status.success(), "{report}");
    let before = report.lines().find_map(|l| l.trim_start().strip_prefix("shrunk from")).expect(&report);
    let drawn: usize = before.split_whitespace().next().unwrap().parse().unwrap();
    assert!(drawn > 5, "the sweep's schedule has many datagram faults: {report}");
    let after = report.lines().find_map(|l| l.trim_start().strip_prefix("to ")).expect(&report);
    assert!(after.trim_start().starts_with("1 faults"), "{report}");

    let saved = std::fs::read_to_string(udppair().join(".seedfall/every.seed-1.faults.json")).unwrap();
    let schedule: serde_json::Value = serde_json::from_str(&saved).unwrap();
    let faults = schedule["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{saved}");
    assert_eq!(faults[0]["kind"], "udp_loss", "{saved}");
}
