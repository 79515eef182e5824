//! The loader: an Artifact's code copied into fresh pages and relocated, or
//! mapped straight from a verified cache file, then made executable (W^X:
//! never writable and executable at once) and registered so the signal
//! handler recognises it. A `Code` is shared by every instance of the module.
//!
//! Or loaded lazily (`Code::load_lazy`, Linux): functions are compiled when
//! first called (`runtime::lazy`).
//!
//! Also the lookup from a faulting address to the module whose code it is in
//! (`trap_at_any_pc`): a function reached through a shared table can belong to
//! another module than the instance whose call faulted.

use crate::artifact::{Artifact, apply_relocations};
use crate::error::{Error, Result};
use crate::runtime::image::Prepared;
#[cfg(target_os = "linux")]
use crate::runtime::lazy::Lazy;
use crate::runtime::registry::{self, Registration};
use crate::runtime::trap::{Trap, TrapKind};
use crate::runtime::trap_site::TrapSite;
use std::sync::{Arc, Mutex, OnceLock, Weak};

pub struct Code {
    artifact: Arc<Artifact>,
    exec: Exec,
    /// The memory image and table template, built at the first instantiation.
    prepared: OnceLock<Prepared>,
}

/// Where the machine code is.
enum Exec {
    /// All of it, mapped once.
    Mapped { map: memmap2::Mmap, _registration: Registration },
    /// Compiled as it is called; `Code::artifact` describes its prefix.
    #[cfg(target_os = "linux")]
    Lazy(Arc<Lazy>),
}

/// A loaded Code, for `trap_at_any_pc`. Unlike `registry`, this is only read
/// after a fault has been handled, never by the signal handler, so it may
/// lock and hold a reference.
pub(crate) enum Loaded {
    /// Code mapped at `[start, end)`.
    Mapped { start: usize, end: usize, artifact: Weak<Artifact> },
    /// Lazily compiled code, in regions its `Lazy` knows.
    #[cfg(target_os = "linux")]
    Lazy(Weak<Lazy>),
}

impl Loaded {
    /// What the entry describes, to find it again when its Code is dropped.
    fn owner(&self) -> usize {
        match self {
            Loaded::Mapped { artifact, .. } => artifact.as_ptr() as usize,
            #[cfg(target_os = "linux")]
            Loaded::Lazy(lazy) => lazy.as_ptr() as usize,
        }
    }
}

static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// The list, locked (also for `fork_locks`).
pub(crate) fn lock_loaded() -> std::sync::MutexGuard<'static, Vec<Loaded>> {
    // The list stays consistent even if a holder panicked: entries are pushed
    // and removed whole.
    LOADED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn check_baseline(artifact: &Artifact) -> Result<()> {
    let here = crate::compile::target_triple();
    if artifact.target != here {
        Err(Error::Artifact(format!("compiled for {}, and this machine is {here}", artifact.target)))
    } else if artifact.baseline.runs_on_host() {
        Ok(())
    } else {
        Err(Error::Artifact(format!("compiled for {}, which this CPU cannot run", artifact.baseline.name())))
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code").field("base", &self.base()).field("lazy", &self.is_lazy()).finish()
    }
}

impl Code {
    /// Copy the Artifact's code into fresh pages, relocate it, make it
    /// executable and register it.
    pub fn load(mut artifact: Artifact) -> Result<Code> {
        let code = std::mem::take(&mut artifact.code);
        Code::load_copy(artifact, &code)
    }

    /// Like `load` for an Artifact whose code (its own `code` is empty) is
    /// `code`: copied into fresh pages, so later changes to where `code`
    /// came from cannot reach what runs.
    pub fn load_copy(artifact: Artifact, code: &[u8]) -> Result<Code> {
        check_baseline(&artifact)?;
        if artifact.partial {
            return Code::load_partial(artifact, code);
        }
        let os = |what: &str, e: std::io::Error| Error::Os(format!("{what}: {e}"));
        let mut writable = memmap2::MmapMut::map_anon(code.len().max(1)).map_err(|e| os("mapping code", e))?;
        writable[..code.len()].copy_from_slice(code);
        apply_relocations(&mut writable, &artifact.functions, &artifact.relocations)?;
        let exec = writable.make_exec().map_err(|e| os("making code executable", e))?;
        Code::register(artifact, exec)
    }

