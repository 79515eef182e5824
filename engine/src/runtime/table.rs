//! The funcref table. Each entry carries the callee's code address, its vmctx
//! (so an entry can point into another instance) and its signature id, which
//! `call_indirect` compares; signature 0 marks a null entry.

use crate::runtime::vmctx::VmCtx;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TableEntry {
    pub code: usize,
    pub vmctx: *mut VmCtx,
    pub signature: u64,
}

pub const ENTRY_CODE: i32 = 0;
pub const ENTRY_VMCTX: i32 = 8;
pub const ENTRY_SIGNATURE: i32 = 16;
pub const ENTRY_SIZE: i32 = 24;

impl TableEntry {
    pub const NULL: TableEntry = TableEntry { code: 0, vmctx: std::ptr::null_mut(), signature: 0 };
}

/// A table of fixed size (LIME1 has no table.grow).
pub struct Table {
    pub entries: Box<[TableEntry]>,
    /// The declared maximum, which an importer's declared maximum must not be
    /// below (import matching compares limits, not just the current size).
    pub max: Option<u64>,
}

// Entries are only used by the thread running the instances that share them.
unsafe impl Send for Table {}
unsafe impl Sync for Table {}

impl Table {
    pub fn new(size: u64, max: Option<u64>) -> Table {
        Table { entries: vec![TableEntry::NULL; size as usize].into_boxed_slice(), max }
    }
}
