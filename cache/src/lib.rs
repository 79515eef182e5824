//! The on-disk store of compiled Artifacts, keyed by blake3, shared by
//! processes and CI runners. Design and rationale: `docs/cache.md`.
//!
//! - **Key** ([`Key::compute`]): blake3 over the engine's key material
//!   (`CompileConfig::key_material`: Artifact format version, engine version,
//!   Cranelift version, target triple, ISA baseline name, trap mode, every
//!   Cranelift setting, a hash of the engine's source), the instrumentation
//!   config bytes and the wasm bytes, each length-prefixed. Nothing
//!   machine-specific, so a copied cache directory still hits.
//! - **Entry** (`entry.rs`): header (magic, entry format version, flags, key,
//!   payload length), a blake3 checksum of header and payload, a MAC of the
//!   header, then the Artifact's own bytes, with the code page-aligned in the
//!   file. Every entry is sealed (`auth.rs`): one that this user's key (or
//!   the shared secret) did not seal is recompiled, never run.
//!   Under this user's key: mapped read-only with memmap2 and verified before
//!   anything else; only then does the engine (`Code::load_file`) map the
//!   code range executable in place (no copy, no relocation: compiled code
//!   is linked position-independently), or copy it where the file system
//!   forbids executable mappings. Under a shared secret: read into this
//!   process's memory, checksum and MAC checked over those bytes, the code
//!   copied into fresh pages (`Code::load_copy`).
//! - **Remote** (`remote.rs`): on a local miss, an HTTP GET of the entry
//!   (verified like a local one, then stored locally, sealed with the local
//!   key); a compile is uploaded by PUT in the background.
//! - **Publish** (`fsutil.rs`): temporary file in the cache directory, write,
//!   fsync, rename, fsync the directory.
//! - **Eviction** (`index.rs`, [`Cache::record_set`]): the 8 most recently used
//!   sets are kept; entries of older sets that no kept set uses are deleted.
//! - **Never fails a run**: a corrupt entry is deleted and recompiled, an
//!   unwritable directory (or one that is not a seedfall cache: its own files
//!   and no CACHEDIR.TAG of ours) means compiling in memory. Both are reported as
//!   warnings (plain sentences, for the caller to print), the unwritable
//!   directory once per `Cache`.
//!
//! The cache knows an Artifact only as bytes (`encode_at`/`decode_split`),
//! hands back loaded `Code`, and knows the config only through its key material.

mod auth;
mod entry;
mod fsutil;
mod index;
mod remote;

use seedfall_engine::{Artifact, Code, CompileConfig};
use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use auth::{KEY_FILE, SECRET_ENV, Secret};
pub use entry::{ENTRY_VERSION, HEADER_LEN};
pub use remote::{FromEnv, Remote};

/// How many sets of binaries (most recently used first) keep their entries.
pub const KEEP_SETS: usize = 8;
/// Entries that belong to no recorded set (their writer never called
/// `record_set`, or the index was lost) are deleted once this old.
pub const ORPHAN_AGE: Duration = Duration::from_secs(3600);
/// Environment variable overriding every default location of compiled code
/// (never of the key or of tools: `user_dir`).
pub const DIR_ENV: &str = "SEEDFALL_CACHE_DIR";
/// Where in the user cache directory seedfall keeps the tools it builds for
/// this machine (the property catalog), away from any checkout.
pub const TOOLS_DIR: &str = "tools";

const ENTRY_EXT: &str = "sfc";
const INDEX_FILE: &str = "index";
const LOCK_FILE: &str = "index.lock";
const CACHEDIR_TAG: &[u8] = b"Signature: 8a477f597d28d172789f06886806bc55\n\
# This file is a cache directory tag created by seedfall.\n\
# For information about cache directory tags see https://bford.info/cachedir/\n";
/// Inputs at least this long are hashed on all cores (blake3 over rayon).
/// Measured on the 2-core development machine: see `docs/cache.md`.
const PARALLEL_HASH_MIN: usize = 1 << 20;

/// The buffer `Key::compute_from` streams the wasm through: large enough to
/// hash on all cores, small enough to stay in cache.
const KEY_CHUNK: usize = 4 << 20;

fn changed(how: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("the file {how} while seedfall read it"))
}

/// Feed `bytes` to `hasher`, on all cores when they are large, except in a
/// forked child (a lazy compile in an `explore` future reads its module
/// again), where the pool's threads do not exist and waiting on them hung.
pub(crate) fn hash_bytes(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    if bytes.len() >= PARALLEL_HASH_MIN && !seedfall_engine::runtime::fork_locks::in_child() {
        hasher.update_rayon(bytes);
    } else {
        hasher.update(bytes);
    }
}

