//! The Go SDK (`sdk/go`, package `sim`) stays buildable and correct: its own
//! check script runs gofmt, vet, the native tests (fallback behaviour) and the
//! wasip1 vet and build, including the check that the wasip1 build imports
//! exactly the `seedfall` functions of docs/sdk-abi.md.

use std::path::Path;
use std::process::Command;

#[test]
fn the_go_sdk_passes_its_checks() {
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/go");
    let out = Command::new("bash").arg("check.sh").current_dir(&sdk).output().expect("bash and go are needed");
    assert!(
        out.status.success(),
        "sdk/go/check.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
