//! The Artifact: a compiled module as relocatable machine code plus everything
//! needed to load and instantiate it without the wasm bytes. It serializes to a
//! self-describing byte string (`encode`) that the cache stores.
//!
//! Code offsets are relative to the start of `code`. Functions are indexed by
//! wasm function index (imports have stubs); trampolines by signature id.

mod encode;

pub use crate::blob::Blob;
pub use encode::{CODE_ALIGNMENT, FORMAT_VERSION};

use crate::compile::isa::{IsaBaseline, TrapMode};
use crate::module::ModuleInfo;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FuncLayout {
    pub offset: u32,
    pub len: u32,
}

/// The only relocations compiled code contains: a direct call between
/// functions, one kind per architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelocKind {
    /// x86-64 `call rel32`: write `target + addend - site` as i32 at `offset`.
    CallPcRel4,
    /// aarch64 `bl imm26`: `(target + addend - site) / 4` into the low 26
    /// bits of the instruction at `offset` (a reach of ±128 MiB).
    Arm64Call,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    pub offset: u32,
    pub kind: RelocKind,
    /// Wasm function index.
    pub target: u32,
    pub addend: i64,
}

/// Bytes of one relocation in `Artifact::relocations`: offset u32 LE, kind u8,
/// target u32 LE, addend i64 LE.
pub const RELOC_RECORD: usize = 17;

