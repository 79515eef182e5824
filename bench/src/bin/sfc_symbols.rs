//! Symbols for a compiled-code cache entry, for profilers.
//!
//!     sfc-symbols ENTRY.sfc
//!
//! seedfall runs code mapped straight from the cache entry file, so `perf`
//! attributes samples to that file at file offsets but finds no symbols in it.
//! This prints one line per function with code, `FILE_OFFSET_HEX LEN_HEX NAME`
//! (the offset of the function's first byte in ENTRY.sfc; names from the
//! wasm `name` section, i.e. Go's function names), sorted by offset, for
//! bench/profile.py to resolve `perf report` addresses with.

#![forbid(unsafe_code)]

use seedfall_cache::HEADER_LEN;
use seedfall_engine::Artifact;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: sfc-symbols ENTRY.sfc");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sfc-symbols: cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(payload) = bytes.get(HEADER_LEN..) else {
        eprintln!("sfc-symbols: {path}: shorter than the header");
        return ExitCode::FAILURE;
    };
    let (artifact, code) = match Artifact::decode_split(payload) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("sfc-symbols: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Indexed by function index, the import stubs first (as `runtime::perf_map` reads it).
    for (index, f) in artifact.functions.iter().enumerate().filter(|(_, f)| f.len > 0) {
        let offset = HEADER_LEN + code.start + f.offset as usize;
        println!("{offset:x} {:x} {}", f.len, artifact.info.func_name(index as u32));
    }
    ExitCode::SUCCESS
}
