//! The funcref table. Each entry carries the callee's code address, its vmctx
//! (so an entry can point into another instance) and its signature id, which
//! `call_indirect` compares; signature 0 marks a null entry.
//!
//! Entries live in `UnsafeCell`s: compiled code reads them through the raw
//! pointer in the vmctx while the runtime writes them through `&Table` (a table
//! is shared by every instance that imports it). No reference to an entry is
//! ever handed out, only copies, and `Table` is neither `Send` nor `Sync`, so a
//! write can never overlap a read.
//!
//! An instance whose functions sit in a table another instance shares clears
//! them when it is dropped (`clear_vmctx`): a later `call_indirect` to such a
//! slot traps as uninitialised instead of calling into freed memory. A failed
//! instantiation instead hands its keep-alive to the table (`keep_alive`), as
//! the spec keeps the functions it already wrote callable.

use crate::error::{Error, Result};
use crate::runtime::vmctx::{TableEntry, VmCtx};
use std::any::Any;
use std::cell::{RefCell, UnsafeCell};
use std::rc::Rc;

/// The most entries a table may have: 2^22 (96 MiB of entries). Go's wasip1
/// binaries need one entry per function reached indirectly, tens of thousands
/// for the largest programs, so this is far above any real module and far below
/// what would exhaust a host running many nodes.
pub const MAX_ENTRIES: u64 = 1 << 22;

/// A table of fixed size (LIME1 has no table.grow).
pub struct Table {
    entries: Box<[UnsafeCell<TableEntry>]>,
    /// The declared maximum, which an importer's declared maximum must not be
    /// below (import matching compares limits, not just the current size).
    max: Option<u64>,
    /// Instances that must live as long as the table (see the module doc).
    owners: RefCell<Vec<Rc<dyn Any>>>,
}

impl Table {
    /// A table of `size` null entries; an error past `MAX_ENTRIES` or when
    /// the allocation fails.
    pub fn new(size: u64, max: Option<u64>) -> Result<Table> {
        if size > MAX_ENTRIES {
            return Err(Error::Link(format!("a table of {size} entries exceeds the limit of {MAX_ENTRIES}")));
        }
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(size as usize)
            .map_err(|e| Error::Os(format!("allocating a table of {size} entries: {e}")))?;
        entries.extend((0..size).map(|_| UnsafeCell::new(TableEntry::NULL)));
        Ok(Table { entries: entries.into_boxed_slice(), max, owners: RefCell::new(Vec::new()) })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn max(&self) -> Option<u64> {
        self.max
    }

    /// A copy of entry `index`, or None past the end.
    pub fn get(&self, index: usize) -> Option<TableEntry> {
        let cell = self.entries.get(index)?;
        // SAFETY: no reference to an entry exists (see the module doc) and the
        // table is !Sync, so nothing writes it while this copy is taken.
        Some(unsafe { *cell.get() })
    }

    /// Set entry `index`; None (and no change) past the end. Crate-only: an
    /// entry's vmctx must be a live instance's, which only the runtime knows.
    pub(crate) fn set(&self, index: usize, entry: TableEntry) -> Option<()> {
        let cell = self.entries.get(index)?;
        // SAFETY: as in `get`; compiled code reading the table runs on this
        // thread and is not running while the runtime executes this.
        unsafe { *cell.get() = entry };
        Some(())
    }

    /// The entries' address, for the vmctx.
    pub(crate) fn base(&self) -> *const TableEntry {
        // `UnsafeCell<T>` has the layout of `T`.
        self.entries.as_ptr() as *const TableEntry
    }

    /// Null every entry that calls into `vmctx` (its instance is going away).
    pub(crate) fn clear_vmctx(&self, vmctx: *mut VmCtx) {
        for index in 0..self.len() {
            if self.get(index).is_some_and(|e| e.vmctx == vmctx) {
                self.set(index, TableEntry::NULL);
            }
        }
    }

    /// Keep `owner` alive as long as the table.
    pub(crate) fn keep_alive(&self, owner: Rc<dyn Any>) {
        self.owners.borrow_mut().push(owner);
    }
}
