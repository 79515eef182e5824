//! Warm start of a wasm module through the compiled-code cache, phase by phase.
//!
//!     warm-start --cache-dir DIR [--cold] [--iterations N] FILE.wasm
//!
//! Does what `seedfall exec` does before it instantiates (cli/src/compiled.rs):
//! open FILE, hash the key streaming the file (default instrumentation: call
//! counters; a miss reads the file again to compile it), then
//! `Cache::get_or_compile`, which on a hit maps the entry, verifies its header
//! and blake3 checksum, decodes the Artifact metadata and makes the code
//! executable (`Code::load_file`: mapping and linking). With `--cold`, DIR
//! is emptied first, so the first iteration is a miss (instrument + compile +
//! encode + publish + load), and the rest are hits. The `Code` is dropped
//! between iterations; each iteration opens the cache afresh.
//!
//! Prints one JSON line per iteration: outcome and milliseconds for read (the
//! open and stat), key hash (reading and hashing the file), map, verify, decode, load (mapping + linking), compile, encode,
//! publish, and "total" (read through load: the whole warm start up to a
//! runnable `Code`, without instantiation).

#![forbid(unsafe_code)]

use seedfall_cache::{Cache, Key, Outcome, Secret};
use seedfall_engine::{CompileConfig, compile};
use seedfall_instrument::{Config, config_bytes, instrument};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut dir, mut cold, mut iterations, mut file) = (None, false, 1usize, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cache-dir" => dir = args.next().map(PathBuf::from),
            "--cold" => cold = true,
            "--iterations" => iterations = args.next().and_then(|n| n.parse().ok()).unwrap_or(0),
            _ if file.is_none() && !a.starts_with("--") => file = Some(PathBuf::from(a)),
            _ => file = None,
        }
    }
    let (Some(dir), Some(file)) = (dir, file) else {
        eprintln!("usage: warm-start --cache-dir DIR [--cold] [--iterations N] FILE.wasm");
        return ExitCode::from(2);
    };
    if cold {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let instrumentation = Config { loops: false, ..Config::default() };
    let config = CompileConfig::default();
    for i in 0..iterations.max(1) {
        let start = Instant::now();
        let opened = std::fs::File::open(&file).and_then(|f| Ok((f.metadata()?.len(), f)));
        let (len, mut opened) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                eprintln!("warm-start: cannot open {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        let read = start.elapsed();
        let cache = Cache::open(&dir, Secret::from_env_or_user());
        let t = Instant::now();
        // As `seedfall exec` does (cli/src/compiled.rs): the key streams the file; only a miss reads it whole.
        let key = match Key::compute_from(&mut opened, len, &config, &config_bytes(&instrumentation)) {
            Ok(key) => key,
            Err(e) => {
                eprintln!("warm-start: cannot read {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        let key_hash = t.elapsed();
        let fetched = cache.get_or_compile(&key, || {
            let wasm = std::fs::read(&file).map_err(|e| seedfall_engine::Error::Os(e.to_string()))?;
            let instrumented = instrument(&wasm, &instrumentation).map_err(|e| {
                seedfall_engine::Error::Unsupported { feature: format!("instrumentation: {e}"), function: None }
            })?;
            compile(&instrumented.wasm, &config)
        });
        let total = start.elapsed();
        let fetched = match fetched {
            Ok(f) => f,
            Err(e) => {
                eprintln!("warm-start: {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        for w in &fetched.warnings {
            eprintln!("warm-start: warning: {w}");
        }
        let t = &fetched.timings;
        println!(
            "{{\"file\":{:?},\"iteration\":{i},\"outcome\":\"{}\",\"wasm_bytes\":{},\"code_bytes\":{},\"read_ms\":{:.3},\
             \"key_hash_ms\":{:.3},\"map_ms\":{:.3},\"verify_ms\":{:.3},\"decode_ms\":{:.3},\"load_ms\":{:.3},\
             \"compile_ms\":{:.3},\"encode_ms\":{:.3},\"publish_ms\":{:.3},\"total_ms\":{:.3}}}",
            file.display().to_string(),
            match fetched.outcome {
                Outcome::Hit => "Hit",
                Outcome::RemoteHit => "RemoteHit",
                Outcome::Miss => "Miss",
                Outcome::Recompiled { .. } => "Recompiled",
            },
            len,
            fetched.code.code_bytes().len(),
            ms(read),
            ms(key_hash),
            ms(t.map),
            ms(t.verify),
            ms(t.decode),
            ms(t.load),
            ms(t.compile),
            ms(t.encode),
            ms(t.publish),
            ms(total)
        );
        drop(fetched);
    }
    ExitCode::SUCCESS
}
