//! The cache key material of a `CompileConfig`: everything besides the wasm
//! bytes that decides the Artifact a compile makes, the Artifact format
//! included. Apart from `isa` (which only describes the target and the
//! options) because it names the format, which the Artifact layer above the
//! translator owns. Hashing it is the cache's job, not this module's.

use super::isa::{CompileConfig, TrapMode, target_triple};
use crate::artifact::FORMAT_VERSION;

impl CompileConfig {
    /// Everything besides the wasm bytes that determines the Artifact this
    /// config produces, as `(name, value)` pairs in a fixed order: the cache
    /// hashes them into its key. Nothing machine-specific: the ISA baseline's
    /// name, not the host CPU; and a hash of the engine's own source. Add a
    /// pair here whenever a new input changes the machine code.
    pub fn key_material(&self) -> Vec<(&'static str, String)> {
        // Cranelift's build script appends a git revision when its source sits
        // inside a git checkout (e.g. CARGO_HOME in a repository); keep only the
        // release version so the key does not depend on where it was built.
        let cranelift = cranelift_codegen::VERSION.split('-').next().unwrap_or(cranelift_codegen::VERSION);
        let mut material = vec![
            ("artifact_format", FORMAT_VERSION.to_string()),
            ("engine", env!("CARGO_PKG_VERSION").to_string()),
            ("cranelift", cranelift.to_string()),
            ("triple", target_triple()),
            ("baseline", self.baseline.name().to_string()),
            (
                "trap_mode",
                match self.trap_mode {
                    TrapMode::Signals => "signals",
                    TrapMode::Explicit => "explicit",
                }
                .to_string(),
            ),
        ];
        material.extend(self.settings().into_iter().map(|(name, value)| (name, value.to_string())));
        material.push(("pinned_global", self.pinned_global.name().to_string()));
        material.push(("function_bitmap", if self.function_bitmap { "on" } else { "off" }.to_string()));
        material.push(("edge_bitmap", if self.edge_bitmap { "on" } else { "off" }.to_string()));
        material.push(("intrinsics", if self.intrinsics { "on" } else { "off" }.to_string()));
        // Last: the translator's output changes with its source far more often
        // than anyone bumps the format version (see build.rs).
        material.push(("engine_source", crate::ENGINE_SOURCE_HASH.to_string()));
        material
    }
}
