//! The loader: an Artifact's code copied into fresh pages, relocated for its
//! real address, then made executable (W^X: never writable and executable at
//! once) and registered so the signal handler recognises it. A `Code` is
//! shared by every instance of the module.

use crate::artifact::{Artifact, RelocKind};
use crate::error::{Error, Result};
use crate::runtime::registry::{self, Registration};
use crate::runtime::trap::{Trap, TrapKind};

pub struct Code {
    artifact: Artifact,
    exec: memmap2::Mmap,
    _registration: Registration,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code").field("base", &self.base()).field("len", &self.exec.len()).finish()
    }
}

impl Code {
    /// Map, relocate and register the Artifact's code.
    pub fn load(artifact: Artifact) -> Result<Code> {
        if !artifact.baseline.runs_on_host() {
            return Err(Error::Artifact(format!("compiled for {}, which this CPU cannot run", artifact.baseline.name())));
        }
        let os = |what: &str, e: std::io::Error| Error::Os(format!("{what}: {e}"));
        let len = artifact.code.len().max(1);
        let mut writable = memmap2::MmapMut::map_anon(len).map_err(|e| os("mapping code", e))?;
        writable[..artifact.code.len()].copy_from_slice(&artifact.code);
        let base = writable.as_ptr() as i64;
        for reloc in &artifact.relocations {
            let site = reloc.offset as usize;
            let target = artifact.functions[reloc.target as usize].offset as i64;
            match reloc.kind {
                RelocKind::CallPcRel4 => {
                    let delta = target + reloc.addend - site as i64;
                    let delta = i32::try_from(delta)
                        .map_err(|_| Error::Artifact(format!("call at {site:#x} out of rel32 range")))?;
                    writable[site..site + 4].copy_from_slice(&delta.to_le_bytes());
                }
            }
        }
        let exec = writable.make_exec().map_err(|e| os("making code executable", e))?;
        let start = exec.as_ptr() as usize;
        debug_assert_eq!(start as i64, base);
        let registration = registry::register(start, start + len)
            .ok_or_else(|| Error::Os("too many modules loaded at once".into()))?;
        Ok(Code { artifact, exec, _registration: registration })
    }

    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }

    pub fn info(&self) -> &crate::module::ModuleInfo {
        &self.artifact.info
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

    /// Describe a hardware fault at `pc` (raised by `signal`) as a trap.
    pub fn trap_at_pc(&self, pc: usize, signal: i32) -> Trap {
        let offset = (pc - self.base()) as u32;
        let func_index = self.artifact.function_at(offset);
        let kind = match self.artifact.trap_at(offset).and_then(TrapKind::from_u8) {
            Some(kind) => kind,
            // A fault at an instruction that is not a recorded trap site: the
            // stack guard (a large frame's probe or a push) or a hardware
            // division fault; anything else would be an engine bug.
            None if signal == libc::SIGFPE => TrapKind::IntegerDivideByZero,
            None => TrapKind::StackOverflow,
        };
        Trap {
            kind,
            func_index,
            func_name: func_index.map(|i| self.info().func_name(i)),
            wasm_offset: self.artifact.wasm_offset_at(offset),
            detail: None,
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