/// A cache key: blake3 of everything that determines the compiled code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// The key of `wasm` (already instrumented) compiled with `config`, where
    /// `instrumentation` is the instrumentation config in any stable byte form.
    pub fn compute(wasm: &[u8], config: &CompileConfig, instrumentation: &[u8]) -> Key {
        Key::compute_from(&mut &wasm[..], wasm.len() as u64, config, instrumentation).expect("a slice reads fully")
    }

    /// [`Key::compute`] of the `len` bytes `wasm` yields, streamed through one
    /// small buffer: a cache hit never holds the module in memory. Fails if
    /// `wasm` yields fewer or more than `len` bytes (a file that changed since
    /// its size was read).
    pub fn compute_from(
        wasm: &mut impl io::Read,
        len: u64,
        config: &CompileConfig,
        instrumentation: &[u8],
    ) -> io::Result<Key> {
        let mut hasher = blake3::Hasher::new_derive_key("seedfall compiled-code cache key v1");
        let field_header = |hasher: &mut blake3::Hasher, name: &str, len: u64| {
            hasher.update(&(name.len() as u64).to_le_bytes());
            hasher.update(name.as_bytes());
            hasher.update(&len.to_le_bytes());
        };
        for (name, value) in key_material(config) {
            field_header(&mut hasher, name, value.len() as u64);
            hasher.update(value.as_bytes());
        }
        field_header(&mut hasher, "instrumentation", instrumentation.len() as u64);
        hash_bytes(&mut hasher, instrumentation);
        field_header(&mut hasher, "wasm", len);
        let mut buffer = vec![0u8; KEY_CHUNK.min(len as usize + 1)];
        let mut left = len;
        loop {
            let n = wasm.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            left = left.checked_sub(n as u64).ok_or_else(|| changed("grew"))?;
            hash_bytes(&mut hasher, &buffer[..n]);
        }
        if left > 0 {
            return Err(changed("shrank"));
        }
        Ok(Key(*hasher.finalize().as_bytes()))
    }

    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn from_hex(s: &str) -> Option<Key> {
        if s.len() != 64 || !s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
            return None;
        }
        let mut key = [0u8; 32];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Key(key))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.hex())
    }
}

/// Everything besides the wasm and instrumentation bytes that goes into a
/// key, in order (for `seedfall cache` diagnostics and the docs).
/// All of it comes from the engine (`CompileConfig::key_material`), the hash
/// of the engine's source (`seedfall_engine::ENGINE_SOURCE_HASH`) included.
pub fn key_material(config: &CompileConfig) -> Vec<(&'static str, String)> {
    config.key_material()
}

/// How a fetch was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A verified entry was loaded.
    Hit,
    /// Not in the local cache; the remote cache had it (verified, and now
    /// stored locally too).
    RemoteHit,
    /// No entry: compiled (and stored, if the directory is writable).
    Miss,
    /// An entry was there but bad (corrupt, truncated, another format
    /// version, unreadable): reported, deleted and compiled again.
    Recompiled { reason: String },
}

/// Where the time of a fetch went. Zero for the parts that did not run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    /// Hashing the inputs into the key (`fetch` only; the caller of
    /// `get_or_compile` computed the key itself).
    pub key_hash: Duration,
    /// Opening and mapping the entry (memmap2, pages populated).
    pub map: Duration,
    /// Checking the header and the blake3 checksum.
    pub verify: Duration,
    /// `Artifact::decode_split` from the mapped bytes (everything but the code).
    pub decode: Duration,
    /// Making the code executable: mapping it in place on a hit, or copying
    /// and relocating it after a compile.
    pub load: Duration,
    /// The compile closure (miss or recompile).
    pub compile: Duration,
    /// `Artifact::encode` and the entry's checksum.
    pub encode: Duration,
    /// Temporary file, write, fsync, rename, directory fsync.
    pub publish: Duration,
    /// Asking the remote cache (and downloading, on a remote hit).
    pub remote: Duration,
}

impl Timings {
    pub fn total(&self) -> Duration {
        self.key_hash
            + self.map
            + self.verify
            + self.decode
            + self.load
            + self.compile
            + self.encode
            + self.publish
            + self.remote
    }
}

impl fmt::Display for Timings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "key hash {:.2} ms, map {:.2} ms, verify {:.2} ms, decode {:.2} ms, load {:.2} ms",
            ms(self.key_hash),
            ms(self.map),
            ms(self.verify),
            ms(self.decode),
            ms(self.load)
        )?;
        if !self.remote.is_zero() {
            write!(f, ", remote {:.2} ms", ms(self.remote))?;
        }
        if !self.compile.is_zero() || !self.publish.is_zero() {
            write!(
                f,
                ", compile {:.2} ms, encode {:.2} ms, publish {:.2} ms",
                ms(self.compile),
                ms(self.encode),
                ms(self.publish)
            )?;
        }
        Ok(())
    }
}

/// The result of a fetch: loaded code, ready to instantiate.
#[derive(Debug)]
pub struct Fetched {
    pub key: Key,
    pub code: Code,
    pub outcome: Outcome,
    /// Whether a freshly compiled Artifact was written to the cache.
    pub stored: bool,
    pub timings: Timings,
    /// Problems the caller should print (`warning: <text>`); the run goes on.
    pub warnings: Vec<String>,
}

