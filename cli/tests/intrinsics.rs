//! The differential test of the SHA-256 intrinsic (docs/intrinsics.md): Go's
//! own SHA-256, SHA-224, streamed and HMAC digests of 3,000 pseudo-random
//! messages give the same output natively and under `seedfall exec` with and
//! without intrinsics, and the same trace hash (final memory included) with
//! and without, under preemption too. It also checks that the local Go
//! release's module really gets the intrinsic, so a new release whose body
//! no longer matches fails here rather than silently running slower.

use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("intrinsics-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A module of its own for cli/tests/go/sha256diff, so Go releases older
/// than the tests' `go.mod` asks for can build it.
fn sha256diff_module() -> PathBuf {
    let dir = out_dir().join("sha256diff");
    std::fs::create_dir_all(&dir).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/sha256diff/main.go");
    std::fs::copy(source, dir.join("main.go")).unwrap();
    std::fs::write(dir.join("go.mod"), "module sha256diff\n\ngo 1.25\n").unwrap();
    dir
}

/// `go` with `toolchain` ("local" or a release Go's module proxy serves).
fn go(toolchain: &str, args: &[&str], wasip1: bool) -> Vec<u8> {
    let mut cmd = Command::new("go");
    cmd.args(args).current_dir(sha256diff_module()).env("GOTOOLCHAIN", toolchain);
    if wasip1 {
        cmd.env("GOOS", "wasip1").env("GOARCH", "wasm");
    }
    let output = cmd.output().expect("the `go` command is needed for these tests");
    assert!(output.status.success(), "go {args:?} ({toolchain}): {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// `seedfall exec` of `wasm` with `flags`: (stdout, trace hash line).
fn exec(wasm: &Path, flags: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .arg("exec")
        .args(flags)
        .arg("--trace-hash")
        .arg(wasm)
        .env("SEEDFALL_CACHE_DIR", out_dir().join("cache"))
        .output()
        .expect("run seedfall");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "seedfall exec {flags:?}: {stderr}");
    let hash = stderr.lines().find(|l| l.starts_with("seedfall: trace hash")).expect("a trace hash").to_string();
    (String::from_utf8_lossy(&output.stdout).into_owned(), hash)
}

/// Builds sha256diff with `toolchain`, checks that its instrumented module
/// gets the intrinsic in the shape `release` recorded, and runs it natively
/// and under seedfall with and without the intrinsic for each `preempt`.
fn differential(toolchain: &str, release: &str, preempts: &[&[&str]]) {
    let wasm = out_dir().join(format!("sha256diff-{toolchain}.wasm"));
    go(toolchain, &["build", "-o", wasm.to_str().unwrap(), "."], true);
    let native = String::from_utf8(go(toolchain, &["run", "."], false)).unwrap();
    assert_eq!(native.lines().count(), 4, "{native}");

    let bytes = std::fs::read(&wasm).unwrap();
    let instrumented = seedfall_instrument::instrument(&bytes, &seedfall_instrument::Config::default()).unwrap();
    let found = seedfall_engine::intrinsics::substitutions(&instrumented.wasm).unwrap();
    let found: Vec<(&str, &str)> = found.iter().map(|s| (s.function, s.shape)).collect();
    let expected = format!("{release}, call counters");
    assert_eq!(
        found,
        [("crypto_internal_fips140_sha256.blockGeneric", expected.as_str())],
        "{toolchain}: the sha256 block function must match a known body; if Go changed it, record its \
         fingerprint (intrinsics::fingerprints_of) in intrinsics::KNOWN"
    );

    for preempt in preempts {
        let with = exec(&wasm, preempt);
        let without = exec(&wasm, &[preempt, &["--no-intrinsics"][..]].concat());
        assert_eq!(with.0, native, "{toolchain} {preempt:?}: with the intrinsic against native Go");
        assert_eq!(without.0, native, "{toolchain} {preempt:?}: without the intrinsic against native Go");
        assert_eq!(with.1, without.1, "{toolchain} {preempt:?}: the same trace, final memory included");
    }
}

#[test]
fn sha256_digests_and_traces_are_the_same_with_and_without_the_intrinsic() {
    differential("local", "go1.26", &[&["--preempt", "none"], &["--preempt", "random", "--seed", "7"]]);
}

/// The other releases whose body is recorded, fetched through the module
/// proxy like host/tests/go_offsets.rs's.
#[test]
fn go_1_25_and_1_27_get_the_intrinsic_too() {
    differential("go1.25.12", "go1.25", &[&["--preempt", "random", "--seed", "3"]]);
    differential("go1.27.3", "go1.27", &[&["--preempt", "random", "--seed", "3"]]);
}

/// Loop counters put counted points inside the block loop, which the native
/// part would skip: such a body matches no fingerprint and compiles as is.
#[test]
fn loop_counters_turn_the_intrinsic_off() {
    let wasm = out_dir().join("sha256diff-loops.wasm");
    go("local", &["build", "-o", wasm.to_str().unwrap(), "."], true);
    let bytes = std::fs::read(&wasm).unwrap();
    let config = seedfall_instrument::Config { loops: true, ..Default::default() };
    let instrumented = seedfall_instrument::instrument(&bytes, &config).unwrap();
    assert_eq!(seedfall_engine::intrinsics::substitutions(&instrumented.wasm).unwrap(), []);
    let raw = seedfall_engine::intrinsics::substitutions(&bytes).unwrap();
    assert_eq!(raw.iter().map(|s| s.shape).collect::<Vec<_>>(), ["go1.26, raw"], "uninstrumented modules match too");
}
