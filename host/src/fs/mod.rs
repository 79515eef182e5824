//! The simulated file system of one node: an in-memory POSIX-like tree of
//! directories, regular files and symlinks, optionally laid over host
//! directories that are read lazily and never written (`host_mount.rs`).
//!
//! Everything is deterministic: listings are sorted by name, inode numbers
//! follow the order of creation (or of first lookup, for host entries), and
//! times come only from the `now_ns` the caller passes (virtual time); the
//! real clock is never read. Reads update a file's access time as Linux's
//! default `relatime` does (`accessed`); `set_times` sets any time.
//!
//! Every `Fs` starts with `/tmp` (empty, writable, for `t.TempDir()`) and
//! `/dev` with `null` and `zero` (`device.rs`).
//!
//! File contents are sparse 4 KiB pages (`pages.rs`), and the pages the
//! live files hold count against the node's disk budget (`space.rs`,
//! `faults.disk_bytes`): past it writes are cut short, then ENOSPC.
//!
//! This module does not know about file descriptors, rights, offsets,
//! append mode, readdir cookies or WASI memory layouts: the WASI layer owns
//! those and holds inodes through `retain`/`release`. Until
//! `start_disk_model` every change is final at once; after it the tree is a
//! page cache over a disk that syncs and crashes as `durability.rs` (the
//! contract) says, with faults from `faults.rs`.

mod crash_states;
mod data;
mod device;
mod durability;
#[cfg(test)]
mod durability_tests;
mod errno;
mod faults;
mod host_mount;
mod inode;
pub mod knobs;
mod mapped;
mod misplace;
mod namespace;
mod open;
mod pages;
mod path;
mod pending;
mod reorder;
mod space;
#[cfg(test)]
mod testutil;

pub use crash_states::{Choice, ChoiceOf, CrashSpace};
pub use durability::{CrashReport, FileCrash};
pub use errno::Errno;
pub use faults::{DiskConfig, DiskFault, DiskFaultKind, DiskFaults, DiskOp, DiskStreams, Mutant, Prefix};
pub use host_mount::{MountError, MountFailure};
pub use reorder::FsModel;
pub use space::DEFAULT_DISK_BYTES;

use inode::{Dir, Inodes, Node};

/// An inode number. Never reused within one `Fs`, so a stale number gives
/// `BADF` rather than another file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ino(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    Directory,
    RegularFile,
    SymbolicLink,
    CharacterDevice,
}

impl FileType {
    /// The WASI preview1 `filetype` code, as used in `filestat`, `fdstat`
    /// and `dirent`.
    pub fn wasi_code(self) -> u8 {
        match self {
            FileType::Directory => 3,
            FileType::RegularFile => 4,
            FileType::SymbolicLink => 7,
            FileType::CharacterDevice => 2,
        }
    }
}

/// What `stat` reports; times are virtual nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub ino: Ino,
    pub filetype: FileType,
    pub nlink: u64,
    pub size: u64,
    pub atim: u64,
    pub mtim: u64,
    pub ctim: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub ino: Ino,
    pub filetype: FileType,
}

/// The `path_open` oflags this layer acts on (access modes are the WASI
/// layer's business).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenFlags {
    pub create: bool,
    pub exclusive: bool,
    pub truncate: bool,
    pub directory: bool,
}

pub struct Fs {
    inodes: Inodes,
    /// The fixed time stamped on every host entry: the creation time of the
    /// `Fs`, because host mtimes differ between machines.
    host_time: u64,
    /// The disk under the page cache, once `start_disk_model` was called.
    disk: Option<Box<durability::Durability>>,
}

/// `Fs::root()`: inode numbering starts here.
const ROOT: Ino = Ino(1);

/// What `stat` reports as the size of a directory (as ext4 does): a constant,
/// so it cannot leak how entries are stored.
const DIR_SIZE: u64 = 4096;

impl Fs {
    /// A new tree: `/`, an empty writable `/tmp` and `/dev` with its devices,
    /// all stamped `now_ns`.
    pub fn new(now_ns: u64) -> Fs {
        let mut fs = Fs { inodes: Inodes::with_root(ROOT, now_ns), host_time: now_ns, disk: None };
        let tmp = fs.inodes.alloc(Node::Dir(Dir::new(None)), now_ns);
        fs.inodes.attach(ROOT, "tmp".to_string(), tmp).expect("the root of a new Fs is a directory");
        fs.make_devices(now_ns).expect("the root of a new Fs is a directory");
        fs
    }

    pub fn root(&self) -> Ino {
        ROOT
    }

