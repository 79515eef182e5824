//! Go's own symbol table, read from a Go wasip1 module's memory image: the
//! `runtime.pclntab` the linker puts in the data (found by its header), which
//! names every Go function and maps a code position to its source file and
//! line, as Go's tracebacks do. A wasm function of a Go module is defined
//! function `d` (imports not counted, so the same before and after
//! instrumentation); Go calls its code positions PCs, `PC_F << 16 | PC_B`
//! with `PC_F = 0x1000 + d` and `PC_B` a resume point of the function.
//!
//! Presentation only: it reads bytes and never touches a run. What it does
//! not do: inlined frames (a position inside inlined code gets the inlined
//! code's file and line under the outer function's name), funcdata (the
//! inline tree, stack maps), and Go releases before 1.20 (another header).

use std::fmt;
use std::sync::{Arc, OnceLock};

/// `pcHeader.magic` of Go 1.20 and later, then pad1, pad2, minLC (1 on
/// wasm) and ptrSize (8).
const HEADER: [u8; 8] = [0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8];
/// `pcHeader`'s size on a 64-bit target.
const HEADER_SIZE: usize = 72;
/// The first function's `PC_F` (Go's linker's `funcValueOffset`).
const FUNC_VALUE_OFFSET: u64 = 0x1000;

/// A Go module's function names and source positions.
#[derive(Clone, Debug)]
pub struct GoSymbols {
    /// The memory image from the `pcHeader` on.
    table: Vec<u8>,
    nfunc: usize,
    /// Offsets into `table` of `funcnametab`, `cutab`, `filetab`, `pctab`
    /// and the function table (`functab` then the `_func` records).
    names: usize,
    cus: usize,
    files: usize,
    pcvalues: usize,
    functab: usize,
}

/// A source position: the Go function and where in its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// As Go prints it: `main.(*Bank).Transfer`.
    pub function: &'a str,
    /// As the binary records it: an absolute path, or with `-trimpath` the
    /// package's import path and the file's name.
    pub file: &'a str,
    pub line: u32,
}

impl Location<'_> {
    /// The file's last path element.
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(self.file)
    }
}

/// `main.(*Bank).Transfer, bank.go:42`.
impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}:{}", self.function, self.file_name(), self.line)
    }
}

/// The PC of resume point `block` of defined function `defined`.
pub fn pc(defined: u32, block: u16) -> u64 {
    (FUNC_VALUE_OFFSET + u64::from(defined)) << 16 | u64::from(block)
}

impl GoSymbols {
    /// The table in `memory` (a module's initial memory, or a live one),
    /// if it holds a Go 1.20+ wasm pclntab; None for other modules.
    pub fn from_memory(memory: &[u8]) -> Option<GoSymbols> {
        let mut from = 0;
        while let Some(found) = memory[from..].windows(HEADER.len()).position(|w| w == HEADER) {
            let at = from + found;
            if let Some(symbols) = GoSymbols::at(&memory[at..]) {
                return Some(symbols);
            }
            from = at + 1;
        }
        None
    }

    /// The table if `bytes` starts with a well-formed header, cut where its
    /// last function record ends.
    fn at(bytes: &[u8]) -> Option<GoSymbols> {
        let word = |i: usize| -> Option<usize> {
            let b = bytes.get(8 + 8 * i..16 + 8 * i)?;
            usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()
        };
        // nfunc, nfiles, (unused), funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset.
        let (nfunc, names, cus, files, pcvalues, functab) =
            (word(0)?, word(3)?, word(4)?, word(5)?, word(6)?, word(7)?);
        let ordered = HEADER_SIZE <= names && names <= cus && cus <= files && files <= pcvalues && pcvalues <= functab;
        // Each function has an 8-byte table entry, so a count past that is not a header.
        if nfunc == 0 || nfunc > bytes.len() / 8 || !ordered {
            return None;
        }
        // Entries ascend from the first function's PC_F: anything else is not a pclntab.
        let entries: Vec<u32> = (0..=nfunc).map(|i| le_u32(bytes, functab + 8 * i)).collect::<Option<_>>()?;
        if !entries.windows(2).all(|w| w[0] <= w[1]) || u64::from(entries[0]) < FUNC_VALUE_OFFSET {
            return None;
        }
        // A `_func` record is 44 bytes, then its pcdata and funcdata offsets (4 bytes each).
        let mut end = functab + 8 * (nfunc + 1);
        for i in 0..nfunc {
            let record = functab.checked_add(le_u32(bytes, functab + 8 * i + 4)? as usize)?;
            let npcdata = le_u32(bytes, record + 28)? as usize;
            let nfuncdata = usize::from(*bytes.get(record + 43)?);
            end = end.max(record.checked_add(44 + 4 * (npcdata + nfuncdata))?);
        }
        let table = bytes.get(..end)?.to_vec();
        Some(GoSymbols { table, nfunc, names, cus, files, pcvalues, functab })
    }

