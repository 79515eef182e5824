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
//! Cranelift runs on the calling thread, on a stack of its own (not the
//! guest's fiber), with no lock held; placing code takes one process-wide
//! lock (held across `fork`, see `fork_locks`). Compiling ahead on another
//! thread was measured and dropped (docs/lazy-compilation.md).

mod load;
pub(crate) mod region;
mod store;
mod thunk;

use crate::artifact::{Artifact, write_call};
use crate::compile::{self, CompileConfig, Compiled, Job};
use crate::error::{Error, Result};
use crate::module;
use crate::module::ModuleInfo;
use crate::runtime::trap::Trap;
use crate::runtime::trap_site::TrapSite;
use corosensei::stack::DefaultStack;
use cranelift_codegen::Context;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::FunctionBuilderContext;
use region::Region;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Stack for one compile: Cranelift's passes recurse little, but a guest
/// may call a new function with only `fiber::HOST_STACK_RESERVE` left.
const COMPILE_STACK: usize = 8 << 20;

static COMPILE: Mutex<()> = Mutex::new(());

/// The process-wide lock on every `Lazy`'s state (also for `fork_locks`).
/// Cranelift never runs under it: only lookups and placing code do.
pub(crate) fn lock_compile() -> MutexGuard<'static, ()> {
    // Guards no data of its own: a panic while holding it leaves nothing inconsistent.
    COMPILE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A thread's Cranelift contexts and the stack it compiles on.
struct Compiler {
    ctx: Context,
    fctx: FunctionBuilderContext,
    stack: DefaultStack,
}

thread_local! {
    static COMPILER: RefCell<Option<Compiler>> = const { RefCell::new(None) };
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
    /// The first region's base (it never moves).
    base: usize,
    state: Mutex<State>,
}

/// The wasm the functions are compiled from.
enum Source {
    Ready(Arc<Bodies>),
    /// Read when a function is first compiled (a load of stored code: most
    /// runs never need it).
    Later {
        read: Box<dyn FnOnce() -> Result<Vec<u8>> + Send>,
        config: CompileConfig,
    },
    /// Stored code loaded with no wasm attached (`Code::attach_wasm`).
    Missing,
}

/// The wasm, where each defined function's body lies in it, and the config
/// to compile them with.
struct Bodies {
    wasm: Vec<u8>,
    bodies: Vec<Range<usize>>,
    config: CompileConfig,
}

struct State {
    source: Source,
    /// How many functions were compiled when loaded: more now means there
    /// is something new to store.
    loaded: usize,
    /// Real time the guests waited for compiles since then (a diagnostic,
    /// as the run summary's other timings; it never reaches a guest).
    compile_time: Duration,
    /// The first holds the prefix; compiled functions go to the last.
    regions: Vec<Region>,
    /// Per function index: its code's address, once compiled.
    compiled: Vec<Option<usize>>,
    /// Compiled functions by address, for naming traps and for storing.
    placed: BTreeMap<usize, Placed>,
}

struct Placed {
    func_index: u32,
    compiled: Compiled,
}