    /// Creates `/etc` (if missing) and the file `/etc/<name>` holding
    /// `contents`: configuration the world hands a node (net_overlay's
    /// `hosts`), written before the disk model starts so it is durable.
    pub fn install_etc(&mut self, name: &str, contents: &str, now_ns: u64) -> Result<(), Errno> {
        match self.mkdir(ROOT, "/etc", now_ns) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(e),
        }
        let flags = OpenFlags { create: true, exclusive: false, truncate: true, directory: false };
        let ino = self.open(ROOT, &format!("/etc/{name}"), flags, true, now_ns)?;
        self.write_at(ino, 0, contents.as_bytes(), now_ns).map(drop)
    }

    pub fn stat(&mut self, ino: Ino) -> Result<Stat, Errno> {
        let size = self.size(ino)?;
        let nlink = self.nlink(ino)?;
        let inode = self.inodes.get(ino)?;
        Ok(Stat { ino, filetype: inode.filetype(), nlink, size, atim: inode.atim, mtim: inode.mtim, ctim: inode.ctim })
    }

    /// Sets the given times (WASI's `*_NOW` flags arrive here as
    /// `Some(now_ns)`); the inode's ctime becomes `now_ns`, as utimensat does.
    pub fn set_times(&mut self, ino: Ino, atim: Option<u64>, mtim: Option<u64>, now_ns: u64) -> Result<(), Errno> {
        let inode = self.inodes.get_mut(ino)?;
        inode.atim = atim.unwrap_or(inode.atim);
        inode.mtim = mtim.unwrap_or(inode.mtim);
        inode.ctim = now_ns;
        Ok(())
    }

    /// A read of regular file `ino` returned data at `now_ns`: its access
    /// time moves to now if it is older than its modification or change
    /// time, or than a day (Linux's `relatime`); the change time does not
    /// move, as on Linux.
    pub fn accessed(&mut self, ino: Ino, now_ns: u64) {
        const DAY_NS: u64 = 86_400_000_000_000;
        if let Ok(inode) = self.inodes.get_mut(ino)
            && inode.filetype() == FileType::RegularFile
            && (inode.atim <= inode.mtim || inode.atim <= inode.ctim || now_ns.saturating_sub(inode.atim) >= DAY_NS)
        {
            inode.atim = now_ns;
        }
    }

    /// An open file description now holds `ino`: it outlives its names
    /// until the matching `release`. The descriptor table only holds inodes
    /// it got from this `Fs`, so an unknown `ino` is ignored.
    pub fn retain(&mut self, ino: Ino) {
        if let Ok(inode) = self.inodes.get_mut(ino) {
            inode.opens += 1;
        }
    }

    /// Drops a hold taken by `retain`; frees the inode if it has no names
    /// left. Releasing more often than retaining is ignored.
    pub fn release(&mut self, ino: Ino) {
        if let Ok(inode) = self.inodes.get_mut(ino) {
            inode.opens = inode.opens.saturating_sub(1);
            self.inodes.collect(ino);
            self.disk_collect(Some(ino));
        }
    }

    /// POSIX link counts: a directory has its entry, its `.` and each child's
    /// `..`; an unlinked directory has none.
    fn nlink(&mut self, ino: Ino) -> Result<u64, Errno> {
        let inode = self.inodes.get(ino)?;
        if inode.filetype() != FileType::Directory || inode.links == 0 {
            return Ok(u64::from(inode.links));
        }
        Ok(2 + u64::from(self.loaded_dir(ino)?.subdirs))
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    #[test]
    fn new_has_root_and_empty_tmp() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        assert_eq!(root, Ino(1));
        let tmp = fs.lookup(root, "/tmp", true).unwrap();
        assert_eq!(tmp, Ino(2));
        assert_eq!(names(&mut fs, "/"), [".", "..", "dev", "tmp"]);
        assert_eq!(names(&mut fs, "/tmp"), [".", ".."]);
        let st = fs.stat(tmp).unwrap();
        assert_eq!((st.filetype, st.nlink, st.mtim), (FileType::Directory, 2, T0));
    }

    #[test]
    fn stat_reports_type_size_links_and_times() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"hello", T0 + 5);
        let st = fs.stat(file).unwrap();
        assert_eq!(st.ino, file);
        assert_eq!(st.filetype, FileType::RegularFile);
        assert_eq!((st.nlink, st.size), (1, 5));
        assert_eq!((st.atim, st.mtim, st.ctim), (T0 + 5, T0 + 5, T0 + 5));
        assert_eq!(fs.stat(fs.root()).unwrap().size, DIR_SIZE);
    }

    #[test]
    fn directory_nlink_counts_subdirectories() {
        let mut fs = Fs::new(T0);
        fs.mkdir(fs.root(), "/tmp/a", T0).unwrap();
        fs.mkdir(fs.root(), "/tmp/b", T0).unwrap();
        write(&mut fs, "/tmp/f", b"", T0);
        let tmp = fs.lookup(fs.root(), "/tmp", true).unwrap();
        assert_eq!(fs.stat(tmp).unwrap().nlink, 4);
        fs.rmdir(fs.root(), "/tmp/a", T0).unwrap();
        assert_eq!(fs.stat(tmp).unwrap().nlink, 3);
    }

    #[test]
    fn set_times_sets_given_times_and_ctime() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"x", T0);
        fs.set_times(file, Some(7), None, T0 + 9).unwrap();
        let st = fs.stat(file).unwrap();
        assert_eq!((st.atim, st.mtim, st.ctim), (7, T0, T0 + 9));
        fs.set_times(file, None, Some(8), T0 + 10).unwrap();
        let st = fs.stat(file).unwrap();
        assert_eq!((st.atim, st.mtim, st.ctim), (7, 8, T0 + 10));
    }

    #[test]
    fn reads_update_the_access_time_as_relatime_does() {
        const DAY: u64 = 86_400_000_000_000;
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"x", T0);
        let times = |fs: &mut Fs| {
            let st = fs.stat(file).unwrap();
            (st.atim, st.mtim, st.ctim)
        };
        fs.accessed(file, T0 + 5);
        assert_eq!(times(&mut fs), (T0 + 5, T0, T0), "atime not newer than mtime: updated, ctime kept");
        fs.accessed(file, T0 + 6);
        assert_eq!(times(&mut fs).0, T0 + 5, "newer than mtime and ctime, less than a day old: kept");
        fs.accessed(file, T0 + 5 + DAY);
        assert_eq!(times(&mut fs).0, T0 + 5 + DAY, "a day old: updated");
        fs.write_at(file, 0, b"y", T0 + DAY + 10).unwrap();
        fs.accessed(file, T0 + DAY + 11);
        assert_eq!(times(&mut fs).0, T0 + DAY + 11, "modified since: updated");
        fs.set_times(file, Some(3), None, T0 + DAY + 20).unwrap();
        fs.accessed(file, T0 + DAY + 21);
        assert_eq!(times(&mut fs).0, T0 + DAY + 21, "changed since (utimes set ctime): updated");
        fs.accessed(fs.root(), T0 + 9 * DAY);
        assert_ne!(fs.stat(fs.root()).unwrap().atim, T0 + 9 * DAY, "directories are not touched");
    }

    #[test]
    fn unlinked_file_lives_while_open() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"data", T0);
        fs.retain(file);
        fs.unlink(fs.root(), "/tmp/f", T0).unwrap();
        assert_eq!(fs.lookup(fs.root(), "/tmp/f", true), Err(Errno::NOENT));
        assert_eq!(fs.stat(file).unwrap().nlink, 0);
        let mut buf = [0; 8];
        assert_eq!(fs.read_at(file, 0, &mut buf), Ok(4));
        fs.write_at(file, 4, b"!", T0).unwrap();
        assert_eq!(fs.size(file), Ok(5));
        fs.release(file);
        assert_eq!(fs.stat(file), Err(Errno::BADF));
        fs.release(file);
    }

    #[test]
    fn open_file_with_links_survives_release() {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/f", b"data", T0);
        fs.retain(file);
        fs.retain(file);
        fs.release(file);
        fs.release(file);
        fs.release(file);
        assert_eq!(fs.stat(file).unwrap().nlink, 1, "more releases than retains");
    }

    #[test]
    fn removed_directory_lives_while_open_but_is_empty() {
        let mut fs = Fs::new(T0);
        fs.mkdir(fs.root(), "/tmp/d", T0).unwrap();
        let dir = fs.lookup(fs.root(), "/tmp/d", true).unwrap();
        fs.retain(dir);
        fs.rmdir(fs.root(), "/tmp/d", T0).unwrap();
        assert_eq!(fs.stat(dir).unwrap().nlink, 0);
        assert_eq!(fs.read_dir(dir), Ok(vec![]));
        assert_eq!(fs.open(dir, "new", CREATE, true, T0), Err(Errno::NOENT));
        assert_eq!(fs.lookup(dir, "..", true), Err(Errno::NOENT));
        fs.release(dir);
        assert_eq!(fs.stat(dir), Err(Errno::BADF));
    }

    #[test]
    fn inode_numbers_follow_creation_order_and_are_not_reused() {
        let mut fs = Fs::new(T0);
        let a = write(&mut fs, "/tmp/a", b"", T0);
        fs.mkdir(fs.root(), "/b", T0).unwrap();
        fs.unlink(fs.root(), "/tmp/a", T0).unwrap();
        fs.symlink("x", fs.root(), "/c", T0).unwrap();
        let b = fs.lookup(fs.root(), "/b", true).unwrap();
        let c = fs.lookup(fs.root(), "/c", false).unwrap();
        // 3 to 8 are /dev and its five devices.
        assert_eq!((a, b, c), (Ino(9), Ino(10), Ino(11)));
    }

    #[test]
    fn wasi_filetype_codes() {
        assert_eq!(FileType::Directory.wasi_code(), 3);
        assert_eq!(FileType::RegularFile.wasi_code(), 4);
        assert_eq!(FileType::SymbolicLink.wasi_code(), 7);
    }
}