/// What `record_set` did.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Entries deleted: of sets that fell out of the most recent `KEEP_SETS`,
    /// and orphans older than `ORPHAN_AGE`.
    pub evicted: Vec<Key>,
    pub warnings: Vec<String>,
}

/// One entry on disk, as listed by `Cache::list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    pub key: Key,
    pub path: PathBuf,
    pub size_bytes: u64,
    /// Position of the most recently used set containing the entry (0 = the
    /// most recent); `None` if no recorded set uses it.
    pub last_used: Option<usize>,
}

/// A cache directory. Never fails to open: a directory that cannot be created
/// or written, or that holds files of its own and no seedfall CACHEDIR.TAG,
/// turns the cache into "compile in memory" with one warning.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    writable: AtomicBool,
    /// Why the directory is not writable, once known.
    unwritable: Mutex<Option<String>>,
    warned: AtomicBool,
    /// The key entries are sealed with and checked against (`auth.rs`);
    /// `None` when there is none (its reason is in `unwritable`): then no
    /// entry is read or written.
    secret: Option<Secret>,
    remote: Option<Arc<Remote>>,
}

/// Why an entry that exists could not be used.
enum Bad {
    /// Its bytes are wrong: delete it.
    Corrupt(String),
    /// It could not be read (permissions, I/O): leave it alone.
    Unreadable(String),
}

/// Identity of a file, so a bad entry is deleted only if nobody replaced it.
type FileId = (u64, u64);

/// The identity of the file `meta` describes: device and inode on Unix. On
/// Windows, whose stable std API has no file index, its creation and last
/// write times (100 ns ticks): an entry is replaced by renaming a file
/// created later over it, so a replacement differs in both.
fn file_id(meta: &fs::Metadata) -> FileId {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        (meta.creation_time(), meta.last_write_time())
    }
}

impl Cache {
    /// The cache at `dir`, sealing and checking entries with `secret`
    /// (`Secret::from_env_or_user`); without one (its error), it compiles in
    /// memory and neither reads nor writes an entry.
    pub fn open(dir: &Path, secret: Result<Secret, String>) -> Cache {
        let mut cache = Cache::unprepared(dir);
        let prepared = secret.and_then(|secret| {
            cache.secret = Some(secret);
            cache.prepare()
        });
        if let Err(reason) = prepared {
            cache.disable(reason);
        }
        cache
    }

