//! Decoding and validation: wasm bytes → `ModuleInfo` + function body ranges.
//!
//! Validation uses wasmparser with `WasmFeatures::LIME1` (Go's feature set plus
//! multi-value and extended-const). A module outside it is rejected with the
//! validator's message, which names the feature, plus the function it occurs in.
//! This module does no translation; bodies are handed on as byte ranges.

use super::*;
use crate::error::{Error, Result};
use std::ops::Range;
use wasmparser::{
    ElementItems, ElementKind, KnownCustom, Name, Operator, Parser, Payload, TypeRef, Validator, WasmFeatures,
};

/// A decoded module: its info plus where each defined function's body lies in the
/// input bytes (index 0 = first non-imported function).
#[derive(Debug)]
pub struct ParsedModule {
    pub info: ModuleInfo,
    pub bodies: Vec<Range<usize>>,
}

/// Decode and validate `wasm`.
pub fn parse(wasm: &[u8]) -> Result<ParsedModule> {
    let mut validator = Validator::new_with_features(WasmFeatures::LIME1);
    if let Err(e) = validator.validate_all(wasm) {
        let offset = e.offset() as usize;
        // Decode as far as possible only to name the function the error is in.
        let function = decode(wasm).ok().and_then(|parsed| {
            let i = parsed.bodies.iter().position(|r| r.contains(&offset))?;
            Some(parsed.info.func_name(parsed.info.num_imported_funcs + i as u32))
        });
        let message = e.message().to_string();
        return Err(if is_feature_error(&message) {
            Error::Unsupported { feature: message, function }
        } else {
            Error::Invalid { message, offset, function }
        });
    }
    decode(wasm)
}

/// Whether a validation error means "valid wasm, but outside LIME1". wasmparser
/// words these several ways ("bulk memory support is not enabled", "passive
/// data segments require the bulk-memory proposal", "bulk memory must be
/// enabled"); anything else is a genuinely invalid module.
fn is_feature_error(message: &str) -> bool {
    const MARKERS: [&str; 5] =
        ["not enabled", "must be enabled", "not supported", "proposal is disabled", "are disallowed"];
    MARKERS.iter().any(|m| message.contains(m)) || (message.contains("require") && message.contains("proposal"))
}

fn invalid(e: wasmparser::BinaryReaderError) -> Error {
    Error::Invalid { message: e.message().to_string(), offset: e.offset() as usize, function: None }
}

fn unsupported(feature: &str) -> Error {
    Error::Unsupported { feature: feature.to_string(), function: None }
}

fn val_type(t: wasmparser::ValType) -> Result<ValType> {
    Ok(match t {
        wasmparser::ValType::I32 => ValType::I32,
        wasmparser::ValType::I64 => ValType::I64,
        wasmparser::ValType::F32 => ValType::F32,
        wasmparser::ValType::F64 => ValType::F64,
        wasmparser::ValType::V128 => return Err(unsupported("SIMD (v128)")),
        wasmparser::ValType::Ref(_) => return Err(unsupported("reference types")),
    })
}

fn memory_decl(m: wasmparser::MemoryType) -> Result<MemoryDecl> {
    if m.memory64 || m.shared || m.page_size_log2.is_some() {
        return Err(unsupported("memory64, shared or custom-page-size memory"));
    }
    Ok(MemoryDecl { min_pages: m.initial, max_pages: m.maximum })
}

fn table_decl(t: wasmparser::TableType) -> Result<TableDecl> {
    if t.table64 || t.shared || t.element_type != wasmparser::RefType::FUNCREF {
        return Err(unsupported("table that is not a 32-bit funcref table"));
    }
    Ok(TableDecl { min: t.initial, max: t.maximum })
}

fn global_type(g: wasmparser::GlobalType) -> Result<GlobalType> {
    Ok(GlobalType { ty: val_type(g.content_type)?, mutable: g.mutable })
}

