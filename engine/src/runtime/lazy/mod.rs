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

mod load;
pub(crate) mod region;
mod store;
mod thunk;

use crate::artifact::{Artifact, write_call};
use crate::compile::{self, CompileConfig, Compiled, Job};
use crate::error::{Error, Result};
use crate::module;
use crate::module::ModuleInfo;
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
    isa: OwnedTargetIsa,
    /// Per function index, where its thunks jump.
    slots: Box<[AtomicUsize]>,
    /// Functions compiled at load, whose thunks store no index.
    compiled_first: Vec<bool>,
    state: Mutex<State>,
}

/// The wasm the functions are compiled from.
enum Source {
    Ready {
        wasm: Vec<u8>,
        bodies: Vec<Range<usize>>,
        config: CompileConfig,
    },
    /// Read when a function is first compiled (a load of stored code: most
    /// runs never need it).
    Later {
        read: Box<dyn FnOnce() -> Result<Vec<u8>> + Send>,
        config: CompileConfig,
    },
    /// Stored code loaded with no wasm attached (`Code::attach_wasm`).
    Missing,
}

struct State {
    source: Source,
    /// How many functions were compiled when loaded: more now means there
    /// is something new to store.
    loaded: usize,
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

    /// Give stored code loaded with no wasm (`load_partial`) the wasm to
    /// compile the rest from: `read` runs when a function is first compiled
    /// and returns the module's bytes (the bytes it was compiled from, as
    /// the cache key promises), compiled with `config`.
    pub fn attach_wasm(&self, config: CompileConfig, read: Box<dyn FnOnce() -> Result<Vec<u8>> + Send>) {
        let (_compile, mut state) = self.lock();
        if matches!(state.source, Source::Missing) {
            state.source = Source::Later { read, config };
        }
    }

    /// The code of function `func_index`, compiled now if it is not yet.
    pub fn compile(&self, func_index: u32) -> Result<usize> {
        let (_compile, mut state) = self.lock();
        let state = &mut *state;
        let info = &self.artifact.info;
        if let Some(address) = state.compiled.get(func_index as usize).copied().flatten() {
            return Ok(address);
        }
        let function = info.func_name(func_index);
        let (wasm, bodies, config) = ready(&mut state.source, info).map_err(|e| match e {
            Error::Compile { .. } => e,
            other => Error::Compile { function: function.clone(), message: format!("reading its wasm: {other}") },
        })?;
        let defined = func_index.checked_sub(info.num_imported_funcs).map(|i| i as usize);
        let Some(body) = defined.and_then(|i| bodies.get(i)) else {
            return Err(Error::Compile { function, message: "no such defined function".into() });
        };
        let job = Job::Defined { func_index, body: body.clone() };
        let (ctx, fctx) = (&mut state.ctx, &mut state.fctx);
        let compiled = corosensei::on_stack(&mut state.stack, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                compile::compile_one(wasm, info, config, &*self.isa, &job, ctx, fctx)
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

    /// Whether functions were compiled since it was loaded: stored code would
    /// hold more (`compiled_artifact`).
    pub fn compiled_since_load(&self) -> bool {
        let (_compile, state) = self.lock();
        state.placed.len() > state.loaded
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

/// The wasm, its function bodies and the config to compile them with.
type ReadySource<'a> = (&'a [u8], &'a [Range<usize>], &'a CompileConfig);

/// The wasm, its bodies and the config to compile them with; read now if it
/// was left for later.
fn ready<'a>(source: &'a mut Source, info: &ModuleInfo) -> Result<ReadySource<'a>> {
    if let Source::Later { .. } = source {
        let Source::Later { read, config } = std::mem::replace(source, Source::Missing) else { unreachable!() };
        let wasm = read()?;
        let parsed = module::parse(&wasm)?;
        if parsed.info.num_funcs() != info.num_funcs() || parsed.info.func_types != info.func_types {
            return Err(Error::Artifact("the wasm is not the module the stored code was compiled from".into()));
        }
        *source = Source::Ready { wasm, bodies: parsed.bodies, config };
    }
    match source {
        Source::Ready { wasm, bodies, config } => Ok((wasm, bodies, config)),
        _ => Err(Error::Artifact("no wasm to compile it from".into())),
    }
}
