//! Making a `Lazy`: from wasm (nothing compiled yet), or from a partial
//! Artifact a previous process stored (what it compiled, placed at once and
//! linked, the rest compiled from wasm read only when first needed).
//! Both compile the prefix (import stubs, trampolines, a lazy stub per type)
//! and write the first region with a thunk per function.

use super::region::Region;
use super::{Bodies, Lazy, Placed, Source, State, thunk};
use crate::artifact::{Artifact, Blob, FuncLayout, RELOC_RECORD, Relocation, TRAP_RECORD, write_call};
use crate::compile::{self, CompileConfig, Compiled, Job, target_triple};
use crate::error::{Error, Result};
use crate::module::{self, ModuleInfo, PinnedGlobal};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

impl Lazy {
    /// Validate `wasm` and load it lazily with `config` (no global pinned).
    /// `counter_global` is stored as `Artifact::counter_global`.
    pub fn load(wasm: Vec<u8>, config: &CompileConfig, counter_global: Option<u32>) -> Result<Arc<Lazy>> {
        let parsed = module::parse(&wasm)?;
        compile::check_bitmaps(&parsed.info, config)?;
        let source = Source::Ready(Arc::new(Bodies { wasm, bodies: parsed.bodies, config: *config }));
        build(parsed.info, config, counter_global, source, None)
    }

    /// Load the partial Artifact `artifact`, whose code is `code`: its
    /// functions run as stored, the others are compiled from the wasm
    /// `Code::attach_wasm` provides.
    pub fn load_partial(artifact: Artifact, code: &[u8]) -> Result<Arc<Lazy>> {
        let config = CompileConfig {
            trap_mode: artifact.trap_mode,
            baseline: artifact.baseline,
            function_bitmap: artifact.function_bitmap,
            edge_bitmap: artifact.edge_bitmap,
            pinned_global: PinnedGlobal::None,
            ..CompileConfig::default()
        };
        let counter_global = artifact.counter_global;
        let info = artifact.info.clone();
        build(info, &config, counter_global, Source::Missing, Some((artifact, code)))
    }
}

/// The prefix compiled, the first region written, and `stored`'s functions
/// placed after its thunks.
fn build(
    info: ModuleInfo,
    config: &CompileConfig,
    counter_global: Option<u32>,
    source: Source,
    stored: Option<(Artifact, &[u8])>,
) -> Result<Arc<Lazy>> {
    if config.pinned_global(&info).is_some() {
        return Err(Error::Unsupported { feature: "a pinned global in lazily compiled code".into(), function: None });
    }
    let isa = config.build_isa()?;
    let types = compile::distinct_types(&info);
    let mut jobs: Vec<Job> = (0..info.num_imported_funcs).map(|func_index| Job::ImportStub { func_index }).collect();
    jobs.extend(types.iter().map(|ty| Job::Trampoline { ty: ty.clone() }));
    jobs.extend(types.iter().map(|ty| Job::LazyStub { ty: ty.clone() }));
    // Stubs read no function body: no wasm needed.
    let results = compile::compile_jobs(&[], &info, config, &*isa, &jobs)?;

    // The prefix: import stubs, trampolines, lazy stubs, 16-aligned.
    let mut prefix = Vec::new();
    let mut offsets = Vec::with_capacity(results.len());
    let mut traps = Vec::new();
    for compiled in &results {
        prefix.resize(prefix.len().next_multiple_of(16), compile::PADDING);
        let start = prefix.len() as u32;
        offsets.push(FuncLayout { offset: start, len: compiled.code.len() as u32 });
        prefix.extend_from_slice(&compiled.code);
        for &(offset, kind, wasm_offset) in &compiled.traps {
            push_trap(&mut traps, start + offset, kind, wasm_offset);
        }
    }
    let imports = info.num_imported_funcs as usize;
    let num_funcs = info.num_funcs() as usize;
    let slots: Box<[AtomicUsize]> = (0..num_funcs).map(|_| AtomicUsize::new(0)).collect();
    // A function with several results may take a hidden return-area pointer
    // in the first argument register, where a thunk expects the vmctx: such
    // functions (Go has none) are compiled before any guest runs, and their
    // thunks only jump.
    let compiled_first: Vec<bool> =
        (0..num_funcs as u32).map(|f| f >= info.num_imported_funcs && info.func_type(f).results.len() > 1).collect();
    let first = Region::new(&prefix, &slots, &compiled_first).map_err(Error::Os)?;
    let base = first.base();
    let stub_of = |index: usize| {
        let id = info.func_type(index as u32).signature_id();
        let i = types.iter().position(|t| t.signature_id() == id).expect("every type has a stub");
        base + offsets[imports + types.len() + i].offset as usize
    };
    let mut compiled = vec![None; num_funcs];
    for (index, slot) in slots.iter().enumerate() {
        let target = if index < imports { base + offsets[index].offset as usize } else { stub_of(index) };
        slot.store(target, Ordering::Release);
        // Calls to an import go straight to its stub.
        if index < imports {
            compiled[index] = Some(target);
        }
    }
    let functions = (0..num_funcs)
        .map(|index| match index < imports {
            true => offsets[index],
            false => FuncLayout { offset: (first.thunk(index as u32) - base) as u32, len: thunk::SIZE as u32 },
        })
        .collect();
    let trampolines = types
        .iter()
        .zip(&offsets[imports..imports + types.len()])
        .map(|(ty, f)| (ty.signature_id(), f.offset))
        .collect();
    let artifact = Artifact {
        info,
        trap_mode: config.trap_mode,
        baseline: config.baseline,
        target: target_triple(),
        code: Vec::new(),
        functions,
        trampolines,
        relocations: Blob::default(),
        traps: Blob::owned(traps),
        counter_global,
        function_bitmap: config.function_bitmap,
        edge_bitmap: config.edge_bitmap,
        partial: true,
    };
    let mut state = State {
        source,
        loaded: 0,
        compile_time: std::time::Duration::ZERO,
        regions: vec![first],
        compiled,
        placed: BTreeMap::new(),
    };
    if let Some((stored, code)) = stored {
        place_stored(&mut state, &slots, &stored, code)?;
    }
    let lazy = Arc::new(Lazy {
        artifact: Arc::new(artifact),
        isa,
        slots,
        compiled_first: compiled_first.clone(),
        base,
        state: Mutex::new(state),
    });
    for (func_index, _) in compiled_first.iter().enumerate().filter(|(_, first)| **first) {
        lazy.compile(func_index as u32)?;
    }
    Ok(lazy)
}

