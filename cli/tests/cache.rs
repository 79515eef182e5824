//! The compiled-code cache through `seedfall exec`: a hit behaves exactly like
//! a fresh compile (same output, same trace hash), and a damaged entry is
//! reported, recompiled and still gives the same run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build_determinism_program(dir: &Path) -> PathBuf {
    let output = dir.join("determinism.wasm");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&output)
        .arg("./determinism")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go"))
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .expect("the `go` command is needed for these tests");
    assert!(status.success());
    output
}

/// (stdout, trace hash line, stderr) of one exec with cache directory `cache`.
fn exec(wasm: &Path, cache: &Path) -> (String, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["exec", "--trace-hash", "--timings", "--seed", "5"])
        .arg(wasm)
        .env("SEEDFALL_CACHE_DIR", cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let hash = stderr.lines().find(|l| l.contains("trace hash")).expect("trace hash printed").to_string();
    (String::from_utf8_lossy(&out.stdout).into_owned(), hash, stderr)
}

fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![cache.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::metadata(&path).unwrap().len() > 100_000 {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_cache_hit_runs_exactly_like_a_fresh_compile() {
    let dir = scratch("hit");
    let wasm = build_determinism_program(&dir);
    let cache = dir.join("cache");
    let (fresh_out, fresh_hash, fresh_err) = exec(&wasm, &cache);
    assert!(fresh_err.contains("Miss"), "{fresh_err}");
    let (hit_out, hit_hash, hit_err) = exec(&wasm, &cache);
    assert!(hit_err.contains("Hit"), "{hit_err}");
    assert_eq!(hit_out, fresh_out);
    assert_eq!(hit_hash, fresh_hash);
}

#[test]
fn a_damaged_entry_is_reported_recompiled_and_the_run_is_unchanged() {
    let dir = scratch("damaged");
    let wasm = build_determinism_program(&dir);
    let cache = dir.join("cache");
    let (out, hash, _) = exec(&wasm, &cache);
    let entry = entries(&cache).pop().expect("one cache entry");
    let mut bytes = std::fs::read(&entry).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&entry, &bytes).unwrap();
    let (damaged_out, damaged_hash, stderr) = exec(&wasm, &cache);
    assert!(stderr.contains("warning") && stderr.contains("Recompiled"), "{stderr}");
    assert_eq!((damaged_out, damaged_hash), (out, hash));
}

#[test]
fn an_unusable_cache_directory_still_runs() {
    let dir = scratch("unusable");
    let wasm = build_determinism_program(&dir);
    let file = dir.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let (out, _, stderr) = exec(&wasm, &file.join("cache"));
    assert!(stderr.contains("warning"), "{stderr}");
    assert!(out.contains("slept: true"));
}
