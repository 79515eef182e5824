//! examples/etcdraft's finding (docs/findings.md): etcd v3.7.3's
//! `wal.Create` renames the WAL's temporary directory into place without
//! fsyncing it, so under `strict_dirs` a crash loses the first segment's
//! name and the node comes back with an empty log, which raft refuses with a
//! panic. The shrunk schedule of strict.json seed 2 (committed under
//! fixtures/: one crash) fails the stock WAL and passes the WAL patched to
//! fsync the directory. The negative control whose WAL never fsyncs fails.
//! `SEEDFALL_FINDINGS=full` also shrinks seed 2 afresh (about 50 runs) to at
//! most 2 faults. The clean sweeps (seedfall.json, strict.fixed.json, 100
//! seeds each) are examples/regress.sh's.

mod example_finding;

use example_finding::{example, fixture, full, seedfall, shrink, stock_fails_and_patch_passes};

const RAFT_PANIC: &str = "Was the raft log corrupted, truncated, or lost?";

#[test]
fn wal_create_without_a_directory_fsync_loses_the_log_and_the_patch_fixes_it() {
    let schedule =
        if full() { shrink("etcdraft", "strict.json", 2, 2) } else { fixture("etcdraft-strict.seed-2.faults.json") };
    stock_fails_and_patch_passes("etcdraft", "strict.json", "strict.fixed.json", &schedule, RAFT_PANIC);
}

#[test]
fn a_wal_that_never_fsyncs_fails() {
    let config = example("etcdraft").join("nofsync.json");
    let (code, out) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1-2"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(RAFT_PANIC), "{out}");
}
