//! The differential tests of the intrinsics (docs/intrinsics.md), for each Go
//! release with recorded bodies: Go's own SHA-256 digests of 3,000
//! pseudo-random messages (cli/tests/go/sha256diff) and `math/big`
//! arithmetic on 4,000 pairs of pseudo-random numbers (bigdiff) give the same
//! output natively and under `seedfall exec` with and without intrinsics, and
//! the same trace hash (final memory included) with and without, under
//! preemption too. They also check which functions of each module get an
//! intrinsic, so a Go release whose bodies no longer match fails here rather
//! than silently running slower.

use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("intrinsics-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A module of its own for cli/tests/go/`program`, so Go releases older than
/// the tests' `go.mod` asks for can build it.
fn module(program: &str) -> PathBuf {
    let dir = out_dir().join(program);
    std::fs::create_dir_all(&dir).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go").join(program).join("main.go");
    std::fs::copy(source, dir.join("main.go")).unwrap();
    std::fs::write(dir.join("go.mod"), format!("module {program}\n\ngo 1.25\n")).unwrap();
    dir
}

/// `go` in `program`'s module with `toolchain` ("local" or a release the
/// module proxy serves, fetched like host/tests/go_offsets.rs's).
fn go(program: &str, toolchain: &str, args: &[&str], wasip1: bool) -> Vec<u8> {
    let mut cmd = Command::new("go");
    cmd.args(args).current_dir(module(program)).env("GOTOOLCHAIN", toolchain);
    if wasip1 {
        cmd.env("GOOS", "wasip1").env("GOARCH", "wasm");
    }
    let output = cmd.output().expect("the `go` command is needed for these tests");
    assert!(output.status.success(), "go {args:?} ({toolchain}): {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

fn build(program: &str, toolchain: &str) -> PathBuf {
    let wasm = out_dir().join(format!("{program}-{toolchain}.wasm"));
    go(program, toolchain, &["build", "-o", wasm.to_str().unwrap(), "."], true);
    wasm
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

/// Builds `program` with `toolchain`, checks that its instrumented module
/// gets exactly `functions`' intrinsics in the shapes `release` recorded,
/// and runs it natively and under seedfall with and without intrinsics for
/// each of `preempts`.
fn differential(program: &str, toolchain: &str, release: &str, functions: &[&str], preempts: &[&[&str]]) {
    let wasm = build(program, toolchain);
    let native = String::from_utf8(go(program, toolchain, &["run", "."], false)).unwrap();
    assert!(native.lines().count() >= 4, "{native}");

    let bytes = std::fs::read(&wasm).unwrap();
    let instrumented = seedfall_instrument::instrument(&bytes, &seedfall_instrument::Config::default()).unwrap();
    let found = seedfall_engine::intrinsics::substitutions(&instrumented.wasm).unwrap();
    let mut names: Vec<&str> = found.iter().map(|s| s.function).collect();
    names.sort();
    let mut expected = functions.to_vec();
    expected.sort();
    let right_shapes = found.iter().all(|s| s.shape.contains(release) && s.shape.ends_with(", call counters"));
    assert!(
        names == expected && right_shapes,
        "{program} ({toolchain}): found {found:?}, want {expected:?} from {release}. Each function must \
         match a known body; if Go changed one, record its fingerprint (intrinsics::fingerprints_of) in \
         intrinsics::KNOWN"
    );

    for preempt in preempts {
        let with = exec(&wasm, preempt);
        let without = exec(&wasm, &[preempt, &["--no-intrinsics"][..]].concat());
        assert_eq!(with.0, native, "{program} ({toolchain}) {preempt:?}: with intrinsics against native Go");
        assert_eq!(without.0, native, "{program} ({toolchain}) {preempt:?}: without intrinsics against native Go");
        assert_eq!(with.1, without.1, "{program} ({toolchain}) {preempt:?}: the same trace, final memory included");
    }
}

const SHA256: &[&str] = &["crypto_internal_fips140_sha256.blockGeneric"];
const BIG: &[&str] = &["math_big.addVV_g", "math_big.subVV_g", "math_big.mulAddVWW_g", "math_big.addMulVVWW_g"];
const BOTH_MODES: &[&[&str]] = &[&["--preempt", "none"], &["--preempt", "random", "--seed", "7"]];
const PREEMPTED: &[&[&str]] = &[&["--preempt", "random", "--seed", "3"]];

#[test]
fn sha256_digests_and_traces_are_the_same_with_and_without_the_intrinsic() {
    differential("sha256diff", "local", "go1.26", SHA256, BOTH_MODES);
}

#[test]
fn big_arithmetic_and_traces_are_the_same_with_and_without_the_intrinsics() {
    differential("bigdiff", "local", "go1.26", BIG, BOTH_MODES);
}

/// The other releases whose bodies are recorded. Go 1.25's `mulAddVWW_g`
/// and `addMulVVWW_g` call `mulAddWWW_g`: a whole call would skip those
/// counted calls (and move preemption points), so they keep their wasm.
#[test]
fn go_1_25_and_1_27_get_the_intrinsics_too() {
    differential("sha256diff", "go1.25.12", "go1.25", SHA256, PREEMPTED);
    differential("bigdiff", "go1.25.12", "go1.25", &BIG[..2], PREEMPTED);
    differential("sha256diff", "go1.27.3", "go1.27", SHA256, PREEMPTED);
    differential("bigdiff", "go1.27.3", "go1.27", BIG, PREEMPTED);
}

/// Loop counters put counted points inside the loops, which the native
/// code would skip: such bodies match no fingerprint and compile as they are.
#[test]
fn loop_counters_turn_the_intrinsics_off() {
    for (program, functions) in [("sha256diff", SHA256), ("bigdiff", BIG)] {
        let bytes = std::fs::read(build(program, "local")).unwrap();
        let config = seedfall_instrument::Config { loops: true, ..Default::default() };
        let instrumented = seedfall_instrument::instrument(&bytes, &config).unwrap();
        assert_eq!(seedfall_engine::intrinsics::substitutions(&instrumented.wasm).unwrap(), [], "{program}");
        let raw = seedfall_engine::intrinsics::substitutions(&bytes).unwrap();
        assert_eq!(raw.len(), functions.len(), "{program}: uninstrumented modules match too");
        assert!(raw.iter().all(|s| s.shape.contains("go1.26") && s.shape.ends_with(", raw")), "{program}: {raw:?}");
    }
}
