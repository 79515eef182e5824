//! What a `Lazy` compiled, as a partial Artifact for the cache to keep, so
//! the next process loads it (`Lazy::load_partial`) and compiles only what
//! is new. Functions are laid out in index order, each with its calls and
//! trap sites, exactly as an eager compile records them.

use super::Lazy;
use super::load::push_trap;
use crate::artifact::{Artifact, Blob, FuncLayout, Relocation};

impl Lazy {
    /// Everything compiled so far (`Artifact::partial`); None when nothing was.
    pub fn compiled_artifact(&self) -> Option<Artifact> {
        let (_compile, state) = self.lock();
        if state.placed.is_empty() {
            return None;
        }
        let mut by_index: Vec<_> = state.placed.values().collect();
        by_index.sort_by_key(|p| p.func_index);
        let mut code = Vec::new();
        let mut functions = vec![FuncLayout { offset: 0, len: 0 }; self.artifact.functions.len()];
        let mut relocations = Vec::new();
        let mut traps = Vec::new();
        for placed in by_index {
            code.resize(code.len().next_multiple_of(16), crate::compile::PADDING);
            let start = code.len() as u32;
            functions[placed.func_index as usize] =
                FuncLayout { offset: start, len: placed.compiled.code.len() as u32 };
            code.extend_from_slice(&placed.compiled.code);
            for &(offset, kind, target, addend) in &placed.compiled.calls {
                Relocation { offset: start + offset, kind, target, addend }.write(&mut relocations);
            }
            for &(offset, kind, wasm_offset) in &placed.compiled.traps {
                push_trap(&mut traps, start + offset, kind, wasm_offset);
            }
        }
        let prefix = &self.artifact;
        Some(Artifact {
            info: prefix.info.clone(),
            trap_mode: prefix.trap_mode,
            baseline: prefix.baseline,
            target: prefix.target.clone(),
            code,
            functions,
            trampolines: Vec::new(),
            relocations: Blob::owned(relocations),
            traps: Blob::owned(traps),
            counter_global: prefix.counter_global,
            function_bitmap: prefix.function_bitmap,
            edge_bitmap: prefix.edge_bitmap,
            partial: true,
        })
    }
}
