//! The disk budget of one node (`faults.disk_bytes`, default 1 GiB): how
//! many 4 KiB pages the page cache of its live files may hold. Holes cost
//! nothing; an unlinked file still open counts until its last close; a
//! truncation or the removal of a file's last name and hold gives its pages
//! back. A write that would need more pages than are free is cut short at
//! the first page that does not fit, and a write that fits nothing fails
//! with ENOSPC (`data.rs`), so a guest filling its disk gets ENOSPC long
//! before it can exhaust the host's memory.
//!
//! The same budget bounds the number of inodes, as ext4's inode ratio does
//! (one per 16 KiB of disk, at least 1,024): a create past it fails with
//! ENOSPC, so millions of empty files or directories cannot exhaust the
//! host's memory either.
//!
//! This file only counts; `Inodes` charges every change of a file's pages
//! here (inode.rs), so the count cannot drift from the files.
//!
//! Known warts: the durable copy of a file (durability.rs) and its pending
//! writes are not counted. They share pages with the page cache until it
//! diverges, so a node's file data costs the host at most about twice its
//! budget plus pending writes (each file's bounded by writeback). A crash
//! can bring back more than the budget (torn pending writes of a file the
//! page cache had truncated); the node then gets ENOSPC until it frees some.

use super::pages::PAGE_BYTES;

/// A node's disk size when the config does not set `disk_bytes`.
pub const DEFAULT_DISK_BYTES: u64 = 1 << 30;

/// Disk bytes per inode (`mke2fs`'s default inode ratio).
const BYTES_PER_INODE: u64 = 16 << 10;

/// The fewest inodes a disk has, however small: a tiny `disk_bytes` still
/// lets a program create its files and fill them.
const MIN_INODES: u64 = 1024;

#[derive(Clone, Copy, Debug)]
pub(super) struct Space {
    limit_pages: u64,
    used_pages: u64,
    /// The disk is full for now (`Fs::set_full`): no page and no inode is free.
    full: bool,
}

impl Space {
    /// A budget of `disk_bytes`, rounded down to whole pages.
    pub(super) fn new(disk_bytes: u64) -> Space {
        Space { limit_pages: disk_bytes / PAGE_BYTES, used_pages: 0, full: false }
    }

    /// The same budget and condition, holding nothing yet.
    pub(super) fn emptied(&self) -> Space {
        Space { used_pages: 0, ..*self }
    }

    pub(super) fn free_pages(&self) -> u64 {
        if self.full {
            return 0;
        }
        self.limit_pages.saturating_sub(self.used_pages)
    }

    pub(super) fn full(&self) -> bool {
        self.full
    }

    pub(super) fn set_full(&mut self, full: bool) {
        self.full = full;
    }

    pub(super) fn used_pages(&self) -> u64 {
        self.used_pages
    }

    pub(super) fn limit_bytes(&self) -> u64 {
        self.limit_pages * PAGE_BYTES
    }

    /// How many inodes the disk holds.
    pub(super) fn limit_inodes(&self) -> u64 {
        (self.limit_bytes() / BYTES_PER_INODE).max(MIN_INODES)
    }

