//! Getting runnable code for a wasm file: instrumented for preemption (unless
//! asked not to), through the cache (hit, or instrument + compile + publish),
//! then loaded. The cache key covers the original wasm and the instrumentation
//! config (or its absence), so a hit needs no instrumentation pass. Cache
//! warnings are printed and never stop a run.

use seedfall_cache::{Cache, Key};
use seedfall_engine::{Code, CompileConfig, Error, compile};
use seedfall_instrument::{Config, config_bytes, instrument};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Key material of an uninstrumented module (`--no-preempt`): distinct from every
/// `config_bytes` value, so the two never share a cache entry.
const UNINSTRUMENTED: &[u8] = b"uninstrumented";

/// Loaded code and where its preemption counter lives (`None`: not instrumented).
pub struct Compiled {
    pub code: Arc<Code>,
    pub counter_global: Option<u32>,
}

/// Instrument (unless `instrumentation` is `None`), compile (or fetch from
/// `cache`) and load `file`, recording it as one set.
pub fn load(
    cache: &Cache,
    file: &Path,
    instrumentation: Option<Config>,
    print_timings: bool,
) -> Result<Compiled, String> {
    let name = file.display();
    let wasm = std::fs::read(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let config = CompileConfig::default();
    let key_start = Instant::now();
    let key_bytes = instrumentation.as_ref().map_or_else(|| UNINSTRUMENTED.to_vec(), config_bytes);
    let key = Key::compute(&wasm, &config, &key_bytes);
    let key_hash = key_start.elapsed();
    let mut fetched = cache
        .get_or_compile(&key, || {
            let Some(instrumentation) = &instrumentation else { return compile(&wasm, &config) };
            let instrumented =
                instrument(&wasm, instrumentation).map_err(|e| match seedfall_engine::module::parse(&wasm) {
                    // Report a bad module the engine's way; the pass only fails on bad input.
                    Err(engine_error) => engine_error,
                    Ok(_) => Error::Unsupported { feature: format!("instrumentation: {e}"), function: None },
                })?;
            compile(&instrumented.wasm, &config)
        })
        .map_err(|e| format!("{name}: {e}"))?;
    fetched.timings.key_hash = key_hash;
    for warning in fetched.warnings.iter().chain(&cache.record_set(&[fetched.key]).warnings) {
        eprintln!("seedfall: warning: {warning}");
    }
    // The pass appends the counter as the module's last global.
    let counter_global = instrumentation.map(|_| fetched.code.info().globals.len() as u32 - 1);
    if print_timings {
        eprintln!("seedfall: {:?}: {}", fetched.outcome, fetched.timings);
    }
    Ok(Compiled { code: Arc::new(fetched.code), counter_global })
}
