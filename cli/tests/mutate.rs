//! `seedfall mutate` on examples/kvlog: the fixed store's workload notices
//! every mutant of the simulated OS (fsync, directory fsync, O_SYNC, a
//! crash during a rename); the variant that never fsyncs a directory passes
//! its own sweep and the directory-fsync mutant survives it (exit 1); a
//! config that already fails is refused (exit 2).

use std::path::Path;
use std::process::Output;
use std::sync::Mutex;

/// The kvlog configs share one build directory: one test at a time.
static KVLOG: Mutex<()> = Mutex::new(());

fn mutate(config: &str, seeds: &str) -> (Option<i32>, String) {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog").join(config);
    let out: Output = std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["mutate", "-c", config.to_str().unwrap(), "-seeds", seeds])
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn the_fixed_store_kills_every_mutant() {
    let _one = KVLOG.lock().unwrap_or_else(|e| e.into_inner());
    let (code, report) = mutate("seedfall.fixed.json", "1-20");
    assert_eq!(code, Some(0), "{report}");
    for promise in [
        "fsync does nothing",
        "directory fsync does nothing",
        "O_SYNC/O_DSYNC are ignored",
        "a crash during a rename leaves the target name missing",
    ] {
        let line = report.lines().find(|l| l.contains(promise)).unwrap_or_else(|| panic!("{promise}: {report}"));
        assert!(line.starts_with("killed ") && line.contains("acknowledged entry"), "{line}");
    }
    assert!(report.contains("4 of 4 mutants killed, 0 survived"), "{report}");
}

#[test]
fn a_store_that_never_fsyncs_its_directory_leaves_that_mutant_alive() {
    let _one = KVLOG.lock().unwrap_or_else(|e| e.into_inner());
    let (code, report) = mutate("no-dir-fsync.json", "1-10");
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("unmutated: 10 seeds pass"), "{report}");
    assert!(report.contains("SURVIVED  directory fsync does nothing: no seed of 1-10 noticed"), "{report}");
    assert!(report.contains("killed    fsync does nothing"), "{report}");
}

#[test]
fn a_config_that_already_fails_is_refused() {
    let _one = KVLOG.lock().unwrap_or_else(|e| e.into_inner());
    let (code, report) = mutate("seedfall.json", "1-3");
    assert_eq!(code, Some(2), "{report}");
    assert!(report.contains("already fails (seed 1): fix that first"), "{report}");
    assert!(!report.contains("killed"), "no mutant runs: {report}");
}
