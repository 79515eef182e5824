//! Artifact ⇄ bytes. A plain length-prefixed little-endian format, written and
//! read field by field so a change of layout is a visible change of
//! `FORMAT_VERSION`. Decoding never trusts a length: truncated or corrupt input
//! is an `Error::Artifact`, never a panic or a huge allocation.

use super::*;
use crate::error::{Error, Result};
use crate::module::*;
use std::ops::Range;
use std::sync::Arc;

/// Bump on any change to the encoding or to what compiled code expects.
pub const FORMAT_VERSION: u32 = 10;
/// The code's alignment in an encoding made by `encode_at`: the page size.
pub const CODE_ALIGNMENT: usize = 4096;
const MAGIC: &[u8; 8] = b"SEEDFALL";

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.0.extend_from_slice(v);
    }
    fn str(&mut self, v: &str) {
        self.bytes(v.as_bytes());
    }
    fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
            None => self.u8(0),
        }
    }
    fn val_types(&mut self, v: &[ValType]) {
        self.u32(v.len() as u32);
        for t in v {
            self.u8(t.code());
        }
    }
    fn const_expr(&mut self, e: &ConstExpr) {
        self.u32(e.ops().len() as u32);
        for op in e.ops() {
            match op {
                ConstOp::I32(v) => {
                    self.u8(0);
                    self.u32(*v as u32);
                }
                ConstOp::I64(v) => {
                    self.u8(1);
                    self.u64(*v as u64);
                }
                ConstOp::F32(v) => {
                    self.u8(2);
                    self.u32(*v);
                }
                ConstOp::F64(v) => {
                    self.u8(3);
                    self.u64(*v);
                }
                ConstOp::GlobalGet(i) => {
                    self.u8(4);
                    self.u32(*i);
                }
                ConstOp::I32Add => self.u8(5),
                ConstOp::I32Sub => self.u8(6),
                ConstOp::I32Mul => self.u8(7),
                ConstOp::I64Add => self.u8(8),
                ConstOp::I64Sub => self.u8(9),
                ConstOp::I64Mul => self.u8(10),
            }
        }
    }
    fn opt_const_expr(&mut self, e: &Option<ConstExpr>) {
        match e {
            Some(e) => {
                self.u8(1);
                self.const_expr(e);
            }
            None => self.u8(0),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// When `bytes` lies in a mapping: the mapping and where `bytes` starts in
    /// it, so blobs can borrow instead of copy.
    mapped: Option<(&'a Arc<memmap2::Mmap>, usize)>,
}

impl<'a> Reader<'a> {
    /// `n` bytes as a blob: a range of the mapping, or a copy.
    fn blob(&mut self, n: usize) -> Result<Blob> {
        let start = self.at;
        let bytes = self.take(n)?;
        Ok(match self.mapped {
            Some((map, base)) => Blob::mapped(map.clone(), base + start..base + start + n),
            None => Blob::owned(bytes.to_vec()),
        })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or_else(|| Error::Artifact(format!("truncated at byte {}", self.at)))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn len(&mut self) -> Result<usize> {
        let n = self.u64()?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(Error::Artifact(format!("length {n} runs past the end at byte {}", self.at)));
        }
        Ok(n as usize)
    }
    /// A count of items each at least `min_size` bytes long.
    fn count(&mut self, min_size: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.bytes.len() - self.at {
            return Err(Error::Artifact(format!("count {n} runs past the end at byte {}", self.at)));
        }
        Ok(n)
    }
    fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }
    fn str(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?).map_err(|_| Error::Artifact("invalid UTF-8 string".into()))
    }
    fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::Artifact(format!("bad flag byte {b}"))),
        }
    }
    fn opt_u64(&mut self) -> Result<Option<u64>> {
        Ok(if self.bool()? { Some(self.u64()?) } else { None })
    }
    fn val_type(&mut self) -> Result<ValType> {
        let c = self.u8()?;
        ValType::from_code(c).ok_or_else(|| Error::Artifact(format!("bad value type {c:#x}")))
    }
    fn val_types(&mut self) -> Result<Vec<ValType>> {
        let n = self.count(1)?;
        (0..n).map(|_| self.val_type()).collect()
    }
    fn const_op(&mut self) -> Result<ConstOp> {
        Ok(match self.u8()? {
            0 => ConstOp::I32(self.u32()? as i32),
            1 => ConstOp::I64(self.u64()? as i64),
            2 => ConstOp::F32(self.u32()?),
            3 => ConstOp::F64(self.u64()?),
            4 => ConstOp::GlobalGet(self.u32()?),
            5 => ConstOp::I32Add,
            6 => ConstOp::I32Sub,
            7 => ConstOp::I32Mul,
            8 => ConstOp::I64Add,
            9 => ConstOp::I64Sub,
            10 => ConstOp::I64Mul,
            b => return Err(Error::Artifact(format!("bad constant op {b}"))),
        })
    }
    fn const_expr(&mut self) -> Result<ConstExpr> {
        match self.count(1)? {
            1 => Ok(ConstExpr::Single(self.const_op()?)),
            n => Ok(ConstExpr::Sequence((0..n).map(|_| self.const_op()).collect::<Result<_>>()?)),
        }
    }
    fn opt_const_expr(&mut self) -> Result<Option<ConstExpr>> {
        Ok(if self.bool()? { Some(self.const_expr()?) } else { None })
    }
    fn global_type(&mut self) -> Result<GlobalType> {
        Ok(GlobalType { ty: self.val_type()?, mutable: self.bool()? })
    }
}

