//! Assembling the output module: the input's sections in their order, each copied or rewritten,
//! with the hook import, its type and the counter global added, and the type, import and global
//! sections the input lacks inserted at their place in the section order.
//!
//! Function bodies and the `name` section are rewritten by `body` and `names`; this only calls
//! them and writes the results.

use std::ops::Range;

use wasm_encoder::reencode::Reencode;

use crate::body::RewrittenCode;
use crate::encoding::{
    CODE, GLOBAL, IMPORT, TYPE, read_count, section_rank, write_encoded, write_name, write_section, write_u32,
};
use crate::error::Error;
use crate::input::{Input, Section};
use crate::names::rewrite_names;
use crate::plan::Plan;
use crate::shift::reencode_error;
use crate::{HOOK_FIELD, HOOK_MODULE};

/// The encoding of the plain `[] -> []` function type: `func`, no params, no results.
const EMPTY_FUNC_TYPE: [u8; 3] = [0x60, 0x00, 0x00];

/// Writes the instrumented module. `code` is the already rewritten code section.
pub(crate) fn write(
    wasm: &[u8],
    input: &Input<'_>,
    plan: &Plan,
    code: &RewrittenCode,
    loops: bool,
) -> Result<Vec<u8>, Error> {
    let writer = Writer { wasm, plan, code, loops };
    let mut out = Vec::with_capacity(wasm.len() + wasm.len() / 8 + 64);
    out.extend_from_slice(&wasm[..8]); // magic and version (checked by the parser)
    let mut missing = missing_sections(input, plan);
    for section in &input.sections {
        // A missing section goes right before the first section that must follow it; custom
        // sections may sit anywhere, so they do not place it.
        if let Some(rank) = section_rank(section.id()) {
            missing.retain(|&m| {
                if section_rank(m).unwrap() < rank {
                    writer.missing(&mut out, m);
                    false
                } else {
                    true
                }
            });
        }
        writer.section(&mut out, section)?;
    }
    for m in missing {
        writer.missing(&mut out, m);
    }
    Ok(out)
}

/// Ids of the sections the input lacks but the output needs, in section order.
fn missing_sections(input: &Input<'_>, plan: &Plan) -> Vec<u8> {
    let has = |id: u8| input.sections.iter().any(|s| s.id() == id);
    let mut missing: Vec<u8> = [TYPE, IMPORT, GLOBAL].into_iter().filter(|&id| !has(id)).collect();
    if !plan.append_type {
        missing.retain(|&id| id != TYPE);
    }
    missing
}

/// What writing a section needs besides the section itself.
struct Writer<'a> {
    wasm: &'a [u8],
    plan: &'a Plan,
    code: &'a RewrittenCode,
    loops: bool,
}

impl Writer<'_> {
    /// Writes one section of the input, copied or rewritten.
    fn section(&self, out: &mut Vec<u8>, section: &Section<'_>) -> Result<(), Error> {
        let wasm = self.wasm;
        let shift = self.plan.shift;
        // For the sections re-encoded with wasm-encoder's `Reencode`.
        let mut reencoder = shift;
        match section {
            Section::Raw(id, r) => write_section(out, *id, &wasm[r.clone()]),
            Section::Type(r) if self.plan.append_type => {
                append_entry(out, wasm, TYPE, r, "type", &EMPTY_FUNC_TYPE)?;
            }
            Section::Type(r) => write_section(out, TYPE, &wasm[r.clone()]),
            Section::Import(r) => {
                let mut hook = Vec::new();
                hook_import_entry(&mut hook, self.plan.hook_type);
                append_entry(out, wasm, IMPORT, r, "import", &hook)?;
            }
            Section::Table(reader) => {
                let mut tables = wasm_encoder::TableSection::new();
                reencoder.parse_table_section(&mut tables, reader.clone()).map_err(reencode_error)?;
                write_encoded(out, &tables);
            }
            Section::Global(reader) => {
                let mut globals = wasm_encoder::GlobalSection::new();
                reencoder.parse_global_section(&mut globals, reader.clone()).map_err(reencode_error)?;
                // Last, so the globals before it keep their indices.
                globals.global(
                    wasm_encoder::GlobalType { val_type: wasm_encoder::ValType::I64, mutable: true, shared: false },
                    &wasm_encoder::ConstExpr::i64_const(0),
                );
                write_encoded(out, &globals);
            }
            Section::Export(reader) => {
                let mut exports = wasm_encoder::ExportSection::new();
                reencoder.parse_export_section(&mut exports, reader.clone()).map_err(reencode_error)?;
                write_encoded(out, &exports);
            }
            Section::Start(func) => {
                write_encoded(out, &wasm_encoder::StartSection { function_index: shift.func(*func)? });
            }
            Section::Element(reader) => {
                let mut elements = wasm_encoder::ElementSection::new();
                reencoder.parse_element_section(&mut elements, reader.clone()).map_err(reencode_error)?;
                write_encoded(out, &elements);
            }
            Section::Code(_) => {
                write_section(out, CODE, self.code.content.as_deref().unwrap_or(&[]));
            }
            Section::Name(reader) => {
                let names = rewrite_names(
                    reader.clone(),
                    shift,
                    self.plan.counter_global,
                    self.loops,
                    self.code.loop_labels.as_deref(),
                    &self.code.checked,
                )?;
                write_encoded(out, &names);
            }
        }
        Ok(())
    }

    /// Writes a section the input lacks, holding only what the pass adds.
    fn missing(&self, out: &mut Vec<u8>, id: u8) {
        let mut content = Vec::new();
        write_u32(&mut content, 1);
        match id {
            TYPE => content.extend_from_slice(&EMPTY_FUNC_TYPE),
            IMPORT => hook_import_entry(&mut content, self.plan.hook_type),
            GLOBAL => counter_global_entry(&mut content),
            _ => unreachable!("only the type, import and global sections are ever missing"),
        }
        write_section(out, id, &content);
    }
}

/// Copies a vector section (`content`: count, then entries) with `entry` appended. The entries are
/// copied verbatim: only the count changes. `space` names the index space for the overflow error.
fn append_entry(
    out: &mut Vec<u8>,
    wasm: &[u8],
    id: u8,
    content: &Range<usize>,
    space: &'static str,
    entry: &[u8],
) -> Result<(), Error> {
    let (count, entries) = read_count(wasm, content)?;
    let mut new = Vec::new();
    write_u32(&mut new, count.checked_add(1).ok_or(Error::IndexOverflow(space))?);
    new.extend_from_slice(&wasm[entries..content.end]);
    new.extend_from_slice(entry);
    write_section(out, id, &new);
    Ok(())
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