    /// A file went from holding `before` pages to `after`.
    pub(super) fn charge(&mut self, before: u64, after: u64) {
        debug_assert!(self.used_pages >= before, "a file gives back pages it was not charged for");
        self.used_pages = self.used_pages - before + after;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::{DiskFaults, Errno, Fs};
    use super::*;
    use crate::random::{Purpose, RandomStream};

    const P: u64 = PAGE_BYTES;

    /// A file system whose disk holds `pages` pages.
    fn disk_of(pages: u64) -> Fs {
        let mut fs = Fs::new(T0);
        fs.set_disk_bytes(pages * P);
        fs
    }

    /// Issue 19: `ftruncate` to 1 GiB allocated the gigabyte.
    #[test]
    fn sparse_files_cost_nothing() {
        let mut fs = Fs::new(T0);
        for n in 0..100 {
            let file = write(&mut fs, &format!("/tmp/f{n}"), b"", T0);
            fs.set_size(file, 1 << 30, T0).unwrap();
        }
        assert_eq!(fs.disk_bytes_used(), 0, "100 files of 1 GiB, all holes");
        let file = fs.lookup(fs.root(), "/tmp/f0", true).unwrap();
        assert_eq!(fs.write_at(file, (1 << 30) - 1, b"x", T0), Ok(1));
        assert_eq!(fs.write_at(file, (1 << 40) + 7, b"y", T0), Ok(1), "a seek far past the end");
        assert_eq!((fs.disk_bytes_used(), fs.size(file)), (2 * P, Ok((1 << 40) + 8)));
        let mut buf = [9; 16];
        assert_eq!(fs.read_at(file, 1 << 39, &mut buf), Ok(16));
        assert_eq!(buf, [0; 16]);
    }

    #[test]
    fn a_write_that_does_not_fit_is_cut_short_and_the_next_fails() {
        let mut fs = disk_of(3);
        let file = write(&mut fs, "/tmp/f", b"", T0);
        let data = vec![1; 5 * P as usize];
        assert_eq!(fs.write_at(file, 10, &data, T0), Ok(3 * P as usize - 10), "cut at the 4th page");
        assert_eq!(fs.write_at(file, 3 * P, b"z", T0), Err(Errno::NOSPC));
        let other = write(&mut fs, "/tmp/g", b"", T0);
        assert_eq!(fs.write_at(other, 0, b"z", T0), Err(Errno::NOSPC), "the disk is shared by all files");
        assert_eq!(fs.write_at(file, 0, &data[..3 * P as usize], T0), Ok(3 * P as usize), "overwrites fit");
        assert_eq!((fs.size(file), fs.disk_bytes_used()), (Ok(3 * P), 3 * P));
    }

    #[test]
    fn truncate_and_unlink_give_space_back_an_open_file_counts_until_closed() {
        let mut fs = disk_of(2);
        let file = write(&mut fs, "/tmp/f", &[1; 2 * P as usize], T0);
        fs.set_size(file, P, T0).unwrap();
        let other = write(&mut fs, "/tmp/g", b"g", T0);
        assert_eq!(fs.write_at(other, P, b"g", T0), Err(Errno::NOSPC));
        fs.retain(file);
        fs.unlink(fs.root(), "/tmp/f", T0).unwrap();
        assert_eq!(fs.write_at(other, P, b"g", T0), Err(Errno::NOSPC), "still open");
        fs.release(file);
        assert_eq!(fs.write_at(other, P, b"g", T0), Ok(1), "closed: its page came back");
        fs.unlink(fs.root(), "/tmp/g", T0).unwrap();
        assert_eq!(fs.disk_bytes_used(), 0);
    }

    #[test]
    fn a_full_disk_fails_before_counting_a_disk_operation() {
        let mut fs = disk_of(1);
        fs.start_disk_model(DiskFaults::none());
        let file = write(&mut fs, "/tmp/f", &[1; P as usize], T0);
        let ops = fs.disk_ops();
        assert_eq!(fs.write_at(file, P, b"x", T0), Err(Errno::NOSPC));
        assert_eq!(fs.disk_ops(), ops, "a failed check counts nothing (durability.rs, rule 5)");
    }

    #[test]
    fn a_crash_counts_what_survived() {
        let mut fs = disk_of(4);
        fs.start_disk_model(DiskFaults::none());
        let kept = write(&mut fs, "/tmp/kept", &[1; 2 * P as usize], T0);
        fs.sync(kept).unwrap();
        let tmp = fs.lookup(fs.root(), "/tmp", true).unwrap();
        fs.sync(tmp).unwrap();
        write(&mut fs, "/tmp/lost", &[2; 2 * P as usize], T0);
        assert_eq!(fs.disk_bytes_used(), 4 * P);
        fs.crash(&mut RandomStream::new(0, Purpose::TornWrites, "n", 1));
        assert_eq!(fs.disk_bytes_used(), 2 * P, "the never-synced file is gone, and its pages");
        assert_eq!(read(&mut fs, "/tmp/kept"), vec![1; 2 * P as usize]);
    }

    /// `Fs::set_full`: appends and creates fail with NOSPC; reads,
    /// overwrites, unlinks and syncs work; a crash keeps the condition; the
    /// space comes back when it is cleared.
    #[test]
    fn a_disk_made_full_refuses_new_pages_and_inodes_until_cleared() {
        let mut fs = Fs::new(T0);
        fs.start_disk_model(DiskFaults::none());
        let file = write(&mut fs, "/tmp/f", &[1; P as usize], T0);
        write(&mut fs, "/tmp/old", b"gone soon", T0);
        fs.set_full(true);
        assert_eq!(fs.write_at(file, P, b"x", T0), Err(Errno::NOSPC), "an append needs a new page");
        assert_eq!(fs.open(fs.root(), "/tmp/g", CREATE, true, T0), Err(Errno::NOSPC), "a create needs an inode");
        assert_eq!(fs.mkdir(fs.root(), "/tmp/d", T0), Err(Errno::NOSPC));
        assert_eq!(fs.write_at(file, 0, b"over", T0), Ok(4), "an overwrite of a held page fits");
        assert_eq!(&read(&mut fs, "/tmp/f")[..5], b"over\x01");
        assert_eq!(fs.sync(file), Ok(()));
        assert_eq!(fs.unlink(fs.root(), "/tmp/old", T0), Ok(()));
        fs.crash(&mut RandomStream::new(0, Purpose::TornWrites, "n", 1));
        let file = fs.lookup(fs.root(), "/tmp/f", true).unwrap();
        assert_eq!(fs.write_at(file, P, b"x", T0), Err(Errno::NOSPC), "still full after a crash");
        fs.set_full(false);
        assert_eq!(fs.write_at(file, P, b"x", T0), Ok(1));
        assert!(fs.open(fs.root(), "/tmp/g", CREATE, true, T0).is_ok());
    }

    /// A guest writing until the disk is full gets NOSPC at the budget and
    /// holds no more than it.
    #[test]
    fn filling_the_disk_stops_at_the_budget() {
        let mut fs = disk_of(256);
        let chunk = vec![7; 3 * P as usize + 100];
        let mut written = 0u64;
        'fill: for n in 0.. {
            let file = write(&mut fs, &format!("/tmp/f{n}"), b"", T0);
            for i in 0..4 {
                match fs.write_at(file, i * chunk.len() as u64, &chunk, T0) {
                    Ok(k) => written += k as u64,
                    Err(e) => {
                        assert_eq!(e, Errno::NOSPC);
                        break 'fill;
                    }
                }
            }
        }
        assert_eq!(fs.disk_bytes_used(), 256 * P);
        assert!(written <= 256 * P, "{written}: each file's last page is partly used");
    }

