//! Binary-format helpers: section ids and their required order, LEB128 `u32`s, names, and section
//! framing (id, size, content).
//!
//! No knowledge of what the pass inserts: callers build the content, these only frame and encode.

use std::ops::Range;

use crate::error::Error;

// Section ids.
pub(crate) const CUSTOM: u8 = 0;
pub(crate) const TYPE: u8 = 1;
pub(crate) const IMPORT: u8 = 2;
pub(crate) const FUNCTION: u8 = 3;
pub(crate) const TABLE: u8 = 4;
pub(crate) const GLOBAL: u8 = 6;
pub(crate) const EXPORT: u8 = 7;
pub(crate) const START: u8 = 8;
pub(crate) const ELEMENT: u8 = 9;
pub(crate) const CODE: u8 = 10;

/// Position of a non-custom section in the required order (tag sits between memory and global,
/// data count between element and code). `None` for custom and unknown sections.
pub(crate) fn section_rank(id: u8) -> Option<u8> {
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

pub(crate) fn write_u32(out: &mut Vec<u8>, mut v: u32) {
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

pub(crate) fn write_name(out: &mut Vec<u8>, s: &str) {
    write_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

/// Reads the LEB128 `u32` vector count at the start of a section's content; returns it and the
/// offset of the first entry.
pub(crate) fn read_count(wasm: &[u8], content: &Range<usize>) -> Result<(u32, usize), Error> {
    let mut reader = wasmparser::BinaryReader::new(&wasm[content.clone()], content.start as u64);
    let count = reader.read_var_u32()?;
    Ok((count, reader.original_position() as usize))
}

pub(crate) fn write_section(out: &mut Vec<u8>, id: u8, content: &[u8]) {
    out.push(id);
    write_u32(out, content.len() as u32);
    out.extend_from_slice(content);
}

pub(crate) fn write_encoded(out: &mut Vec<u8>, section: &impl wasm_encoder::Section) {
    out.push(section.id());
    section.encode(out);
}
