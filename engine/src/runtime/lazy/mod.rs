//! Lazy compilation (Linux): a module's functions are compiled when first
//! called, not all before the first run (docs/lazy-compilation.md).
//!
//! Loading compiles only the import stubs, the trampolines and one lazy stub
//! per function type, and writes a thunk per function. A function's address
//! (in tables, for exports, for direct calls from code compiled before it)
//! is its thunk, which jumps through the function's slot: to its type's lazy
//! stub at first, which calls the `lazy_compile` libcall; that compiles the
//! function, places it (`region`), points the slot at it and returns its
//! address. Code compiled later calls it directly.
//!
//! What a guest sees does not change: the same translator compiles the same
//! bodies, so the code of a function is the code an eager compile makes.
//! Only when it is compiled changes, and compilation reads nothing the guest
//! can influence but which functions it calls.
//!
//! Compiles are serialised by one process-wide lock (held across `fork`, see
//! `fork_locks`) and run on a stack of their own, not the guest's fiber.

pub(crate) mod region;
mod thunk;

use crate::artifact::{Artifact, FuncLayout, write_call};
use crate::compile::{self, CompileConfig, Compiled, Job, target_triple};
use crate::error::{Error, Result};
use crate::module;
use crate::runtime::code::{self, TrapSite};
use crate::runtime::trap::Trap;
use corosensei::stack::DefaultStack;
use cranelift_codegen::Context;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::FunctionBuilderContext;
use region::Region;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Stack for one compile: Cranelift's passes recurse little, but a guest
/// may call a new function with only `fiber::HOST_STACK_RESERVE` left.
const COMPILE_STACK: usize = 8 << 20;

static COMPILE: Mutex<()> = Mutex::new(());

/// The process-wide compile lock (also for `fork_locks`).
pub(crate) fn lock_compile() -> MutexGuard<'static, ()> {
    // Guards no data of its own: a panic while holding it leaves nothing inconsistent.
    COMPILE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A lazily compiled module's code.
pub struct Lazy {
    /// The prefix's layout: import stubs and trampolines at their offsets
    /// from the first region's base, every defined function at its thunk.
    pub(crate) artifact: Arc<Artifact>,
    wasm: Vec<u8>,
    bodies: Vec<Range<usize>>,
    config: CompileConfig,
    isa: OwnedTargetIsa,
    /// Per function index, where its thunks jump.
    slots: Box<[AtomicUsize]>,
    /// Functions compiled at load, whose thunks store no index.
    compiled_first: Vec<bool>,
    state: Mutex<State>,
}

struct State {
    /// The first holds the prefix; compiled functions go to the last.
    regions: Vec<Region>,
    /// Per function index: its code's address, once compiled.
    compiled: Vec<Option<usize>>,
    /// Compiled functions by address, for naming traps and for storing.
    placed: BTreeMap<usize, Placed>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    stack: DefaultStack,
}

struct Placed {
    func_index: u32,
    compiled: Compiled,
}

impl Lazy {
    /// Validate `wasm` and load it lazily with `config` (no global pinned).
    /// `counter_global` is stored as `Artifact::counter_global`.
    pub fn load(wasm: Vec<u8>, config: &CompileConfig, counter_global: Option<u32>) -> Result<Arc<Lazy>> {
        let parsed = module::parse(&wasm)?;
        let info = parsed.info;
        if config.pinned_global(&info).is_some() {
            return Err(Error::Unsupported {
                feature: "a pinned global in lazily compiled code".into(),
                function: None,
            });
        }
        compile::check_function_bitmap(&info, config)?;
        let isa = config.build_isa()?;
        let types = compile::distinct_types(&info);
        let mut jobs: Vec<Job> =
            (0..info.num_imported_funcs).map(|func_index| Job::ImportStub { func_index }).collect();
        jobs.extend(types.iter().map(|ty| Job::Trampoline { ty: ty.clone() }));
        jobs.extend(types.iter().map(|ty| Job::LazyStub { ty: ty.clone() }));
        let results = compile::compile_jobs(&wasm, &info, config, &*isa, &jobs)?;

        // The prefix: import stubs, trampolines, lazy stubs, 16-aligned.
        let mut prefix = Vec::new();
        let mut offsets = Vec::with_capacity(results.len());
        let mut traps = Vec::new();
        for compiled in &results {
            prefix.resize(prefix.len().next_multiple_of(16), 0);
            let start = prefix.len() as u32;
            offsets.push(FuncLayout { offset: start, len: compiled.code.len() as u32 });
            prefix.extend_from_slice(&compiled.code);
            if !compiled.calls.is_empty() {
                return Err(Error::Compile { function: "a stub".into(), message: "a stub calls directly".into() });
            }
            for &(offset, kind, wasm_offset) in &compiled.traps {
                traps.extend_from_slice(&(start + offset).to_le_bytes());
                traps.push(kind);
                traps.extend_from_slice(&wasm_offset.to_le_bytes());
            }
        }
        let imports = info.num_imported_funcs as usize;
        let stub_offset = |ty: &module::FuncType| {
            let i = types.iter().position(|t| t.signature_id() == ty.signature_id()).expect("every type has a stub");
            offsets[imports + types.len() + i].offset as usize
        };
        let num_funcs = info.num_funcs() as usize;
        let slots: Box<[AtomicUsize]> = (0..num_funcs).map(|_| AtomicUsize::new(0)).collect();
        // A function with several results may take a hidden return-area
        // pointer in the first argument register, where a thunk expects the
        // vmctx: such functions (Go has none) are compiled before any guest
        // runs, and their thunks only jump.
        let compiled_first: Vec<bool> = (0..num_funcs as u32)
            .map(|f| f >= info.num_imported_funcs && info.func_type(f).results.len() > 1)
            .collect();
        let first = Region::new(&prefix, &slots, &compiled_first).map_err(Error::Os)?;
        let base = first.base();
        for (index, slot) in slots.iter().enumerate() {
            let target = match index < imports {
                true => offsets[index].offset as usize,
                false => stub_offset(info.func_type(index as u32)),
            };
            slot.store(base + target, Ordering::Release);
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
            relocations: Default::default(),
            traps: crate::artifact::Blob::owned(traps),
            counter_global,
            function_bitmap: config.function_bitmap,
        };
        let stack = DefaultStack::new(COMPILE_STACK).map_err(|e| Error::Os(format!("compile stack: {e}")))?;
        let state = State {
            regions: vec![first],
            compiled: vec![None; num_funcs],
            placed: BTreeMap::new(),
            ctx: Context::new(),
            fctx: FunctionBuilderContext::new(),
            stack,
        };
        let lazy = Arc::new(Lazy {
            artifact: Arc::new(artifact),
            wasm,
            bodies: parsed.bodies,
            config: *config,
            isa,
            slots,
            compiled_first: compiled_first.clone(),
            state: Mutex::new(state),
        });
        code::register_lazy_region(&lazy, base, base + region::REGION_BYTES);
        for (func_index, _) in compiled_first.iter().enumerate().filter(|(_, first)| **first) {
            lazy.compile(func_index as u32)?;
        }
        Ok(lazy)
    }

