//! File contents: reading, writing and resizing regular files by inode,
//! within the node's disk budget.
//!
//! Offsets are the caller's (the WASI layer keeps per-descriptor offsets and
//! append mode). Contents are sparse (`pages.rs`): writing past the end or
//! extending a file leaves a hole that reads as zeros and costs nothing.
//! Sizes are capped at `MAX_FILE_SIZE` (`FBIG`), ext4's limit with 4 KiB
//! blocks. A write is cut short at the first page the budget cannot hold,
//! and fails with `NOSPC` if not even its first page fits (`space.rs`);
//! overwriting pages a file holds always fits.

use super::faults::DiskOp;
use super::inode::FileData;
use super::inode::Node;
use super::pages::PAGE_BYTES;
use super::{DIR_SIZE, Errno, Fs, Ino};

pub(super) const MAX_FILE_SIZE: u64 = 16 << 40;

impl Fs {
    /// Sets the node's disk size (`faults.disk_bytes`, default
    /// `DEFAULT_DISK_BYTES`), in whole 4 KiB pages. Pages already held stay
    /// held, even past a smaller budget.
    pub fn set_disk_bytes(&mut self, disk_bytes: u64) {
        self.inodes.set_disk_bytes(disk_bytes);
    }

    /// Makes the disk full for now, or gives its space back: while full, a
    /// write that needs a new page and a create fail with ENOSPC (an
    /// overwrite of pages a file holds, a read, an unlink, a rename and a
    /// sync work, as on a full ext4). Survives a crash: it is the disk's.
    pub fn set_full(&mut self, full: bool) {
        self.inodes.set_full(full);
    }

    /// The bytes the page cache of live files holds (whole pages, holes
    /// excluded): what counts against the budget.
    pub fn disk_bytes_used(&self) -> u64 {
        self.inodes.space().used_pages() * PAGE_BYTES
    }

    /// Reads from `offset`; returns 0 at or past the end. `ISDIR` on a
    /// directory.
    pub fn read_at(&mut self, ino: Ino, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        if let Some(n) = self.read_device(ino, buf)? {
            return Ok(n);
        }
        let free_bytes = self.inodes.space().free_pages() * PAGE_BYTES;
        if let Some(n) = self.file_data(ino)?.read_host_range(offset, buf, free_bytes) {
            return n;
        }
        let n = self.inodes.with_file(ino, |pages, _| pages.read(offset, buf))?;
        if n > 0 {
            self.read_faults(&mut buf[..n])?;
        }
        Ok(n)
    }

    /// Writes `data` at `offset`, or as much of it as the disk budget holds.
    pub fn write_at(&mut self, ino: Ino, offset: u64, data: &[u8], now_ns: u64) -> Result<usize, Errno> {
        if self.device(ino)?.is_some() {
            return Ok(data.len()); // every device here swallows writes
        }
        if data.is_empty() {
            // POSIX: a zero-length write changes nothing, not even the size.
            return self.file_data(ino).map(|_| 0);
        }
        offset.checked_add(data.len() as u64).filter(|&end| end <= MAX_FILE_SIZE).ok_or(Errno::FBIG)?;
        // Checks the type, reads a host file and measures the space left
        // before it counts as a disk operation: a full disk fails the
        // checks. A crash in its middle writes only part (durability.rs).
        let fits = self.inodes.with_file(ino, |pages, free_pages| pages.fitting(offset, data.len(), free_pages))?;
        if fits == 0 {
            return Err(Errno::NOSPC);
        }
        let data = &data[..self.begin_write(offset, fits)?];
        self.disk_wrote(ino, offset, data)?;
        self.inodes.with_file(ino, |pages, _| pages.write(offset, data))?;
        self.inodes.get_mut(ino)?.modified(now_ns);
        self.end_op(fits)
    }

    /// The size `stat` reports: contents for a file (a host file's size comes
    /// from the host without reading it), the target's length for a symlink,
    /// a constant for a directory, 0 for a device.
    pub fn size(&mut self, ino: Ino) -> Result<u64, Errno> {
        match &mut self.inodes.get_mut(ino)?.node {
            Node::Dir(_) => Ok(DIR_SIZE),
            Node::Symlink(target) => Ok(target.len() as u64),
            Node::File(data) => data.size(),
            Node::Device(_) => Ok(0),
        }
    }

