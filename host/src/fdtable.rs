//! The guest's file descriptor table. Numbers are allocated lowest-free, so
//! they are deterministic and match what a POSIX program expects; 0-2 are the
//! standard streams and the preopened directories follow from 3.

use crate::fs::Ino;
use crate::net::{EndpointId, ListenerId};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdKind {
    Stdin,
    Stdout,
    Stderr,
    File {
        ino: Ino,
        offset: u64,
    },
    /// A directory; `preopen` is the guest path it was preopened as.
    Dir {
        ino: Ino,
        preopen: Option<String>,
    },
    /// A listening TCP socket of the simulated network.
    Listener(ListenerId),
    /// One end of a simulated TCP connection.
    Socket(EndpointId),
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

/// Every right: what the standard streams and the preopen get.
pub const ALL_RIGHTS: u64 = (1 << 30) - 1;
/// The two rights the simulator enforces, because they are the access mode
/// of POSIX open(2) (Go's os.OpenFile asks for them through O_RDONLY,
/// O_WRONLY and O_RDWR, and its tests check that the other direction fails).
/// Other rights are recorded and reported, not checked.
pub const RIGHT_FD_READ: u64 = 1 << 1;
pub const RIGHT_FD_WRITE: u64 = 1 << 6;

impl FdEntry {
    pub fn can_read(&self) -> bool {
        self.rights_base & RIGHT_FD_READ != 0
    }

    pub fn can_write(&self) -> bool {
        self.rights_base & RIGHT_FD_WRITE != 0
    }
}

impl FdTable {
    pub fn with_stdio() -> FdTable {
        let mut table = FdTable::default();
        for kind in [FdKind::Stdin, FdKind::Stdout, FdKind::Stderr] {
            table.insert(kind, 0);
        }
        table
    }

    /// Add a descriptor with every right at the lowest free number.
    pub fn insert(&mut self, kind: FdKind, flags: u16) -> u32 {
        self.insert_with_rights(kind, flags, ALL_RIGHTS, ALL_RIGHTS)
    }

    /// Add a descriptor with the given rights at the lowest free number.
    pub fn insert_with_rights(&mut self, kind: FdKind, flags: u16, rights_base: u64, rights_inheriting: u64) -> u32 {
        let fd = (0..).find(|n| !self.entries.contains_key(n)).expect("a free descriptor");
        self.entries.insert(fd, FdEntry { kind, flags, rights_base, rights_inheriting });
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

    /// Removes every descriptor, in number order.
    pub fn drain(&mut self) -> Vec<FdKind> {
        std::mem::take(&mut self.entries).into_values().map(|e| e.kind).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_lowest_free_and_rights_are_kept() {
        let mut table = FdTable::with_stdio();
        let dir = FdKind::Dir { ino: Ino(1), preopen: None };
        assert_eq!(table.insert(dir.clone(), 0), 3);
        let read_only = table.insert_with_rights(dir.clone(), 0, RIGHT_FD_READ, 0);
        assert_eq!(read_only, 4);
        let entry = table.get(read_only).unwrap();
        assert!(entry.can_read() && !entry.can_write());
        let entry = table.get(3).unwrap();
        assert!(entry.can_read() && entry.can_write(), "insert gives every right");
        table.remove(3);
        assert_eq!(table.insert(dir, 0), 3);
    }
}
