//! Property tests of the entry reader (issue 19): whatever bytes sit at an
//! entry's name (random, or a valid entry truncated, extended or with bytes
//! changed anywhere), sealed with a shared secret or this user's key, a
//! fetch never panics, never runs what it did not verify, and ends with
//! working code: a hit only when the bytes are the valid entry itself, else
//! a recompile. Cases:
//! PROPTEST_CASES (CI: 256).

mod common;

use common::*;
use proptest::prelude::*;
use seedfall_cache::*;
use std::sync::OnceLock;

/// The key: a shared secret (entries read into memory) or this user's (mapped).
fn secret(shared: bool) -> Secret {
    if shared { Secret::new(b"prop").unwrap() } else { user_key() }
}

/// The valid entry of `module(21)` under `secret(shared)` and its key, made once.
fn valid(shared: bool) -> &'static (Vec<u8>, Key) {
    static VALID: [OnceLock<(Vec<u8>, Key)>; 2] = [OnceLock::new(), OnceLock::new()];
    VALID[usize::from(shared)].get_or_init(|| {
        let scratch = Scratch::new("prop-valid");
        let cache = Cache::open(scratch.path(), Ok(secret(shared)));
        let key = cache.fetch(&module(21), &config(), b"").unwrap().key;
        (std::fs::read(entry_path(&cache, &key)).unwrap(), key)
    })
}

#[derive(Debug, Clone)]
enum Damage {
    Random(Vec<u8>),
    Truncate(usize),
    Extend(Vec<u8>),
    Set(Vec<(usize, u8)>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..400).prop_map(Damage::Random),
        any::<usize>().prop_map(Damage::Truncate),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(Damage::Extend),
        proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8).prop_map(Damage::Set),
    ]
}

fn apply(damage: &Damage, good: &[u8]) -> Vec<u8> {
    let mut bytes = good.to_vec();
    match damage {
        Damage::Random(random) => bytes = random.clone(),
        Damage::Truncate(at) => bytes.truncate(at % good.len()),
        Damage::Extend(tail) => bytes.extend_from_slice(tail),
        Damage::Set(changes) => {
            for (at, value) in changes {
                let at = at % bytes.len();
                bytes[at] = *value;
            }
        }
    }
    bytes
}

proptest! {
    #[test]
    fn any_bytes_at_an_entry_give_working_code(damage in damage(), shared in any::<bool>()) {
        let (good, key) = valid(shared);
        let scratch = Scratch::new("prop-fetch");
        let cache = Cache::open(scratch.path(), Ok(secret(shared)));
        let bytes = apply(&damage, good);
        std::fs::write(entry_path(&cache, key), &bytes).unwrap();
        let fetched = cache.fetch(&module(21), &config(), b"").unwrap();
        prop_assert_eq!(fetched.key, *key);
        let same = bytes == *good;
        match (&fetched.outcome, same) {
            (Outcome::Hit, true) | (Outcome::Recompiled { .. }, false) => {}
            (outcome, same) => prop_assert!(false, "{outcome:?} for bytes equal to the valid entry: {same}"),
        }
        prop_assert_eq!(&behaviour(fetched.code).0, &vec![seedfall_engine::Val::I32(63)]);
    }
}
