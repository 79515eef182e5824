//! Reading the input module: one pass over its payloads that keeps every section (as a byte range
//! or a lazy `wasmparser` reader) and counts what the pass needs to place the hook and counter.
//!
//! It does not rewrite anything and does not validate the module: it only rejects what it cannot
//! read (malformed bytes, components) and modules that already import the hook.

use std::ops::Range;

use wasmparser::{
    CompositeInnerType, Encoding, FunctionBody, ImportSectionReader, KnownCustom, Name, NameSectionReader, Parser,
    Payload, TypeRef, TypeSectionReader, ValType,
};

use crate::encoding::{CODE, CUSTOM, ELEMENT, EXPORT, FUNCTION, GLOBAL, IMPORT, START, TABLE, TYPE};
use crate::error::Error;
use crate::{HOOK_FIELD, HOOK_MODULE};

/// A section of the input, as far as the pass cares.
pub(crate) enum Section<'a> {
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

impl Section<'_> {
    /// The section id (0 for custom sections, the `name` section included).
    pub(crate) fn id(&self) -> u8 {
        match self {
            Section::Raw(id, _) => *id,
            Section::Type(_) => TYPE,
            Section::Import(_) => IMPORT,
            Section::Table(_) => TABLE,
            Section::Global(_) => GLOBAL,
            Section::Export(_) => EXPORT,
            Section::Start(_) => START,
            Section::Element(_) => ELEMENT,
            Section::Code(_) => CODE,
            Section::Name(_) => CUSTOM,
        }
    }
}

/// Everything learnt from the input before writing the output.
pub(crate) struct Input<'a> {
    pub(crate) sections: Vec<Section<'a>>,
    /// Number of types (not rec groups) in the type section.
    pub(crate) types: u32,
    /// Index of an existing plain `[] -> []` function type, if any.
    pub(crate) empty_func_type: Option<u32>,
    pub(crate) func_imports: u32,
    pub(crate) global_imports: u32,
    pub(crate) defined_globals: u32,
    /// The name section has a label-names subsection (its label indices need renumbering).
    pub(crate) label_names: bool,
    /// Per type index: whether it is Go's function type `(i32 PC_B) -> (i32 unwind)`.
    pub(crate) go_types: Vec<bool>,
    /// Per defined function: its type index (the function section).
    pub(crate) func_types: Vec<u32>,
    /// Function names from the `name` section, by input function index, in index order.
    pub(crate) func_names: Vec<(u32, &'a str)>,
}

impl<'a> Input<'a> {
    /// The name of function `index` (an input index), if the `name` section gives one.
    pub(crate) fn func_name(&self, index: u32) -> Option<&'a str> {
        self.func_names.binary_search_by_key(&index, |&(i, _)| i).ok().map(|at| self.func_names[at].1)
    }

    /// The input index of the function named `name` (a linear search: used for a couple of names).
    pub(crate) fn func_named(&self, name: &str) -> Option<u32> {
        self.func_names.iter().find(|&&(_, n)| n == name).map(|&(i, _)| i)
    }

    /// Whether defined function `defined` has Go's function type.
    pub(crate) fn has_go_type(&self, defined: u32) -> bool {
        self.func_types.get(defined as usize).is_some_and(|&t| self.go_types.get(t as usize) == Some(&true))
    }
}

pub(crate) fn range(r: Range<u64>) -> Range<usize> {
    // The input is a slice, so every offset wasmparser reports fits in usize.
    r.start as usize..r.end as usize
}

