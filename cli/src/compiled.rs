//! Getting runnable code for a wasm file: through the cache (hit, or compile
//! and publish), then loaded. Cache warnings are printed and never stop a run.

use seedfall_cache::Cache;
use seedfall_engine::{Code, CompileConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Compile (or fetch from `cache`) and load `file`, recording it as one set.
pub fn load(cache: &Cache, file: &Path, print_timings: bool) -> Result<Arc<Code>, String> {
    let wasm = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let fetched = cache
        .fetch(&wasm, &CompileConfig::default(), &[])
        .map_err(|e| format!("{}: {e}", file.display()))?;
    for warning in &fetched.warnings {
        eprintln!("seedfall: warning: {warning}");
    }
    for warning in cache.record_set(&[fetched.key]).warnings {
        eprintln!("seedfall: warning: {warning}");
    }
    let start = Instant::now();
    let code = Code::load(fetched.artifact).map_err(|e| format!("{}: {e}", file.display()))?;
    if print_timings {
        eprintln!(
            "seedfall: {:?}: {}, load {:.2} ms",
            fetched.outcome,
            fetched.timings,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(Arc::new(code))
}
