//! Getting runnable code for a wasm file: instrumented for preemption (unless
//! asked not to), through the cache, then loaded as a `Guest`. A miss loads
//! the module lazily (its functions compiled as they are first called,
//! docs/lazy-compilation.md) and the `Loader` that loaded it stores what was
//! compiled when it is dropped; a hit of such stored code compiles the rest
//! the same way. `SEEDFALL_EAGER_COMPILE=1` compiles every function first and
//! stores the whole module, as before lazy compilation. The cache key covers
//! the original wasm and the instrumentation config (or its absence), so a
//! hit needs no instrumentation pass; the pass's counter global is recorded
//! in the Artifact, so a hit brings it back too. Cache warnings are printed
//! and never stop a run. The caller records the modules it uses together as
//! one set (`Loader::record_set`). Opens the cache as the environment
//! configures it (secret, remote) and waits for remote uploads before the
//! process exits.

use seedfall_cache::{Cache, Key, Remote, Secret};
use seedfall_engine::{Code, CompileConfig, Error, PinnedGlobal, compile};
use seedfall_host::{Guest, GuestError};
use seedfall_instrument::{Config, config_bytes, instrument};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Remote caches opened by this process, whose uploads `finish_uploads` awaits.
static REMOTES: Mutex<Vec<Arc<Remote>>> = Mutex::new(Vec::new());

/// A lazily loaded module, whose compiled functions its `Loader` stores.
struct LazilyLoaded {
    key: Key,
    code: Arc<Code>,
}

/// How long the process waits at exit for uploads to the remote cache.
const UPLOAD_WAIT: Duration = Duration::from_secs(5);

/// The compiled-code cache as a command loads its modules through it. It
/// owns the modules it loaded lazily: when dropped, it stores what they
/// compiled (each replacing its entry), so the next process loads that and
/// compiles only what is new. Keep it as long as their guests run (a
/// `Cluster` holds the one that loaded its programs). A forked child leaves
/// without dropping it, so only the process that loaded the code stores it.
pub struct Loader {
    cache: Cache,
    lazily_loaded: Vec<LazilyLoaded>,
}

impl Loader {
    /// The cache at `dir`, sealed with this user's key or the shared secret,
    /// and the remote cache the environment configures
    /// (`SEEDFALL_CACHE_SECRET`, `SEEDFALL_REMOTE_CACHE`, docs/cache.md). Only
    /// the environment picks them: nothing in a config or a checkout does
    /// (docs/security.md).
    pub fn open(dir: &Path) -> Loader {
        let secret = Secret::from_env_or_user();
        let remote = Remote::from_env(secret.as_ref().is_ok_and(Secret::is_shared));
        print_warnings(&remote.warnings);
        let cache = Cache::open(dir, secret).with_remote(remote.remote);
        if let Some(remote) = cache.remote() {
            REMOTES.lock().unwrap_or_else(|e| e.into_inner()).push(remote);
        }
        Loader { cache, lazily_loaded: Vec::new() }
    }

    /// Instrument (unless `instrumentation` is `None`), compile with `config` (or
    /// fetch from the cache) and load `file`; returns the guest and its cache key.
    pub fn load(
        &mut self,
        file: &Path,
        instrumentation: Option<Config>,
        config: &CompileConfig,
        print_timings: bool,
    ) -> Result<(Guest, Key), LoadError> {
        let read_error = |error| LoadError::Read { file: file.to_path_buf(), error };
        let (mut opened, len) = crate::input::open_file(file, crate::input::WASM_MAX_BYTES).map_err(read_error)?;
        let key_start = Instant::now();
        let key_bytes = instrumentation.as_ref().map_or_else(|| UNINSTRUMENTED.to_vec(), config_bytes);
        // Streamed: a hit (the common case) never reads the module into memory.
        let key = Key::compute_from(&mut opened, len, config, &key_bytes).map_err(read_error)?;
        let key_hash = key_start.elapsed();
        let source = Source { file: file.to_path_buf(), key, key_bytes, instrumentation, config: *config };
        let fetched = if compile_eagerly(config) {
            self.cache.get_or_compile(&key, || {
                let (wasm, counter_global) = source.read()?;
                let mut artifact = compile(&wasm, config)?;
                artifact.counter_global = counter_global;
                Ok(artifact)
            })
        } else {
            self.cache.get_or_load_lazily(&key, || {
                let (wasm, counter_global) = source.read()?;
                Code::load_lazy(wasm, config, counter_global)
            })
        };
        let mut fetched = fetched.map_err(|error| LoadError::Compile { file: file.to_path_buf(), error })?;
        fetched.timings.key_hash = key_hash;
        print_warnings(&fetched.warnings);
        if print_timings {
            eprintln!("seedfall: {:?}: {}", fetched.outcome, fetched.timings);
        }
        let code = Arc::new(fetched.code);
        if code.is_lazy() {
            code.attach_wasm(config, Box::new(move || source.read().map(|(wasm, _)| wasm)));
            self.lazily_loaded.push(LazilyLoaded { key, code: code.clone() });
        }
        let guest = Guest::new(code).map_err(|error| LoadError::Guest { file: file.to_path_buf(), error })?;
        Ok((guest, key))
    }

