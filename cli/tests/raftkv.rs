//! examples/raftkv's election check: stock hashicorp/raft v1.8.0 over its
//! own TCP transport through net_overlay elects a leader among 3 nodes, and
//! after every heal of multi-group and one-way partitions all 3 know the
//! same leader within 5 s of virtual time (seeds 1-50 with
//! `SEEDFALL_FINDINGS=full`, 1-10 by default; examples/regress.sh runs the
//! 50). A bound too short to re-elect in fails, so the check can fail.

use std::path::{Path, PathBuf};
use std::process::Command;

fn raftkv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/raftkv")
}

fn seedfall(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("raftkv-cache"))
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn seeds() -> &'static str {
    if std::env::var("SEEDFALL_FINDINGS").as_deref() == Ok("full") { "1-50" } else { "1-10" }
}

#[test]
fn every_node_knows_the_leader_within_5s_of_each_heal() {
    let config = raftkv().join("elect.json");
    let config = config.to_str().unwrap();
    let (code, sweep) = seedfall(&["run", "-c", config, "-seeds", seeds()]);
    assert_eq!(code, 0, "{sweep}");

    let (code, trace) = seedfall(&["replay", "-c", config, "-seed", "1"]);
    assert_eq!(code, 0, "{trace}");
    let rounds = trace.lines().filter(|l| l.contains("client#1 | round ") && l.contains(": leader n")).count();
    assert_eq!(rounds, 5, "{trace}");
    assert!(trace.lines().any(|l| l.contains("* partition ") && l.contains(" -> ")), "no one-way partition: {trace}");
    assert!(
        trace.lines().any(|l| l.contains("* partition ") && l.matches(" | ").count() >= 2),
        "no 3-group partition: {trace}"
    );
    assert!(trace.contains("stepping down"), "no partition cost a leader its quorum: {trace}");
}

#[test]
fn a_bound_too_short_to_re_elect_in_fails() {
    let config = raftkv().join("elect-too-soon.json");
    let (code, sweep) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1-3"]);
    assert_eq!(code, 1, "{sweep}");
    assert!(sweep.contains("client#1: within 100ms of a heal every node knows the same leader"), "{sweep}");
}