    /// Load `artifact`, whose code (its own `code` is empty) is `code`, the
    /// bytes at `offset` in `file`: the range is mapped executable straight
    /// from the file (no copy, no relocation: compiled code is linked
    /// position-independently). Where the OS refuses (a noexec mount, an
    /// unaligned offset) the bytes are copied and relocated as in `load`.
    ///
    /// # Safety
    /// `code` must be exactly the `code.len()` bytes of `file` at `offset`,
    /// verified by the caller (a checksum) to be this Artifact's code, and the
    /// file must not change while the Code lives (cache entries are replaced
    /// by rename, never written in place).
    pub unsafe fn load_file(artifact: Artifact, file: &std::fs::File, offset: u64, code: &[u8]) -> Result<Code> {
        check_baseline(&artifact)?;
        if crate::runtime::perf_map::wanted() || artifact.partial {
            return Code::load_copy(artifact, code);
        }
        // SAFETY: the file does not change while the mapping lives (the
        // caller's promise), so the executable bytes are the verified ones.
        let exec = unsafe { memmap2::MmapOptions::new().offset(offset).len(code.len().max(1)).map_exec(file) };
        match exec {
            Ok(exec) => Code::register(artifact, exec),
            Err(_) => Code::load_copy(artifact, code),
        }
    }

    fn register(artifact: Artifact, map: memmap2::Mmap) -> Result<Code> {
        let (start, len) = (map.as_ptr() as usize, map.len());
        let registration = registry::register(start, start + len)
            .ok_or_else(|| Error::Os("too many modules loaded at once".into()))?;
        crate::runtime::perf_map::record(&artifact, start);
        let artifact = Arc::new(artifact);
        lock_loaded().push(Loaded::Mapped { start, end: start + len, artifact: Arc::downgrade(&artifact) });
        Ok(Code { artifact, exec: Exec::Mapped { map, _registration: registration }, prepared: OnceLock::new() })
    }

    /// Lazily loaded code, registered for `trap_at_any_pc`.
    #[cfg(target_os = "linux")]
    fn lazy(lazy: Arc<Lazy>) -> Code {
        lock_loaded().push(Loaded::Lazy(Arc::downgrade(&lazy)));
        Code { artifact: lazy.artifact.clone(), exec: Exec::Lazy(lazy), prepared: OnceLock::new() }
    }

    /// Validate `wasm` and load it so that each function is compiled when it
    /// is first called (`runtime::lazy`); `counter_global` is the
    /// instrumentation's counter, stored as `Artifact::counter_global`.
    /// Where lazy loading is not supported (off Linux, or with a pinned
    /// global) the module is compiled whole first, as `compile` + `load` do:
    /// the guest runs the same either way.
    pub fn load_lazy(wasm: Vec<u8>, config: &crate::CompileConfig, counter_global: Option<u32>) -> Result<Code> {
        #[cfg(target_os = "linux")]
        if config.pinned_global == crate::compile::PinnedGlobal::None {
            return Ok(Code::lazy(Lazy::load(wasm, config, counter_global)?));
        }
        let mut artifact = crate::compile(&wasm, config)?;
        artifact.counter_global = counter_global;
        Code::load(artifact)
    }

    /// A partial Artifact (`Artifact::partial`): its functions placed, the
    /// others compiled when first called from the wasm `attach_wasm` gives.
    fn load_partial(artifact: Artifact, code: &[u8]) -> Result<Code> {
        #[cfg(target_os = "linux")]
        {
            Ok(Code::lazy(Lazy::load_partial(artifact, code)?))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (artifact, code);
            Err(Error::Artifact("partial code is only loaded on Linux".into()))
        }
    }