    fn unprepared(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            writable: AtomicBool::new(true),
            unwritable: Mutex::new(None),
            warned: AtomicBool::new(false),
            secret: None,
            remote: None,
        }
    }

    /// The cache at `dir` for commands that only inspect or clear it (`cache
    /// ls/verify/path/clear`): creates and writes nothing, so pointing them at
    /// the wrong directory cannot leave a CACHEDIR.TAG (or anything) there.
    /// `Ok(None)`: nothing at `dir` yet. An error when `dir` is not a
    /// directory, or holds files of its own and no CACHEDIR.TAG of ours (a
    /// directory with only entries, the index and their temporary files is a
    /// cache whose tag was lost).
    /// `secret`: as for `open`; without one, `verify` reports why.
    pub fn open_existing(dir: &Path, secret: Result<Secret, String>) -> Result<Option<Cache>, String> {
        match fs::metadata(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
            Ok(_) => {}
        }
        not_a_cache(dir)?;
        let mut cache = Cache::unprepared(dir);
        match secret {
            Ok(secret) => cache.secret = Some(secret),
            Err(reason) => cache.disable(reason),
        }
        Ok(Some(cache))
    }

    /// Ask `remote` on a local miss, and upload what is compiled here.
    pub fn with_remote(mut self, remote: Option<Remote>) -> Cache {
        self.remote = remote.map(Arc::new);
        self
    }

    /// Whether entries are sealed with a shared secret (else with this
    /// user's key, or not at all).
    pub fn is_shared(&self) -> bool {
        self.secret.as_ref().is_some_and(Secret::is_shared)
    }

    /// The remote cache behind this one, to wait for its uploads (`Remote::finish`).
    pub fn remote(&self) -> Option<Arc<Remote>> {
        self.remote.clone()
    }

    /// `$SEEDFALL_CACHE_DIR`, else the user's cache directory for this OS
    /// (`user_dir`), else a directory under the temporary one (the
    /// location for `exec`).
    pub fn default_dir_for_exec() -> PathBuf {
        env_dir().or_else(user_dir).unwrap_or_else(|| std::env::temp_dir().join("seedfall-cache"))
    }

    /// `$SEEDFALL_CACHE_DIR`, else `.seedfall/cache` beside the config file
    /// (the location for `run`, `replay`, `shrink`).
    pub fn default_dir_for_config(config_path: &Path) -> PathBuf {
        env_dir().unwrap_or_else(|| {
            let parent = config_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            parent.join(".seedfall").join("cache")
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether new entries can be stored (false after the directory proved
    /// unwritable; entries already there can still be read).
    pub fn is_writable(&self) -> bool {
        self.writable.load(Ordering::Relaxed)
    }

    fn entry_path(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.{ENTRY_EXT}", key.hex()))
    }

    fn prepare(&self) -> Result<(), String> {
        let dir = &self.dir;
        // A directory of someone else's files is not adopted: a CACHEDIR.TAG
        // there would make backup tools skip it (issue 19).
        if dir.exists() {
            not_a_cache(dir)?;
        }
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let probe = fsutil::temp_path(dir);
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
        let _ = fs::remove_file(&probe);
        let tag = dir.join("CACHEDIR.TAG");
        if !tag.exists() {
            let _ = fsutil::publish(dir, &tag, &[CACHEDIR_TAG]);
        }
        Ok(())
    }

    fn disable(&self, reason: String) {
        self.writable.store(false, Ordering::Relaxed);
        let mut slot = self.unwritable.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(reason);
    }

    /// Why the cache cannot be used, for messages.
    fn unusable_reason(&self) -> String {
        let reason = self.unwritable.lock().unwrap_or_else(|e| e.into_inner()).clone();
        reason.unwrap_or_else(|| "not writable".into())
    }

    /// The "compiling in memory" warning, at most once per `Cache`.
    fn warn_unwritable(&self, warnings: &mut Vec<String>) {
        if self.warned.swap(true, Ordering::Relaxed) {
            return;
        }
        warnings.push(format!(
            "compiled-code cache {} is not usable ({}); compiling in memory, nothing is stored",
            self.dir.display(),
            self.unusable_reason()
        ));
    }

    /// Hash the inputs, then `get_or_compile` with the engine's `compile`.
    pub fn fetch(
        &self,
        wasm: &[u8],
        config: &CompileConfig,
        instrumentation: &[u8],
    ) -> seedfall_engine::Result<Fetched> {
        let start = Instant::now();
        let key = Key::compute(wasm, config, instrumentation);
        let key_hash = start.elapsed();
        let mut fetched = self.get_or_compile(&key, || seedfall_engine::compile(wasm, config))?;
        fetched.timings.key_hash = key_hash;
        Ok(fetched)
    }

    /// The Artifact stored under `key`, verified; otherwise the remote
    /// cache's (verified, stored locally); otherwise `compile()`'s, stored
    /// for next time and uploaded. Fails only if `compile` fails.
    pub fn get_or_compile(
        &self,
        key: &Key,
        compile: impl FnOnce() -> seedfall_engine::Result<Artifact>,
    ) -> seedfall_engine::Result<Fetched> {
        self.get_or(key, |path, timings, warnings| {
            let start = Instant::now();
            let artifact = compile()?;
            timings.compile = start.elapsed();
            let stored = self.store(key, &artifact, path, timings, warnings);
            let start = Instant::now();
            let code = Code::load(artifact)?;
            timings.load = start.elapsed();
            Ok((code, stored))
        })
    }

    /// Like `get_or_compile`, but with no entry the code is `load()`'s:
    /// code loaded lazily (`Code::load_lazy`), which compiles as it runs and
    /// stores nothing yet; `store_compiled` stores what it compiled. An entry
    /// may itself be such stored code, loaded to compile the rest lazily.
    pub fn get_or_load_lazily(
        &self,
        key: &Key,
        load: impl FnOnce() -> seedfall_engine::Result<Code>,
    ) -> seedfall_engine::Result<Fetched> {
        self.get_or(key, |_, timings, _| {
            let start = Instant::now();
            let code = load()?;
            timings.load = start.elapsed();
            Ok((code, false))
        })
    }

    /// Store what lazily loaded `code` (under `key`) compiled since it was
    /// loaded, replacing the entry, so the next process loads it; true when
    /// something was stored. Warnings as `Fetched::warnings`.
    pub fn store_compiled(&self, key: &Key, code: &Code, warnings: &mut Vec<String>) -> bool {
        let Some(artifact) = code.compiled_artifact() else { return false };
        self.store(key, &artifact, &self.entry_path(key), &mut Timings::default(), warnings)
    }

    /// The entry under `key` if it is there and good, else `miss`'s code
    /// (and whether it stored an entry).
    fn get_or(
        &self,
        key: &Key,
        miss: impl FnOnce(&Path, &mut Timings, &mut Vec<String>) -> seedfall_engine::Result<(Code, bool)>,
    ) -> seedfall_engine::Result<Fetched> {
        let mut timings = Timings::default();
        let mut warnings = Vec::new();
        let path = self.entry_path(key);
        let mut outcome = Outcome::Miss;
        // Without a key nothing is read: no entry could be trusted.
        let found = if self.secret.is_some() { self.load(key, &path, &mut timings) } else { Ok(None) };
        match found {
            Ok(None) => {}
            Ok(Some(code)) => {
                return Ok(Fetched { key: *key, code, outcome: Outcome::Hit, stored: false, timings, warnings });
            }
            Err((Bad::Unreadable(reason), _)) => {
                warnings.push(format!("compiled-code cache entry {}: {reason}; recompiling", path.display()));
                outcome = Outcome::Recompiled { reason };
            }
            Err((Bad::Corrupt(reason), id)) => {
                let deleted = match id {
                    Some(id) if self.is_writable() => remove_if_same(&path, id),
                    _ => Err(io::Error::other("the cache directory is not writable")),
                };
                let action = match deleted {
                    Ok(()) => "deleted it, recompiling".to_string(),
                    Err(e) => format!("could not delete it ({e}), recompiling"),
                };
                warnings.push(format!("compiled-code cache entry {}: {reason}; {action}", path.display()));
                outcome = Outcome::Recompiled { reason };
            }
        }
        if let Some(remote) = &self.remote {
            let start = Instant::now();
            let fetched = remote.get(key);
            timings.remote = start.elapsed();
            match fetched {
                Ok(None) => {}
                Err(warning) => warnings.push(warning),
                Ok(Some(mut bytes)) => match self.load_remote(key, &mut bytes, &mut timings) {
                    Ok(code) => {
                        let start = Instant::now();
                        let stored = self.publish(&path, &[&bytes], &mut warnings);
                        timings.publish = start.elapsed();
                        return Ok(Fetched { key: *key, code, outcome: Outcome::RemoteHit, stored, timings, warnings });
                    }
                    // Compiled and uploaded below, replacing the bad entry.
                    Err(reason) => {
                        warnings.push(format!("remote cache entry {}: {reason}; recompiling", remote.url(key)));
                        outcome = Outcome::Recompiled { reason };
                    }
                },
            }
        }
        let (code, stored) = miss(&path, &mut timings, &mut warnings)?;
        Ok(Fetched { key: *key, code, outcome, stored, timings, warnings })
    }

    /// Map, verify and decode the entry at `path`. `Ok(None)`: no entry.
    fn load(&self, key: &Key, path: &Path, timings: &mut Timings) -> Result<Option<Code>, (Bad, Option<FileId>)> {
        let Some(secret) = &self.secret else {
            return Err((Bad::Unreadable(self.unusable_reason()), None));
        };
        let start = Instant::now();
        // Non-blocking: opening a FIFO planted at an entry's name must not
        // hang the run (issue 19); it is then refused as not a regular file.
        // (Windows has no FIFOs in the file system: a plain open there.)
        let mut options = OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        options.custom_flags(libc::O_NONBLOCK);
        let file = match options.open(path) {
            Ok(file) => file,
            // No entry, or no cache directory at all (a path under a file).
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => return Ok(None),
            Err(e) => return Err((Bad::Unreadable(format!("cannot open: {e}")), None)),
        };
        let meta = file.metadata().map_err(|e| (Bad::Unreadable(format!("cannot stat: {e}")), None))?;
        let id = Some(file_id(&meta));
        if !meta.is_file() {
            return Err((Bad::Corrupt("not a regular file".into()), id));
        }
        if (meta.len() as usize) < HEADER_LEN {
            // Checked before mapping: an empty file cannot be mapped.
            let reason = format!("truncated: {} bytes, shorter than the {HEADER_LEN}-byte header", meta.len());
            return Err((Bad::Corrupt(reason), id));
        }
        if secret.is_shared() {
            // A shared secret: verify a private copy, never a mapping of a
            // file someone else could still write.
            let bytes =
                read_whole(&file, meta.len()).map_err(|e| (Bad::Unreadable(format!("cannot read: {e}")), None))?;
            timings.map = start.elapsed();
            return self
                .load_owned(key, &bytes, Some(secret), timings)
                .map(Some)
                .map_err(|reason| (Bad::Corrupt(reason), id));
        }
        // SAFETY: entries are never modified in place: writers publish a new
        // file by rename and eviction unlinks, so the mapped inode's bytes do
        // not change under us. The mapping is read-only and never executable.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
            .map_err(|e| (Bad::Unreadable(format!("cannot map: {e}")), None))?;
        // Shared with the Artifact, whose large tables borrow from it.
        let map = Arc::new(map);
        timings.map = start.elapsed();

        let start = Instant::now();
        let payload = entry::verify(&map, Some(key), Some(secret)).map_err(|reason| (Bad::Corrupt(reason), id))?;
        let payload_start = map.len() - payload.len();
        timings.verify = start.elapsed();

        let start = Instant::now();
        let (artifact, code) = Artifact::decode_mapped(&map, payload_start..map.len())
            .map_err(|e| (Bad::Corrupt(format!("decoding: {e}")), id))?;
        timings.decode = start.elapsed();

        let start = Instant::now();
        let (code_start, code_end) = (payload_start + code.start, payload_start + code.end);
        let bytes = &map[code_start..code_end];
        // SAFETY: `bytes` are the file's bytes at `code_start`, just verified
        // by the checksum and this user's MAC, and entries are never modified in place (see
        // above). The engine maps them executable, or copies them.
        let loaded = unsafe { Code::load_file(artifact, &file, code_start as u64, bytes) }
            .map_err(|e| (Bad::Corrupt(format!("loading: {e}")), id))?;
        timings.load = start.elapsed();
        Ok(Some(loaded))
    }

    /// A remote entry, loaded like a local one with a shared secret; with
    /// this user's key (the remote was allowed with
    /// `SEEDFALL_REMOTE_CACHE_INSECURE`), checked by checksum alone and then
    /// sealed with this user's key, so the local copy is this user's entry.
    fn load_remote(&self, key: &Key, bytes: &mut [u8], timings: &mut Timings) -> Result<Code, String> {
        let secret = self.secret.as_ref().ok_or_else(|| self.unusable_reason())?;
        let shared = secret.is_shared().then_some(secret);
        let code = self.load_owned(key, bytes, shared, timings)?;
        if shared.is_none() {
            entry::seal(bytes, secret);
        }
        Ok(code)
    }

    /// Verify (with the MAC under `secret`, if given), decode and load an
    /// entry held in this process's own memory: the code that runs is a copy
    /// of the very bytes verified.
    fn load_owned(
        &self,
        key: &Key,
        bytes: &[u8],
        secret: Option<&Secret>,
        timings: &mut Timings,
    ) -> Result<Code, String> {
        let start = Instant::now();
        let payload = entry::verify(bytes, Some(key), secret)?;
        timings.verify = start.elapsed();
        let start = Instant::now();
        let (artifact, code) = Artifact::decode_split(payload).map_err(|e| format!("decoding: {e}"))?;
        timings.decode = start.elapsed();
        let start = Instant::now();
        let code = Code::load_copy(artifact, &payload[code]).map_err(|e| format!("loading: {e}"))?;
        timings.load = start.elapsed();
        Ok(code)
    }

    /// Publish `artifact` under `key` (and upload it to the remote cache);
    /// false (with a warning, once) if the directory cannot take it.
    fn store(
        &self,
        key: &Key,
        artifact: &Artifact,
        path: &Path,
        timings: &mut Timings,
        warnings: &mut Vec<String>,
    ) -> bool {
        let Some(secret) = self.secret.as_ref().filter(|_| self.is_writable() || self.remote.is_some()) else {
            self.warn_unwritable(warnings);
            return false;
        };
        let start = Instant::now();
        let payload = artifact.encode_at(HEADER_LEN);
        let header = entry::header(key, &payload, secret);
        timings.encode = start.elapsed();
        let start = Instant::now();
        let stored = self.publish(path, &[&header, &payload], warnings);
        timings.publish = start.elapsed();
        if let Some(remote) = &self.remote {
            remote.upload(key, [&header[..], &payload].concat());
        }
        stored
    }

    /// Write `parts` to `path` atomically; false (with a warning, once) if
    /// the directory cannot take it.
    fn publish(&self, path: &Path, parts: &[&[u8]], warnings: &mut Vec<String>) -> bool {
        if !self.is_writable() {
            self.warn_unwritable(warnings);
            return false;
        }
        match fsutil::publish(&self.dir, path, parts) {
            Ok(()) => true,
            Err(e) => {
                self.disable(format!("writing {}: {e}", path.display()));
                self.warn_unwritable(warnings);
                false
            }
        }
    }

    /// Record that `keys` were used together as one set (the modules of one
    /// config, or the one module of an `exec`), making it the most recently
    /// used; then evict entries of sets beyond the `KEEP_SETS` most recent
    /// that no kept set uses. Call after every fetch of a set, hit or miss.
    pub fn record_set(&self, keys: &[Key]) -> Recorded {
        let mut recorded = Recorded::default();
        if keys.is_empty() {
            return recorded;
        }
        if !self.is_writable() {
            self.warn_unwritable(&mut recorded.warnings);
            return recorded;
        }
        let result = self.with_lock(|| self.record_locked(&index::normalize(keys), &mut recorded));
        if let Err(e) = result {
            self.disable(format!("updating the set index: {e}"));
            self.warn_unwritable(&mut recorded.warnings);
        }
        recorded
    }

    fn record_locked(&self, set: &index::Set, recorded: &mut Recorded) -> io::Result<()> {
        let index_path = self.dir.join(INDEX_FILE);
        let mut sets = self.read_index().unwrap_or_else(|reason| {
            recorded.warnings.push(format!(
                "compiled-code cache index {} is corrupt ({reason}); rebuilding it",
                index_path.display()
            ));
            Vec::new()
        });
        sets.retain(|s| s != set);
        sets.insert(0, set.clone());
        let dropped = if sets.len() > KEEP_SETS { sets.split_off(KEEP_SETS) } else { Vec::new() };
        // The index first: a crash during eviction leaves orphans, swept later.
        fsutil::publish(&self.dir, &index_path, &[index::render(&sets).as_bytes()])?;

        let kept: HashSet<Key> = sets.iter().flatten().copied().collect();
        let doomed: BTreeSet<Key> = dropped.iter().flatten().filter(|k| !kept.contains(k)).copied().collect();
        for key in doomed {
            if fs::remove_file(self.entry_path(&key)).is_ok() {
                recorded.evicted.push(key);
            }
        }
        // Orphans (no recorded set) and temporary files of crashed writers.
        for dirent in fs::read_dir(&self.dir)?.flatten() {
            let name = dirent.file_name();
            let name = name.to_string_lossy();
            let Ok(meta) = dirent.metadata() else { continue };
            if let Some(key) = entry_key(&name) {
                if !kept.contains(&key)
                    && fsutil::older_than(&meta, ORPHAN_AGE)
                    && fs::remove_file(dirent.path()).is_ok()
                {
                    recorded.evicted.push(key);
                }
            } else if name.starts_with(fsutil::TEMP_PREFIX) && fsutil::older_than(&meta, fsutil::STALE_TEMP_AGE) {
                let _ = fs::remove_file(dirent.path());
            }
        }
        Ok(())
    }

    /// The recorded sets, most recent first; `Ok(empty)` if there is no index.
    fn read_index(&self) -> Result<Vec<index::Set>, String> {
        match fs::read(self.dir.join(INDEX_FILE)) {
            Ok(bytes) => index::parse(std::str::from_utf8(&bytes).map_err(|_| "not UTF-8".to_string())?),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Run `f` holding the directory's index lock (an advisory file lock, so
    /// it is released if the process dies).
    fn with_lock<T>(&self, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        let lock = OpenOptions::new().create(true).truncate(false).write(true).open(self.dir.join(LOCK_FILE))?;
        lock.lock()?;
        let result = f();
        let _ = lock.unlock();
        result
    }

    /// Every entry in the directory, most recently used first.
    pub fn list(&self) -> Vec<EntryInfo> {
        let sets = self.read_index().unwrap_or_default();
        let Ok(dir) = fs::read_dir(&self.dir) else { return Vec::new() };
        let mut entries: Vec<EntryInfo> = dir
            .flatten()
            .filter_map(|dirent| {
                let key = entry_key(&dirent.file_name().to_string_lossy())?;
                let size_bytes = dirent.metadata().ok()?.len();
                let last_used = sets.iter().position(|s| s.binary_search(&key).is_ok());
                Some(EntryInfo { key, path: dirent.path(), size_bytes, last_used })
            })
            .collect();
        entries.sort_by_key(|e| (e.last_used.unwrap_or(usize::MAX), e.key));
        entries
    }

    /// Check every entry (header, key, checksum, decoding) without changing
    /// anything; a bad entry is deleted by the next fetch that meets it.
    pub fn verify(&self) -> Vec<(EntryInfo, Result<(), String>)> {
        self.list()
            .into_iter()
            .map(|info| {
                let result = self.load(&info.key, &info.path, &mut Timings::default()).and_then(|found| match found {
                    Some(_) => Ok(()),
                    None => Err((Bad::Unreadable("vanished while verifying".into()), None)),
                });
                let result = result.map_err(|(bad, _)| match bad {
                    Bad::Corrupt(reason) | Bad::Unreadable(reason) => reason,
                });
                (info, result)
            })
            .collect()
    }

    /// Delete every entry, the index and stray temporary files; returns how
    /// many entries were deleted.
    pub fn clear(&self) -> io::Result<usize> {
        if !self.dir.exists() {
            return Ok(0);
        }
        let clear = || {
            let mut removed = 0;
            for dirent in fs::read_dir(&self.dir)?.flatten() {
                let name = dirent.file_name();
                let name = name.to_string_lossy();
                if entry_key(&name).is_some() {
                    fs::remove_file(dirent.path())?;
                    removed += 1;
                } else if name.starts_with(fsutil::TEMP_PREFIX) || name == INDEX_FILE {
                    fs::remove_file(dirent.path())?;
                }
            }
            fsutil::sync_dir(&self.dir)?;
            Ok(removed)
        };
        self.with_lock(clear)
    }
}

/// An error unless `dir` (which exists) is a seedfall cache: it has our
/// CACHEDIR.TAG, or holds nothing but entries, the index, its lock and
/// temporary files (a cache whose tag was lost; an empty directory too).
fn not_a_cache(dir: &Path) -> Result<(), String> {
    let tagged = || fs::read(dir.join("CACHEDIR.TAG")).is_ok_and(|tag| tag == CACHEDIR_TAG);
    if tagged() {
        return Ok(());
    }
    let listing = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let foreign = listing.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).find(|name| {
        let ours = entry_key(name).is_some()
            || name == INDEX_FILE
            || name == LOCK_FILE
            // The user cache directory is also `exec`'s cache.
            || name == KEY_FILE
            || name == TOOLS_DIR
            || name.starts_with(fsutil::TEMP_PREFIX)
            // Another process of ours may have published the tag since it
            // was read above: read it again before calling it foreign.
            || (name == "CACHEDIR.TAG" && tagged());
        !ours
    });
    match foreign {
        None => Ok(()),
        Some(name) => Err(format!(
            "{} is not a seedfall cache (no CACHEDIR.TAG written by seedfall, and it holds {name:?}); \
             nothing was written there",
            dir.display()
        )),
    }
}

/// The user's cache directory for seedfall on `os` (`std::env::consts::OS`),
/// given its environment: a pure function, so every OS's choice is tested
/// on any. Windows: `%LOCALAPPDATA%\seedfall` (local, not roaming: compiled
/// code is machine-specific and large). macOS: `~/Library/Caches/seedfall`.
/// Elsewhere: `$XDG_CACHE_HOME/seedfall` when that is absolute, else
/// `~/.cache/seedfall`. None when the variables are missing or empty.
pub fn user_cache_dir(os: &str, env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match os {
        "windows" => var("LOCALAPPDATA").map(|p| p.join("seedfall")),
        "macos" => var("HOME").map(|h| h.join("Library").join("Caches").join("seedfall")),
        _ => var("XDG_CACHE_HOME")
            .filter(|p| p.is_absolute())
            .map(|p| p.join("seedfall"))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("seedfall"))),
    }
}

/// This user's cache directory (`user_cache_dir` for this OS and
/// environment): where this user's key and the tools seedfall builds live.
/// `SEEDFALL_CACHE_DIR` does not move it: that may point into a checkout.
pub fn user_dir() -> Option<PathBuf> {
    user_cache_dir(std::env::consts::OS, |name| std::env::var_os(name))
}

/// Create `dir` (and missing parents) readable and writable by this user
/// only, on Unix; an existing directory is left as it is.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn env_dir() -> Option<PathBuf> {
    std::env::var_os(DIR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The key of an entry file name `<hex>.sfc`.
fn entry_key(name: &str) -> Option<Key> {
    Key::from_hex(name.strip_suffix(ENTRY_EXT)?.strip_suffix('.')?)
}

/// Delete `path` if it is still the file `id` (another process may have
/// published a good entry in its place since we read it).
fn remove_if_same(path: &Path, id: FileId) -> io::Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if file_id(&meta) != id {
        return Ok(());
    }
    fs::remove_file(path)
}

/// The whole file, in memory this process owns.
fn read_whole(file: &File, len: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len as usize).map_err(|e| io::Error::other(format!("{len} bytes: {e}")))?;
    // One byte more than the size: a file that grew is caught by the length check.
    file.take(len + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache directory each OS gets, from its environment alone.
    #[test]
    fn the_user_cache_dir_is_chosen_per_os() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| std::ffi::OsString::from(v))
        };
        let windows_env = env(&[("LOCALAPPDATA", r"C:\Users\u\AppData\Local"), ("HOME", "/home/u")]);
        assert_eq!(
            user_cache_dir("windows", windows_env),
            Some(PathBuf::from(r"C:\Users\u\AppData\Local").join("seedfall"))
        );
        assert_eq!(user_cache_dir("windows", env(&[("HOME", "/home/u"), ("LOCALAPPDATA", "")])), None);
        let unix = env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")]);
        assert_eq!(user_cache_dir("macos", unix), Some(PathBuf::from("/home/u/Library/Caches/seedfall")));
        assert_eq!(user_cache_dir("linux", unix), Some(PathBuf::from("/xdg/seedfall")));
        let relative_xdg = env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "relative")]);
        assert_eq!(user_cache_dir("linux", relative_xdg), Some(PathBuf::from("/home/u/.cache/seedfall")));
        assert_eq!(
            user_cache_dir("freebsd", env(&[("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.cache/seedfall"))
        );
        assert_eq!(user_cache_dir("linux", env(&[("LOCALAPPDATA", r"C:\x")])), None);
    }

    #[test]
    fn key_hex_round_trip() {
        let key = Key(std::array::from_fn(|i| (i * 37) as u8));
        assert_eq!(Key::from_hex(&key.hex()), Some(key));
        assert_eq!(entry_key(&format!("{key}.sfc")), Some(key));
        assert_eq!(entry_key(&format!("{key}.tmp")), None);
        assert_eq!(Key::from_hex(&key.hex().to_uppercase()), None);
        assert_eq!(Key::from_hex("00"), None);
    }
}

