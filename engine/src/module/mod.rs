//! `ModuleInfo`: everything the engine needs to know about a wasm module apart from
//! the function bodies' code. It is produced by `parse`, carried inside the
//! Artifact, and used both by the translator (types, globals, imports) and by
//! instantiation (memory, table, segments, exports).
//!
//! Only the LIME1 feature set exists here: one memory, at most one funcref table,
//! numeric value types. Anything else is rejected by `parse` before it reaches this.

mod parse;

pub use parse::{ParsedModule, parse};

/// Which global compiled code keeps in Cranelift's pinned register (r15)
/// instead of its vmctx slot, where the module allows it
/// (`ModuleInfo::pinned_global`, docs/pinned-global.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PinnedGlobal {
    /// Every global lives in its slot.
    None,
    /// Global 0: Go's stack pointer.
    First,
    /// The last global: the call counter the instrumentation pass appends.
    Last,
}

impl PinnedGlobal {
    pub fn name(self) -> &'static str {
        match self {
            PinnedGlobal::None => "none",
            PinnedGlobal::First => "first",
            PinnedGlobal::Last => "last",
        }
    }
}

/// A wasm numeric value type. Reference types are outside LIME1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValType {
    I32,
    I64,
    F32,
    F64,
}

impl ValType {
    pub fn code(self) -> u8 {
        match self {
            ValType::I32 => 0x7f,
            ValType::I64 => 0x7e,
            ValType::F32 => 0x7d,
            ValType::F64 => 0x7c,
        }
    }
    pub fn from_code(c: u8) -> Option<ValType> {
        Some(match c {
            0x7f => ValType::I32,
            0x7e => ValType::I64,
            0x7d => ValType::F32,
            0x7c => ValType::F64,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FuncType {
    pub params: Vec<ValType>,
    pub results: Vec<ValType>,
}

impl FuncType {
    /// The id that `call_indirect` compares. Structurally equal types get the same
    /// id in every module and every process, so tables can be shared between
    /// instances and compiled code needs no per-process type registry. Zero is
    /// reserved for "null entry".
    pub fn signature_id(&self) -> u64 {
        // FNV-1a over the canonical encoding; collisions need 2^32 distinct types.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u8| {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        for p in &self.params {
            eat(p.code());
        }
        eat(0x60);
        for r in &self.results {
            eat(r.code());
        }
        h | 1
    }
}

/// A constant expression (global initialisers, segment offsets), with the
/// extended-const arithmetic.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstOp {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    GlobalGet(u32),
    I32Add,
    I32Sub,
    I32Mul,
    I64Add,
    I64Sub,
    I64Mul,
}

/// Most are a single constant (Go has 100,000 data segments, each at an
/// `i32.const` offset), which is kept without a heap allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstExpr {
    Single(ConstOp),
    Sequence(Vec<ConstOp>),
}

impl ConstExpr {
    pub fn new(mut ops: Vec<ConstOp>) -> ConstExpr {
        if ops.len() == 1 { ConstExpr::Single(ops.pop().expect("one op")) } else { ConstExpr::Sequence(ops) }
    }

    pub fn ops(&self) -> &[ConstOp] {
        match self {
            ConstExpr::Single(op) => std::slice::from_ref(op),
            ConstExpr::Sequence(ops) => ops,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ImportKind {
    Func { type_index: u32 },
    Memory(MemoryDecl),
    Table(TableDecl),
    Global(GlobalType),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub module: String,
    pub name: String,
    pub kind: ImportKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryDecl {
    pub min_pages: u64,
    pub max_pages: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDecl {
    pub min: u64,
    pub max: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalType {
    pub ty: ValType,
    pub mutable: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GlobalDecl {
    pub ty: GlobalType,
    /// `None` for an imported global.
    pub init: Option<ConstExpr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    Func,
    Memory,
    Table,
    Global,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub name: String,
    pub kind: ExportKind,
    pub index: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ElemSegment {
    /// `Some` for an active segment (table 0); passive and declared segments are
    /// only validated, LIME1 has no instruction that uses them.
    pub offset: Option<ConstExpr>,
    /// Function indices; `None` is a null entry.
    pub funcs: Vec<Option<u32>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DataSegment {
    pub offset: Option<ConstExpr>,
    pub bytes: crate::blob::Blob,
}

/// The module minus the function bodies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModuleInfo {
    pub types: Vec<FuncType>,
    /// Type index of every function, imported ones first.
    pub func_types: Vec<u32>,
    pub imports: Vec<Import>,
    pub num_imported_funcs: u32,
    pub memory: Option<MemoryDecl>,
    pub memory_imported: bool,
    pub table: Option<TableDecl>,
    pub table_imported: bool,
    /// All globals, imported ones first (they have `init: None`).
    pub globals: Vec<GlobalDecl>,
    pub exports: Vec<Export>,
    pub start: Option<u32>,
    pub elements: Vec<ElemSegment>,
    pub data: Vec<DataSegment>,
    /// Function names from the `name` section, indexed by function index.
    pub func_names: Vec<Option<String>>,
}

impl ModuleInfo {
    pub fn func_type(&self, func_index: u32) -> &FuncType {
        &self.types[self.func_types[func_index as usize] as usize]
    }

    pub fn num_funcs(&self) -> u32 {
        self.func_types.len() as u32
    }

    pub fn num_imported_globals(&self) -> u32 {
        self.globals.iter().filter(|g| g.init.is_none()).count() as u32
    }

    pub fn is_imported_func(&self, func_index: u32) -> bool {
        func_index < self.num_imported_funcs
    }

    /// A human name for a function: the `name` section's, else `func[N]`.
    pub fn func_name(&self, func_index: u32) -> String {
        match self.func_names.get(func_index as usize) {
            Some(Some(name)) => name.clone(),
            _ => format!("func[{func_index}]"),
        }
    }

    pub fn export(&self, name: &str) -> Option<&Export> {
        self.exports.iter().find(|e| e.name == name)
    }

    /// The global compiled code keeps in Cranelift's pinned register rather
    /// than in its vmctx slot (docs/pinned-global.md): the one `which` names,
    /// when it is a defined mutable i32 or i64 no other module can reach (not
    /// exported, and the table neither imported nor exported, so no foreign
    /// code ever runs while this instance's value is in the register).
    pub fn pinned_global(&self, which: PinnedGlobal) -> Option<u32> {
        let index = match which {
            PinnedGlobal::None => return None,
            PinnedGlobal::First => 0,
            PinnedGlobal::Last => u32::try_from(self.globals.len()).ok()?.checked_sub(1)?,
        };
        let global = self.globals.get(index as usize)?;
        let defined = global.init.is_some() && global.ty.mutable && matches!(global.ty.ty, ValType::I32 | ValType::I64);
        let exported = |kind: ExportKind, index: u32| self.exports.iter().any(|e| e.kind == kind && e.index == index);
        let table_shared = self.table_imported || (self.table.is_some() && exported(ExportKind::Table, 0));
        (defined && !exported(ExportKind::Global, index) && !table_shared).then_some(index)
    }
}