fn const_expr(expr: &wasmparser::ConstExpr<'_>) -> Result<ConstExpr> {
    let mut ops = Vec::new();
    let mut reader = expr.get_operators_reader();
    while !reader.eof() {
        let op = reader.read().map_err(invalid)?;
        ops.push(match op {
            Operator::I32Const { value } => ConstOp::I32(value),
            Operator::I64Const { value } => ConstOp::I64(value),
            Operator::F32Const { value } => ConstOp::F32(value.bits()),
            Operator::F64Const { value } => ConstOp::F64(value.bits()),
            Operator::GlobalGet { global_index } => ConstOp::GlobalGet(global_index),
            Operator::I32Add => ConstOp::I32Add,
            Operator::I32Sub => ConstOp::I32Sub,
            Operator::I32Mul => ConstOp::I32Mul,
            Operator::I64Add => ConstOp::I64Add,
            Operator::I64Sub => ConstOp::I64Sub,
            Operator::I64Mul => ConstOp::I64Mul,
            Operator::End => continue,
            other => return Err(unsupported(&format!("constant expression operator {other:?}"))),
        });
    }
    Ok(ConstExpr::new(ops))
}

/// The function index named by an element expression (`ref.func N` / `ref.null`).
fn elem_expr(expr: &wasmparser::ConstExpr<'_>) -> Result<Option<u32>> {
    let mut reader = expr.get_operators_reader();
    let op = reader.read().map_err(invalid)?;
    match op {
        Operator::RefFunc { function_index } => Ok(Some(function_index)),
        Operator::RefNull { .. } => Ok(None),
        other => Err(unsupported(&format!("element expression {other:?}"))),
    }
}