    /// Go's name of defined function `defined` (None: not a Go function).
    pub fn function_name(&self, defined: u32) -> Option<&str> {
        let record = self.record(FUNC_VALUE_OFFSET + u64::from(defined))?;
        self.name(record)
    }

    /// Where `pc` is: its function, file and line (None: not in Go code).
    /// For a return address (a caller's frame) pass `pc - 1`, as Go's
    /// tracebacks do, to get the line of the call.
    pub fn location(&self, pc: u64) -> Option<Location<'_>> {
        let record = self.record(pc >> 16)?;
        let entry = pc & !0xffff;
        let function = self.name(record)?;
        let file_number = self.pcvalue(self.u32(record + 20)?, entry, pc)?;
        let line = self.pcvalue(self.u32(record + 24)?, entry, pc)?;
        let cu = self.u32(record + 32)? as usize;
        let slot = cu.checked_add(usize::try_from(file_number).ok()?)?;
        let file_offset = self.u32(self.cus.checked_add(4 * slot)?)?;
        if file_offset == u32::MAX {
            return None;
        }
        let file = self.string(self.files.checked_add(file_offset as usize)?)?;
        Some(Location { function, file, line: u32::try_from(line).ok()? })
    }

    /// Where defined function `defined` begins.
    pub fn function_location(&self, defined: u32) -> Option<Location<'_>> {
        self.location(pc(defined, 0))
    }

    /// `functab[i].entryoff`: on wasm, the function's PC_F.
    fn entry(&self, i: usize) -> Option<u32> {
        self.u32(self.functab + 8 * i)
    }

    /// The offset in `table` of the `_func` record of the function whose
    /// PC_F is `pc_f`.
    fn record(&self, pc_f: u64) -> Option<usize> {
        let pc_f = u32::try_from(pc_f).ok()?;
        // The last entry is the end marker, not a function.
        let (mut low, mut high) = (0, self.nfunc);
        while low < high {
            let mid = (low + high) / 2;
            match self.entry(mid)?.cmp(&pc_f) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let funcoff = self.u32(self.functab + 8 * mid + 4)? as usize;
                    return self.functab.checked_add(funcoff);
                }
            }
        }
        None
    }

    fn name(&self, record: usize) -> Option<&str> {
        let offset = usize::try_from(self.u32(record + 4)? as i32).ok()?;
        self.string(self.names.checked_add(offset)?)
    }

    /// The value a pc-value table (at `offset` into `pctab`) gives `target`
    /// in a function entered at `entry`: pairs of a zig-zag value delta and a
    /// PC delta, from the value -1; a zero value delta after the first ends it.
    fn pcvalue(&self, offset: u32, entry: u64, target: u64) -> Option<i32> {
        if offset == 0 {
            return None;
        }
        let mut at = self.pcvalues.checked_add(offset as usize)?;
        let (mut value, mut pc) = (-1i32, entry);
        let mut first = true;
        loop {
            let delta = self.varint(&mut at)?;
            if delta == 0 && !first {
                return None;
            }
            let half = (delta >> 1) as i32;
            value = value.wrapping_add(if delta & 1 != 0 { !half } else { half });
            pc = pc.checked_add(u64::from(self.varint(&mut at)?))?;
            first = false;
            if target < pc {
                return Some(value);
            }
        }
    }

    fn varint(&self, at: &mut usize) -> Option<u32> {
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let byte = *self.table.get(*at)?;
            *at += 1;
            value |= u32::from(byte & 0x7f).checked_shl(shift)?;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    fn string(&self, at: usize) -> Option<&str> {
        let rest = self.table.get(at..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    }

    fn u32(&self, at: usize) -> Option<u32> {
        le_u32(&self.table, at)
    }
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// A module's symbols, read from its memory image on first use and shared
/// by every clone (a module is loaded once and booted many times).
#[derive(Clone, Default)]
pub struct SharedSymbols(Arc<OnceLock<Option<GoSymbols>>>);

impl SharedSymbols {
    /// The symbols of `code`, which must be the module these were made for.
    pub fn of(&self, code: &seedfall_engine::Code) -> Option<&GoSymbols> {
        self.0.get_or_init(|| GoSymbols::from_memory(code.initial_memory())).as_ref()
    }
}

impl fmt::Debug for SharedSymbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() { "SharedSymbols(read)" } else { "SharedSymbols(unread)" })
    }
}