    /// The first region's base: the prefix's offsets are from here.
    pub fn base(&self) -> usize {
        self.lock().1.regions[0].base()
    }

    /// The compile lock, then this module's state (always in that order).
    fn lock(&self) -> (MutexGuard<'static, ()>, MutexGuard<'_, State>) {
        let compile = lock_compile();
        // Only changed under the compile lock, whole entries at a time.
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        (compile, state)
    }

    /// Whether `pc` lies in any of this module's regions.
    pub fn contains(&self, pc: usize) -> bool {
        self.lock().1.regions.iter().any(|r| r.contains(pc))
    }

    /// How many defined functions have been compiled.
    pub fn compiled_count(&self) -> usize {
        self.lock().1.placed.len()
    }

    /// The code of function `func_index`, compiled now if it is not yet.
    pub fn compile(&self, func_index: u32) -> Result<usize> {
        let (_compile, mut state) = self.lock();
        let state = &mut *state;
        let info = &self.artifact.info;
        let defined = func_index.checked_sub(info.num_imported_funcs).map(|i| i as usize);
        let function = info.func_name(func_index);
        let Some(body) = defined.and_then(|i| self.bodies.get(i)) else {
            return Err(Error::Compile { function, message: "no such defined function".into() });
        };
        if let Some(address) = state.compiled[func_index as usize] {
            return Ok(address);
        }
        let job = Job::Defined { func_index, body: body.clone() };
        let (ctx, fctx) = (&mut state.ctx, &mut state.fctx);
        let compiled = corosensei::on_stack(&mut state.stack, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                compile::compile_one(&self.wasm, info, &self.config, &*self.isa, &job, ctx, fctx)
            }))
        });
        let compiled = match compiled {
            Ok(result) => result,
            Err(panic) => {
                *ctx = Context::new();
                *fctx = FunctionBuilderContext::new();
                Err(format!("translator panic: {}", crate::error::panic_message(&*panic)))
            }
        }
        .map_err(|message| Error::Compile { function: function.clone(), message })?;
        let address =
            self.place(state, func_index, &compiled).map_err(|message| Error::Compile { function, message })?;
        crate::runtime::perf_map::record_one(&info.func_name(func_index), address, compiled.code.len());
        state.compiled[func_index as usize] = Some(address);
        state.placed.insert(address, Placed { func_index, compiled });
        self.slots[func_index as usize].store(address, Ordering::Release);
        Ok(address)
    }

    /// Link `compiled` for the last region (a new one when it is full) and
    /// write it there; its address.
    fn place(&self, state: &mut State, func_index: u32, compiled: &Compiled) -> std::result::Result<usize, String> {
        if !state.regions.last().expect("the first region").has_room(compiled.code.len()) {
            let region = Region::new(&[], &self.slots, &self.compiled_first)?;
            code::register_lazy_region_of(&state.regions[0], &region);
            state.regions.push(region);
        }
        let region = state.regions.last_mut().expect("a region");
        let at = region.next_address();
        let mut code = compiled.code.clone();
        for &(offset, kind, target, addend) in &compiled.calls {
            let site = at + offset as usize;
            let target_address = match state.compiled.get(target as usize).copied().flatten() {
                Some(address) if region.contains(address) => address,
                _ if target == func_index => at,
                _ => region.thunk(target),
            };
            let delta = target_address as i64 + addend - site as i64;
            write_call(&mut code, offset as usize, kind, delta).map_err(|e| e.to_string())?;
        }
        region.place(&code).ok_or_else(|| "cannot map lazily compiled code".to_string())
    }

    /// Describe a fault at `pc` in this module's code.
    pub fn trap_at(&self, pc: usize, signal: i32) -> Trap {
        let (_compile, state) = self.lock();
        let base = state.regions[0].base();
        let placed = state.placed.range(..=pc).next_back().filter(|(start, p)| pc < *start + p.compiled.code.len());
        let site = match placed {
            Some((start, placed)) => {
                let offset = (pc - start) as u32;
                let record = placed.compiled.traps.iter().find(|t| t.0 == offset).map(|t| (t.1, t.2));
                TrapSite { func_index: Some(placed.func_index), record }
            }
            None if state.regions[0].contains(pc) => TrapSite::in_artifact(&self.artifact, (pc - base) as u32),
            None => TrapSite { func_index: None, record: None },
        };
        site.trap(&self.artifact.info, signal)
    }
}
