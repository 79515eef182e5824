//! `seedfall exec` end to end: Go programs built with the local `go`, run by
//! the real binary. Covers the conformance arm (the same os-API program
//! natively and in the simulator), determinism across processes and across
//! working directories, users and HOMEs, exit codes, traps, virtual sleeping,
//! and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn go_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go")
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Build `./<name>` of cli/tests/go, for wasip1 or (native) for this machine.
fn build(name: &str, wasip1: bool) -> PathBuf {
    let output = out_dir().join(if wasip1 { format!("{name}.wasm") } else { format!("{name}.native") });
    let mut cmd = Command::new("go");
    cmd.args(["build", "-o"]).arg(&output).arg(format!("./{name}")).current_dir(go_dir());
    if wasip1 {
        cmd.env("GOOS", "wasip1").env("GOARCH", "wasm");
    }
    let status = cmd.status().expect("the `go` command is needed for these tests");
    assert!(status.success(), "building {name}");
    output
}

fn seedfall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", out_dir().join("cache"))
        .output()
        .expect("run seedfall")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_os_file_api_behaves_as_on_linux() {
    let native = Command::new(build("fsops", false)).output().unwrap();
    assert!(native.status.success(), "native run: {}", text(&native.stderr));
    let wasm = build("fsops", true);
    let simulated = seedfall(&["exec", wasm.to_str().unwrap()]);
    assert!(simulated.status.success(), "seedfall exec: {}", text(&simulated.stderr));
    let (expected, actual) = (text(&native.stdout), text(&simulated.stdout));
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        assert_eq!(a, e, "line {} differs\nnative:\n{expected}\nseedfall:\n{actual}", i + 1);
    }
    assert_eq!(actual.lines().count(), expected.lines().count(), "native:\n{expected}\nseedfall:\n{actual}");
}

