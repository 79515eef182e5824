//! Issue 56: nothing seedfall executes natively comes from the checkout. A
//! property-catalog program committed where seedfall used to build its tool
//! (`.seedfall/build/catalog-<hash>/catalog` beside the config) never runs;
//! a committed `.seedfall/cache` entry for the config's own module, genuine
//! and with a valid checksum but sealed under another user's key, is never
//! run: it is recompiled with a warning, and the run is the same.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kvlog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("checkout-code").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A checkout: a copy of kvlog's config in `dir`, naming kvlog's packages by
/// absolute path (so `.seedfall/` is this folder's).
fn checkout(dir: &Path) -> PathBuf {
    let kvlog = std::path::absolute(kvlog()).unwrap();
    let config = std::fs::read_to_string(kvlog.join("seedfall.json"))
        .unwrap()
        .replace("\"./server\"", &format!("{:?}", kvlog.join("server")))
        .replace("\"./client\"", &format!("{:?}", kvlog.join("client")));
    let path = dir.join("seedfall.json");
    std::fs::write(&path, config).unwrap();
    path
}

/// `seedfall run -c CONFIG -seeds 1` with `envs`, never with a cache
/// directory or secret from the environment the tests run in.
fn run(config: &Path, envs: &[(&str, &Path)]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-seeds", "1", "-c"])
        .arg(config)
        .env_remove("SEEDFALL_CACHE_DIR")
        .env_remove("SEEDFALL_CACHE_SECRET")
        .env_remove("SEEDFALL_REMOTE_CACHE")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out, text)
}

#[cfg(unix)]
#[test]
fn a_catalog_program_committed_beside_the_config_never_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("catalog");
    let config = checkout(&dir);
    // Where seedfall built (and then ran, if present) its tool before issue
    // 56: the name is the same on every machine for a version.
    let catalog = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let source = ["go.mod", "main.go"].map(|f| std::fs::read_to_string(catalog.join(f)).unwrap()).join("\0");
    let hash = blake3::hash(source.as_bytes()).to_hex();
    let planted = dir.join(".seedfall/build").join(format!("catalog-{}", &hash[..16])).join("catalog");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    let marker = dir.join("planted-catalog-ran");
    std::fs::write(&planted, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();

    let (out, text) = run(&config, &[]);
    assert_eq!(out.status.code(), Some(1), "kvlog's seed 1 fails\n{text}");
    assert!(!marker.exists(), "the committed catalog program ran\n{text}");
    assert!(planted.exists(), "the checkout's file is left alone");
}

/// "FAIL seed 1 at t=…", without the figures in parentheses (real time among them).
fn fail_line(text: &str) -> Option<&str> {
    text.lines().find(|l| l.starts_with("FAIL seed 1")).and_then(|l| l.split(" (").next())
}

/// `go env GOCACHE` as the tests see it: a run with another XDG_CACHE_HOME
/// must not send Go to an empty build cache.
fn go_cache() -> PathBuf {
    let out = Command::new("go").args(["env", "GOCACHE"]).output().unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn a_compiled_entry_another_user_sealed_is_recompiled_never_run() {
    let dir = scratch("sealed");
    let config = checkout(&dir);
    let gocache = go_cache();
    let (user_a, user_b) = (dir.join("home-a"), dir.join("home-b"));
    let as_user = |home: &Path| run(&config, &[("XDG_CACHE_HOME", home), ("GOCACHE", &gocache)]);

    // User A's run writes `.seedfall/cache` beside the config, as a repository
    // that commits it would carry it: genuine entries with valid checksums.
    let (first, first_text) = as_user(&user_a);
    assert_eq!(first.status.code(), Some(1), "{first_text}");
    let entries = dir.join(".seedfall/cache");
    let count = std::fs::read_dir(&entries).unwrap().flatten().filter(|e| e.path().extension() == Some("sfc".as_ref()));
    assert!(count.count() >= 2, "kvlog's server and client are cached");

    // User B (another HOME, so another key) checks out those entries: each is
    // recompiled with a warning, and the run is the same.
    let (second, second_text) = as_user(&user_b);
    assert_eq!(second.status.code(), Some(1), "{second_text}");
    let warnings: Vec<&str> = second_text.lines().filter(|l| l.contains("not authenticated by")).collect();
    assert!(warnings.len() >= 2, "every module recompiled\n{second_text}");
    for warning in warnings {
        assert!(warning.contains("this user's cache.key") && warning.contains("recompiling"), "{warning}");
    }
    assert_eq!(fail_line(&second_text), fail_line(&first_text), "{second_text}");

    // Stored again under B's key: B's next run is warm and quiet.
    let (third, third_text) = as_user(&user_b);
    assert_eq!(third.status.code(), Some(1), "{third_text}");
    assert!(!third_text.contains("warning: compiled-code cache"), "{third_text}");
    for home in [&user_a, &user_b] {
        assert!(home.join("seedfall/cache.key").is_file(), "each user's key is in their user cache directory");
    }
}
