//! Sealed entries: an entry runs only under a valid MAC of the key this
//! process uses (this user's, or the shared `SEEDFALL_CACHE_SECRET`). A
//! genuine entry sealed under another user's key or another secret, and a
//! forgery with a correct checksum, are recompiled, never run; with a shared
//! secret the code that runs is a private copy of the bytes verified, so
//! writing into the entry file after the fetch changes nothing that runs.

mod common;

use common::*;
use seedfall_cache::*;
use std::io::{Seek, SeekFrom, Write};

fn secret(text: &str) -> Secret {
    Secret::new(text.as_bytes()).unwrap()
}

fn recompiled_because(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Recompiled { reason } => reason.clone(),
        other => panic!("expected a recompile, got {other:?}"),
    }
}

#[test]
fn entries_not_sealed_with_our_key_are_recompiled() {
    let scratch = Scratch::new("auth-mac");
    let wasm = module(3);
    let ours = open_cache(scratch.path());
    assert_eq!(ours.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Miss);
    assert_eq!(ours.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Hit);

    // Another user's genuine entry (the checksum is right): not ours, so not run.
    let other_user = Cache::open(scratch.path(), Ok(Secret::private([0x77; 32])));
    let first = other_user.fetch(&wasm, &config(), b"").unwrap();
    assert!(recompiled_because(&first.outcome).contains("not authenticated by this user's cache.key"));
    assert_eq!(behaviour(first.code).0[0], seedfall_engine::Val::I32(45));
    assert_eq!(other_user.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Hit, "resealed with its key");
    assert!(recompiled_because(&ours.fetch(&wasm, &config(), b"").unwrap().outcome).contains("not authenticated"));

    let shared = Cache::open(scratch.path(), Ok(secret("ours")));
    let first = shared.fetch(&wasm, &config(), b"").unwrap();
    assert!(recompiled_because(&first.outcome).contains("not authenticated by SEEDFALL_CACHE_SECRET"));
    let theirs = Cache::open(scratch.path(), Ok(secret("theirs")));
    assert!(recompiled_because(&theirs.fetch(&wasm, &config(), b"").unwrap().outcome).contains("not authenticated"));

    // A forger without the key: other code, a correct checksum, a MAC copied from a valid entry.
    for cache in [&ours, &shared] {
        let path = entry_path(cache, &cache.fetch(&wasm, &config(), b"").unwrap().key);
        let mut forged = std::fs::read(&path).unwrap();
        let last = forged.len() - 1;
        forged[last] ^= 0xff;
        let mut h = blake3::Hasher::new();
        h.update(&forged[..56]);
        h.update(&forged[HEADER_LEN..]);
        forged[56..88].copy_from_slice(h.finalize().as_bytes());
        std::fs::write(&path, &forged).unwrap();
        let fetched = cache.fetch(&wasm, &config(), b"").unwrap();
        assert!(recompiled_because(&fetched.outcome).contains("not authenticated"));
        assert_eq!(behaviour(fetched.code).0[0], seedfall_engine::Val::I32(45));
    }

    // Without a key nothing is read or stored: compiled in memory, with a warning.
    let keyless = Cache::open(scratch.path(), Err("no key here".into()));
    let fetched = keyless.fetch(&wasm, &config(), b"").unwrap();
    assert_eq!((fetched.outcome, fetched.stored), (Outcome::Miss, false));
    assert!(fetched.warnings.iter().any(|w| w.contains("no key here") && w.contains("compiling in memory")));
}

#[test]
fn writes_into_the_entry_after_a_fetch_do_not_reach_the_code() {
    let scratch = Scratch::new("auth-copy");
    let wasm = module(5);
    let cache = Cache::open(scratch.path(), Ok(secret("s")));
    cache.fetch(&wasm, &config(), b"").unwrap();
    let hit = cache.fetch(&wasm, &config(), b"").unwrap();
    assert_eq!(hit.outcome, Outcome::Hit);
    // Overwrite the same inode in place (not by rename), as an attacker with
    // write access to a shared directory could.
    let path = entry_path(&cache, &hit.key);
    let len = std::fs::metadata(&path).unwrap().len();
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(HEADER_LEN as u64)).unwrap();
    file.write_all(&vec![0xcc; len as usize - HEADER_LEN]).unwrap();
    drop(file);
    assert_eq!(behaviour(hit.code).0[0], seedfall_engine::Val::I32(47), "still the verified code");
}