    /// Issue 19: inodes cost host memory but no pages, so a guest creating
    /// empty files or directories without end was bounded by nothing. The
    /// inode table (one per 16 KiB of disk, at least 1,024) fills up with
    /// ENOSPC, which is not a disk operation, and an unlink gives one back.
    #[test]
    fn creates_past_the_inode_table_are_enospc() {
        let mut fs = disk_of(256 * 16 / 4);
        fs.start_disk_model(DiskFaults::none());
        let limit = 1024;
        let mut made = 0;
        let first_failure = (0..2 * limit)
            .find_map(|n| {
                let created = if n % 2 == 0 {
                    fs.mkdir(fs.root(), &format!("/tmp/d{n}"), T0)
                } else {
                    fs.open(fs.root(), &format!("/tmp/f{n}"), CREATE, true, T0).map(|_| ())
                };
                made += created.is_ok() as u64;
                created.err()
            })
            .unwrap();
        assert_eq!(first_failure, Errno::NOSPC);
        assert!(made > limit - 16 && made < limit, "{made}: the root, /tmp and the devices hold the rest");
        let ops = fs.disk_ops();
        assert!(ops > limit / 2, "the model counts the creates");
        assert_eq!(fs.mkdir(fs.root(), "/tmp/one-more", T0), Err(Errno::NOSPC));
        assert_eq!(fs.disk_ops(), ops, "a create that cannot happen is not a disk operation");
        fs.rmdir(fs.root(), "/tmp/d0", T0).unwrap();
        fs.mkdir(fs.root(), "/tmp/one-more", T0).unwrap();
    }

    #[test]
    fn the_inode_table_grows_with_the_disk() {
        assert_eq!(Space::new(DEFAULT_DISK_BYTES).limit_inodes(), 65_536, "ext4's count for 1 GiB");
        assert_eq!(Space::new(4 * P).limit_inodes(), MIN_INODES);
    }
}
