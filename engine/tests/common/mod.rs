//! Shared by the engine's integration tests: building Go programs for wasip1
//! with the local `go`, and compiling wasm through the whole pipeline.

#![allow(dead_code)] // each test binary uses a different subset

use seedfall_engine::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-wasm");
    std::fs::create_dir_all(&dir).expect("create output dir");
    dir
}

/// `go <command> -o <output> <package>`
fn go(command: &[&str], package: &str, output: &Path) -> Vec<u8> {
    let status = Command::new("go")
        .args(command)
        .arg("-o")
        .arg(output)
        .arg(package)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go"))
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .expect("the `go` command must be installed to run this test");
    assert!(status.success(), "go {command:?} {package} failed");
    std::fs::read(output).expect("read built wasm")
}

/// Build `./<dir>` of engine/tests/go for wasip1; Go's build cache makes repeats fast.
pub fn build_go(dir: &str) -> Vec<u8> {
    go(&["build"], &format!("./{dir}"), &out_dir().join(format!("{dir}.wasm")))
}

/// `go test -c <package>` for wasip1.
pub fn build_go_test(package: &str) -> Vec<u8> {
    let name = package.replace('/', "_");
    go(&["test", "-c"], package, &out_dir().join(format!("{name}.test.wasm")))
}

pub fn load(wasm: &[u8], mode: TrapMode) -> Arc<Code> {
    let config = CompileConfig { trap_mode: mode, ..CompileConfig::default() };
    let artifact = compile(wasm, &config).unwrap_or_else(|e| panic!("compile: {e}"));
    Arc::new(Code::load(artifact).unwrap_or_else(|e| panic!("load: {e}")))
}

pub fn load_wat(wat: &str, mode: TrapMode) -> Arc<Code> {
    load(&wat::parse_str(wat).expect("valid wat"), mode)
}