impl Lazy {
    /// The first region's base: the prefix's offsets are from here.
    pub fn base(&self) -> usize {
        self.base
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

    /// Functions compiled since load (more than none: stored code would hold
    /// more), and the real time guests waited for compiles.
    pub fn compiled_since_load_stats(&self) -> (usize, Duration) {
        let (_compile, state) = self.lock();
        (state.placed.len() - state.loaded, state.compile_time)
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

    /// The code of function `func_index`, compiled now if it is not yet: for
    /// a guest about to call it. Cranelift runs with no lock held, so other
    /// threads compile and run meanwhile; if one placed the function first,
    /// its code is used and this compile is dropped.
    pub fn compile(&self, func_index: u32) -> Result<usize> {
        let started = Instant::now();
        let bodies = {
            let (_compile, mut state) = self.lock();
            if let Some(address) = state.compiled.get(func_index as usize).copied().flatten() {
                return Ok(address);
            }
            let ready = ready(&mut state.source, &self.artifact.info);
            ready.map_err(|e| self.compile_error(func_index, format!("reading its wasm: {e}")))?
        };
        let compiled = self.compile_unlocked(&bodies, func_index)?;
        let (_compile, mut state) = self.lock();
        if let Some(address) = state.compiled[func_index as usize] {
            return Ok(address);
        }
        self.publish(&mut state, func_index, compiled).map_err(|e| self.compile_error(func_index, e.to_string()))?;
        state.compile_time += started.elapsed();
        Ok(state.compiled[func_index as usize].expect("just placed"))
    }

    /// `message` as the error of compiling function `func_index`.
    fn compile_error(&self, func_index: u32, message: String) -> Error {
        Error::Compile { function: self.artifact.info.func_name(func_index), message }
    }

    /// Run Cranelift on function `func_index`, on this thread's compiler.
    fn compile_unlocked(&self, bodies: &Bodies, func_index: u32) -> Result<Compiled> {
        let info = &self.artifact.info;
        let function = || info.func_name(func_index);
        let defined = func_index.checked_sub(info.num_imported_funcs).map(|i| i as usize);
        let Some(body) = defined.and_then(|i| bodies.bodies.get(i)) else {
            return Err(Error::Compile { function: function(), message: "no such defined function".into() });
        };
        let job = Job::Defined { func_index, body: body.clone() };
        COMPILER.with(|compiler| {
            let mut compiler = compiler.borrow_mut();
            if compiler.is_none() {
                let stack = DefaultStack::new(COMPILE_STACK).map_err(|e| Error::Os(format!("compile stack: {e}")))?;
                *compiler = Some(Compiler { ctx: Context::new(), fctx: FunctionBuilderContext::new(), stack });
            }
            let Compiler { ctx, fctx, stack } = compiler.as_mut().expect("just made");
            let result = corosensei::on_stack(&mut *stack, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    compile::compile_one(&bodies.wasm, info, &bodies.config, &*self.isa, &job, ctx, fctx)
                }))
            });
            let result = result.unwrap_or_else(|panic| {
                *ctx = Context::new();
                *fctx = FunctionBuilderContext::new();
                Err(format!("translator panic: {}", crate::error::panic_message(&*panic)))
            });
            result.map_err(|message| Error::Compile { function: function(), message })
        })
    }

    /// Place `compiled`, function `func_index`'s code (not placed yet), in
    /// the last region (a new one when it is full), linked to what is placed
    /// in that region and to its thunks for the rest; then point its slot at
    /// it.
    fn publish(&self, state: &mut State, func_index: u32, compiled: Compiled) -> Result<()> {
        if !state.regions.last().expect("the first region").has_room(compiled.code.len()) {
            let region = Region::new(&[], &self.slots, &self.compiled_first).map_err(Error::Os)?;
            state.regions.push(region);
        }
        let region = state.regions.last_mut().expect("a region");
        let at = region.next_address();
        let mut code = compiled.code.clone();
        for &(offset, kind, target, addend) in &compiled.calls {
            let target_address = match state.compiled.get(target as usize).copied().flatten() {
                _ if target == func_index => at,
                Some(address) if region.contains(address) => address,
                _ => region.thunk(target),
            };
            let site = offset as usize;
            write_call(&mut code, site, kind, target_address as i64 + addend - (at + site) as i64)?;
        }
        let address = region.place(&code).ok_or_else(|| Error::Os("cannot map lazily compiled code".into()))?;
        debug_assert_eq!(address, at);
        let name = self.artifact.info.func_name(func_index);
        crate::runtime::perf_map::record_one(&name, address, compiled.code.len());
        state.compiled[func_index as usize] = Some(address);
        state.placed.insert(address, Placed { func_index, compiled });
        self.slots[func_index as usize].store(address, Ordering::Release);
        Ok(())
    }

    /// Describe a fault at `pc` in this module's code.
    pub fn trap_at(&self, pc: usize, signal: i32) -> Trap {
        self.site_at(pc).trap(&self.artifact.info, signal)
    }

    /// The function whose code holds `pc` (imports counted).
    pub fn function_at(&self, pc: usize) -> Option<u32> {
        self.site_at(pc).func_index
    }

    fn site_at(&self, pc: usize) -> TrapSite {
        let (_compile, state) = self.lock();
        let base = state.regions[0].base();
        let placed = state.placed.range(..=pc).next_back().filter(|(start, p)| pc < *start + p.compiled.code.len());
        match placed {
            Some((start, placed)) => {
                let offset = (pc - start) as u32;
                let record = placed.compiled.traps.iter().find(|t| t.0 == offset).map(|t| (t.1, t.2));
                TrapSite { func_index: Some(placed.func_index), record }
            }
            None if state.regions[0].contains(pc) => TrapSite::in_artifact(&self.artifact, (pc - base) as u32),
            None => TrapSite { func_index: None, record: None },
        }
    }
}

/// The wasm to compile from, read now if it was left for later.
fn ready(source: &mut Source, info: &ModuleInfo) -> Result<Arc<Bodies>> {
    if let Source::Later { .. } = source {
        let Source::Later { read, config } = std::mem::replace(source, Source::Missing) else { unreachable!() };
        let wasm = read()?;
        let parsed = module::parse(&wasm)?;
        if parsed.info.num_funcs() != info.num_funcs() || parsed.info.func_types != info.func_types {
            return Err(Error::Artifact("the wasm is not the module the stored code was compiled from".into()));
        }
        *source = Source::Ready(Arc::new(Bodies { wasm, bodies: parsed.bodies, config }));
    }
    match source {
        Source::Ready(bodies) => Ok(bodies.clone()),
        _ => Err(Error::Artifact("no wasm to compile it from".into())),
    }
}
