//! Hashes the engine's own source (`src/`) into its cache key material
//! (`CompileConfig::key_material`, `ENGINE_SOURCE_HASH`): the translator
//! changes the machine code it emits far more often than anyone bumps
//! `artifact::FORMAT_VERSION`, and a stale entry would run old code silently.
//! The hash covers file names and contents only (no paths outside the tree, no
//! mtimes), so two checkouts of the same source agree. FNV-1a 128 is enough:
//! this detects edits, it does not defend against an adversary.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let engine_src = manifest.join("src");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    collect(&engine_src, &engine_src, &mut files);
    files.sort();
    let mut h = Fnv128::new();
    for rel in &files {
        let bytes = std::fs::read(engine_src.join(rel)).expect("reading engine source");
        h.write(&(rel.len() as u64).to_le_bytes());
        h.write(rel.as_bytes());
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(&bytes);
    }
    let hash = format!("{:032x}", h.0);
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("engine_source.rs");
    let doc = "/// FNV-1a 128 of the engine's source files (names and contents), from `build.rs`.";
    std::fs::write(out, format!("{doc}\npub const ENGINE_SOURCE_HASH: &str = \"{hash}\";\n")).expect("writing OUT_DIR");
}

/// Every `.rs` file under `dir`, as a `/`-separated path relative to `root`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under root");
            let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            files.push(rel.join("/"));
        }
    }
}

struct Fnv128(u128);

impl Fnv128 {
    fn new() -> Self {
        Fnv128(0x6c62272e07bb014262b821756295c58d)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
    }
}