#[cfg(all(test, unix))]
mod fork_tests {
    use super::*;
    use std::time::Duration;

    /// Hashes 8 MiB in a child forked after the pool ran in the parent,
    /// marked as a child or not: whether it finished within 5 s with the
    /// parent's hash (it is killed otherwise).
    fn child_hashes(mark: bool) -> bool {
        let bytes = vec![7u8; 8 << 20];
        let mut hasher = blake3::Hasher::new();
        hash_bytes(&mut hasher, &bytes);
        let expected = hasher.finalize();
        // SAFETY: the child hashes on its own copy of `bytes` and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            if mark {
                seedfall_engine::runtime::fork_locks::mark_child();
            }
            let mut hasher = blake3::Hasher::new();
            hash_bytes(&mut hasher, &bytes);
            // SAFETY: leaving the child at once, without the parent's handlers.
            unsafe { libc::_exit(i32::from(hasher.finalize() != expected)) }
        }
        seedfall_engine::runtime::fork_locks::child_exited_cleanly(pid, Duration::from_secs(5))
    }

    #[test]
    fn a_forked_child_hashes_a_large_module_on_its_own_thread() {
        assert!(child_hashes(true));
        assert!(!child_hashes(false), "without the mark the child waits on the parent's pool for ever");
    }
}
