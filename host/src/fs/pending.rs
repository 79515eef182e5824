//! A file operation the page cache took and the disk has not: a write or a
//! truncation, waiting for a sync (`durability.rs` keeps them per file; a
//! crash keeps a prefix, `crash_states.rs`, or a reordering, `reorder.rs`,
//! and `misplace.rs` finds the pages they touch). A plain value: applying
//! one to the disk is `durability.rs`'s.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Pending {
    Write { offset: u64, bytes: Vec<u8> },
    SetSize(u64),
}

impl Pending {
    /// Its size for `Prefix`: a write's length, 0 for an atomic truncation.
    pub(super) fn size(&self) -> usize {
        match self {
            Pending::Write { bytes, .. } => bytes.len(),
            Pending::SetSize(_) => 0,
        }
    }
}