    /// For lazily loaded code from a partial Artifact: the wasm to compile
    /// the functions it lacks, read by `read` only when one is first called,
    /// compiled with `config`. Nothing happens for other code.
    pub fn attach_wasm(&self, config: &crate::CompileConfig, read: Box<dyn FnOnce() -> Result<Vec<u8>> + Send>) {
        match &self.exec {
            Exec::Mapped { .. } => drop((config, read)),
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.attach_wasm(*config, read),
        }
    }

    /// For lazily loaded code that compiled functions since it was loaded:
    /// all it has compiled, as a partial Artifact to store. None otherwise.
    pub fn compiled_artifact(&self) -> Option<Artifact> {
        match &self.exec {
            Exec::Mapped { .. } => None,
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => (lazy.compiled_since_load_stats().0 > 0).then(|| lazy.compiled_artifact()).flatten(),
        }
    }

    /// Whether functions are compiled as they are first called.
    pub fn is_lazy(&self) -> bool {
        match &self.exec {
            Exec::Mapped { .. } => false,
            #[cfg(target_os = "linux")]
            Exec::Lazy(_) => true,
        }
    }

    /// How many defined functions have machine code: all of them, unless
    /// loaded lazily.
    pub fn compiled_functions(&self) -> u32 {
        match &self.exec {
            Exec::Mapped { .. } => self.num_defined_functions(),
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.compiled_count() as u32,
        }
    }

    /// For lazily loaded code: how many functions it compiled since it was
    /// loaded, and the real time that took. None for other code.
    pub fn lazy_compiles(&self) -> Option<(u32, std::time::Duration)> {
        match &self.exec {
            Exec::Mapped { .. } => None,
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => {
                let (count, time) = lazy.compiled_since_load_stats();
                Some((count as u32, time))
            }
        }
    }

    /// The code of function `func_index` for the `lazy_compile` libcall:
    /// compiled now if it was not yet.
    pub(crate) fn compile_lazily(&self, func_index: u32) -> Result<usize> {
        match &self.exec {
            Exec::Mapped { .. } => Ok(self.function_address(func_index)),
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.compile(func_index),
        }
    }

    /// What instantiation reuses (built once, on first use).
    pub(crate) fn prepared(&self) -> &Prepared {
        self.prepared.get_or_init(|| Prepared::build(self.info(), |index| self.function_address(index)))
    }

    /// The module's memory as instantiation leaves it, up to the end of its
    /// data segments (empty when the module has no memory image: imported
    /// memory, or segments placed by globals).
    pub fn initial_memory(&self) -> &[u8] {
        self.prepared().memory.as_ref().map_or(&[], |image| image.bytes())
    }

