//! The compile driver: wasm bytes → `Artifact`, with every function compiled
//! in parallel on all cores.
//!
//! Jobs are the import stubs, the defined functions and one trampoline per
//! distinct function type. Worker threads take jobs from a shared counter,
//! largest first so the slowest functions do not finish last, each with its own
//! Cranelift `Context`. Results are laid out in job order, so the Artifact is
//! identical whatever the thread count or timing.

pub(crate) mod isa;
mod key;

pub use crate::module::PinnedGlobal;
pub use isa::{CompileConfig, HOST_CALL_CONV, IsaBaseline, TrapMode, target_triple};

use crate::artifact::{Artifact, Blob, FuncLayout, NO_WASM_OFFSET, RelocKind, Relocation, apply_relocations};
use crate::error::{Error, Result};
use crate::module::{self, FuncType, ModuleInfo};
use crate::runtime::trap::TrapKind;
use crate::translate::{self, stubs};
use cranelift_codegen::Context;
use cranelift_codegen::FinalizedRelocTarget;
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{self, ExternalName};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::FunctionBuilderContext;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Debug, Clone)]
pub(crate) enum Job {
    ImportStub {
        func_index: u32,
    },
    Defined {
        func_index: u32,
        body: std::ops::Range<usize>,
    },
    Trampoline {
        ty: FuncType,
    },
    /// The stub a lazy function's thunk jumps to until it is compiled (`runtime::lazy`).
    #[cfg(target_os = "linux")]
    LazyStub {
        ty: FuncType,
    },
}

/// The byte between functions: never executed, and a trap if it were
/// (x86-64 `int3`; on aarch64 four zero bytes are `udf #0`).
pub(crate) const PADDING: u8 = if cfg!(target_arch = "x86_64") { 0xcc } else { 0 };

/// One compiled function before layout.
pub(crate) struct Compiled {
    pub code: Vec<u8>,
    /// (offset in function, relocation kind, target function index, addend)
    pub calls: Vec<(u32, RelocKind, u32, i64)>,
    /// (offset in function, trap kind, wasm byte offset or `NO_WASM_OFFSET`)
    pub traps: Vec<(u32, u8, u32)>,
}

/// Compile `wasm` with `config`.
pub fn compile(wasm: &[u8], config: &CompileConfig) -> Result<Artifact> {
    let parsed = module::parse(wasm)?;
    let info = &parsed.info;
    let isa = config.build_isa()?;
    check_bitmaps(info, config)?;
    let mut jobs: Vec<Job> = (0..info.num_imported_funcs).map(|func_index| Job::ImportStub { func_index }).collect();
    for (i, body) in parsed.bodies.iter().enumerate() {
        jobs.push(Job::Defined { func_index: info.num_imported_funcs + i as u32, body: body.clone() });
    }
    let trampoline_types = distinct_types(info);
    jobs.extend(trampoline_types.iter().map(|ty| Job::Trampoline { ty: ty.clone() }));

    let results = compile_jobs(wasm, info, config, &*isa, &jobs)?;
    layout(info.clone(), config, results, &trampoline_types)
}

/// The function bitmap and the edge map after it must be reachable at
/// constant vmctx offsets, and the edge map comes only after a function bitmap.
pub(crate) fn check_bitmaps(info: &ModuleInfo, config: &CompileConfig) -> Result<()> {
    use crate::runtime::vmctx;
    let num_defined = info.num_funcs() - info.num_imported_funcs;
    if config.edge_bitmap && !config.function_bitmap {
        return Err(Error::Unsupported { feature: "an edge map without a function bitmap".into(), function: None });
    }
    let unreachable = |what: &str| Error::Unsupported {
        feature: format!("{what} for {num_defined} functions and {} globals", info.globals.len()),
        function: None,
    };
    if config.function_bitmap
        && num_defined > 0
        && vmctx::function_ran_offset(info.globals.len(), num_defined - 1).is_none()
    {
        return Err(unreachable("a function bitmap"));
    }
    if config.edge_bitmap && vmctx::edge_map_offset(info.globals.len(), num_defined).is_none() {
        return Err(unreachable("an edge map"));
    }
    Ok(())
}

