//! The key that seals cache entries. An entry is native code this process
//! will run, and a cache directory may sit in a checkout someone else wrote
//! (`.seedfall/cache`), so an entry runs only if it carries a valid MAC: a
//! blake3 keyed hash of its header (which holds the checksum of the payload,
//! so the MAC vouches for every byte) under one of two keys:
//! - **this user's key**: 32 random bytes in `cache.key` of the user cache
//!   directory, created 0600 on first use, never read through a symbolic
//!   link, never taken from a checkout or from `SEEDFALL_CACHE_DIR`;
//! - **a shared secret**: with `SEEDFALL_CACHE_SECRET` set, a key derived
//!   from it, for runners that share a directory or a remote cache.
//!
//! What it does not do: encrypt (entries are not secret), or protect against
//! whoever can read the key or holds the secret (docs/security.md).

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

pub const SECRET_ENV: &str = "SEEDFALL_CACHE_SECRET";
/// This user's key, in the user cache directory (`crate::user_dir`).
pub const KEY_FILE: &str = "cache.key";
const KEY_LEN: usize = 32;

/// The MAC key, and whether it is shared with others (`SEEDFALL_CACHE_SECRET`)
/// or this user's own.
#[derive(Clone)]
pub struct Secret {
    key: [u8; KEY_LEN],
    shared: bool,
}

impl Secret {
    /// The shared key for the secret `text`; `None` for an empty secret
    /// (which authenticates nothing).
    pub fn new(text: &[u8]) -> Option<Secret> {
        (!text.is_empty()).then(|| Secret {
            key: blake3::derive_key("seedfall compiled-code cache entry MAC v1", text),
            shared: true,
        })
    }

    /// A key of this user's own from its raw bytes (what `for_user` reads).
    pub fn private(key: [u8; KEY_LEN]) -> Secret {
        Secret { key, shared: false }
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

    /// The key this process seals and checks entries with: the shared secret
    /// when set, else this user's key (created if missing). An error names
    /// why there is none (no user cache directory, a key file refused).
    pub fn from_env_or_user() -> Result<Secret, String> {
        if let Some(secret) = Secret::from_env() {
            return Ok(secret);
        }
        let dir = crate::user_dir().ok_or_else(|| {
            format!("no user cache directory for this user's cache key (set HOME or XDG_CACHE_HOME, or {SECRET_ENV})")
        })?;
        Secret::for_user(&dir)
    }

    /// This user's key in `dir/cache.key`, created there if missing: random
    /// bytes written to a private temporary file and linked into place, so a
    /// reader never sees half a key and two first runs agree on one.
    pub fn for_user(dir: &Path) -> Result<Secret, String> {
        let path = dir.join(KEY_FILE);
        let fail = |e: io::Error| format!("cache key {}: {e}", path.display());
        match read_key(&path) {
            Ok(key) => return Ok(Secret::private(key)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(e)),
        }
        crate::create_private_dir(dir).map_err(fail)?;
        let mut key = [0u8; KEY_LEN];
        getrandom::getrandom(&mut key).map_err(|e| fail(io::Error::other(e.to_string())))?;
        let temp = crate::fsutil::temp_path(dir);
        let written = (|| {
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            options.mode(0o600);
            let mut file = options.open(&temp)?;
            file.write_all(&key)?;
            file.sync_all()?;
            match fs::hard_link(&temp, &path) {
                // Another process created it first: theirs is the key.
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
                _ => crate::fsutil::sync_dir(dir),
            }
        })();
        let _ = fs::remove_file(&temp);
        written.map_err(fail)?;
        read_key(&path).map(Secret::private).map_err(fail)
    }

    /// Whether the key is shared (`SEEDFALL_CACHE_SECRET`): the directory may
    /// be written by others, so entries are verified from a private copy.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The key's name in messages.
    pub(crate) fn name(&self) -> String {
        if self.shared { SECRET_ENV.to_string() } else { format!("this user's {KEY_FILE}") }
    }

    pub(crate) fn mac(&self, bytes: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.key, bytes)
    }
}

/// The key at `path`: a regular file of exactly 32 bytes, not a symbolic
/// link, and on Unix neither readable nor writable by others.
fn read_key(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    let refuse = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    if fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(refuse("is a symbolic link; seedfall refuses it (delete it for a new key)".into()));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    // Closes the gap between the check above and the open.
    #[cfg(unix)]
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file: File = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() != KEY_LEN as u64 {
        return Err(refuse(format!("not a {KEY_LEN}-byte file (delete it for a new key)")));
    }
    #[cfg(unix)]
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(refuse(format!(
            "others may read or write it (mode {:o}): `chmod 600` it, or delete it for a new key",
            meta.permissions().mode() & 0o777
        )));
    }
    let mut key = [0u8; KEY_LEN];
    file.take(KEY_LEN as u64).read_exact(&mut key)?;
    Ok(key)
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Secret({}…)", if self.shared { "shared" } else { "private" })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_user_key_is_created_private_once_and_a_symlink_is_refused() {
        let dir = std::env::temp_dir().join(format!("seedfall-key-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let first = Secret::for_user(&dir.join("a")).unwrap();
        let path = dir.join("a").join(KEY_FILE);
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(!first.is_shared());
        assert_eq!(Secret::for_user(&dir.join("a")).unwrap().key, first.key, "read back, not replaced");
        assert_ne!(Secret::for_user(&dir.join("b")).unwrap().key, first.key, "another user, another key");
        assert_eq!(fs::read_dir(dir.join("a")).unwrap().count(), 1, "no temporary file left");

        let linked = dir.join("c");
        fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&path, linked.join(KEY_FILE)).unwrap();
        let error = Secret::for_user(&linked).unwrap_err();
        assert!(error.contains("symbolic link"), "{error}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let error = Secret::for_user(&dir.join("a")).unwrap_err();
        assert!(error.contains("chmod 600"), "{error}");
        fs::write(dir.join("b").join(KEY_FILE), b"short").unwrap();
        assert!(Secret::for_user(&dir.join("b")).unwrap_err().contains("32-byte"));
        let _ = fs::remove_dir_all(&dir);
    }
}
