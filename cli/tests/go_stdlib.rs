//! Go's own standard-library tests under `seedfall exec`, compared with
//! wazero: the fast subset of tests/stdlib/run.sh (the full list runs with
//! `SEEDFALL_STDLIB=full tests/stdlib/run.sh`). Every package must pass under
//! seedfall with the same numbers of tests run, passed, failed and skipped as
//! under wazero; the script prints the table and the tests that differ.
//!
//! Needs `go`, and the Go module proxy the first time (to install wazero).

use std::path::Path;
use std::process::Command;

#[test]
fn go_stdlib_fast_subset_matches_wazero() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stdlib");
    let start = std::time::Instant::now();
    let run = Command::new("bash")
        .arg(root.join("tests/stdlib/run.sh"))
        .env("SEEDFALL_BIN", env!("CARGO_BIN_EXE_seedfall"))
        .env("SEEDFALL_STDLIB_OUT", &out)
        .env_remove("SEEDFALL_STDLIB")
        .output()
        .expect("run tests/stdlib/run.sh");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}\n(fast subset took {:.0?})", start.elapsed());
    assert!(
        run.status.success(),
        "Go's tests differ between seedfall and wazero (logs in {}):\n{stdout}\n{stderr}",
        out.display()
    );
}