#[test]
fn the_same_seed_gives_the_same_output_in_two_processes_and_another_seed_differs() {
    let wasm = build("determinism", true);
    let run = |seed: &str| {
        let out = seedfall(&["exec", "--seed", seed, wasm.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let (first, second, other) = (run("1"), run("1"), run("2"));
    assert_eq!(first, second);
    assert_ne!(first, other);
    assert!(first.contains("slept: true"), "{first}");
}

/// A checkout at `dir`: `go.mod` of module example.com/where and a data file.
fn checkout(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    std::fs::write(dir.join("go.mod"), "module example.com/where\n\ngo 1.26\n").unwrap();
    std::fs::write(dir.join("data.txt"), "the same bytes").unwrap();
}

#[test]
fn one_wasm_runs_the_same_from_any_directory_user_home_and_tmpdir() {
    let wasm = build("whereami", true);
    let base = out_dir().join("where");
    let short = base.join("a");
    let long = base.join("a-checkout-at-a-much-longer-path/of/several/directories");
    let run = |dir: &Path, user: &str| {
        checkout(dir);
        let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
            .args(["exec", "--trace-hash", "--preempt", "random", "--seed", "3", wasm.to_str().unwrap()])
            .current_dir(dir)
            .env("SEEDFALL_CACHE_DIR", out_dir().join("cache"))
            .env("HOME", dir)
            .env("USER", user)
            .env("TMPDIR", dir.join("tmp"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let hash = text(&out.stderr).lines().find(|l| l.starts_with("seedfall: trace hash")).map(str::to_string);
        (text(&out.stdout), hash.expect("a trace hash line"))
    };
    let (output, hash) = run(&short, "ann");
    assert_eq!(run(&long, "bob-with-a-longer-name"), (output.clone(), hash));
    // What the guest saw: the module's import path as its directory, the file's name alone.
    for line in ["cwd: /go/src/example.com/where <nil>", "name: whereami.wasm", "env: [PWD=/go/src/example.com/where]"]
    {
        assert!(output.lines().any(|l| l == line), "{line} in\n{output}");
    }
    assert!(output.contains("data.txt: \"the same bytes\" <nil>"), "{output}");
    // Outside any module: a fixed directory.
    std::fs::remove_file(short.join("go.mod")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["exec", wasm.to_str().unwrap()])
        .current_dir(&short)
        .env("SEEDFALL_CACHE_DIR", out_dir().join("cache"))
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("cwd: /work <nil>"), "{}", text(&out.stdout));
}

#[test]
fn ten_virtual_seconds_of_sleep_cost_almost_no_real_time() {
    let wasm = build("determinism", true);
    // Compile first so only the run is timed.
    seedfall(&["exec", wasm.to_str().unwrap()]);
    let start = std::time::Instant::now();
    let out = seedfall(&["exec", wasm.to_str().unwrap()]);
    assert!(out.status.success());
    // Generous: the point is that 10 s of virtual sleep is not 10 s of real time.
    assert!(start.elapsed().as_secs_f64() < 8.0, "took {:?}", start.elapsed());
}

#[test]
fn a_go_panic_exits_2_with_its_message() {
    let wasm = build("panics", true);
    let out = seedfall(&["exec", wasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("panic: something went badly wrong"), "{}", text(&out.stderr));
}

#[test]
fn a_trap_in_go_code_names_the_go_function() {
    let wasm = build("trap", true);
    let out = seedfall(&["exec", wasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("out of bounds memory access") && stderr.contains("main.readWild"), "{stderr}");
}

#[test]
fn a_trap_is_reported_with_its_function_and_a_nonzero_exit() {
    let path = out_dir().join("trap.wasm");
    std::fs::write(&path, wat::parse_str(r#"(module (func $main.crash (export "_start") unreachable))"#).unwrap())
        .unwrap();
    let out = seedfall(&["exec", path.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unreachable") && stderr.contains("main.crash"), "{stderr}");
}

#[test]
fn guest_arguments_pass_through_untouched() {
    let path = out_dir().join("args.wasm");
    // A module that exits with argc: proves `-test.v` and friends reached the guest.
    std::fs::write(
        &path,
        wat::parse_str(
            r#"(module
              (import "wasi_snapshot_preview1" "args_sizes_get" (func $sizes (param i32 i32) (result i32)))
              (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
              (memory 1)
              (func (export "_start") (drop (call $sizes (i32.const 0) (i32.const 4))) (call $exit (i32.load (i32.const 0)))))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let out = seedfall(&["exec", path.to_str().unwrap(), "-test.v", "-seed", "9", "--dir", "x"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
}

#[test]
fn bad_input_gives_a_clear_error_and_exit_2() {
    let not_wasm = out_dir().join("not-wasm.txt");
    std::fs::write(&not_wasm, "hello").unwrap();
    let unknown_import = out_dir().join("unknown-import.wasm");
    std::fs::write(
        &unknown_import,
        wat::parse_str(r#"(module (import "env" "mystery" (func)) (func (export "_start")))"#).unwrap(),
    )
    .unwrap();
    let cases = [
        (not_wasm.to_str().unwrap().to_string(), "invalid wasm module"),
        ("/definitely/not/here.wasm".to_string(), "cannot read"),
        (unknown_import.to_str().unwrap().to_string(), "env.mystery"),
    ];
    for (file, expected) in cases {
        let out = seedfall(&["exec", &file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(text(&out.stderr).contains(expected), "{file}: {}", text(&out.stderr));
    }
}

/// Issue 19: `exec /dev/zero` and `run -c /dev/zero` read without end.
#[test]
fn issue_19_a_device_or_directory_as_input_is_a_clear_error() {
    for args in [&["exec", "/dev/zero"][..], &["run", "-c", "/dev/zero", "-seeds", "1"], &["exec", "/tmp"]] {
        let out = seedfall(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("only regular files are read"), "{args:?}: {stderr}");
    }
}

/// The float bits a machine chooses (NaN signs and payloads, conversions
/// at the edges) are pinned: the output is the same file on x86-64 and on
/// aarch64 (ci/cross/aarch64.sh runs this guest there and compares the
/// output and the trace hash). A native x86-64 Go run prints other bits
/// for 14 of these lines.
#[test]
fn floats_give_the_same_bits_on_every_machine() {
    let wasm = build("floats", true);
    let run = seedfall(&["exec", wasm.to_str().unwrap(), "0", "1", "-1", "inf"]);
    assert!(run.status.success(), "seedfall exec: {}", text(&run.stderr));
    let expected = std::fs::read_to_string(go_dir().join("floats/expected.txt")).unwrap();
    assert_eq!(text(&run.stdout), expected);
}
