//! The cache's contract, end to end with the engine's real `compile`: stable
//! portable keys, verified entries (corruption detected, reported, deleted and
//! recompiled), atomic publication under concurrent processes, eviction of the
//! least recently used set, an unwritable directory that still runs, and a
//! hit that is byte-identical to a fresh compile.

mod common;

use common::*;
use seedfall_cache::*;
use seedfall_engine::*;
use std::collections::HashSet;
use std::path::Path;

/// Not a test of its own: the body of a child process started by another
/// test (see `spawn_child`). Does nothing when run normally.
#[test]
fn child() {
    let Ok(mode) = std::env::var(CHILD_ENV) else { return };
    match mode.as_str() {
        "key" => {
            let key = Key::compute(&module(0), &config(), b"instrumentation v1");
            println!("RESULT {key}");
        }
        "fetch" => {
            // Wait for the start signal so every process starts at once.
            let go = std::env::var("SFC_GO").unwrap();
            while !Path::new(&go).exists() {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            let cache = open_cache(Path::new(&std::env::var("SFC_DIR").unwrap()));
            let fetched = cache.fetch(&big_module(), &config(), b"").expect("fetch succeeds");
            assert!(fetched.warnings.is_empty(), "{:?}", fetched.warnings);
            let recorded = cache.record_set(&[fetched.key]);
            assert!(recorded.warnings.is_empty(), "{:?}", recorded.warnings);
            let outcome = format!("{:?}", fetched.outcome);
            let (add, fac, trap) = behaviour(fetched.code);
            assert_eq!(
                (add, fac, trap),
                (vec![Val::I32(42)], vec![Val::I64(3628800)], Some(TrapKind::IntegerDivideByZero))
            );
            println!("RESULT {outcome} {}", fetched.key);
        }
        "dirs" => {
            println!("RESULT exec {}", Cache::default_dir_for_exec().display());
            println!("RESULT config {}", Cache::default_dir_for_config(Path::new("/srv/proj/seedfall.json")).display());
            println!("RESULT bare {}", Cache::default_dir_for_config(Path::new("seedfall.json")).display());
        }
        other => panic!("unknown child mode {other}"),
    }
}

#[test]
fn same_input_same_key_in_two_processes() {
    let here = Key::compute(&module(0), &config(), b"instrumentation v1");
    assert_eq!(here, Key::compute(&module(0), &config(), b"instrumentation v1"));
    let first = child_results(spawn_child("child", "key", &[]));
    let second = child_results(spawn_child("child", "key", &[("HOME", "/nonexistent"), ("PWD", "/")]));
    assert_eq!(first, vec![here.hex()]);
    assert_eq!(second, vec![here.hex()]);
}

#[test]
fn a_streamed_key_equals_the_key_of_the_bytes_and_a_file_that_changed_length_is_refused() {
    // Larger than the stream's buffer, so the wasm is hashed in several pieces.
    let bytes: Vec<u8> = (0..9u32 << 20).map(|i| (i.wrapping_mul(31) % 251) as u8).collect();
    let len = bytes.len() as u64;
    let key = Key::compute(&bytes, &config(), b"counted");
    assert_eq!(Key::compute_from(&mut &bytes[..], len, &config(), b"counted").unwrap(), key);
    // A reader that hands out a few bytes at a time gives the same key.
    let mut trickle = std::io::BufReader::with_capacity(7, &bytes[..]);
    assert_eq!(Key::compute_from(&mut trickle, len, &config(), b"counted").unwrap(), key);
    let grew = Key::compute_from(&mut &bytes[..], len - 1, &config(), b"counted").unwrap_err();
    assert!(grew.to_string().contains("grew while seedfall read it"), "{grew}");
    let shrank = Key::compute_from(&mut &bytes[..bytes.len() - 1], len, &config(), b"counted").unwrap_err();
    assert!(shrank.to_string().contains("shrank while seedfall read it"), "{shrank}");
}

#[test]
fn every_input_changes_the_key() {
    let base = config();
    let other_baseline = match base.baseline {
        IsaBaseline::X86_64V2 => IsaBaseline::X86_64V3,
        IsaBaseline::X86_64V3 | IsaBaseline::Aarch64V8 => IsaBaseline::X86_64V2,
    };
    let wasm = module(0);
    let mut flipped = wasm.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let keys = [
        ("base", Key::compute(&wasm, &base, b"")),
        ("wasm bytes", Key::compute(&module(1), &base, b"")),
        ("one wasm bit", Key::compute(&flipped, &base, b"")),
        ("trap mode", Key::compute(&wasm, &CompileConfig { trap_mode: TrapMode::Explicit, ..base }, b"")),
        ("baseline", Key::compute(&wasm, &CompileConfig { baseline: other_baseline, ..base }, b"")),
        ("verifier flag", Key::compute(&wasm, &CompileConfig { verify: !base.verify, ..base }, b"")),
        ("pinned global", Key::compute(&wasm, &CompileConfig { pinned_global: PinnedGlobal::Last, ..base }, b"")),
        ("function bitmap", Key::compute(&wasm, &CompileConfig { function_bitmap: true, ..base }, b"")),
        ("edge map", Key::compute(&wasm, &CompileConfig { function_bitmap: true, edge_bitmap: true, ..base }, b"")),
        ("intrinsics", Key::compute(&wasm, &CompileConfig { intrinsics: !base.intrinsics, ..base }, b"")),
        ("instrumentation", Key::compute(&wasm, &base, b"loops=1")),
        ("instrumentation vs wasm boundary", Key::compute(&wasm[..wasm.len() - 1], &base, &wasm[wasm.len() - 1..])),
    ];
    let distinct: HashSet<Key> = keys.iter().map(|(_, k)| *k).collect();
    assert_eq!(distinct.len(), keys.len(), "{keys:#?}");

    // The material has what the issue asks for and nothing machine-specific.
    let material = key_material(&base);
    let names: Vec<&str> = material.iter().map(|(n, _)| *n).collect();
    for needed in
        ["artifact_format", "cranelift", "triple", "baseline", "trap_mode", "function_bitmap", "engine_source"]
    {
        assert!(names.contains(&needed), "{needed} missing from {names:?}");
    }
    for (name, _) in base.settings() {
        assert!(names.contains(&name), "setting {name} missing from the key");
    }
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let cwd = std::env::current_dir().unwrap();
    for (name, value) in &material {
        assert!(!value.contains('/'), "{name}={value} looks like a path");
        assert!(host.trim().is_empty() || !value.contains(host.trim()), "{name}={value} names the host");
        assert!(!value.contains(&*cwd.to_string_lossy()));
    }
}

#[test]
fn copied_cache_dir_still_hits() {
    let scratch = Scratch::new("copy");
    let original = scratch.path().join("a/cache");
    let cache = open_cache(&original);
    let first = cache.fetch(&module(3), &config(), b"").unwrap();
    assert_eq!(first.outcome, Outcome::Miss);
    assert!(first.stored && first.warnings.is_empty(), "{:?}", first.warnings);
    assert!(cache.record_set(&[first.key]).warnings.is_empty());
    assert_eq!(cache.fetch(&module(3), &config(), b"").unwrap().outcome, Outcome::Hit);

    let copy = scratch.path().join("elsewhere/deeper/copy");
    copy_dir(&original, &copy);
    let copied = open_cache(&copy);
    let hit = copied.fetch(&module(3), &config(), b"").unwrap();
    assert_eq!(hit.outcome, Outcome::Hit);
    assert!(hit.warnings.is_empty());
    assert_eq!(copied.list().len(), 1);
    assert_eq!(copied.list()[0].last_used, Some(0), "the index came along");
    assert_runs(hit.code, 3);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Damage the entry of `module(bias)` with `damage`, then fetch: the damage
/// is reported (reason containing `expect`), the entry deleted and rewritten,
/// and the result works.
fn damaged_entry_is_recompiled(name: &str, bias: i32, expect: &str, damage: impl FnOnce(&mut Vec<u8>)) {
    let scratch = Scratch::new(name);
    let cache = open_cache(scratch.path());
    let first = cache.fetch(&module(bias), &config(), b"").unwrap();
    assert_eq!(first.outcome, Outcome::Miss);
    let path = entry_path(&cache, &first.key);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    damage(&mut bad);
    std::fs::write(&path, &bad).unwrap();
    assert!(cache.verify()[0].1.as_ref().is_err_and(|e| e.contains(expect)), "{name}: {:?}", cache.verify());

    let again = cache.fetch(&module(bias), &config(), b"").unwrap();
    match &again.outcome {
        Outcome::Recompiled { reason } => assert!(reason.contains(expect), "{name}: reason {reason:?}"),
        other => panic!("{name}: {other:?}"),
    }
    assert_eq!(again.warnings.len(), 1, "{name}: {:?}", again.warnings);
    assert!(again.warnings[0].contains(expect) && again.warnings[0].contains("deleted"), "{:?}", again.warnings);
    assert!(again.stored);
    assert_eq!(std::fs::read(&path).unwrap(), good, "{name}: the rewritten entry is the original one");
    assert!(cache.verify().iter().all(|(_, r)| r.is_ok()));
    assert_runs(again.code, bias);

    let hit = cache.fetch(&module(bias), &config(), b"").unwrap();
    assert_eq!(hit.outcome, Outcome::Hit);
    assert!(hit.warnings.is_empty());
}

#[test]
fn flipped_byte_is_detected_and_recompiled() {
    damaged_entry_is_recompiled("flip-payload", 1, "checksum", |b| {
        let mid = HEADER_LEN + (b.len() - HEADER_LEN) / 2;
        b[mid] ^= 0x10;
    });
    damaged_entry_is_recompiled("flip-last", 2, "checksum", |b| *b.last_mut().unwrap() ^= 1);
    damaged_entry_is_recompiled("flip-checksum", 3, "checksum", |b| b[60] ^= 0x80);
    damaged_entry_is_recompiled("flip-key", 4, "holds key", |b| b[20] ^= 1);
}

#[test]
fn truncated_file_is_detected_and_recompiled() {
    damaged_entry_is_recompiled("trunc-tail", 5, "truncated", |b| b.truncate(b.len() - 100));
    damaged_entry_is_recompiled("trunc-one", 6, "truncated", |b| b.truncate(b.len() - 1));
    damaged_entry_is_recompiled("trunc-header", 7, "truncated", |b| b.truncate(40));
    damaged_entry_is_recompiled("trunc-empty", 8, "truncated", |b| b.clear());
    damaged_entry_is_recompiled("trailing", 9, "trailing", |b| b.extend_from_slice(b"junk"));
}

#[test]
fn a_fifo_or_directory_in_place_of_an_entry_is_recompiled_without_blocking() {
    for (name, bias) in [("fifo", 11), ("dir", 12)] {
        let scratch = Scratch::new(name);
        let cache = open_cache(scratch.path());
        let key = cache.fetch(&module(bias), &config(), b"").unwrap().key;
        let path = entry_path(&cache, &key);
        std::fs::remove_file(&path).unwrap();
        let made = match name {
            "fifo" => std::process::Command::new("mkfifo").arg(&path).status().unwrap().success(),
            _ => std::fs::create_dir(&path).is_ok(),
        };
        assert!(made);
        let start = std::time::Instant::now();
        let again = cache.fetch(&module(bias), &config(), b"").unwrap();
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{name}: the fetch blocked");
        match &again.outcome {
            Outcome::Recompiled { reason } if name == "dir" || reason.contains("not a regular file") => {}
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(behaviour(again.code).0[0], Val::I32(42 + bias));
    }
}

#[test]
fn other_format_version_is_detected_and_recompiled() {
    // A well-formed entry of another format version: only the version differs.
    damaged_entry_is_recompiled("version", 10, "format version 3", |b| {
        b[8..12].copy_from_slice(&3u32.to_le_bytes());
        let mut h = blake3::Hasher::new();
        h.update(&b[..56]);
        h.update(&b[HEADER_LEN..]);
        let sum = *h.finalize().as_bytes();
        b[56..88].copy_from_slice(&sum);
    });
    damaged_entry_is_recompiled("magic", 11, "magic", |b| b[0..8].copy_from_slice(b"NOTCACHE"));
}

#[test]
fn eight_processes_at_once_leave_one_valid_entry() {
    let scratch = Scratch::new("race");
    let dir = scratch.path().join("cache");
    let go = scratch.path().join("go");
    let envs = [("SFC_DIR", dir.to_str().unwrap()), ("SFC_GO", go.to_str().unwrap())];
    let children: Vec<_> = (0..8).map(|_| spawn_child("child", "fetch", &envs)).collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(&go, b"").unwrap();
    let results: Vec<Vec<String>> = children.into_iter().map(child_results).collect();
    assert!(results.iter().all(|r| r.len() == 1), "{results:?}");
    let keys: HashSet<&str> = results.iter().map(|r| r[0].split(' ').nth(1).unwrap()).collect();
    assert_eq!(keys.len(), 1, "{results:?}");
    eprintln!("outcomes: {:?}", results.iter().map(|r| r[0].split(' ').next().unwrap()).collect::<Vec<_>>());

    assert_eq!(entries(&dir).len(), 1, "{:?}", std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>());
    let stray: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "temporary files left: {stray:?}");
    let cache = open_cache(&dir);
    let verified = cache.verify();
    assert_eq!(verified.len(), 1);
    assert!(verified[0].1.is_ok(), "{verified:?}");
    assert_eq!(verified[0].0.last_used, Some(0));
    let hit = cache.fetch(&big_module(), &config(), b"").unwrap();
    assert_eq!(hit.outcome, Outcome::Hit);
}

#[test]
fn ninth_set_evicts_the_least_recently_used() {
    let scratch = Scratch::new("evict");
    let cache = open_cache(scratch.path());
    let wasm = module(0);
    // Distinct keys for one cheap module: vary the instrumentation bytes.
    let fetch = |name: &str| {
        let f = cache.fetch(&wasm, &config(), name.as_bytes()).unwrap();
        assert!(f.stored);
        f.key
    };
    let m: Vec<Key> = (0..16).map(|i| fetch(&format!("m{i}"))).collect();
    let shared = fetch("shared");
    let exists = |k: &Key| entry_path(&cache, k).exists();
    let record = |keys: &[Key]| {
        let r = cache.record_set(keys);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let mut evicted = r.evicted;
        evicted.sort();
        evicted
    };

    // Sets 0..7; set 0 and set 5 share a module.
    for (i, &key) in m.iter().enumerate().take(8) {
        let set = if i == 0 || i == 5 { vec![key, shared] } else { vec![key] };
        assert!(record(&set).is_empty(), "nothing is evicted while there are at most 8 sets");
    }
    // Using set 0 again makes set 1 the least recently used (order of keys
    // within a set does not matter).
    assert!(record(&[shared, m[0]]).is_empty());
    assert_eq!(record(&[m[8]]), vec![m[1]]);
    assert!(!exists(&m[1]) && exists(&m[0]) && exists(&shared));
    assert_eq!(cache.list().iter().filter(|e| e.last_used.is_some()).count(), 9);

    assert_eq!(record(&[m[9]]), vec![m[2]]);
    assert_eq!(record(&[m[10]]), vec![m[3]]);
    assert_eq!(record(&[m[11]]), vec![m[4]]);
    // Set 5 goes, but its shared module stays: set 0 still uses it.
    assert_eq!(record(&[m[12]]), vec![m[5]]);
    assert!(exists(&shared));
    assert_eq!(record(&[m[13]]), vec![m[6]]);
    assert_eq!(record(&[m[14]]), vec![m[7]]);
    // Now set 0 is the oldest: it takes the shared module with it.
    let mut expected = vec![m[0], shared];
    expected.sort();
    assert_eq!(record(&[m[15]]), expected);
    assert!(!exists(&shared));
    let left: HashSet<Key> = cache.list().iter().map(|e| e.key).collect();
    assert_eq!(left, m[8..16].iter().copied().collect());
    // An evicted module is simply compiled again.
    let again = cache.fetch(&wasm, &config(), b"m1").unwrap();
    assert_eq!(again.outcome, Outcome::Miss);
    assert_runs(again.code, 0);
}

#[test]
fn corrupt_index_is_rebuilt_without_failing() {
    let scratch = Scratch::new("index");
    let cache = open_cache(scratch.path());
    let a = cache.fetch(&module(0), &config(), b"").unwrap().key;
    let b = cache.fetch(&module(1), &config(), b"").unwrap().key;
    for garbage in [&b"\xff\xfe not text"[..], b"seedfall-cache-index 1\nnot-a-key\n", b"", b"something else\n"] {
        std::fs::write(scratch.path().join("index"), garbage).unwrap();
        let r = cache.record_set(&[a]);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(r.warnings[0].contains("corrupt") && r.warnings[0].contains("rebuilding"));
        assert!(r.evicted.is_empty(), "young entries without a set are not evicted");
        let r = cache.record_set(&[b]);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let used: Vec<Option<usize>> = cache.list().iter().map(|e| e.last_used).collect();
        assert_eq!(used, vec![Some(0), Some(1)]);
    }
    assert!(entry_path(&cache, &a).exists() && entry_path(&cache, &b).exists());
}

#[test]
fn concurrent_record_set_keeps_every_set() {
    let scratch = Scratch::new("index-race");
    let keys: Vec<Key> = (0..8u8).map(|i| Key::compute(&module(0), &config(), &[i])).collect();
    std::thread::scope(|s| {
        for key in &keys {
            let dir = scratch.path().to_path_buf();
            s.spawn(move || {
                let cache = open_cache(&dir);
                for _ in 0..20 {
                    assert!(cache.record_set(&[*key]).warnings.is_empty());
                }
            });
        }
    });
    let text = std::fs::read_to_string(scratch.path().join("index")).unwrap();
    let recorded: HashSet<&str> = text.lines().skip(1).collect();
    let expected: HashSet<String> = keys.iter().map(Key::hex).collect();
    assert_eq!(recorded, expected.iter().map(String::as_str).collect());
}

#[test]
fn unwritable_dir_compiles_in_memory_and_warns_once() {
    let scratch = Scratch::new("unwritable");
    // A path under a regular file can never be created, even by root.
    std::fs::write(scratch.path().join("file"), b"").unwrap();
    let cache = open_cache(&scratch.path().join("file/cache"));
    assert!(!cache.is_writable());
    let first = cache.fetch(&module(0), &config(), b"").unwrap();
    assert_eq!(first.outcome, Outcome::Miss);
    assert!(!first.stored);
    assert_eq!(first.warnings.len(), 1, "{:?}", first.warnings);
    assert!(first.warnings[0].contains("compiling in memory"), "{:?}", first.warnings);
    assert_runs(first.code, 0);
    let second = cache.fetch(&module(1), &config(), b"").unwrap();
    assert!(second.warnings.is_empty(), "warned once: {:?}", second.warnings);
    assert_runs(second.code, 1);
    let r = cache.record_set(&[first.key, second.key]);
    assert!(r.warnings.is_empty() && r.evicted.is_empty());
    assert!(cache.list().is_empty());
    assert_eq!(cache.clear().unwrap(), 0);
}

/// Drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the calling thread's
/// effective capabilities (Linux keeps capabilities per thread), so file
/// permissions bind it even when the tests run as root; other threads keep
/// theirs. A no-op for an unprivileged user, who has none.
fn obey_permissions_on_this_thread() {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    const DAC: u32 = (1 << 1) | (1 << 2); // CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
    let mut data = [Data::default(); 2];
    let mut header = Header { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    // SAFETY: capget/capset with a version 3 header and two data structs, as the ABI asks; pid 0 is this thread.
    unsafe {
        assert_eq!(libc::syscall(libc::SYS_capget, &mut header as *mut Header, data.as_mut_ptr()), 0, "capget");
        data[0].effective &= !DAC;
        let mut header = Header { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
        assert_eq!(libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()), 0, "capset");
    }
}

#[test]
fn read_only_dir_still_hits_and_compiles_in_memory() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new("readonly");
    let dir = scratch.path().join("cache");
    let cache = open_cache(&dir);
    let stored = cache.fetch(&module(0), &config(), b"").unwrap();
    cache.record_set(&[stored.key]);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permissions; a thread without the capabilities that let it does not.
    std::thread::scope(|s| {
        s.spawn(|| {
            obey_permissions_on_this_thread();
            assert!(std::fs::write(dir.join("probe"), b"").is_err(), "the directory is read-only to this thread");
            let cache = open_cache(&dir);
            assert!(!cache.is_writable());
            let hit = cache.fetch(&module(0), &config(), b"").unwrap();
            assert_eq!(hit.outcome, Outcome::Hit);
            assert!(hit.warnings.is_empty());
            let miss = cache.fetch(&module(1), &config(), b"").unwrap();
            assert_eq!(miss.outcome, Outcome::Miss);
            assert_eq!(miss.warnings.len(), 1, "{:?}", miss.warnings);
            assert_runs(miss.code, 1);
            assert!(cache.record_set(&[hit.key, miss.key]).warnings.is_empty());
            assert_runs(hit.code, 0);
        });
    });
}

#[test]
fn hit_is_byte_identical_to_a_fresh_compile_and_runs_the_same() {
    let scratch = Scratch::new("determinism");
    let cache = open_cache(scratch.path());
    for (bias, trap_mode) in [(0, TrapMode::Signals), (7, TrapMode::Explicit)] {
        let config = CompileConfig { trap_mode, ..config() };
        let wasm = module(bias);
        assert_eq!(cache.fetch(&wasm, &config, b"").unwrap().outcome, Outcome::Miss);
        let hit = cache.fetch(&wasm, &config, b"").unwrap();
        assert_eq!(hit.outcome, Outcome::Hit);
        let fresh = Code::load(compile(&wasm, &config).unwrap()).unwrap();
        assert_eq!(hit.code.code_bytes(), fresh.code_bytes(), "{trap_mode:?}");
        assert_eq!(hit.code.artifact(), fresh.artifact());
        let from_hit = behaviour(hit.code);
        assert_eq!(from_hit, behaviour(fresh));
        assert_eq!(from_hit.0, vec![Val::I32(42 + bias)]);
    }
    // And for a larger module, the code itself.
    let big = big_module();
    cache.fetch(&big, &config(), b"").unwrap();
    let hit = cache.fetch(&big, &config(), b"").unwrap();
    assert_eq!(hit.outcome, Outcome::Hit);
    let fresh = Code::load(compile(&big, &config()).unwrap()).unwrap();
    assert_eq!(hit.code.code_bytes(), fresh.code_bytes());
    assert_eq!(hit.code.artifact(), fresh.artifact());
}

#[test]
fn list_verify_clear() {
    let scratch = Scratch::new("admin");
    let cache = open_cache(scratch.path());
    assert!(cache.list().is_empty());
    let a = cache.fetch(&module(0), &config(), b"").unwrap();
    let b = cache.fetch(&module(1), &config(), b"").unwrap();
    cache.record_set(&[a.key]);
    cache.record_set(&[b.key]);
    let list = cache.list();
    assert_eq!(list.iter().map(|e| (e.key, e.last_used)).collect::<Vec<_>>(), vec![(b.key, Some(0)), (a.key, Some(1))]);
    assert!(list.iter().all(|e| e.size_bytes > HEADER_LEN as u64 && e.path.starts_with(scratch.path())));
    assert!(cache.verify().iter().all(|(_, r)| r.is_ok()));
    // Other files in the directory are not entries and survive a clear.
    std::fs::write(scratch.path().join("README"), b"mine").unwrap();
    assert_eq!(cache.clear().unwrap(), 2);
    assert!(cache.list().is_empty() && entries(scratch.path()).is_empty());
    assert!(scratch.path().join("README").exists() && !scratch.path().join("index").exists());
    assert_eq!(cache.fetch(&module(0), &config(), b"").unwrap().outcome, Outcome::Miss);
}

#[test]
fn default_locations() {
    let run = |envs: &[(&str, &str)]| {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child
            .args(["child", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "dirs")
            .env_remove(DIR_ENV)
            .env_remove("XDG_CACHE_HOME")
            .stdout(std::process::Stdio::piped());
        for (k, v) in envs {
            child.env(k, v);
        }
        child_results(child.spawn().unwrap())
    };
    assert_eq!(
        run(&[("HOME", "/home/u")]),
        ["exec /home/u/.cache/seedfall", "config /srv/proj/.seedfall/cache", "bare ./.seedfall/cache"]
    );
    assert_eq!(run(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")])[0], "exec /xdg/seedfall");
    assert_eq!(run(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "relative")])[0], "exec /home/u/.cache/seedfall");
    assert_eq!(
        run(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg"), (DIR_ENV, "/shared/ci-cache")]),
        ["exec /shared/ci-cache", "config /shared/ci-cache", "bare /shared/ci-cache"]
    );
}

#[test]
fn the_counter_global_comes_back_with_a_hit() {
    let scratch = Scratch::new("counter");
    let cache = open_cache(scratch.path());
    let wasm = wat::parse_str(r#"(module (global (mut i64) (i64.const 0)) (func (export "f")))"#).unwrap();
    let key = Key::compute(&wasm, &config(), b"counted");
    let marked = || {
        let mut artifact = compile(&wasm, &config())?;
        artifact.counter_global = Some(0);
        Ok(artifact)
    };
    let miss = cache.get_or_compile(&key, marked).unwrap();
    assert_eq!((miss.outcome, miss.code.artifact().counter_global), (Outcome::Miss, Some(0)));
    let hit = cache.get_or_compile(&key, || panic!("a hit compiles nothing")).unwrap();
    assert_eq!((hit.outcome, hit.code.artifact().counter_global), (Outcome::Hit, Some(0)));
}

#[test]
fn code_with_and_without_the_function_bitmap_are_separate_entries() {
    let scratch = Scratch::new("bitmap");
    let cache = open_cache(scratch.path());
    let wasm = module(4);
    let on = CompileConfig { function_bitmap: true, ..config() };
    let plain = cache.fetch(&wasm, &config(), b"").unwrap();
    let marked = cache.fetch(&wasm, &on, b"").unwrap();
    assert_ne!(plain.key, marked.key);
    assert_eq!((plain.outcome, marked.outcome), (Outcome::Miss, Outcome::Miss), "no entry serves both");
    for (config, bitmap) in [(config(), false), (on, true)] {
        let hit = cache.fetch(&wasm, &config, b"").unwrap();
        assert_eq!((hit.outcome, hit.code.has_function_bitmap()), (Outcome::Hit, bitmap));
        let expected = if bitmap { &marked.code } else { &plain.code };
        assert_eq!(hit.code.code_bytes(), expected.code_bytes());
    }
}
