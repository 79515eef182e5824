//! Profiling support: with `SEEDFALL_PERF_MAP` set, every loaded module's
//! functions are appended to `/tmp/perf-<pid>.map`, the format `perf report`
//! reads to name code it did not load from an ELF file. Diagnostics only: it
//! never changes what runs, and errors writing the file are ignored.

use crate::artifact::Artifact;
use std::io::Write;

/// Whether profiling asks for the map. perf reads it only for anonymous
/// mappings, so code then is never mapped from a cache file.
pub(crate) fn wanted() -> bool {
    std::env::var_os("SEEDFALL_PERF_MAP").is_some()
}

/// Appends `artifact`'s functions, loaded at `base`, when profiling asks.
pub(crate) fn record(artifact: &Artifact, base: usize) {
    if !wanted() {
        return;
    }
    let mut lines = String::new();
    for (index, f) in artifact.functions.iter().enumerate() {
        if f.len > 0 {
            let name = artifact.info.func_name(index as u32);
            lines.push_str(&format!("{:x} {:x} wasm:{name}\n", base + f.offset as usize, f.len));
        }
    }
    append(&lines);
}

/// Appends one function, `len` bytes at `address`, when profiling asks.
#[cfg(target_os = "linux")]
pub(crate) fn record_one(name: &str, address: usize, len: usize) {
    if wanted() {
        append(&format!("{address:x} {len:x} wasm:{name}\n"));
    }
}

fn append(lines: &str) {
    let path = format!("/tmp/perf-{}.map", std::process::id());
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = file.write_all(lines.as_bytes());
    }
}
