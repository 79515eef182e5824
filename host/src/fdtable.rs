//! The guest's file descriptor table. Numbers are allocated lowest-free, so
//! they are deterministic and match what a POSIX program expects; 0-2 are the
//! standard streams and the preopened directories follow from 3.

use crate::fs::Ino;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdKind {
    Stdin,
    Stdout,
    Stderr,
    File { ino: Ino, offset: u64 },
    /// A directory; `preopen` is the guest path it was preopened as.
    Dir { ino: Ino, preopen: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdEntry {
    pub kind: FdKind,
    /// WASI fdflags (APPEND, NONBLOCK, ...).
    pub flags: u16,
    pub rights_base: u64,
    pub rights_inheriting: u64,
}

#[derive(Debug, Default)]
pub struct FdTable {
    entries: BTreeMap<u32, FdEntry>,
}

/// Every right: the simulator does not restrict what a descriptor may do.
pub const ALL_RIGHTS: u64 = (1 << 30) - 1;

impl FdTable {
    pub fn with_stdio() -> FdTable {
        let mut table = FdTable::default();
        for kind in [FdKind::Stdin, FdKind::Stdout, FdKind::Stderr] {
            table.insert(kind, 0);
        }
        table
    }

    /// Add a descriptor at the lowest free number.
    pub fn insert(&mut self, kind: FdKind, flags: u16) -> u32 {
        let fd = (0..).find(|n| !self.entries.contains_key(n)).expect("a free descriptor");
        self.entries.insert(fd, FdEntry { kind, flags, rights_base: ALL_RIGHTS, rights_inheriting: ALL_RIGHTS });
        fd
    }

    pub fn get(&self, fd: u32) -> Option<&FdEntry> {
        self.entries.get(&fd)
    }

    pub fn get_mut(&mut self, fd: u32) -> Option<&mut FdEntry> {
        self.entries.get_mut(&fd)
    }

    pub fn remove(&mut self, fd: u32) -> Option<FdEntry> {
        self.entries.remove(&fd)
    }
}