fn decode(wasm: &[u8]) -> Result<ParsedModule> {
    let mut info = ModuleInfo::default();
    let mut bodies = Vec::new();
    let mut names: Vec<(u32, String)> = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(invalid)? {
            Payload::TypeSection(reader) => {
                for ty in reader.into_iter_err_on_gc_types() {
                    let ty = ty.map_err(invalid)?;
                    let params = ty.params().iter().map(|t| val_type(*t)).collect::<Result<_>>()?;
                    let results = ty.results().iter().map(|t| val_type(*t)).collect::<Result<_>>()?;
                    info.types.push(FuncType { params, results });
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    let import = import.map_err(invalid)?;
                    let kind = match import.ty {
                        TypeRef::Func(type_index) => {
                            info.func_types.push(type_index);
                            info.num_imported_funcs += 1;
                            ImportKind::Func { type_index }
                        }
                        TypeRef::Memory(m) => {
                            let decl = memory_decl(m)?;
                            info.memory = Some(decl);
                            info.memory_imported = true;
                            ImportKind::Memory(decl)
                        }
                        TypeRef::Table(t) => {
                            let decl = table_decl(t)?;
                            info.table = Some(decl);
                            info.table_imported = true;
                            ImportKind::Table(decl)
                        }
                        TypeRef::Global(g) => {
                            let ty = global_type(g)?;
                            info.globals.push(GlobalDecl { ty, init: None });
                            ImportKind::Global(ty)
                        }
                        _ => return Err(unsupported("import of a tag or other non-MVP kind")),
                    };
                    info.imports.push(Import {
                        module: import.module.to_string(),
                        name: import.name.to_string(),
                        kind,
                    });
                }
            }
            Payload::FunctionSection(reader) => {
                for ty in reader {
                    info.func_types.push(ty.map_err(invalid)?);
                }
            }
            Payload::TableSection(reader) => {
                for table in reader {
                    let table = table.map_err(invalid)?;
                    if !matches!(table.init, wasmparser::TableInit::RefNull) {
                        return Err(unsupported("table initialiser expression"));
                    }
                    if info.table.is_some() {
                        return Err(unsupported("multiple tables"));
                    }
                    // Rejected here, not only at instantiation, so a huge
                    // table is named before anything is compiled or cached.
                    if table.ty.initial > crate::runtime::table::MAX_ENTRIES {
                        return Err(unsupported(&format!(
                            "a table of {} entries (the limit is {})",
                            table.ty.initial,
                            crate::runtime::table::MAX_ENTRIES
                        )));
                    }
                    info.table = Some(table_decl(table.ty)?);
                }
            }
            Payload::MemorySection(reader) => {
                for memory in reader {
                    if info.memory.is_some() {
                        return Err(unsupported("multiple memories"));
                    }
                    info.memory = Some(memory_decl(memory.map_err(invalid)?)?);
                }
            }
            Payload::GlobalSection(reader) => {
                for global in reader {
                    let global = global.map_err(invalid)?;
                    info.globals
                        .push(GlobalDecl { ty: global_type(global.ty)?, init: Some(const_expr(&global.init_expr)?) });
                }
            }
            Payload::ExportSection(reader) => {
                for export in reader {
                    let export = export.map_err(invalid)?;
                    let kind = match export.kind {
                        wasmparser::ExternalKind::Func => ExportKind::Func,
                        wasmparser::ExternalKind::Memory => ExportKind::Memory,
                        wasmparser::ExternalKind::Table => ExportKind::Table,
                        wasmparser::ExternalKind::Global => ExportKind::Global,
                        _ => return Err(unsupported("export of a tag or other non-MVP kind")),
                    };
                    info.exports.push(Export { name: export.name.to_string(), kind, index: export.index });
                }
            }
            Payload::StartSection { func, .. } => info.start = Some(func),
            Payload::ElementSection(reader) => {
                for element in reader {
                    let element = element.map_err(invalid)?;
                    let offset = match &element.kind {
                        ElementKind::Active { table_index, offset_expr } => {
                            if table_index.unwrap_or(0) != 0 {
                                return Err(unsupported("element segment for a table other than 0"));
                            }
                            Some(const_expr(offset_expr)?)
                        }
                        ElementKind::Passive | ElementKind::Declared => None,
                    };
                    let mut funcs = Vec::new();
                    match element.items {
                        ElementItems::Functions(r) => {
                            for f in r {
                                funcs.push(Some(f.map_err(invalid)?));
                            }
                        }
                        ElementItems::Expressions(_, r) => {
                            for e in r {
                                funcs.push(elem_expr(&e.map_err(invalid)?)?);
                            }
                        }
                    }
                    info.elements.push(ElemSegment { offset, funcs });
                }
            }
            Payload::DataSection(reader) => {
                for data in reader {
                    let data = data.map_err(invalid)?;
                    let offset = match &data.kind {
                        wasmparser::DataKind::Active { memory_index: 0, offset_expr } => Some(const_expr(offset_expr)?),
                        wasmparser::DataKind::Active { .. } => {
                            return Err(unsupported("data segment for a memory other than 0"));
                        }
                        wasmparser::DataKind::Passive => None,
                    };
                    info.data.push(DataSegment { offset, bytes: crate::blob::Blob::owned(data.data.to_vec()) });
                }
            }
            Payload::CodeSectionEntry(body) => {
                let range = body.range();
                bodies.push(range.start as usize..range.end as usize);
            }
            Payload::CustomSection(reader) => {
                if let KnownCustom::Name(names_reader) = reader.as_known() {
                    // A malformed name section is not fatal: names are diagnostics only.
                    for name in names_reader.into_iter().flatten() {
                        if let Name::Function(map) = name {
                            names.extend(map.into_iter().flatten().map(|n| (n.index, n.name.to_string())));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    info.func_names = vec![None; info.func_types.len()];
    for (index, name) in names {
        if let Some(slot) = info.func_names.get_mut(index as usize) {
            *slot = Some(name);
        }
    }
    Ok(ParsedModule { info, bodies })
}
