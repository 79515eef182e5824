//! Instrumentation pass: wasm → wasm with call (and optionally loop) counters.
//!
//! [`instrument`] adds to a core wasm module
//!
//! * one mutable `i64` global, the *counter*, appended after every existing global (so the indices
//!   Go's runtime hard-codes, 0 = SP and 2 = g, do not move), initialised to 0;
//! * one imported function `(import "seedfall" "preempt" (func))`, placed **last among the function
//!   imports**: imported function indices below it stay put, and every defined function moves up by
//!   one (calls, `ref.func`, exports, the start function, element segments and the `name` section
//!   are renumbered);
//! * at the start of every defined function (before anything else, so before Go's `br_table` resume
//!   dispatch) and, with [`Config::loops`], as the first instructions inside every `loop`:
//!
//!   ```wat
//!   global.get $counter  i64.const 1  i64.sub  global.set $counter
//!   global.get $counter  i64.const 0  i64.le_s
//!   if  call $seedfall.preempt  end
//!   ```
//!
//! The hook has no parameters or results. The host decides what to do and re-arms the counter by
//! writing the global. Because the counter starts at 0, the first function entry calls the hook, so
//! a host can arm the first quantum there. See `docs/instrumentation.md`.
//!
//! The pass is linear: function bodies are decoded operator by operator with `wasmparser`, but only
//! the operators that change (`call`, `return_call`, `ref.func` to a defined function, and `loop`
//! heads) are re-encoded; every other byte range is copied verbatim. It does not validate: a
//! well-formed but invalid module gives an equally invalid output (function index `i` maps to `i` or
//! `i + 1`, and the inserted code is stack-neutral), which the engine's validation rejects.

use std::fmt;
use std::ops::Range;

use wasm_encoder::reencode::{self, Reencode};
use wasmparser::{
    CompositeInnerType, Encoding, FunctionBody, KnownCustom, Name, NameSectionReader, Parser,
    Payload, TypeRef,
};

/// Module name of the hook import.
pub const HOOK_MODULE: &str = "seedfall";
/// Field name of the hook import.
pub const HOOK_FIELD: &str = "preempt";
/// Name given to the hook in the `name` section's function names (when the module has them).
pub const HOOK_DEBUG_NAME: &str = "seedfall.preempt";
/// Name given to the counter in the `name` section's global names (when the module has them).
pub const COUNTER_DEBUG_NAME: &str = "seedfall.counter";
/// Version of the pass's output format. Part of [`config_bytes`]: bump it whenever the emitted code
/// changes, so cached compiled code of the old output is not reused.
pub const PASS_VERSION: u32 = 1;

/// What to instrument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// Also count at the head of every `loop` (first instructions inside the loop).
    pub loops: bool,
}

/// The result of [`instrument`].
#[derive(Clone, Debug)]
pub struct Instrumented {
    /// The instrumented module.
    pub wasm: Vec<u8>,
    /// Index of the counter global (mutable `i64`, initially 0) in the global index space.
    pub counter_global: u32,
    /// `(module, field)` of the hook import: `("seedfall", "preempt")`, type `[] -> []`.
    pub hook_import: (&'static str, &'static str),
    /// Index of the hook in the function index space (= number of function imports of the input).
    pub hook_function: u32,
    /// Number of function entries instrumented (= defined functions).
    pub entry_sites: u32,
    /// Number of loop heads instrumented (0 unless [`Config::loops`]).
    pub loop_sites: u32,
}