    /// Truncates or extends a regular file; extending allocates nothing.
    pub fn set_size(&mut self, ino: Ino, size: u64, now_ns: u64) -> Result<(), Errno> {
        if size > MAX_FILE_SIZE {
            return Err(Errno::FBIG);
        }
        // Skips reading a host file only to throw its bytes away.
        if size == 0 {
            self.file_data(ino)?;
        } else {
            self.inodes.with_file(ino, |_, _| ())?;
        }
        self.begin_op(DiskOp::Truncate)?;
        if size == 0 {
            self.inodes.clear_file(ino)?;
        } else {
            self.inodes.with_file(ino, |pages, _| pages.set_len(size))?;
        }
        self.inodes.get_mut(ino)?.modified(now_ns);
        self.disk_resized(ino, size);
        self.end_op(())
    }

    pub(super) fn file_data(&mut self, ino: Ino) -> Result<&mut FileData, Errno> {
        self.inodes.get_mut(ino)?.file_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn write_then_read_back() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"hello world", T0);
        let mut buf = [0; 5];
        assert_eq!(fs.read_at(file, 6, &mut buf), Ok(5));
        assert_eq!(&buf, b"world");
        assert_eq!(fs.write_at(file, 0, b"J", T0), Ok(1));
        assert_eq!(read(&mut fs, "/tmp/f"), b"Jello world");
    }

    #[test]
    fn reads_at_and_past_the_end() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"abc", T0);
        let mut buf = [0; 8];
        assert_eq!(fs.read_at(file, 1, &mut buf), Ok(2));
        assert_eq!(&buf[..2], b"bc");
        assert_eq!(fs.read_at(file, 3, &mut buf), Ok(0));
        assert_eq!(fs.read_at(file, u64::MAX, &mut buf), Ok(0));
    }

    #[test]
    fn writing_past_the_end_zero_fills() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"ab", T0);
        fs.write_at(file, 5, b"z", T0).unwrap();
        assert_eq!(read(&mut fs, "/tmp/f"), b"ab\0\0\0z");
    }

    #[test]
    fn empty_write_changes_nothing() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"ab", T0);
        assert_eq!(fs.write_at(file, 100, b"", T0 + 1), Ok(0));
        let st = fs.stat(file).unwrap();
        assert_eq!((st.size, st.mtim), (2, T0));
    }

    #[test]
    fn writes_update_mtime_and_ctime() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"ab", T0);
        fs.write_at(file, 0, b"x", T0 + 3).unwrap();
        let st = fs.stat(file).unwrap();
        assert_eq!((st.atim, st.mtim, st.ctim), (T0, T0 + 3, T0 + 3));
    }

    #[test]
    fn set_size_truncates_and_extends() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"abcdef", T0);
        fs.set_size(file, 2, T0 + 1).unwrap();
        assert_eq!(read(&mut fs, "/tmp/f"), b"ab");
        fs.set_size(file, 4, T0 + 2).unwrap();
        assert_eq!(read(&mut fs, "/tmp/f"), b"ab\0\0");
        assert_eq!(fs.stat(file).unwrap().mtim, T0 + 2);
        fs.set_size(file, 0, T0).unwrap();
        assert_eq!(fs.size(file), Ok(0));
    }

    #[test]
    fn sizes_beyond_the_cap_are_fbig() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"", T0);
        assert_eq!(fs.write_at(file, MAX_FILE_SIZE, b"x", T0), Err(Errno::FBIG));
        assert_eq!(fs.write_at(file, u64::MAX, b"x", T0), Err(Errno::FBIG));
        assert_eq!(fs.set_size(file, MAX_FILE_SIZE + 1, T0), Err(Errno::FBIG));
        assert_eq!(fs.size(file), Ok(0));
    }

    #[test]
    fn data_calls_on_directories_and_symlinks() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.symlink("target", root, "/l", T0).unwrap();
        let link = fs.lookup(root, "/l", false).unwrap();
        let mut buf = [0; 4];
        assert_eq!(fs.read_at(root, 0, &mut buf), Err(Errno::ISDIR));
        assert_eq!(fs.write_at(root, 0, b"x", T0), Err(Errno::ISDIR));
        assert_eq!(fs.write_at(root, 0, b"", T0), Err(Errno::ISDIR));
        assert_eq!(fs.set_size(root, 0, T0), Err(Errno::ISDIR));
        assert_eq!(fs.read_at(link, 0, &mut buf), Err(Errno::INVAL));
        assert_eq!(fs.size(link), Ok(6));
        assert_eq!(fs.read_at(Ino(999), 0, &mut buf), Err(Errno::BADF));
    }
}
