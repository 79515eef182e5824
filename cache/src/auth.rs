//! Authenticated entries. A cache entry is native code this process will
//! run, so an entry from a directory or server others can write must prove
//! it was written by someone who holds the secret: with
//! `SEEDFALL_CACHE_SECRET` set, each entry carries a blake3 keyed MAC of its
//! header (which holds the checksum of the payload), and an entry without a
//! valid one is treated as corrupt and recompiled. What it does not do:
//! encrypt (entries are not secret), or protect against a holder of the
//! secret (who can write the cache can run code: docs/cache.md).

use std::fmt;

pub const SECRET_ENV: &str = "SEEDFALL_CACHE_SECRET";

/// The MAC key derived from the user's secret.
#[derive(Clone)]
pub struct Secret([u8; 32]);

impl Secret {
    /// The key for `text`; `None` for an empty secret (which authenticates nothing).
    pub fn new(text: &[u8]) -> Option<Secret> {
        (!text.is_empty()).then(|| Secret(blake3::derive_key("seedfall compiled-code cache entry MAC v1", text)))
    }

    /// From `SEEDFALL_CACHE_SECRET`, if set and not empty.
    pub fn from_env() -> Option<Secret> {
        #[cfg(unix)]
        use std::os::unix::ffi::OsStrExt;
        // Windows: the secret's UTF-8 bytes (WTF-8 if it is not Unicode),
        // the same bytes as on Unix for any secret both can spell.
        #[cfg(windows)]
        let bytes = |s: &std::ffi::OsString| s.as_encoded_bytes().to_vec();
        #[cfg(unix)]
        let bytes = |s: &std::ffi::OsString| s.as_bytes().to_vec();
        std::env::var_os(SECRET_ENV).and_then(|s| Secret::new(&bytes(&s)))
    }

    pub(crate) fn mac(&self, bytes: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.0, bytes)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}
