//! Helpers shared by the test files of the real-system examples (raftkv,
//! etcdraft, natsjs): run the seedfall binary against an example's config,
//! and check a committed shrunk schedule against the stock library and its
//! patched control.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name)
}

#[allow(dead_code)] // grpckv.rs shrinks afresh and keeps no committed schedule
pub fn fixture(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(file)
}

/// `seedfall ARGS` with the compiled-code cache the CLI tests share (and
/// .ci/run's regress step after them: each big module compiles once), as
/// its exit code and its stdout and stderr together.
pub fn seedfall(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// `seedfall verify` of `schedule` with config `file` of `example`.
pub fn verify(example_name: &str, file: &str, schedule: &Path) -> (i32, String) {
    let config = example(example_name).join(file);
    seedfall(&["verify", "-c", config.to_str().unwrap(), "-faults", schedule.to_str().unwrap()])
}

/// The finding's schedule fails the stock config with `message` and
/// passes the patched one over the full run.
pub fn stock_fails_and_patch_passes(example_name: &str, stock: &str, patched: &str, schedule: &Path, message: &str) {
    let (code, out) = verify(example_name, stock, schedule);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(message), "{out}");
    assert!(out.contains("not verified"), "{out}");

    let (code, out) = verify(example_name, patched, schedule);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verified: seed "), "{out}");
}

/// `seedfall shrink` of `seed` of config `file` of `example`: the saved
/// schedule, after checking it has at most `max_faults` faults.
pub fn shrink(example_name: &str, file: &str, seed: u64, max_faults: usize) -> PathBuf {
    let config = example(example_name).join(file);
    let seed = seed.to_string();
    let (code, report) = seedfall(&["shrink", "-c", config.to_str().unwrap(), "-seed", &seed]);
    assert_eq!(code, 0, "{report}");
    let after = report.lines().find_map(|l| l.trim_start().strip_prefix("to ")).expect(&report);
    let faults: usize = after.split_whitespace().next().unwrap().parse().unwrap();
    assert!((1..=max_faults).contains(&faults), "seed {seed} shrinks to at most {max_faults} faults: {report}");
    let stem = Path::new(file).file_stem().unwrap().to_string_lossy().into_owned();
    example(example_name).join(format!(".seedfall/{stem}.seed-{seed}.faults.json"))
}

pub fn full() -> bool {
    std::env::var("SEEDFALL_FINDINGS").as_deref() == Ok("full")
}