fn write_info(w: &mut Writer, info: &ModuleInfo) {
    w.u32(info.types.len() as u32);
    for t in &info.types {
        w.val_types(&t.params);
        w.val_types(&t.results);
    }
    w.u32(info.func_types.len() as u32);
    for t in &info.func_types {
        w.u32(*t);
    }
    w.u32(info.imports.len() as u32);
    for i in &info.imports {
        w.str(&i.module);
        w.str(&i.name);
        match &i.kind {
            ImportKind::Func { type_index } => {
                w.u8(0);
                w.u32(*type_index);
            }
            ImportKind::Memory(m) => {
                w.u8(1);
                w.u64(m.min_pages);
                w.opt_u64(m.max_pages);
            }
            ImportKind::Table(t) => {
                w.u8(2);
                w.u64(t.min);
                w.opt_u64(t.max);
            }
            ImportKind::Global(g) => {
                w.u8(3);
                w.u8(g.ty.code());
                w.u8(g.mutable as u8);
            }
        }
    }
    w.u32(info.num_imported_funcs);
    match info.memory {
        Some(m) => {
            w.u8(1);
            w.u64(m.min_pages);
            w.opt_u64(m.max_pages);
        }
        None => w.u8(0),
    }
    w.u8(info.memory_imported as u8);
    match info.table {
        Some(t) => {
            w.u8(1);
            w.u64(t.min);
            w.opt_u64(t.max);
        }
        None => w.u8(0),
    }
    w.u8(info.table_imported as u8);
    w.u32(info.globals.len() as u32);
    for g in &info.globals {
        w.u8(g.ty.ty.code());
        w.u8(g.ty.mutable as u8);
        w.opt_const_expr(&g.init);
    }
    w.u32(info.exports.len() as u32);
    for e in &info.exports {
        w.str(&e.name);
        w.u8(e.kind as u8);
        w.u32(e.index);
    }
    w.opt_u64(info.start.map(u64::from));
    w.u32(info.elements.len() as u32);
    for e in &info.elements {
        w.opt_const_expr(&e.offset);
        w.u32(e.funcs.len() as u32);
        for f in &e.funcs {
            w.opt_u64(f.map(u64::from));
        }
    }
    // Every segment's header, then every segment's bytes: a Go binary has
    // about 100 k segments, and headers scattered through megabytes of data
    // cost a cache miss each to decode.
    w.u32(info.data.len() as u32);
    for d in &info.data {
        w.opt_const_expr(&d.offset);
        w.u64(d.bytes.len() as u64);
    }
    for d in &info.data {
        w.0.extend_from_slice(&d.bytes);
    }
    w.u32(info.func_names.len() as u32);
    for n in &info.func_names {
        match n {
            Some(n) => {
                w.u8(1);
                w.str(n);
            }
            None => w.u8(0),
        }
    }
}

fn read_limits(r: &mut Reader<'_>) -> Result<(u64, Option<u64>)> {
    Ok((r.u64()?, r.opt_u64()?))
}

fn small_index(v: Option<u64>) -> Result<Option<u32>> {
    v.map(|v| u32::try_from(v).map_err(|_| Error::Artifact(format!("index {v} too large")))).transpose()
}