pub(crate) fn parse(wasm: &[u8]) -> Result<Input<'_>, Error> {
    let mut input = Input {
        sections: Vec::new(),
        types: 0,
        empty_func_type: None,
        func_imports: 0,
        global_imports: 0,
        defined_globals: 0,
        label_names: false,
        go_types: Vec::new(),
        func_types: Vec::new(),
        func_names: Vec::new(),
    };
    if wasm.is_empty() {
        return Err(Error::Malformed { offset: 0, message: "empty input (no wasm header)".into() });
    }
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload?;
        match payload {
            Payload::Version { encoding, .. } => {
                if encoding != Encoding::Module {
                    return Err(Error::Unsupported("the input is a component, not a core wasm module".into()));
                }
            }
            Payload::TypeSection(reader) => {
                scan_types(reader.clone(), &mut input)?;
                input.sections.push(Section::Type(range(reader.range())));
            }
            Payload::ImportSection(reader) => {
                scan_imports(reader.clone(), &mut input)?;
                input.sections.push(Section::Import(range(reader.range())));
            }
            Payload::FunctionSection(reader) => {
                for ty in reader.clone() {
                    input.func_types.push(ty?);
                }
                input.sections.push(Section::Raw(FUNCTION, range(reader.range())));
            }
            Payload::TableSection(reader) => input.sections.push(Section::Table(reader)),
            Payload::GlobalSection(reader) => {
                input.defined_globals = reader.count();
                input.sections.push(Section::Global(reader));
            }
            Payload::ExportSection(reader) => input.sections.push(Section::Export(reader)),
            Payload::StartSection { func, .. } => input.sections.push(Section::Start(func)),
            Payload::ElementSection(reader) => input.sections.push(Section::Element(reader)),
            Payload::CodeSectionStart { count, .. } => {
                input.sections.push(Section::Code(Vec::with_capacity(count as usize)))
            }
            Payload::CodeSectionEntry(body) => match input.sections.last_mut() {
                Some(Section::Code(bodies)) => bodies.push(body),
                _ => unreachable!("wasmparser yields code entries right after the code section start"),
            },
            Payload::CustomSection(reader) => match reader.as_known() {
                KnownCustom::Name(names) => {
                    for sub in names.clone() {
                        match sub? {
                            Name::Label(_) => input.label_names = true,
                            Name::Function(map) => {
                                for naming in map {
                                    let naming = naming?;
                                    input.func_names.push((naming.index, naming.name));
                                }
                            }
                            _ => {}
                        }
                    }
                    // The spec wants them in index order; a module that breaks that still works.
                    if !input.func_names.is_sorted_by_key(|&(i, _)| i) {
                        input.func_names.sort_by_key(|&(i, _)| i);
                    }
                    input.sections.push(Section::Name(names));
                }
                // Branch hints and other code metadata hold byte offsets into function bodies,
                // which the pass changes: drop them rather than keep wrong hints.
                _ if reader.name().starts_with("metadata.code.") => {}
                _ => input.sections.push(Section::Raw(CUSTOM, range(reader.range()))),
            },
            Payload::End(_) => {}
            other => match other.as_section() {
                Some((id, r)) => input.sections.push(Section::Raw(id, range(r))),
                None => {
                    return Err(Error::Unsupported("the input contains component-model sections".into()));
                }
            },
        }
    }
    Ok(input)
}

/// Counts the types and finds the first plain `[] -> []` function type, which the hook can reuse.
fn scan_types(reader: TypeSectionReader<'_>, input: &mut Input<'_>) -> Result<(), Error> {
    for group in reader {
        let group = group?;
        let explicit = group.is_explicit_rec_group();
        for sub in group.types() {
            // Types are compared structurally *with* their rec group and subtyping: only a
            // type that is exactly the plain `(func)` matches the hook the host provides.
            let ct = &sub.composite_type;
            let empty = !explicit
                && sub.is_final
                && sub.supertype_idxs.is_empty()
                && !ct.shared
                && ct.descriptor_idx.is_none()
                && ct.describes_idx.is_none()
                && matches!(&ct.inner, CompositeInnerType::Func(f)
                    if f.params().is_empty() && f.results().is_empty());
            let go = !explicit
                && sub.is_final
                && sub.supertype_idxs.is_empty()
                && matches!(&ct.inner, CompositeInnerType::Func(f)
                    if f.params() == [ValType::I32] && f.results() == [ValType::I32]);
            input.go_types.push(go);
            if empty && input.empty_func_type.is_none() {
                input.empty_func_type = Some(input.types);
            }
            input.types = input.types.checked_add(1).ok_or(Error::IndexOverflow("type"))?;
        }
    }
    Ok(())
}

/// Counts function and global imports (the hook and counter go after them) and rejects a module
/// that already imports the hook.
fn scan_imports(reader: ImportSectionReader<'_>, input: &mut Input<'_>) -> Result<(), Error> {
    for import in reader.into_imports() {
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
    Ok(())
}