/// One type per distinct signature, in the module's order: a trampoline (and
/// a lazy stub) each.
pub(crate) fn distinct_types(info: &ModuleInfo) -> Vec<FuncType> {
    let mut types: Vec<FuncType> = Vec::new();
    for ty in &info.types {
        if !types.iter().any(|t| t.signature_id() == ty.signature_id()) {
            types.push(ty.clone());
        }
    }
    types
}

fn job_size(job: &Job) -> usize {
    match job {
        Job::Defined { body, .. } => body.len(),
        _ => 0,
    }
}

pub(crate) fn job_name(info: &ModuleInfo, job: &Job) -> String {
    match job {
        Job::ImportStub { func_index } | Job::Defined { func_index, .. } => info.func_name(*func_index),
        Job::Trampoline { ty } => format!("trampoline {ty:?}"),
        #[cfg(target_os = "linux")]
        Job::LazyStub { ty } => format!("lazy stub {ty:?}"),
    }
}

pub(crate) fn compile_jobs(
    wasm: &[u8],
    info: &ModuleInfo,
    config: &CompileConfig,
    isa: &dyn TargetIsa,
    jobs: &[Job],
) -> Result<Vec<Compiled>> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(job_size(&jobs[i])));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<Compiled>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut ctx = Context::new();
                let mut fctx = FunctionBuilderContext::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = order.get(n) else { break };
                    let job = &jobs[i];
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        compile_one(wasm, info, config, isa, job, &mut ctx, &mut fctx)
                    }))
                    .unwrap_or_else(|panic| {
                        ctx = Context::new();
                        fctx = FunctionBuilderContext::new();
                        Err(format!("translator panic: {}", crate::error::panic_message(&*panic)))
                    })
                    .map_err(|message| Error::Compile { function: job_name(info, job), message });
                    *slots[i].lock().expect("slot lock") = Some(result);
                }
            });
        }
    });
    // Every job ran; report the first failure in job order so the error does
    // not depend on thread timing.
    slots.into_iter().map(|slot| slot.into_inner().expect("slot lock").expect("every job ran")).collect()
}

pub(crate) fn compile_one(
    wasm: &[u8],
    info: &ModuleInfo,
    config: &CompileConfig,
    isa: &dyn TargetIsa,
    job: &Job,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
) -> std::result::Result<Compiled, String> {
    ctx.clear();
    let frontend = isa.frontend_config();
    match job {
        Job::ImportStub { func_index } => stubs::import_stub(
            info.func_type(*func_index),
            *func_index,
            pinned_with_type(config, info),
            &mut ctx.func,
            fctx,
            frontend,
        ),
        Job::Defined { func_index, body } => {
            let reader = wasmparser::BinaryReader::new(&wasm[body.clone()], body.start as u64);
            let body = wasmparser::FunctionBody::new(reader);
            translate::translate_function(info, config, *func_index, &body, &mut ctx.func, fctx, frontend)
                .map_err(|e| format!("decoding: {e}"))?
        }
        Job::Trampoline { ty } => stubs::trampoline(ty, pinned_with_type(config, info), &mut ctx.func, fctx, frontend),
        #[cfg(target_os = "linux")]
        Job::LazyStub { ty } => stubs::lazy_stub(ty, &mut ctx.func, fctx, frontend),
    }
    ctx.compile(isa, &mut ControlPlane::default()).map_err(|e| format!("{:?}", e.inner))?;
    let compiled = ctx.compiled_code().expect("just compiled");
    let mut calls = Vec::new();
    for reloc in compiled.buffer.relocs() {
        let (kind, target) = match (&reloc.kind, &reloc.target) {
            (Reloc::X86CallPCRel4, FinalizedRelocTarget::ExternalName(ExternalName::User(name))) => {
                (RelocKind::CallPcRel4, ctx.func.params.user_named_funcs()[*name].index)
            }
            (Reloc::Arm64Call, FinalizedRelocTarget::ExternalName(ExternalName::User(name))) => {
                (RelocKind::Arm64Call, ctx.func.params.user_named_funcs()[*name].index)
            }
            (kind, target) => return Err(format!("unexpected relocation {kind:?} to {target:?}")),
        };
        calls.push((reloc.offset, kind, target, reloc.addend));
    }
    let srclocs = compiled.buffer.get_srclocs_sorted();
    let mut traps = Vec::new();
    for trap in compiled.buffer.traps() {
        // The wasm instruction whose machine code holds the trap site.
        let i = srclocs.partition_point(|s| s.end <= trap.offset);
        let wasm_offset = srclocs
            .get(i)
            .filter(|s| s.start <= trap.offset && !s.loc.is_default())
            .map_or(NO_WASM_OFFSET, |s| s.loc.bits());
        traps.push((trap.offset, trap_kind(trap.code)?, wasm_offset));
    }
    Ok(Compiled { code: compiled.code_buffer().to_vec(), calls, traps })
}