impl Relocation {
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.push(match self.kind {
            RelocKind::CallPcRel4 => 0,
            RelocKind::Arm64Call => 1,
        });
        out.extend_from_slice(&self.target.to_le_bytes());
        out.extend_from_slice(&self.addend.to_le_bytes());
    }

    /// The relocation in `record` (`RELOC_RECORD` bytes).
    pub fn read(record: &[u8; RELOC_RECORD]) -> crate::Result<Relocation> {
        let kind = match record[4] {
            0 => RelocKind::CallPcRel4,
            1 => RelocKind::Arm64Call,
            b => return Err(crate::Error::Artifact(format!("unknown relocation kind {b}"))),
        };
        Ok(Relocation {
            offset: u32_at(record, 0),
            kind,
            target: u32_at(record, 5),
            addend: i64::from_le_bytes(record[9..17].try_into().expect("8 bytes")),
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    pub info: ModuleInfo,
    pub trap_mode: TrapMode,
    pub baseline: IsaBaseline,
    /// The target triple the code was compiled for (`compile::target_triple`):
    /// loading it anywhere else is refused, whatever the baseline says.
    pub target: String,
    pub code: Vec<u8>,
    pub functions: Vec<FuncLayout>,
    /// (signature id, code offset), one per distinct function type.
    pub trampolines: Vec<(u64, u32)>,
    /// Every call between functions, `RELOC_RECORD` bytes each. The code is
    /// stored linked, so only a load that copies the code reads them: a cache
    /// hit decodes none (docs/trap-sites.md).
    pub relocations: Blob,
    /// Trap sites, `TRAP_RECORD` bytes each (code offset u32 LE, `TrapKind` u8,
    /// wasm byte offset of the instruction u32 LE), sorted by code offset.
    /// Only trap sites carry a wasm offset: a full source map was 15 MB of a
    /// 54 MB net/http entry, hashed on every hit (docs/trap-sites.md).
    pub traps: Blob,
    /// The global an instrumentation pass added before compiling (its call
    /// counter), set by the caller that ran the pass. The engine only stores
    /// it, so loading a stored Artifact tells the caller without re-deriving.
    pub counter_global: Option<u32>,
    /// Compiled with `CompileConfig::function_bitmap`: instances give the
    /// code its "ran" bitmap after the globals (`runtime::vmctx`).
    pub function_bitmap: bool,
    /// Compiled with `CompileConfig::edge_bitmap`: instances give the code
    /// its edge map after the "ran" bitmap (`runtime::vmctx`).
    pub edge_bitmap: bool,
    /// Only the functions that ran were compiled (`FuncLayout::len` 0 for the
    /// others, and no trampolines): what lazy compilation keeps, loaded
    /// lazily again (`runtime::lazy`).
    pub partial: bool,
}

pub const TRAP_RECORD: usize = 9;
/// A trap record's wasm offset when the site belongs to no wasm instruction
/// (the function's own stack check).
pub const NO_WASM_OFFSET: u32 = u32::MAX;

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl Artifact {
    /// The function containing code offset `offset`.
    pub fn function_at(&self, offset: u32) -> Option<u32> {
        let i = self.functions.partition_point(|f| f.offset <= offset).checked_sub(1)?;
        let f = self.functions[i];
        (offset < f.offset + f.len).then_some(i as u32)
    }

    pub fn trap_count(&self) -> usize {
        self.traps.len() / TRAP_RECORD
    }

    /// The trap site at code offset `offset`: its record's start in `traps`.
    fn trap_record(&self, offset: u32) -> Option<usize> {
        let key = |i: usize| u32_at(&self.traps, i * TRAP_RECORD);
        let i = partition_point(self.trap_count(), |i| key(i) < offset);
        (i < self.trap_count() && key(i) == offset).then_some(i * TRAP_RECORD)
    }

    /// The trap kind and wasm offset (`NO_WASM_OFFSET` for none) recorded
    /// for the instruction at `offset`.
    pub fn trap_record_at(&self, offset: u32) -> Option<(u8, u32)> {
        self.trap_record(offset).map(|at| (self.traps[at + 4], u32_at(&self.traps, at + 5)))
    }
}

/// Write each relocation's value into `code`. Every relocation is a call
/// between functions of the same code, relative to the call site, so the
/// result does not depend on where the code is loaded: the compiler links once
/// and the loader may re-apply (idempotent) or map the bytes as they are.
pub fn apply_relocations(code: &mut [u8], functions: &[FuncLayout], relocations: &[u8]) -> crate::Result<()> {
    if !relocations.len().is_multiple_of(RELOC_RECORD) {
        return Err(crate::Error::Artifact("relocation table cut short".into()));
    }
    for record in relocations.chunks_exact(RELOC_RECORD) {
        let reloc = Relocation::read(record.try_into().expect("a whole record"))?;
        let site = reloc.offset as usize;
        let target = functions
            .get(reloc.target as usize)
            .ok_or_else(|| crate::Error::Artifact(format!("relocation to missing function {}", reloc.target)))?
            .offset as i64;
        write_call(code, site, reloc.kind, target + reloc.addend - site as i64)?;
    }
    Ok(())
}

/// Write a call of kind `kind` at `site` in `code` that reaches `delta`
/// bytes from `site`.
pub fn write_call(code: &mut [u8], site: usize, kind: RelocKind, delta: i64) -> crate::Result<()> {
    let bytes = code
        .get_mut(site..site + 4)
        .ok_or_else(|| crate::Error::Artifact(format!("relocation at {site:#x} outside the code")))?;
    let out_of_range = || crate::Error::Artifact(format!("call at {site:#x} out of range of {kind:?}"));
    let word = match kind {
        RelocKind::CallPcRel4 => i32::try_from(delta).map_err(|_| out_of_range())? as u32,
        RelocKind::Arm64Call => {
            let words = delta / 4;
            if delta % 4 != 0 || !(-(1 << 25)..(1 << 25)).contains(&words) {
                return Err(out_of_range());
            }
            let insn = u32::from_le_bytes(bytes[..].try_into().expect("4 bytes"));
            (insn & 0xfc00_0000) | (words as u32 & 0x03ff_ffff)
        }
    };
    bytes.copy_from_slice(&word.to_le_bytes());
    Ok(())
}

/// The first index in `0..n` for which `before` is false (`before` must be
/// true for a prefix of the indices and false after it).
fn partition_point(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, n);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(offset: u32, target: u32) -> Vec<u8> {
        let mut out = Vec::new();
        Relocation { offset, kind: RelocKind::CallPcRel4, target, addend: -4 }.write(&mut out);
        out
    }

    fn apply(relocations: &[u8]) -> Result<Vec<u8>, String> {
        let functions = [FuncLayout { offset: 0, len: 16 }, FuncLayout { offset: 16, len: 16 }];
        let mut code = vec![0u8; 32];
        apply_relocations(&mut code, &functions, relocations).map(|()| code).map_err(|e| e.to_string())
    }

    #[test]
    fn a_relocation_record_links_its_call_and_a_bad_one_is_an_error() {
        let code = apply(&record(1, 1)).unwrap();
        assert_eq!(code[1..5], (16 - 4 - 1i32).to_le_bytes(), "target + addend - site");
        let mut unknown = record(1, 1);
        unknown[4] = 7;
        assert!(apply(&unknown).unwrap_err().contains("unknown relocation kind 7"));
        assert!(apply(&record(1, 1)[..16]).unwrap_err().contains("cut short"));
        assert!(apply(&record(1, 9)).unwrap_err().contains("missing function 9"));
        assert!(apply(&record(30, 1)).unwrap_err().contains("outside the code"));
    }
}
