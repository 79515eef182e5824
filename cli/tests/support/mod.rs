//! Helpers shared by the cli test files that need a Go guest.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds `./<name>` of cli/tests/go for wasip1 into `output`.
pub fn build_wasip1(name: &str, output: PathBuf) -> PathBuf {
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&output)
        .arg(format!("./{name}"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go"))
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .expect("the `go` command is needed for these tests");
    assert!(status.success(), "go build ./{name} failed");
    output
}
