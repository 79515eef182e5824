//! The file access that `crate::mmap` needs beyond reads and writes through
//! descriptors: a mapping's pages move between file and memory without the
//! disk operations, faults and crash points of a system call, the way the
//! kernel's page cache serves them.
//!
//! A change written back is a page-cache write like any other (pending until
//! a sync, torn or lost by a crash as `durability.rs` says), within the disk
//! budget. This module does not know where mappings live or when to write
//! them back.

use super::inode::{FileData, Node};
use super::{Errno, Fs, Ino};

impl Fs {
    /// Reads file `ino` from `offset` into `buf` (short at the end) with no
    /// read fault: what a mapped page holds.
    pub fn read_mapped(&mut self, ino: Ino, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        if let Some(n) = self.file_data(ino)?.read_host_range(offset, buf, 0) {
            return n;
        }
        self.inodes.with_file(ino, |pages, _| pages.read(offset, buf))
    }

    /// Writes a mapping's changed bytes into the page cache of file `ino`,
    /// as much as the disk budget holds.
    pub fn write_mapped(&mut self, ino: Ino, offset: u64, data: &[u8], now_ns: u64) -> Result<usize, Errno> {
        let fits = self.inodes.with_file(ino, |pages, free_pages| pages.fitting(offset, data.len(), free_pages))?;
        let data = &data[..fits];
        self.disk_wrote(ino, offset, data)?;
        self.inodes.with_file(ino, |pages, _| pages.write(offset, data))?;
        self.inodes.get_mut(ino)?.modified(now_ns);
        Ok(fits)
    }

    /// Whether `ino` is a host file not yet read into the page cache, which
    /// nothing may write.
    pub fn is_unread_host_file(&self, ino: Ino) -> bool {
        matches!(self.inodes.get(ino).map(|i| &i.node), Ok(Node::File(FileData::Host { .. })))
    }
}
