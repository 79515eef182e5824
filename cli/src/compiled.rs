//! Getting runnable code for a wasm file: instrumented for preemption, through
//! the cache (hit, or instrument + compile + publish), then loaded. The cache
//! key covers the original wasm and the instrumentation config, so a hit needs
//! no instrumentation pass. Cache warnings are printed and never stop a run.

use seedfall_cache::{Cache, Key};
use seedfall_engine::{compile, Code, CompileConfig, Error};
use seedfall_instrument::{config_bytes, instrument, Config};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Loaded code and where its preemption counter lives.
pub struct Compiled {
    pub code: Arc<Code>,
    pub counter_global: u32,
}

/// Instrument, compile (or fetch from `cache`) and load `file`, recording it as one set.
pub fn load(cache: &Cache, file: &Path, instrumentation: Config, print_timings: bool) -> Result<Compiled, String> {
    let name = file.display();
    let wasm = std::fs::read(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let config = CompileConfig::default();
    let key = Key::compute(&wasm, &config, &config_bytes(&instrumentation));
    let fetched = cache
        .get_or_compile(&key, || {
            let instrumented = instrument(&wasm, &instrumentation).map_err(|e| match seedfall_engine::module::parse(&wasm) {
                // Report a bad module the engine's way; the pass only fails on bad input.
                Err(engine_error) => engine_error,
                Ok(_) => Error::Unsupported { feature: format!("instrumentation: {e}"), function: None },
            })?;
            compile(&instrumented.wasm, &config)
        })
        .map_err(|e| format!("{name}: {e}"))?;
    for warning in fetched.warnings.iter().chain(&cache.record_set(&[fetched.key]).warnings) {
        eprintln!("seedfall: warning: {warning}");
    }
    // The pass appends the counter as the module's last global.
    let counter_global = fetched.artifact.info.globals.len() as u32 - 1;
    let start = Instant::now();
    let code = Code::load(fetched.artifact).map_err(|e| format!("{name}: {e}"))?;
    if print_timings {
        let load_ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("seedfall: {:?}: {}, load {load_ms:.2} ms", fetched.outcome, fetched.timings);
    }
    Ok(Compiled { code: Arc::new(code), counter_global })
}