    /// Records `keys` as one set of the cache (modules used together), printing its warnings.
    pub fn record_set(&self, keys: &[Key]) {
        print_warnings(&self.cache.record_set(keys).warnings);
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        for module in self.lazily_loaded.drain(..) {
            let mut warnings = Vec::new();
            self.cache.store_compiled(&module.key, &module.code, &mut warnings);
            print_warnings(&warnings);
        }
    }
}

/// Waits (at most a few seconds) for uploads still running, printing what
/// did not make it. Called once, before the process exits.
pub fn finish_uploads() {
    let remotes = std::mem::take(&mut *REMOTES.lock().unwrap_or_else(|e| e.into_inner()));
    for remote in remotes {
        print_warnings(&remote.finish(UPLOAD_WAIT));
    }
}

/// Key material of an uninstrumented module (`--no-preempt`): distinct from every
/// `config_bytes` value, so the two never share a cache entry.
const UNINSTRUMENTED: &[u8] = b"uninstrumented";

/// Why a wasm file could not be made into a `Guest`.
#[derive(Debug)]
pub enum LoadError {
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// Not a module the engine can compile (or the pass instrument).
    Compile {
        file: PathBuf,
        error: Error,
    },
    /// Compiled, but not runnable (a Go release preemption does not know).
    Guest {
        file: PathBuf,
        error: GuestError,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LoadError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            LoadError::Compile { file, error } => write!(f, "{}: {error}", file.display()),
            LoadError::Guest { file, error } => write!(f, "{}: {error}", file.display()),
        }
    }
}

impl std::error::Error for LoadError {}

/// Whether to compile every function before running (and store the whole
/// module): asked for, or where lazy loading would compile it whole anyway.
fn compile_eagerly(config: &CompileConfig) -> bool {
    let asked = std::env::var_os("SEEDFALL_EAGER_COMPILE").is_some_and(|v| !v.is_empty() && v != "0");
    asked || config.pinned_global != PinnedGlobal::None || !cfg!(target_os = "linux")
}

/// Where a module's wasm comes from when it must be compiled.
struct Source {
    file: PathBuf,
    key: Key,
    key_bytes: Vec<u8>,
    instrumentation: Option<Config>,
    config: CompileConfig,
}

impl Source {
    /// The bytes to compile (the file's, checked against the key,
    /// instrumented unless asked not to) and the instrumentation's counter.
    fn read(&self) -> Result<(Vec<u8>, Option<u32>), Error> {
        let wasm = crate::input::read_file(&self.file, crate::input::WASM_MAX_BYTES)
            .map_err(|e| Error::Os(format!("cannot read it: {e}")))?;
        // Compiled code is stored under `key`: it must be these bytes'.
        if Key::compute(&wasm, &self.config, &self.key_bytes) != self.key {
            return Err(Error::Os("it changed while seedfall read it".into()));
        }
        let Some(instrumentation) = &self.instrumentation else { return Ok((wasm, None)) };
        let instrumented =
            instrument(&wasm, instrumentation).map_err(|e| match seedfall_engine::module::parse(&wasm) {
                // Report a bad module the engine's way; the pass only fails on bad input.
                Err(engine_error) => engine_error,
                Ok(_) => Error::Unsupported { feature: format!("instrumentation: {e}"), function: None },
            })?;
        Ok((instrumented.wasm, Some(instrumented.counter_global)))
    }
}

fn print_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("seedfall: warning: {warning}");
    }
}