fn read_info(r: &mut Reader<'_>) -> Result<ModuleInfo> {
    let mut info = ModuleInfo::default();
    for _ in 0..r.count(8)? {
        info.types.push(FuncType { params: r.val_types()?, results: r.val_types()? });
    }
    for _ in 0..r.count(4)? {
        info.func_types.push(r.u32()?);
    }
    for _ in 0..r.count(17)? {
        let module = r.str()?;
        let name = r.str()?;
        let kind = match r.u8()? {
            0 => ImportKind::Func { type_index: r.u32()? },
            1 => {
                let (min_pages, max_pages) = read_limits(r)?;
                ImportKind::Memory(MemoryDecl { min_pages, max_pages })
            }
            2 => {
                let (min, max) = read_limits(r)?;
                ImportKind::Table(TableDecl { min, max })
            }
            3 => ImportKind::Global(r.global_type()?),
            b => return Err(Error::Artifact(format!("bad import kind {b}"))),
        };
        info.imports.push(Import { module, name, kind });
    }
    info.num_imported_funcs = r.u32()?;
    if r.bool()? {
        let (min_pages, max_pages) = read_limits(r)?;
        info.memory = Some(MemoryDecl { min_pages, max_pages });
    }
    info.memory_imported = r.bool()?;
    if r.bool()? {
        let (min, max) = read_limits(r)?;
        info.table = Some(TableDecl { min, max });
    }
    info.table_imported = r.bool()?;
    for _ in 0..r.count(3)? {
        let ty = r.global_type()?;
        info.globals.push(GlobalDecl { ty, init: r.opt_const_expr()? });
    }
    for _ in 0..r.count(13)? {
        let name = r.str()?;
        let kind = match r.u8()? {
            0 => ExportKind::Func,
            1 => ExportKind::Memory,
            2 => ExportKind::Table,
            3 => ExportKind::Global,
            b => return Err(Error::Artifact(format!("bad export kind {b}"))),
        };
        info.exports.push(Export { name, kind, index: r.u32()? });
    }
    info.start = small_index(r.opt_u64()?)?;
    for _ in 0..r.count(5)? {
        let offset = r.opt_const_expr()?;
        let mut funcs = Vec::new();
        for _ in 0..r.count(1)? {
            funcs.push(small_index(r.opt_u64()?)?);
        }
        info.elements.push(ElemSegment { offset, funcs });
    }
    let n = r.count(9)?;
    info.data.reserve_exact(n);
    let mut lens = Vec::with_capacity(n);
    for _ in 0..n {
        info.data.push(DataSegment { offset: r.opt_const_expr()?, bytes: Blob::default() });
        lens.push(r.len()?);
    }
    for (segment, len) in info.data.iter_mut().zip(lens) {
        segment.bytes = r.blob(len)?;
    }
    for _ in 0..r.count(1)? {
        info.func_names.push(if r.bool()? { Some(r.str()?) } else { None });
    }
    if info.func_names.len() != info.func_types.len() {
        return Err(Error::Artifact("function name table does not match the function count".into()));
    }
    Ok(info)
}

