//! `Blob`: bytes an Artifact holds (its own tables, and the data segments of
//! the `ModuleInfo` inside it), either owned (fresh from the compiler or a
//! copy) or a range of the mapped cache entry they were decoded from. Large
//! tables (trap sites, source locations, data segments) are kept as blobs so a
//! cache hit decodes them without copying or allocating per item. A leaf: the
//! module parser and the Artifact both build on it.

use std::ops::{Deref, Range};
use std::sync::Arc;

#[derive(Clone)]
pub struct Blob(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u8>),
    /// A range of a read-only mapping of a verified, never-modified file.
    Mapped(Arc<memmap2::Mmap>, Range<usize>),
}

impl Blob {
    pub fn owned(bytes: Vec<u8>) -> Blob {
        Blob(Repr::Owned(bytes))
    }

    /// `range` of `map`; panics if the range is outside the mapping.
    pub fn mapped(map: Arc<memmap2::Mmap>, range: Range<usize>) -> Blob {
        assert!(range.end <= map.len(), "blob range outside its mapping");
        Blob(Repr::Mapped(map, range))
    }
}

impl Default for Blob {
    fn default() -> Blob {
        Blob::owned(Vec::new())
    }
}

impl Deref for Blob {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(bytes) => bytes,
            Repr::Mapped(map, range) => &map[range.clone()],
        }
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Blob) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Blob({} bytes)", self.len())
    }
}
