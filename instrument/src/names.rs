//! Rewriting the `name` section: function, local and label names follow their functions past the
//! hook, label indices follow the `if` blocks the pass inserts, and the hook and counter get names.
//!
//! It needs the loop positions found by `body` but does not look at code itself; subsections it
//! does not know are re-encoded with the function shift only.

use wasm_encoder::reencode::Reencode;
use wasmparser::{Name, NameSectionReader};

use crate::error::Error;
use crate::shift::Shift;
use crate::shift::reencode_error;
use crate::{COUNTER_DEBUG_NAME, HOOK_DEBUG_NAME};

/// Rewrites the `name` section: function names (with the hook's name inserted), local names and
/// label names move with their functions; label indices move past the inserted `if` blocks (the entry check's too); the
/// counter gets a global name if the module names its globals.
pub(crate) fn rewrite_names(
    reader: NameSectionReader<'_>,
    shift: Shift,
    counter_global: u32,
    loops: bool,
    loop_labels: Option<&[Vec<u32>]>,
    checked: &[u32],
) -> Result<wasm_encoder::NameSection, Error> {
    let mut names = wasm_encoder::NameSection::new();
    for sub in reader {
        match sub? {
            Name::Function(map) => names.functions(&function_names(map, shift)?),
            Name::Local(map) => names.locals(&local_names(map, shift)?),
            Name::Label(map) => names.labels(&label_names(map, shift, loops, loop_labels, checked)?),
            Name::Global(map) => names.globals(&global_names(map, counter_global)?),
            other => {
                let mut s = shift;
                s.parse_custom_name_subsection(&mut names, other).map_err(reencode_error)?;
            }
        }
    }
    Ok(names)
}

/// Function names, shifted, with the hook's name inserted in index order.
fn function_names(map: wasmparser::NameMap<'_>, shift: Shift) -> Result<wasm_encoder::NameMap, Error> {
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
    Ok(out)
}

/// Local names: the function index shifts, the local indices do not (the pass adds no locals).
fn local_names(map: wasmparser::IndirectNameMap<'_>, shift: Shift) -> Result<wasm_encoder::IndirectNameMap, Error> {
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
    Ok(out)
}

/// Label names: the function index shifts, and in defined functions each label index moves past
/// the `if` blocks inserted before it.
fn label_names(
    map: wasmparser::IndirectNameMap<'_>,
    shift: Shift,
    loops: bool,
    loop_labels: Option<&[Vec<u32>]>,
    checked: &[u32],
) -> Result<wasm_encoder::IndirectNameMap, Error> {
    let mut out = wasm_encoder::IndirectNameMap::new();
    for func in map {
        let func = func?;
        let defined = func.index.checked_sub(shift.hook);
        let loops_in_func: &[u32] = match (defined, loop_labels) {
            (Some(d), Some(all)) if loops => all.get(d as usize).map(Vec::as_slice).unwrap_or(&[]),
            _ => &[],
        };
        // The entry check's `if` comes before every label of the body.
        let check = defined.is_some_and(|d| checked.binary_search(&d).is_ok()) as u32;
        let mut labels = wasm_encoder::NameMap::new();
        for naming in func.names {
            let naming = naming?;
            let index = if defined.is_some() {
                // +1 for the `if` at function entry (+1 more with the entry check), +1 for the
                // `if` after each instrumented loop that precedes this label.
                let before = loops_in_func.partition_point(|&l| l < naming.index);
                naming.index.checked_add(1 + check + before as u32).ok_or(Error::IndexOverflow("label"))?
            } else {
                naming.index
            };
            labels.append(index, naming.name);
        }
        out.append(shift.func(func.index)?, &labels);
    }
    Ok(out)
}

/// Global names: unchanged (the counter goes after every global), plus the counter's name.
fn global_names(map: wasmparser::NameMap<'_>, counter_global: u32) -> Result<wasm_encoder::NameMap, Error> {
    let mut out = wasm_encoder::NameMap::new();
    for naming in map {
        let naming = naming?;
        out.append(naming.index, naming.name);
    }
    out.append(counter_global, COUNTER_DEBUG_NAME);
    Ok(out)
}