    /// The machine code as loaded (of lazily loaded code, the part loaded first).
    pub fn code_bytes(&self) -> &[u8] {
        match &self.exec {
            Exec::Mapped { map, .. } => map,
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => {
                let len = self.artifact.functions.last().map_or(0, |f| (f.offset + f.len) as usize);
                // SAFETY: the first region's prefix and thunks are mapped
                // readable for as long as the Lazy lives, and never written again.
                unsafe { std::slice::from_raw_parts(lazy.base() as *const u8, len) }
            }
        }
    }

    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }

    pub fn info(&self) -> &crate::module::ModuleInfo {
        &self.artifact.info
    }

    /// Functions the module defines (its imports not counted): the length
    /// of `Instance::functions_ran`.
    pub fn num_defined_functions(&self) -> u32 {
        let info = self.info();
        info.num_funcs() - info.num_imported_funcs
    }

    /// Whether the code was compiled with `CompileConfig::function_bitmap`
    /// (then `Instance::functions_ran` is Some).
    pub fn has_function_bitmap(&self) -> bool {
        self.artifact.function_bitmap
    }

    /// Whether the code was compiled with `CompileConfig::edge_bitmap`
    /// (then `Instance::edges_ran` is Some).
    pub fn has_edge_bitmap(&self) -> bool {
        self.artifact.edge_bitmap
    }

    /// The `name` section's name of defined function `defined_index` (the
    /// index into `Instance::functions_ran`); None when the section does not
    /// name it or there is no such function.
    pub fn function_name(&self, defined_index: u32) -> Option<&str> {
        let info = self.info();
        let index = info.num_imported_funcs.checked_add(defined_index)?;
        info.func_names.get(index as usize)?.as_deref()
    }

    pub fn base(&self) -> usize {
        match &self.exec {
            Exec::Mapped { map, .. } => map.as_ptr() as usize,
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.base(),
        }
    }

    /// Native address of wasm function `index`.
    pub fn function_address(&self, index: u32) -> usize {
        self.base() + self.artifact.functions[index as usize].offset as usize
    }

    /// Native address of the trampoline for signature `signature`.
    pub fn trampoline_address(&self, signature: u64) -> Option<usize> {
        let (_, offset) = self.artifact.trampolines.iter().find(|(s, _)| *s == signature)?;
        Some(self.base() + *offset as usize)
    }

    pub fn contains(&self, pc: usize) -> bool {
        match &self.exec {
            Exec::Mapped { map, .. } => pc >= self.base() && pc < self.base() + map.len(),
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.contains(pc),
        }
    }

    /// The function (imports counted) whose native code holds `pc`.
    pub fn function_at_pc(&self, pc: usize) -> Option<u32> {
        if !self.contains(pc) {
            return None;
        }
        match &self.exec {
            Exec::Mapped { .. } => self.artifact.function_at((pc - self.base()) as u32),
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.function_at(pc),
        }
    }

    /// Describe a hardware fault at `pc` (raised by `signal`) as a trap; `pc`
    /// must be in this module's code.
    pub fn trap_at_pc(&self, pc: usize, signal: i32) -> Trap {
        match &self.exec {
            Exec::Mapped { .. } => {
                TrapSite::in_artifact(&self.artifact, (pc - self.base()) as u32).trap(self.info(), signal)
            }
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => lazy.trap_at(pc, signal),
        }
    }

    /// A trap raised in explicit mode by function `func_index`.
    pub fn trap_in_function(&self, kind: TrapKind, func_index: u32) -> Trap {
        let valid = (func_index as usize) < self.artifact.functions.len();
        Trap {
            kind,
            func_index: valid.then_some(func_index),
            func_name: valid.then(|| self.info().func_name(func_index)),
            wasm_offset: None,
            detail: None,
        }
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        let owner = match &self.exec {
            Exec::Mapped { .. } => Arc::as_ptr(&self.artifact) as usize,
            #[cfg(target_os = "linux")]
            Exec::Lazy(lazy) => Arc::as_ptr(lazy) as usize,
        };
        lock_loaded().retain(|loaded| loaded.owner() != owner);
    }
}

/// Describe a hardware fault at `pc` in whichever loaded module's code
/// contains it; `None` if no loaded code does.
pub fn trap_at_any_pc(pc: usize, signal: i32) -> Option<Trap> {
    enum Found {
        Mapped(usize, Arc<Artifact>),
        #[cfg(target_os = "linux")]
        Lazy(Arc<Lazy>),
    }
    // Taken out of the list first: a `Lazy` takes the compile lock to look
    // into its regions, and no code holds the list and that lock at once.
    let found: Vec<Found> = lock_loaded()
        .iter()
        .filter_map(|loaded| match loaded {
            Loaded::Mapped { start, end, artifact } if (*start..*end).contains(&pc) => {
                Some(Found::Mapped(*start, artifact.upgrade()?))
            }
            Loaded::Mapped { .. } => None,
            #[cfg(target_os = "linux")]
            Loaded::Lazy(lazy) => Some(Found::Lazy(lazy.upgrade()?)),
        })
        .collect();
    found.into_iter().find_map(|found| match found {
        Found::Mapped(start, artifact) => {
            Some(TrapSite::in_artifact(&artifact, (pc - start) as u32).trap(&artifact.info, signal))
        }
        #[cfg(target_os = "linux")]
        Found::Lazy(lazy) => lazy.contains(pc).then(|| lazy.trap_at(pc, signal)),
    })
}
