//! The guest's file descriptor table. Numbers are allocated lowest-free, so
//! they are deterministic and match what a POSIX program expects; 0-2 are the
//! standard streams and the preopened directories follow from 3. Allocation
//! is logarithmic (a set of freed numbers below the high-water mark), not a
//! scan from 0: a guest holding 100,000 files open would otherwise make each
//! open linear and the run quadratic.
//!
//! A process holds at most `MAX_OPEN_FDS` descriptors, as RLIMIT_NOFILE
//! bounds one on Linux: past it an open, accept, listen or dial fails with
//! EMFILE, checked before it has any effect (`room`), and a close frees a
//! slot. Why 65,536 is docs/fd-limit.md.

use crate::fs::{Errno, Ino};
use crate::net::{EndpointId, ListenerId, UdpId};
use std::collections::{BTreeMap, BTreeSet};

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
    /// A UDP socket of the simulated network.
    Udp(UdpId),
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
    /// Numbers below `next` that are not in use.
    free: BTreeSet<u32>,
    /// One past the highest number ever handed out.
    next: u32,
}

/// The most descriptors one process holds (its RLIMIT_NOFILE); numbers stay
/// below it, since they are allocated lowest-free.
pub const MAX_OPEN_FDS: usize = 65_536;

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
            table.insert(kind, 0).expect("a new table has room");
        }
        table
    }

    /// `MFILE` if no descriptor can be added: what a call that would make
    /// one checks before it does anything else, as Linux does.
    pub fn room(&self) -> Result<(), Errno> {
        if self.entries.len() < MAX_OPEN_FDS { Ok(()) } else { Err(Errno::MFILE) }
    }

    /// Add a descriptor with every right at the lowest free number.
    pub fn insert(&mut self, kind: FdKind, flags: u16) -> Result<u32, Errno> {
        self.insert_with_rights(kind, flags, ALL_RIGHTS, ALL_RIGHTS)
    }

    /// Add a descriptor with the given rights at the lowest free number.
    pub fn insert_with_rights(
        &mut self,
        kind: FdKind,
        flags: u16,
        rights_base: u64,
        rights_inheriting: u64,
    ) -> Result<u32, Errno> {
        self.room()?;
        let fd = match self.free.pop_first() {
            Some(fd) => fd,
            None => {
                let fd = self.next;
                self.next = self.next.checked_add(1).expect("fewer than 2^32 descriptors");
                fd
            }
        };
        debug_assert!(!self.entries.contains_key(&fd), "fd {fd} handed out twice");
        self.entries.insert(fd, FdEntry { kind, flags, rights_base, rights_inheriting });
        Ok(fd)
    }

    pub fn get(&self, fd: u32) -> Option<&FdEntry> {
        self.entries.get(&fd)
    }

    /// Each preopened directory: its descriptor and guest path.
    pub fn preopens(&self) -> impl Iterator<Item = (u32, &str)> {
        self.entries.iter().filter_map(|(fd, e)| match &e.kind {
            FdKind::Dir { preopen: Some(path), .. } => Some((*fd, path.as_str())),
            _ => None,
        })
    }

    pub fn get_mut(&mut self, fd: u32) -> Option<&mut FdEntry> {
        self.entries.get_mut(&fd)
    }

    pub fn remove(&mut self, fd: u32) -> Option<FdEntry> {
        let entry = self.entries.remove(&fd)?;
        self.free.insert(fd);
        Some(entry)
    }

    /// Removes every descriptor, in number order.
    pub fn drain(&mut self) -> Vec<FdKind> {
        self.free.clear();
        self.next = 0;
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
        assert_eq!(table.insert(dir.clone(), 0), Ok(3));
        let read_only = table.insert_with_rights(dir.clone(), 0, RIGHT_FD_READ, 0).unwrap();
        assert_eq!(read_only, 4);
        let entry = table.get(read_only).unwrap();
        assert!(entry.can_read() && !entry.can_write());
        let entry = table.get(3).unwrap();
        assert!(entry.can_read() && entry.can_write(), "insert gives every right");
        table.remove(3);
        assert_eq!(table.insert(dir.clone(), 0), Ok(3));
        assert_eq!(table.insert(dir, 0), Ok(5));
    }

    /// Issue 19: keeping 100,000 files open took 192 s (each open scanned
    /// from 0); now the table holds at most `MAX_OPEN_FDS`, EMFILE past it,
    /// and lowest-free still holds after closes in any order.
    #[test]
    #[allow(clippy::disallowed_methods)] // timing the test itself, not the simulation
    fn issue_19_descriptors_up_to_the_limit_take_no_time_and_past_it_are_emfile() {
        let started = std::time::Instant::now();
        let mut table = FdTable::with_stdio();
        let file = |n| FdKind::File { ino: Ino(n), offset: 0 };
        for n in 3..MAX_OPEN_FDS as u64 {
            assert_eq!(table.insert(file(n), 0), Ok(n as u32));
        }
        assert_eq!(table.room(), Err(Errno::MFILE));
        assert_eq!(table.insert(file(0), 0), Err(Errno::MFILE));
        for fd in [50_000, 7, 65_535] {
            table.remove(fd).unwrap();
        }
        assert!(table.remove(7).is_none());
        let reopened = [table.insert(file(0), 0), table.insert(file(0), 0), table.insert(file(0), 0)];
        assert_eq!(reopened, [Ok(7), Ok(50_000), Ok(65_535)]);
        assert_eq!(table.insert(file(0), 0), Err(Errno::MFILE));
        for _ in 0..100_000 {
            table.remove(9).unwrap();
            assert_eq!(table.insert(file(0), 0), Ok(9));
        }
        let elapsed = started.elapsed();
        assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
    }
}
