//! examples/grpckv, a gRPC key-value service and client with no seedfall
//! import (grpc-go v1.85.0, the default resolver, the ConnectParams and
//! deadlines a real user chose) through net_overlay. The variant that never
//! fsyncs its data directory loses acknowledged writes under crashes and
//! `strict_dirs`; its lowest failing seed in 1-100 shrinks to at most 2
//! faults, which fail the variant and pass the correct server over the full
//! run. The clean sweeps (seedfall.json and partition.json, 500 seeds each)
//! are examples/regress.sh's; here seeds 1-20 of each (1-100 with
//! `SEEDFALL_FINDINGS=full`).

mod example_finding;

use example_finding::{example, full, seedfall, shrink, stock_fails_and_patch_passes};

const LOST: &str = "acknowledged write lost";

#[test]
fn the_variant_without_a_directory_fsync_loses_writes_and_shrinks_to_two_faults() {
    let config = example("grpckv").join("buggy.json");
    let (code, sweep) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1-100"]);
    assert_eq!(code, 1, "{sweep}");
    assert!(sweep.contains(LOST), "{sweep}");
    let seed: u64 = sweep
        .lines()
        .find_map(|l| l.strip_prefix("lowest failing seed: "))
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{sweep}"));
    let schedule = shrink("grpckv", "buggy.json", seed, 2);
    stock_fails_and_patch_passes("grpckv", "buggy.json", "seedfall.json", &schedule, LOST);
}

#[test]
fn the_correct_service_passes_under_crashes_and_partitions() {
    let seeds = if full() { "1-100" } else { "1-20" };
    for file in ["seedfall.json", "partition.json"] {
        let config = example("grpckv").join(file);
        let (code, sweep) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", seeds]);
        assert_eq!(code, 0, "{file}: {sweep}");
        assert!(sweep.contains("(0 hit the time horizon)"), "{file}: {sweep}");
    }
}
