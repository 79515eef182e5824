//! The compiled-code cache through `seedfall exec`: a hit behaves exactly like
//! a fresh compile (same output, same trace hash), and a damaged entry is
//! reported, recompiled and still gives the same run; what a lazily loaded
//! module compiled is stored and the next process compiles only what is new;
//! `cache` commands never write into a directory that is not a seedfall cache.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build_determinism_program(dir: &Path) -> PathBuf {
    support::build_wasip1("determinism", dir.join("determinism.wasm"))
}

/// (stdout, trace hash line, stderr) of one exec with cache directory `cache`.
fn exec(wasm: &Path, cache: &Path) -> (String, String, String) {
    exec_with(wasm, cache, &[])
}

fn exec_with(wasm: &Path, cache: &Path, envs: &[(&str, &str)]) -> (String, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["exec", "--trace-hash", "--timings", "--seed", "5"])
        .arg(wasm)
        .env("SEEDFALL_CACHE_DIR", cache)
        .envs(envs.iter().copied())
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

/// How many functions the exec whose stderr is `stderr` compiled lazily.
fn compiled_lazily(stderr: &str) -> Option<u32> {
    let line = stderr.lines().find(|l| l.contains("functions compiled lazily"))?;
    line.trim_start_matches("seedfall: ").split(' ').next()?.parse().ok()
}

#[test]
fn what_a_lazy_run_compiled_is_stored_and_the_next_run_compiles_only_what_is_new() {
    let dir = scratch("lazy");
    let wasm = build_determinism_program(&dir);
    let cache = dir.join("cache");
    let (out, hash, stderr) = exec(&wasm, &cache);
    assert!(stderr.contains("Miss"), "{stderr}");
    let first = compiled_lazily(&stderr).expect("a cold run compiles lazily");
    let partial = entries(&cache).pop().expect("what it compiled is stored");

    let (again_out, again_hash, again_err) = exec(&wasm, &cache);
    assert!(again_err.contains("Hit"), "{again_err}");
    assert_eq!((again_out, again_hash), (out.clone(), hash.clone()));
    assert_eq!(compiled_lazily(&again_err), Some(0), "nothing new: {again_err}");

    let eager_cache = dir.join("eager");
    let (eager_out, eager_hash, eager_err) = exec_with(&wasm, &eager_cache, &[("SEEDFALL_EAGER_COMPILE", "1")]);
    assert_eq!((eager_out, eager_hash), (out, hash), "lazy and eager code run the same");
    assert_eq!(compiled_lazily(&eager_err), None);
    let whole = entries(&eager_cache).pop().expect("the whole module is stored");
    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    assert!(size(&partial) < size(&whole), "{first} functions stored, not all of them");
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

/// Every file under `dir` with its bytes, in path order.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> =
        entries_any(dir).into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    files.sort();
    files
}

fn entries_any(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect()
}

fn cache_cmd(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall")).arg("cache").args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Issue 19: `cache ls/path/verify` wrote CACHEDIR.TAG into whatever
/// directory they were pointed at. Now a directory with files of its own is
/// an error, left byte for byte as it was, and a missing one is not created;
/// `exec` pointed at it compiles in memory instead of adopting it.
#[test]
fn issue_19_cache_commands_never_write_into_a_directory_that_is_not_a_cache() {
    let dir = scratch("not-a-cache");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join("0000.sfc"), "not an entry either").unwrap();
    let before = snapshot(&dir);
    for action in ["ls", "path", "verify", "clear"] {
        let (code, text) = cache_cmd(&[action, "--cache-dir", dir.to_str().unwrap()]);
        assert_eq!(code, 2, "{action}: {text}");
        assert!(text.contains("is not a seedfall cache") && text.contains("notes.txt"), "{action}: {text}");
        assert_eq!(snapshot(&dir), before, "{action} changed the directory");
    }
    // exec pointed at it compiles in memory, with a warning, and writes nothing there.
    let wasm_dir = scratch("not-a-cache-program");
    let wasm = build_determinism_program(&wasm_dir);
    let (out, _, stderr) = exec(&wasm, &dir);
    assert!(out.contains("slept: true"), "{out}");
    assert!(stderr.contains("is not a seedfall cache") && stderr.contains("compiling in memory"), "{stderr}");
    assert_eq!(snapshot(&dir), before, "exec changed the directory");
    let missing = dir.join("missing");
    for action in ["ls", "path", "verify", "clear"] {
        let (code, text) = cache_cmd(&[action, "--cache-dir", missing.to_str().unwrap()]);
        assert_eq!(code, 0, "{action}: {text}");
        assert!(!missing.exists(), "{action} created the directory");
    }
    // A real cache (made by exec) is still listed, verified and cleared.
    let cache = wasm_dir.join("cache");
    exec(&wasm, &cache);
    let (code, text) = cache_cmd(&["verify", "--cache-dir", cache.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("ok   "), "{text}");
    let (code, text) = cache_cmd(&["clear", "--cache-dir", cache.to_str().unwrap()]);
    assert_eq!((code, text.starts_with("removed 1 entries")), (0, true), "{text}");
}