pub(super) fn push_trap(traps: &mut Vec<u8>, offset: u32, kind: u8, wasm_offset: u32) {
    traps.extend_from_slice(&offset.to_le_bytes());
    traps.push(kind);
    traps.extend_from_slice(&wasm_offset.to_le_bytes());
}

/// Place the functions of the partial Artifact `stored` (code `code`) in the
/// first region, linked to each other and to the thunks of the rest.
fn place_stored(state: &mut State, slots: &[AtomicUsize], stored: &Artifact, code: &[u8]) -> Result<()> {
    let bad = |what: String| Error::Artifact(format!("stored partial code: {what}"));
    if !stored.partial || stored.functions.len() != slots.len() {
        return Err(bad("does not match the module".into()));
    }
    let region = &mut state.regions[0];
    let at = region.next_address();
    let present = |f: &FuncLayout| f.len > 0;
    // Missing functions sit at offset 0: look callers up among the present
    // ones only, by offset.
    let mut by_offset: Vec<(u32, u32, u32)> = (stored.functions.iter().enumerate())
        .filter(|(_, f)| present(f))
        .map(|(i, f)| (f.offset, f.offset + f.len, i as u32))
        .collect();
    by_offset.sort_unstable();
    let function_at = |offset: u32| {
        let i = by_offset.partition_point(|f| f.0 <= offset).checked_sub(1)?;
        (offset < by_offset[i].1).then_some(by_offset[i].2)
    };
    let mut linked = code.to_vec();
    let mut calls: Vec<Vec<(u32, crate::artifact::RelocKind, u32, i64)>> = vec![Vec::new(); slots.len()];
    for record in stored.relocations.chunks_exact(RELOC_RECORD) {
        let reloc = Relocation::read(record.try_into().expect("a whole record"))?;
        let target = stored.functions.get(reloc.target as usize).ok_or_else(|| bad("a call to no function".into()))?;
        let caller = function_at(reloc.offset).ok_or_else(|| bad("a call outside any function".into()))?;
        let target_address = match state.compiled[reloc.target as usize] {
            _ if present(target) => at + target.offset as usize,
            Some(address) if region.contains(address) => address,
            _ => region.thunk(reloc.target),
        };
        let site = reloc.offset as usize;
        write_call(&mut linked, site, reloc.kind, target_address as i64 + reloc.addend - (at + site) as i64)?;
        let start = stored.functions[caller as usize].offset;
        calls[caller as usize].push((reloc.offset - start, reloc.kind, reloc.target, reloc.addend));
    }
    let placed_at = region.place(&linked).ok_or_else(|| bad("cannot map it".into()))?;
    debug_assert_eq!(placed_at, at);
    let mut traps: Vec<Vec<(u32, u8, u32)>> = vec![Vec::new(); slots.len()];
    for record in stored.traps.chunks_exact(TRAP_RECORD) {
        let offset = u32::from_le_bytes(record[..4].try_into().expect("4 bytes"));
        let wasm_offset = u32::from_le_bytes(record[5..9].try_into().expect("4 bytes"));
        if let Some(f) = function_at(offset) {
            traps[f as usize].push((offset - stored.functions[f as usize].offset, record[4], wasm_offset));
        }
    }
    for (index, f) in stored.functions.iter().enumerate().filter(|(_, f)| present(f)) {
        let address = at + f.offset as usize;
        let body = code[f.offset as usize..(f.offset + f.len) as usize].to_vec();
        let compiled =
            Compiled { code: body, calls: std::mem::take(&mut calls[index]), traps: std::mem::take(&mut traps[index]) };
        state.compiled[index] = Some(address);
        state.placed.insert(address, Placed { func_index: index as u32, compiled });
        slots[index].store(address, Ordering::Release);
    }
    state.loaded = state.placed.len();
    Ok(())
}
