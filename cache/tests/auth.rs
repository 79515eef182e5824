//! Authenticated entries (`SEEDFALL_CACHE_SECRET`): with a secret, an entry
//! without a valid MAC (written without one, under another secret, or forged
//! with a correct checksum) is recompiled, never run; and the code that runs
//! is a private copy of the bytes verified, so writing into the entry file
//! after the fetch changes nothing that runs.

mod common;

use common::*;
use seedfall_cache::*;
use std::io::{Seek, SeekFrom, Write};

fn secret(text: &str) -> Option<Secret> {
    Secret::new(text.as_bytes())
}

fn recompiled_because(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Recompiled { reason } => reason.clone(),
        other => panic!("expected a recompile, got {other:?}"),
    }
}

#[test]
fn entries_without_a_valid_mac_are_recompiled() {
    let scratch = Scratch::new("auth-mac");
    let wasm = module(3);
    let plain = Cache::open(scratch.path());
    assert_eq!(plain.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Miss);

    let ours = Cache::open(scratch.path()).with_secret(secret("ours"));
    let first = ours.fetch(&wasm, &config(), b"").unwrap();
    assert!(recompiled_because(&first.outcome).contains("not authenticated by SEEDFALL_CACHE_SECRET"));
    assert_eq!(behaviour(first.code).0[0], seedfall_engine::Val::I32(45));
    assert_eq!(ours.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Hit, "rewritten with our MAC");
    assert_eq!(plain.fetch(&wasm, &config(), b"").unwrap().outcome, Outcome::Hit, "readable without a secret");

    let theirs = Cache::open(scratch.path()).with_secret(secret("theirs"));
    assert!(recompiled_because(&theirs.fetch(&wasm, &config(), b"").unwrap().outcome).contains("not authenticated"));

    // A forger without the secret: other code, a correct checksum, our MAC copied over.
    let path = entry_path(&ours, &ours.fetch(&wasm, &config(), b"").unwrap().key);
    let mut forged = std::fs::read(&path).unwrap();
    let mac: Vec<u8> = forged[88..120].to_vec();
    let last = forged.len() - 1;
    forged[last] ^= 0xff;
    let mut h = blake3::Hasher::new();
    h.update(&forged[..56]);
    h.update(&forged[HEADER_LEN..]);
    forged[56..88].copy_from_slice(h.finalize().as_bytes());
    forged[88..120].copy_from_slice(&mac);
    std::fs::write(&path, &forged).unwrap();
    let fetched = ours.fetch(&wasm, &config(), b"").unwrap();
    assert!(recompiled_because(&fetched.outcome).contains("not authenticated"));
    assert_eq!(behaviour(fetched.code).0[0], seedfall_engine::Val::I32(45));
}

#[test]
fn writes_into_the_entry_after_a_fetch_do_not_reach_the_code() {
    let scratch = Scratch::new("auth-copy");
    let wasm = module(5);
    let cache = Cache::open(scratch.path()).with_secret(secret("s"));
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
