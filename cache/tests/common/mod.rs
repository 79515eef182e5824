//! Helpers shared by the cache tests: scratch directories, small modules,
//! running a loaded Artifact, and re-invoking this test binary as a child
//! process (for tests that need several real processes).

#![allow(dead_code)]

use seedfall_cache::{Cache, Key, Secret};
use seedfall_engine::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

/// The key of "this user" in the tests: fixed, so child processes share it.
pub fn user_key() -> Secret {
    Secret::private([0x5e; 32])
}

/// The cache at `dir` under `user_key()`.
pub fn open_cache(dir: &Path) -> Cache {
    Cache::open(dir, Ok(user_key()))
}

/// A directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("seedfall-cache-test-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        make_writable(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                make_writable(&e.path());
            }
        }
    }
}

/// A small module whose `add` adds `bias` too, so each bias is a different module.
pub fn module(bias: i32) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(module
          (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add i32.const {bias} i32.add)
          (func $fac (export "fac") (param i64) (result i64)
            local.get 0 i64.eqz
            if (result i64) i64.const 1
            else local.get 0 local.get 0 i64.const 1 i64.sub call $fac i64.mul end)
          (func (export "div") (param i32 i32) (result i32) local.get 0 local.get 1 i32.div_s))"#
    ))
    .expect("valid wat")
}

/// A module with many functions, so compiling it takes a while (for races).
pub fn big_module() -> Vec<u8> {
    let mut wat = String::from("(module\n");
    for i in 0..400 {
        wat.push_str(&format!(
            "(func $f{i} (param i64) (result i64) (local i64)
               local.get 0 i64.const {i} i64.add local.set 1
               (block (loop local.get 1 i64.const 3 i64.mul i64.const 7 i64.rem_u local.set 1
                  local.get 1 i64.const 5 i64.lt_u br_if 1 local.get 1 i64.eqz br_if 0))
               local.get 1 local.get 0 i64.mul)\n"
        ));
    }
    wat.push_str("(func (export \"add\") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)\n");
    wat.push_str("(func (export \"fac\") (param i64) (result i64) (local i64) i64.const 1 local.set 1\n");
    wat.push_str("  (block (loop local.get 0 i64.eqz br_if 1 local.get 1 local.get 0 i64.mul local.set 1\n");
    wat.push_str("  local.get 0 i64.const 1 i64.sub local.set 0 br 0)) local.get 1)\n");
    wat.push_str("(func (export \"div\") (param i32 i32) (result i32) local.get 0 local.get 1 i32.div_s))\n");
    wat::parse_str(wat).expect("valid wat")
}

pub fn config() -> CompileConfig {
    CompileConfig {
        trap_mode: TrapMode::Signals,
        baseline: IsaBaseline::host(),
        verify: false,
        pinned_global: PinnedGlobal::None,
        function_bitmap: false,
        edge_bitmap: false,
        intrinsics: true,
    }
}

/// What calling the module's functions gives: (add(2, 40), fac(10), div(1, 0) trapped?).
pub fn behaviour(code: Code) -> (Vec<Val>, Vec<Val>, Option<TrapKind>) {
    let code = Arc::new(code);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).expect("instantiates");
    let returned = |run: Run| match run {
        Run::Returned(v) => v,
        other => panic!("expected a return, got {other:?}"),
    };
    let add = returned(instance.call("add", &[Val::I32(2), Val::I32(40)]).unwrap());
    let fac = returned(instance.call("fac", &[Val::I64(10)]).unwrap());
    let trap = match instance.call("div", &[Val::I32(1), Val::I32(0)]).unwrap() {
        Run::Trapped(trap) => Some(trap.kind),
        _ => None,
    };
    (add, fac, trap)
}

/// Assert that `artifact` of `module(bias)` works.
pub fn assert_runs(code: Code, bias: i32) {
    let (add, fac, trap) = behaviour(code);
    assert_eq!(add, vec![Val::I32(42 + bias)]);
    assert_eq!(fac, vec![Val::I64(3628800)]);
    assert_eq!(trap, Some(TrapKind::IntegerDivideByZero));
}

/// Entry files (`*.sfc`) in `dir`.
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sfc")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

pub fn entry_path(cache: &Cache, key: &Key) -> PathBuf {
    cache.dir().join(format!("{key}.sfc"))
}

/// Environment variable telling a re-invoked test binary what to do.
pub const CHILD_ENV: &str = "SEEDFALL_CACHE_TEST_CHILD";

/// Start this test binary running only the test named `child_test` (which
/// acts on `CHILD_ENV`), with `envs`. Its lines of interest start `RESULT `.
pub fn spawn_child(child_test: &str, mode: &str, envs: &[(&str, &str)]) -> std::process::Child {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([child_test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, mode)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawning a child test process")
}

/// Wait for a child and return its `RESULT ` lines; panics if it failed.
pub fn child_results(child: std::process::Child) -> Vec<String> {
    let out = child.wait_with_output().expect("waiting for a child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    // libtest prints "test child ... " without a newline before the output.
    stdout.lines().filter_map(|l| l.find("RESULT ").map(|at| l[at + 7..].to_string())).collect()
}