/// The pinned global and its Cranelift type, for the stubs that keep its slot in step.
fn pinned_with_type(config: &CompileConfig, info: &ModuleInfo) -> Option<(u32, ir::Type)> {
    config.pinned_global(info).map(|g| (g, translate::ir_type(info.globals[g as usize].ty.ty)))
}

/// Map a trap code in compiled code back to its kind, including the codes
/// Cranelift emits on its own.
fn trap_kind(code: ir::TrapCode) -> std::result::Result<u8, String> {
    let kind = match code {
        ir::TrapCode::STACK_OVERFLOW => TrapKind::StackOverflow,
        ir::TrapCode::INTEGER_OVERFLOW => TrapKind::IntegerOverflow,
        ir::TrapCode::HEAP_OUT_OF_BOUNDS => TrapKind::MemoryOutOfBounds,
        ir::TrapCode::INTEGER_DIVISION_BY_ZERO => TrapKind::IntegerDivideByZero,
        ir::TrapCode::BAD_CONVERSION_TO_INTEGER => TrapKind::BadConversionToInteger,
        other => TrapKind::from_u8(other.as_raw().get()).ok_or_else(|| format!("unknown trap code {other:?}"))?,
    };
    Ok(kind as u8)
}

/// Concatenate the compiled functions, 16-byte aligned, turn per-function
/// offsets into Artifact-wide ones, and link the calls between them.
fn layout(
    info: ModuleInfo,
    config: &CompileConfig,
    results: Vec<Compiled>,
    trampoline_types: &[FuncType],
) -> Result<Artifact> {
    let mut code = Vec::new();
    let mut functions = Vec::with_capacity(results.len());
    let mut relocations = Vec::new();
    let mut traps = Vec::new();
    for compiled in results {
        while code.len() % 16 != 0 {
            code.push(PADDING);
        }
        let start = code.len() as u32;
        functions.push(FuncLayout { offset: start, len: compiled.code.len() as u32 });
        code.extend_from_slice(&compiled.code);
        for (offset, kind, target, addend) in compiled.calls {
            Relocation { offset: start + offset, kind, target, addend }.write(&mut relocations);
        }
        for (offset, kind, wasm_offset) in compiled.traps {
            traps.extend_from_slice(&(start + offset).to_le_bytes());
            traps.push(kind);
            traps.extend_from_slice(&wasm_offset.to_le_bytes());
        }
    }
    let num_funcs = info.num_funcs() as usize;
    let trampolines = trampoline_types
        .iter()
        .zip(&functions[num_funcs..])
        .map(|(ty, layout)| (ty.signature_id(), layout.offset))
        .collect();
    functions.truncate(num_funcs);
    apply_relocations(&mut code, &functions, &relocations)?;
    Ok(Artifact {
        info,
        trap_mode: config.trap_mode,
        baseline: config.baseline,
        target: target_triple(),
        code,
        functions,
        trampolines,
        relocations: Blob::owned(relocations),
        traps: Blob::owned(traps),
        counter_global: None,
        function_bitmap: config.function_bitmap,
        edge_bitmap: config.edge_bitmap,
        partial: false,
    })
}