/// Why a module could not be instrumented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input is not a well-formed wasm binary (garbage, truncated, bad encoding). `offset` is
    /// the byte offset in the input where decoding failed.
    Malformed { offset: usize, message: String },
    /// Well-formed, but not something this pass handles (a component, for instance).
    Unsupported(String),
    /// The module already imports `seedfall.preempt`: it was instrumented before.
    AlreadyInstrumented,
    /// Adding the hook or the counter would overflow a 32-bit index space.
    IndexOverflow(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed { offset, message } => {
                write!(f, "malformed wasm at byte offset {offset:#x}: {message}")
            }
            Error::Unsupported(what) => write!(f, "cannot instrument: {what}"),
            Error::AlreadyInstrumented => write!(
                f,
                "module already imports {HOOK_MODULE}.{HOOK_FIELD}: it is already instrumented"
            ),
            Error::IndexOverflow(space) => {
                write!(
                    f,
                    "cannot instrument: the {space} index space would overflow"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        Error::Malformed {
            offset: e.offset() as usize,
            message: e.message().to_string(),
        }
    }
}

fn reencode_error(e: reencode::Error<Overflow>) -> Error {
    match e {
        reencode::Error::ParseError(e) => e.into(),
        reencode::Error::UserError(Overflow) => Error::IndexOverflow("function"),
        other => Error::Unsupported(other.to_string()),
    }
}

/// Stable bytes describing the pass and its configuration, for the compiled-code cache key.
/// Changes whenever the output for the same input would change ([`PASS_VERSION`], the config).
pub fn config_bytes(config: &Config) -> Vec<u8> {
    format!(
        "seedfall-instrument/v{PASS_VERSION};hook={HOOK_MODULE}.{HOOK_FIELD};loops={}",
        u8::from(config.loops)
    )
    .into_bytes()
}

// Section ids.
const TYPE: u8 = 1;
const IMPORT: u8 = 2;
const GLOBAL: u8 = 6;
const CODE: u8 = 10;

/// Position of a non-custom section in the required order (tag sits between memory and global,
/// data count between element and code). `None` for custom and unknown sections.
fn section_rank(id: u8) -> Option<u8> {
    Some(match id {
        1 => 1,   // type
        2 => 2,   // import
        3 => 3,   // function
        4 => 4,   // table
        5 => 5,   // memory
        13 => 6,  // tag
        6 => 7,   // global
        7 => 8,   // export
        8 => 9,   // start
        9 => 10,  // element
        12 => 11, // data count
        10 => 12, // code
        11 => 13, // data
        _ => return None,
    })
}

/// A section of the input, as far as the pass cares.
enum Section<'a> {
    /// Copied verbatim (id, content range).
    Raw(u8, Range<usize>),
    Type(Range<usize>),
    Import(Range<usize>),
    Table(wasmparser::TableSectionReader<'a>),
    Global(wasmparser::GlobalSectionReader<'a>),
    Export(wasmparser::ExportSectionReader<'a>),
    Start(u32),
    Element(wasmparser::ElementSectionReader<'a>),
    Code(Vec<FunctionBody<'a>>),
    Name(NameSectionReader<'a>),
}

/// Everything learnt from the input before writing the output.
struct Input<'a> {
    sections: Vec<Section<'a>>,
    /// Number of types (not rec groups) in the type section.
    types: u32,
    /// Index of an existing plain `[] -> []` function type, if any.
    empty_func_type: Option<u32>,
    func_imports: u32,
    global_imports: u32,
    defined_globals: u32,
    /// The name section has a label-names subsection (its label indices need renumbering).
    label_names: bool,
}

fn range(r: Range<u64>) -> Range<usize> {
    // The input is a slice, so every offset wasmparser reports fits in usize.
    r.start as usize..r.end as usize
}

fn parse(wasm: &[u8]) -> Result<Input<'_>, Error> {
    let mut input = Input {
        sections: Vec::new(),
        types: 0,
        empty_func_type: None,
        func_imports: 0,
        global_imports: 0,
        defined_globals: 0,
        label_names: false,
    };
    if wasm.is_empty() {
        return Err(Error::Malformed {
            offset: 0,
            message: "empty input (no wasm header)".into(),
        });
    }
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload?;
        match payload {
            Payload::Version { encoding, .. } => {
                if encoding != Encoding::Module {
                    return Err(Error::Unsupported(
                        "the input is a component, not a core wasm module".into(),
                    ));
                }
            }
            Payload::TypeSection(reader) => {
                for group in reader.clone() {
                    let group = group?;
                    let explicit = group.is_explicit_rec_group();
                    for sub in group.types() {
                        let ct = &sub.composite_type;
                        let empty = !explicit
                            && sub.is_final
                            && sub.supertype_idxs.is_empty()
                            && !ct.shared
                            && ct.descriptor_idx.is_none()
                            && ct.describes_idx.is_none()
                            && matches!(&ct.inner, CompositeInnerType::Func(f)
                                if f.params().is_empty() && f.results().is_empty());
                        if empty && input.empty_func_type.is_none() {
                            input.empty_func_type = Some(input.types);
                        }
                        input.types = input
                            .types
                            .checked_add(1)
                            .ok_or(Error::IndexOverflow("type"))?;
                    }
                }
                input.sections.push(Section::Type(range(reader.range())));
            }
            Payload::ImportSection(reader) => {
                for import in reader.clone().into_imports() {
                    let import = import?;
                    if import.module == HOOK_MODULE && import.name == HOOK_FIELD {
                        return Err(Error::AlreadyInstrumented);
                    }
                    match import.ty {
                        TypeRef::Func(_) | TypeRef::FuncExact(_) => input.func_imports += 1,
                        TypeRef::Global(_) => input.global_imports += 1,
                        _ => {}
                    }
                }
                input.sections.push(Section::Import(range(reader.range())));
            }
            Payload::TableSection(reader) => input.sections.push(Section::Table(reader)),
            Payload::GlobalSection(reader) => {
                input.defined_globals = reader.count();
                input.sections.push(Section::Global(reader));
            }
            Payload::ExportSection(reader) => input.sections.push(Section::Export(reader)),
            Payload::StartSection { func, .. } => input.sections.push(Section::Start(func)),
            Payload::ElementSection(reader) => input.sections.push(Section::Element(reader)),
            Payload::CodeSectionStart { count, .. } => input
                .sections
                .push(Section::Code(Vec::with_capacity(count as usize))),
            Payload::CodeSectionEntry(body) => match input.sections.last_mut() {
                Some(Section::Code(bodies)) => bodies.push(body),
                _ => unreachable!(
                    "wasmparser yields code entries right after the code section start"
                ),
            },
            Payload::CustomSection(reader) => match reader.as_known() {
                KnownCustom::Name(names) => {
                    for sub in names.clone() {
                        if matches!(sub?, Name::Label(_)) {
                            input.label_names = true;
                        }
                    }
                    input.sections.push(Section::Name(names));
                }
                // Branch hints and other code metadata hold byte offsets into function bodies,
                // which the pass changes: drop them rather than keep wrong hints.
                _ if reader.name().starts_with("metadata.code.") => {}
                _ => input.sections.push(Section::Raw(0, range(reader.range()))),
            },
            Payload::End(_) => {}
            other => match other.as_section() {
                Some((id, r)) => input.sections.push(Section::Raw(id, range(r))),
                None => {
                    return Err(Error::Unsupported(
                        "the input contains component-model sections".into(),
                    ));
                }
            },
        }
    }
    Ok(input)
}

/// The function index mapping: function imports stay, everything from the hook's index moves up.
#[derive(Clone, Copy)]
struct Shift {
    hook: u32,
}

/// Marker error: a function index overflowed when shifted.
#[derive(Debug)]
struct Overflow;

impl fmt::Display for Overflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("function index overflow")
    }
}

impl Shift {
    #[inline]
    fn func(self, f: u32) -> Result<u32, Error> {
        if f < self.hook {
            Ok(f)
        } else {
            f.checked_add(1).ok_or(Error::IndexOverflow("function"))
        }
    }
}

impl Reencode for Shift {
    type Error = Overflow;
    fn function_index(&mut self, f: u32) -> Result<u32, reencode::Error<Overflow>> {
        self.func(f)
            .map_err(|_| reencode::Error::UserError(Overflow))
    }
}

fn write_u32(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn write_name(out: &mut Vec<u8>, s: &str) {
    write_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

/// Reads the LEB128 `u32` vector count at the start of a section's content; returns it and the
/// offset of the first entry.
fn read_count(wasm: &[u8], content: &Range<usize>) -> Result<(u32, usize), Error> {
    let mut reader = wasmparser::BinaryReader::new(&wasm[content.clone()], content.start as u64);
    let count = reader.read_var_u32()?;
    Ok((count, reader.original_position() as usize))
}

fn write_section(out: &mut Vec<u8>, id: u8, content: &[u8]) {
    out.push(id);
    write_u32(out, content.len() as u32);
    out.extend_from_slice(content);
}

fn write_encoded(out: &mut Vec<u8>, section: &impl wasm_encoder::Section) {
    out.push(section.id());
    section.encode(out);
}

/// Context for rewriting function bodies.
struct Code<'a> {
    wasm: &'a [u8],
    shift: Shift,
    loops: bool,
    /// The counter code: inserted at every function entry (and loop head).
    snippet: Vec<u8>,
}

fn counter_snippet(counter: u32, hook: u32) -> Vec<u8> {
    let mut s = Vec::with_capacity(24);
    s.push(0x23); // global.get
    write_u32(&mut s, counter);
    s.extend_from_slice(&[0x42, 0x01, 0x7d]); // i64.const 1; i64.sub
    s.push(0x24); // global.set
    write_u32(&mut s, counter);
    s.push(0x23); // global.get
    write_u32(&mut s, counter);
    s.extend_from_slice(&[0x42, 0x00, 0x57]); // i64.const 0; i64.le_s
    s.extend_from_slice(&[0x04, 0x40]); // if (empty block type)
    s.push(0x10); // call
    write_u32(&mut s, hook);
    s.push(0x0b); // end
    s
}

impl Code<'_> {
    /// Rewrites one body into `out` (without its size prefix). Returns the number of loops
    /// instrumented. With `loop_labels`, records the label ordinal of every instrumented loop
    /// (for renumbering label names).
    fn body(
        &self,
        body: &FunctionBody<'_>,
        out: &mut Vec<u8>,
        mut loop_labels: Option<&mut Vec<u32>>,
    ) -> Result<u32, Error> {
        let wasm = self.wasm;
        let whole = range(body.range());
        let mut ops = body.get_operators_reader()?;
        let ops_start = ops.original_position() as usize;
        out.extend_from_slice(&wasm[whole.start..ops_start]); // locals, verbatim
        out.extend_from_slice(&self.snippet);
        let mut copied = ops_start;
        let mut loops = 0u32;
        let mut label = 0u32; // ordinal of the next block-introducing instruction
        while !ops.eof() {
            let pos = ops.original_position() as usize;
            let (opcode, func) = match ops.visit_operator(&mut Classify)? {
                Op::Func(opcode, func) => (opcode, func),
                Op::Loop => {
                    if self.loops {
                        let end = ops.original_position() as usize;
                        out.extend_from_slice(&wasm[copied..end]);
                        out.extend_from_slice(&self.snippet);
                        copied = end;
                        loops += 1;
                        if let Some(labels) = loop_labels.as_deref_mut() {
                            labels.push(label);
                        }
                    }
                    label += 1;
                    continue;
                }
                Op::Block => {
                    label += 1;
                    continue;
                }
                Op::Other => continue,
            };
            if func < self.shift.hook {
                continue; // an imported function: index unchanged, bytes copied later
            }
            out.extend_from_slice(&wasm[copied..pos]);
            out.push(opcode);
            write_u32(out, self.shift.func(func)?);
            copied = ops.original_position() as usize;
        }
        ops.finish()?;
        out.extend_from_slice(&wasm[copied..whole.end]);
        Ok(loops)
    }
}

/// What the body rewriter needs to know about an operator.
#[derive(Clone, Copy)]
enum Op {
    /// `call` (0x10), `return_call` (0x12) or `ref.func` (0xd2) with its function index.
    Func(u8, u32),
    Loop,
    /// Another block-introducing instruction (`block`, `if`, `try`, `try_table`): only counted,
    /// for label names.
    Block,
    Other,
}

/// A `wasmparser` visitor that classifies operators without building `Operator` values (about
/// twice as fast as `OperatorsReader::read` on Go code).
struct Classify;

macro_rules! classify {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident ($($ann:tt)*))*) => {
        $( classify!(one $op $({ $($arg: $argty),* })? => $visit); )*
    };
    (one Call { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0x10, $($arg)*) }
    };
    (one ReturnCall { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0x12, $($arg)*) }
    };
    (one RefFunc { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0xd2, $($arg)*) }
    };
    (one Loop { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Loop }
    };
    (one Block { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one If { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one Try { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one TryTable { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident) => {
        #[inline]
        fn $visit(&mut self $($(, _: $argty)*)?) -> Op { Op::Other }
    };
}

impl<'a> wasmparser::VisitOperator<'a> for Classify {
    type Output = Op;
    fn simd_visitor(
        &mut self,
    ) -> Option<&mut dyn wasmparser::VisitSimdOperator<'a, Output = Self::Output>> {
        Some(self)
    }
    wasmparser::for_each_visit_operator!(classify);
}

impl<'a> wasmparser::VisitSimdOperator<'a> for Classify {
    wasmparser::for_each_visit_simd_operator!(classify);
}

/// Instruments `wasm` (a core module). See the crate docs for what is added.
pub fn instrument(wasm: &[u8], config: &Config) -> Result<Instrumented, Error> {
    let input = parse(wasm)?;
    let shift = Shift {
        hook: input.func_imports,
    };
    // Function index space: imports + hook + defined functions must fit; checked per index by
    // `Shift::func`. The hook itself:
    let hook_function = input.func_imports;
    let counter_global = input
        .global_imports
        .checked_add(input.defined_globals)
        .filter(|&n| n < u32::MAX)
        .ok_or(Error::IndexOverflow("global"))?;
    let (hook_type, append_type) = match input.empty_func_type {
        Some(t) => (t, false),
        None if input.types < u32::MAX => (input.types, true),
        None => return Err(Error::IndexOverflow("type")),
    };
    let code = Code {
        wasm,
        shift,
        loops: config.loops,
        snippet: counter_snippet(counter_global, hook_function),
    };

    let mut out = Vec::with_capacity(wasm.len() + wasm.len() / 8 + 64);
    out.extend_from_slice(&wasm[..8]); // magic and version (checked by the parser)

    let has = |id: u8| {
        input.sections.iter().any(|s| {
            matches!(
                (s, id),
                (Section::Type(_), TYPE)
                    | (Section::Import(_), IMPORT)
                    | (Section::Global(_), GLOBAL)
            )
        })
    };
    // Sections the input lacks but the output needs, inserted at their place in the order.
    let mut missing: Vec<u8> = [TYPE, IMPORT, GLOBAL]
        .into_iter()
        .filter(|&id| !has(id))
        .collect();
    if !append_type {
        missing.retain(|&id| id != TYPE);
    }
    let write_missing = |out: &mut Vec<u8>, id: u8| {
        let mut content = Vec::new();
        match id {
            TYPE => {
                write_u32(&mut content, 1);
                content.extend_from_slice(&[0x60, 0x00, 0x00]);
            }
            IMPORT => {
                write_u32(&mut content, 1);
                hook_import_entry(&mut content, hook_type);
            }
            GLOBAL => {
                write_u32(&mut content, 1);
                counter_global_entry(&mut content);
            }
            _ => unreachable!(),
        }
        write_section(out, id, &content);
    };

    // The code section first: the name section (wherever it is) needs its loop positions.
    let mut reencoder = shift; // for the sections re-encoded with wasm-encoder's `Reencode`
    let mut entry_sites = 0u32;
    let mut loop_sites = 0u32;
    let mut loop_labels: Option<Vec<Vec<u32>>> = None;
    let mut code_content: Option<Vec<u8>> = None;
    let mut scratch = Vec::new();
    if let Some(bodies) = input.sections.iter().find_map(|s| match s {
        Section::Code(b) => Some(b),
        _ => None,
    }) {
        let track = input.label_names && config.loops;
        let mut labels = Vec::with_capacity(if track { bodies.len() } else { 0 });
        let mut content = Vec::with_capacity(
            bodies
                .iter()
                .map(|b| (b.range().end - b.range().start) as usize + code.snippet.len() + 1)
                .sum::<usize>()
                + 5,
        );
        write_u32(&mut content, bodies.len() as u32);
        for body in bodies {
            scratch.clear();
            let mut l = Vec::new();
            loop_sites += code.body(body, &mut scratch, track.then_some(&mut l))?;
            if track {
                labels.push(l);
            }
            write_u32(&mut content, scratch.len() as u32);
            content.extend_from_slice(&scratch);
            entry_sites += 1;
        }
        code_content = Some(content);
        if track {
            loop_labels = Some(labels);
        }
    }
    for section in &input.sections {
        let id = match section {
            Section::Raw(id, _) => *id,
            Section::Type(_) => TYPE,
            Section::Import(_) => IMPORT,
            Section::Table(_) => 4,
            Section::Global(_) => GLOBAL,
            Section::Export(_) => 7,
            Section::Start(_) => 8,
            Section::Element(_) => 9,
            Section::Code(_) => CODE,
            Section::Name(_) => 0,
        };
        if let Some(rank) = section_rank(id) {
            missing.retain(|&m| {
                if section_rank(m).unwrap() < rank {
                    write_missing(&mut out, m);
                    false
                } else {
                    true
                }
            });
        }
        match section {
            Section::Raw(id, r) => write_section(&mut out, *id, &wasm[r.clone()]),
            Section::Type(r) if append_type => {
                let (count, entries) = read_count(wasm, r)?;
                scratch.clear();
                write_u32(
                    &mut scratch,
                    count.checked_add(1).ok_or(Error::IndexOverflow("type"))?,
                );
                scratch.extend_from_slice(&wasm[entries..r.end]);
                scratch.extend_from_slice(&[0x60, 0x00, 0x00]);
                write_section(&mut out, TYPE, &scratch);
            }
            Section::Type(r) => write_section(&mut out, TYPE, &wasm[r.clone()]),
            Section::Import(r) => {
                let (count, entries) = read_count(wasm, r)?;
                scratch.clear();
                write_u32(
                    &mut scratch,
                    count.checked_add(1).ok_or(Error::IndexOverflow("import"))?,
                );
                scratch.extend_from_slice(&wasm[entries..r.end]);
                hook_import_entry(&mut scratch, hook_type);
                write_section(&mut out, IMPORT, &scratch);
            }
            Section::Table(reader) => {
                let mut tables = wasm_encoder::TableSection::new();
                reencoder
                    .parse_table_section(&mut tables, reader.clone())
                    .map_err(reencode_error)?;
                write_encoded(&mut out, &tables);
            }
            Section::Global(reader) => {
                let mut globals = wasm_encoder::GlobalSection::new();
                reencoder
                    .parse_global_section(&mut globals, reader.clone())
                    .map_err(reencode_error)?;
                globals.global(
                    wasm_encoder::GlobalType {
                        val_type: wasm_encoder::ValType::I64,
                        mutable: true,
                        shared: false,
                    },
                    &wasm_encoder::ConstExpr::i64_const(0),
                );
                write_encoded(&mut out, &globals);
            }
            Section::Export(reader) => {
                let mut exports = wasm_encoder::ExportSection::new();
                reencoder
                    .parse_export_section(&mut exports, reader.clone())
                    .map_err(reencode_error)?;
                write_encoded(&mut out, &exports);
            }
            Section::Start(func) => {
                write_encoded(
                    &mut out,
                    &wasm_encoder::StartSection {
                        function_index: shift.func(*func)?,
                    },
                );
            }
            Section::Element(reader) => {
                let mut elements = wasm_encoder::ElementSection::new();
                reencoder
                    .parse_element_section(&mut elements, reader.clone())
                    .map_err(reencode_error)?;
                write_encoded(&mut out, &elements);
            }
            Section::Code(_) => {
                write_section(&mut out, CODE, code_content.as_deref().unwrap_or(&[]));
            }
            Section::Name(reader) => {
                let names = rewrite_names(
                    reader.clone(),
                    shift,
                    counter_global,
                    config.loops,
                    loop_labels.as_deref(),
                )?;
                write_encoded(&mut out, &names);
            }
        }
    }
    for m in missing {
        write_missing(&mut out, m);
    }

    Ok(Instrumented {
        wasm: out,
        counter_global,
        hook_import: (HOOK_MODULE, HOOK_FIELD),
        hook_function,
        entry_sites,
        loop_sites,
    })
}

fn hook_import_entry(out: &mut Vec<u8>, hook_type: u32) {
    write_name(out, HOOK_MODULE);
    write_name(out, HOOK_FIELD);
    out.push(0x00); // func
    write_u32(out, hook_type);
}

fn counter_global_entry(out: &mut Vec<u8>) {
    out.extend_from_slice(&[0x7e, 0x01]); // i64, mutable
    out.extend_from_slice(&[0x42, 0x00, 0x0b]); // i64.const 0; end
}

/// Rewrites the `name` section: function names (with the hook's name inserted), local names and
/// label names move with their functions; label indices move past the inserted `if` blocks; the
/// counter gets a global name if the module names its globals.
fn rewrite_names(
    reader: NameSectionReader<'_>,
    shift: Shift,
    counter_global: u32,
    loops: bool,
    loop_labels: Option<&[Vec<u32>]>,
) -> Result<wasm_encoder::NameSection, Error> {
    let mut names = wasm_encoder::NameSection::new();
    for sub in reader {
        match sub? {
            Name::Function(map) => {
                let mut out = wasm_encoder::NameMap::new();
                let mut inserted = false;
                for naming in map {
                    let naming = naming?;
                    if !inserted && naming.index >= shift.hook {
                        out.append(shift.hook, HOOK_DEBUG_NAME);
                        inserted = true;
                    }
                    out.append(shift.func(naming.index)?, naming.name);
                }
                if !inserted {
                    out.append(shift.hook, HOOK_DEBUG_NAME);
                }
                names.functions(&out);
            }
            Name::Local(map) => {
                let mut out = wasm_encoder::IndirectNameMap::new();
                for func in map {
                    let func = func?;
                    let mut locals = wasm_encoder::NameMap::new();
                    for naming in func.names {
                        let naming = naming?;
                        locals.append(naming.index, naming.name);
                    }
                    out.append(shift.func(func.index)?, &locals);
                }
                names.locals(&out);
            }
            Name::Label(map) => {
                let mut out = wasm_encoder::IndirectNameMap::new();
                for func in map {
                    let func = func?;
                    let defined = func.index.checked_sub(shift.hook);
                    let loops_in_func: &[u32] = match (defined, loop_labels) {
                        (Some(d), Some(all)) if loops => {
                            all.get(d as usize).map(Vec::as_slice).unwrap_or(&[])
                        }
                        _ => &[],
                    };
                    let mut labels = wasm_encoder::NameMap::new();
                    for naming in func.names {
                        let naming = naming?;
                        let index = if defined.is_some() {
                            // +1 for the `if` at function entry, +1 for the `if` after each
                            // instrumented loop that precedes this label.
                            let before = loops_in_func.partition_point(|&l| l < naming.index);
                            naming
                                .index
                                .checked_add(1 + before as u32)
                                .ok_or(Error::IndexOverflow("label"))?
                        } else {
                            naming.index
                        };
                        labels.append(index, naming.name);
                    }
                    out.append(shift.func(func.index)?, &labels);
                }
                names.labels(&out);
            }
            Name::Global(map) => {
                let mut out = wasm_encoder::NameMap::new();
                for naming in map {
                    let naming = naming?;
                    out.append(naming.index, naming.name);
                }
                out.append(counter_global, COUNTER_DEBUG_NAME);
                names.globals(&out);
            }
            other => {
                let mut s = shift;
                s.parse_custom_name_subsection(&mut names, other)
                    .map_err(reencode_error)?;
            }
        }
    }
    Ok(names)
}
