//! The loader: an Artifact's code copied into fresh pages and relocated, or
//! mapped straight from a verified cache file, then made executable (W^X:
//! never writable and executable at once) and registered so the signal
//! handler recognises it. A `Code` is shared by every instance of the module.
//!
//! Also the lookup from a faulting address to the module whose code it is in
//! (`trap_at_any_pc`): a function reached through a shared table can belong to
//! another module than the instance whose call faulted.

use crate::artifact::{Artifact, apply_relocations};
use crate::error::{Error, Result};
use crate::runtime::image::Prepared;
use crate::runtime::registry::{self, Registration};
use crate::runtime::trap::{Trap, TrapKind};
use std::sync::{Arc, Mutex, OnceLock, Weak};

pub struct Code {
    artifact: Arc<Artifact>,
    exec: memmap2::Mmap,
    /// The memory image and table template, built at the first instantiation.
    prepared: OnceLock<Prepared>,
    _registration: Registration,
}

/// A loaded Code's range, for `trap_at_any_pc`. Unlike `registry`, this is
/// only read after a fault has been handled, never by the signal handler, so
/// it may lock and hold a reference.
pub(crate) struct Loaded {
    start: usize,
    end: usize,
    artifact: Weak<Artifact>,
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
        f.debug_struct("Code").field("base", &self.base()).field("len", &self.exec.len()).finish()
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
        if crate::runtime::perf_map::wanted() {
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

    fn register(artifact: Artifact, exec: memmap2::Mmap) -> Result<Code> {
        let (start, len) = (exec.as_ptr() as usize, exec.len());
        let registration = registry::register(start, start + len)
            .ok_or_else(|| Error::Os("too many modules loaded at once".into()))?;
        crate::runtime::perf_map::record(&artifact, start);
        let artifact = Arc::new(artifact);
        lock_loaded().push(Loaded { start, end: start + len, artifact: Arc::downgrade(&artifact) });
        Ok(Code { artifact, exec, prepared: OnceLock::new(), _registration: registration })
    }

    /// What instantiation reuses (built once, on first use).
    pub(crate) fn prepared(&self) -> &Prepared {
        self.prepared.get_or_init(|| Prepared::build(self))
    }

    /// The module's memory as instantiation leaves it, up to the end of its
    /// data segments (empty when the module has no memory image: imported
    /// memory, or segments placed by globals).
    pub fn initial_memory(&self) -> &[u8] {
        self.prepared().memory.as_ref().map_or(&[], |image| image.bytes())
    }

    /// The machine code as loaded.
    pub fn code_bytes(&self) -> &[u8] {
        &self.exec
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

    /// The `name` section's name of defined function `defined_index` (the
    /// index into `Instance::functions_ran`); None when the section does not
    /// name it or there is no such function.
    pub fn function_name(&self, defined_index: u32) -> Option<&str> {
        let info = self.info();
        let index = info.num_imported_funcs.checked_add(defined_index)?;
        info.func_names.get(index as usize)?.as_deref()
    }

    pub fn base(&self) -> usize {
        self.exec.as_ptr() as usize
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
        pc >= self.base() && pc < self.base() + self.exec.len()
    }

    /// Describe a hardware fault at `pc` (raised by `signal`) as a trap; `pc`
    /// must be in this module's code.
    pub fn trap_at_pc(&self, pc: usize, signal: i32) -> Trap {
        fault_trap(&self.artifact, self.base(), pc, signal)
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
        let base = self.base();
        lock_loaded().retain(|l| l.start != base);
    }
}

/// Describe a hardware fault at `pc` in whichever loaded module's code
/// contains it; `None` if no loaded code does.
pub fn trap_at_any_pc(pc: usize, signal: i32) -> Option<Trap> {
    let (start, artifact) = {
        let loaded = lock_loaded();
        let entry = loaded.iter().find(|l| pc >= l.start && pc < l.end)?;
        (entry.start, entry.artifact.upgrade()?)
    };
    Some(fault_trap(&artifact, start, pc, signal))
}

/// A fault at `pc` in `artifact`'s code, loaded at `base`.
fn fault_trap(artifact: &Artifact, base: usize, pc: usize, signal: i32) -> Trap {
    let offset = (pc - base) as u32;
    let func_index = artifact.function_at(offset);
    let kind = match artifact.trap_at(offset).and_then(TrapKind::from_u8) {
        _ if signal == crate::runtime::fault::INTERRUPT => TrapKind::Interrupted,
        Some(kind) => kind,
        // A fault at an instruction that is not a recorded trap site: the
        // stack guard (a large frame's probe or a push) or a hardware
        // division fault; anything else would be an engine bug.
        None if signal == crate::runtime::fault::DIVIDE => TrapKind::IntegerDivideByZero,
        None => TrapKind::StackOverflow,
    };
    let detail =
        (kind == TrapKind::Interrupted).then(|| "no host call within the watchdog's limit of CPU time".to_string());
    Trap {
        kind,
        func_index,
        func_name: func_index.map(|i| artifact.info.func_name(i)),
        wasm_offset: artifact.wasm_offset_at(offset),
        detail,
    }
}
