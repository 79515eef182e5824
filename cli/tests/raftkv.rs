//! examples/raftkv's election check: stock hashicorp/raft v1.8.0 over its
//! own TCP transport through net_overlay elects a leader among 3 nodes, and
//! after every heal of multi-group and one-way partitions all 3 know the
//! same leader within 5 s of virtual time (seeds 1-50 with
//! `SEEDFALL_FINDINGS=full`, 1-10 by default; examples/regress.sh runs the
//! 50). A bound too short to re-elect in fails, so the check can fail.
//!
//! The hashicorp/raft finding (docs/findings.md): with `strict_dirs` the
//! shrunk schedule of strict.json seed 1 (committed under fixtures/) makes the
//! stock library panic on restart, and the library patched to fsync the
//! snapshot directory passes it over the full run. `SEEDFALL_FINDINGS=full`
//! also shrinks seed 1 afresh (about 100 runs) to at most 3 faults.
//! Linearizability (lin.json, stale-reads.json) and acknowledged-write
//! durability (durable.json) are checked by examples/regress.sh.

mod example_finding;

use example_finding::{example, fixture, full, seedfall, shrink, stock_fails_and_patch_passes};

fn seeds() -> &'static str {
    if full() { "1-50" } else { "1-10" }
}

#[test]
fn every_node_knows_the_leader_within_5s_of_each_heal() {
    let config = example("raftkv").join("elect.json");
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
    let config = example("raftkv").join("elect-too-soon.json");
    let (code, sweep) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1-3"]);
    assert_eq!(code, 1, "{sweep}");
    assert!(sweep.contains("client#1: within 100ms of a heal every node knows the same leader"), "{sweep}");
}

#[test]
fn a_snapshot_renamed_before_its_directory_is_synced_is_lost_and_the_patch_fixes_it() {
    let schedule =
        if full() { shrink("raftkv", "strict.json", 1, 3) } else { fixture("raftkv-strict.seed-1.faults.json") };
    let message = "exited with status 2: panic: log not found";
    stock_fails_and_patch_passes("raftkv", "strict.json", "strict.fixed.json", &schedule, message);
}