impl Artifact {
    /// Serialize to bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_at(0)
    }

    /// Serialize so that the code starts `CODE_ALIGNMENT`-aligned counting
    /// `prefix_len` bytes written before the result (a cache entry's header):
    /// a file holding `prefix ‖ result` can have its code mapped executable
    /// in place. The code is last, after everything `decode_split` reads.
    pub fn encode_at(&self, prefix_len: usize) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(self.code.len() + CODE_ALIGNMENT + 1024));
        w.0.extend_from_slice(MAGIC);
        w.u32(FORMAT_VERSION);
        w.u8(match self.trap_mode {
            TrapMode::Signals => 0,
            TrapMode::Explicit => 1,
        });
        w.str(self.baseline.name());
        w.str(&self.target);
        write_info(&mut w, &self.info);
        w.opt_u64(self.counter_global.map(u64::from));
        w.u8(self.function_bitmap as u8);
        w.u8(self.edge_bitmap as u8);
        w.u8(self.partial as u8);
        w.u64(self.code.len() as u64);
        w.u32(self.functions.len() as u32);
        for f in &self.functions {
            w.u32(f.offset);
            w.u32(f.len);
        }
        w.u32(self.trampolines.len() as u32);
        for (sig, offset) in &self.trampolines {
            w.u64(*sig);
            w.u32(*offset);
        }
        w.u32((self.relocations.len() / RELOC_RECORD) as u32);
        w.0.extend_from_slice(&self.relocations);
        w.u32(self.trap_count() as u32);
        w.0.extend_from_slice(&self.traps[..self.trap_count() * TRAP_RECORD]);
        let padding = (CODE_ALIGNMENT - (prefix_len + w.0.len() + 4) % CODE_ALIGNMENT) % CODE_ALIGNMENT;
        w.u32(padding as u32);
        w.0.resize(w.0.len() + padding, 0);
        w.0.extend_from_slice(&self.code);
        w.0
    }

    /// Deserialize bytes written by `encode`, checking every length and that
    /// every code offset lies inside the code.
    pub fn decode(bytes: &[u8]) -> Result<Artifact> {
        let (mut artifact, code) = Artifact::decode_split(bytes)?;
        artifact.code = bytes[code].to_vec();
        Ok(artifact)
    }

    /// Deserialize everything but the code, and return where the code lies in
    /// `bytes` (so it can be mapped rather than copied). `code` is left empty.
    pub fn decode_split(bytes: &[u8]) -> Result<(Artifact, Range<usize>)> {
        Artifact::read(Reader { bytes, at: 0, mapped: None })
    }

    /// Like `decode_split` for an encoding at `payload` in a read-only mapping
    /// of a file that is never modified: the large tables borrow from the
    /// mapping instead of being copied. The code range is relative to `payload`.
    pub fn decode_mapped(map: &Arc<memmap2::Mmap>, payload: Range<usize>) -> Result<(Artifact, Range<usize>)> {
        let bytes = map.get(payload.clone()).ok_or_else(|| Error::Artifact("payload outside the mapping".into()))?;
        Artifact::read(Reader { bytes, at: 0, mapped: Some((map, payload.start)) })
    }

    fn read(mut r: Reader<'_>) -> Result<(Artifact, Range<usize>)> {
        let bytes = r.bytes;
        if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
            return Err(Error::Artifact("not a seedfall artifact (bad magic)".into()));
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(Error::Artifact(format!("format version {version}, this build reads {FORMAT_VERSION}")));
        }
        let trap_mode = match r.u8()? {
            0 => TrapMode::Signals,
            1 => TrapMode::Explicit,
            b => return Err(Error::Artifact(format!("bad trap mode {b}"))),
        };
        let baseline = IsaBaseline::from_name(&r.str()?).map_err(|e| Error::Artifact(e.to_string()))?;
        let target = r.str()?;
        let info = read_info(&mut r)?;
        let counter_global = small_index(r.opt_u64()?)?;
        if counter_global.is_some_and(|g| g as usize >= info.globals.len()) {
            return Err(Error::Artifact("counter global outside the module's globals".into()));
        }
        let function_bitmap = r.bool()?;
        let edge_bitmap = r.bool()?;
        if edge_bitmap && !function_bitmap {
            return Err(Error::Artifact("an edge map without a function bitmap".into()));
        }
        let partial = r.bool()?;
        let code_len = r.u64()?;
        let in_code = |offset: u32, len: u64| offset as u64 + len <= code_len;
        let mut functions = Vec::new();
        for _ in 0..r.count(8)? {
            let f = FuncLayout { offset: r.u32()?, len: r.u32()? };
            if !in_code(f.offset, f.len as u64) {
                return Err(Error::Artifact("function outside the code".into()));
            }
            functions.push(f);
        }
        if functions.len() != info.func_types.len() {
            return Err(Error::Artifact("function table does not match the module".into()));
        }
        let mut trampolines = Vec::new();
        for _ in 0..r.count(12)? {
            let t = (r.u64()?, r.u32()?);
            if !in_code(t.1, 1) {
                return Err(Error::Artifact("trampoline outside the code".into()));
            }
            trampolines.push(t);
        }
        // Checked where they are applied (`apply_relocations`), which a load
        // of the mapped, already linked code never needs.
        let n = r.count(RELOC_RECORD)?;
        let relocations = r.blob(n * RELOC_RECORD)?;
        // The largest table (near a million records in a Go binary) is kept
        // as it is encoded and searched in place.
        let n = r.count(TRAP_RECORD)?;
        let traps = r.blob(n * TRAP_RECORD)?;
        let padding = r.u32()? as usize;
        r.take(padding)?;
        let code_start = r.at;
        r.take(usize::try_from(code_len).map_err(|_| Error::Artifact("code length too large".into()))?)?;
        if r.at != bytes.len() {
            return Err(Error::Artifact(format!("{} trailing bytes", bytes.len() - r.at)));
        }
        let code = Vec::new();
        let artifact = Artifact {
            info,
            trap_mode,
            baseline,
            target,
            code,
            functions,
            trampolines,
            relocations,
            traps,
            counter_global,
            function_bitmap,
            edge_bitmap,
            partial,
        };
        Ok((artifact, code_start..r.at))
    }
}
