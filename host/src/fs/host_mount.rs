//! Read-through mounts of host directories, copy-on-write.
//!
//! Mounting only records the host path on a guest directory; nothing is read
//! until the guest looks inside. A host directory's entries are read on its
//! first lookup or listing (names and types; symlinks as symlinks, with their
//! targets), a host file's size on its first `stat` and its bytes on its
//! first read or write. From then on the copy in memory is the file: writes,
//! creations, removals and renames never reach the host, which is only ever
//! read. Entries already in memory when a host directory is read win, so a
//! mount over `/` keeps the in-memory `/tmp`.
//!
//! Only small host files (`COPY_ON_READ_MAX`) are copied on their first read,
//! and only if they fit the node's free disk budget (`space.rs`); the copy
//! keeps pages of zeros as holes. A larger one is read by range, each read
//! only the bytes asked for (16 bytes of a 20 GB sparse file cost 16 bytes),
//! up to the size its first `stat` saw; it is copied only when written, and
//! only if it fits the free budget (else `NOSPC`). Known warts: a large host
//! file rewritten in place during a run changes what later reads return (a
//! small one does not); the durable copy of a host file (durability.rs) is
//! read again when its first pending write is synced, bounded by the file
//! size cap only.
//!
//! The host's `/proc`, `/sys` and `/dev` are its live state (the guest would
//! read seedfall's own environment, memory map, counters that change between
//! runs, /dev/shm), so they are never read through: under a mount of `/`
//! (at `/` or anywhere else) they are not there (`NOENT`; at `/` the guest
//! sees the in-memory `/dev` of device.rs), and mounting them is an error.
//!
//! Host entries carry the time the `Fs` was created (host mtimes differ
//! between machines) and inode numbers in order of first lookup, entries of
//! one directory in name order. Devices, sockets and FIFOs are left out
//! (reading them could block or never end), as are names that are not UTF-8.
//! A host entry that vanished or cannot be read is an error for the guest
//! (`NOENT`, `ACCES`, `IO`...), never a panic.

use super::inode::{Dir, FileData, Node};
use super::pages::{PAGE_BYTES, Pages};
use super::{Errno, Fs, Ino, ROOT};
use std::io;
use std::path::{Path, PathBuf};

/// Why a host directory cannot be mounted; Display names both sides.
#[derive(Debug)]
pub struct MountError {
    pub host: PathBuf,
    pub guest: String,
    pub why: MountFailure,
}

#[derive(Debug)]
pub enum MountFailure {
    /// The host path does not resolve.
    Host(io::Error),
    NotADirectory,
    /// The host's /proc, /sys or /dev.
    LiveState,
    /// The guest directory cannot be made.
    Guest(Errno),
}

impl std::fmt::Display for MountError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "cannot mount {} on {}: ", self.host.display(), self.guest)?;
        match &self.why {
            MountFailure::Host(e) => write!(f, "{e}"),
            MountFailure::NotADirectory => f.write_str("not a directory"),
            MountFailure::LiveState => {
                f.write_str("the host's /proc, /sys and /dev are live state, never visible to a guest")
            }
            MountFailure::Guest(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MountError {}

impl Fs {
    /// Lays the host directory `host_dir` over `guest_dir`, creating the
    /// guest directories that do not exist. Entries the guest directory
    /// already has (made in memory, or read from an earlier mount) stay and
    /// win; an earlier mount there whose entries were not read yet is
    /// replaced.
    pub fn mount_host(&mut self, host_dir: &Path, guest_dir: &str) -> Result<(), MountError> {
        let cannot = |why| MountError { host: host_dir.to_path_buf(), guest: guest_dir.to_string(), why };
        // Absolute, so the guest's view does not change with the process's cwd.
        let host = std::fs::canonicalize(host_dir).map_err(|e| cannot(MountFailure::Host(e)))?;
        if !host.is_dir() {
            return Err(cannot(MountFailure::NotADirectory));
        }
        if is_live_state(&host) {
            return Err(cannot(MountFailure::LiveState));
        }
        // Setup, not disk operations: a running disk model starts over with
        // the whole tree durable (durability.rs, rule 9).
        let disk = self.disk.take();
        let mounted = self.make_dirs(guest_dir).and_then(|dir| {
            self.inodes.dir_mut(dir)?.host = Some(host);
            Ok(())
        });
        self.disk_remount(disk);
        mounted.map_err(|e| cannot(MountFailure::Guest(e)))
    }

    /// The directory `ino` with its host entries read in, if it has any.
    pub(super) fn loaded_dir(&mut self, ino: Ino) -> Result<&mut Dir, Errno> {
        if let Some(host) = self.inodes.dir_mut(ino)?.host.clone() {
            self.read_host_entries(ino, &host)?;
        }
        self.inodes.dir_mut(ino)
    }

    /// `mkdir -p` from the root, stamped with the host time.
    fn make_dirs(&mut self, guest_dir: &str) -> Result<Ino, Errno> {
        let mut cur = ROOT;
        for name in guest_dir.split('/').filter(|name| !name.is_empty()) {
            match self.mkdir(cur, name, self.host_time) {
                Ok(()) | Err(Errno::EXIST) => cur = self.lookup(cur, name, true)?,
                Err(e) => return Err(e),
            }
        }
        self.require_dir(cur)?;
        Ok(cur)
    }

    fn read_host_entries(&mut self, dir: Ino, host: &Path) -> Result<(), Errno> {
        for (name, node) in list_host_dir(host)? {
            if self.inodes.dir_mut(dir)?.entries.contains_key(&name) {
                continue;
            }
            let child = self.inodes.alloc(node, self.host_time);
            self.inodes.attach(dir, name.clone(), child)?;
            self.disk_host_entry(dir, &name, child);
        }
        self.inodes.dir_mut(dir)?.host = None;
        self.disk_host_loaded(dir);
        Ok(())
    }
}

/// Host files up to this size are copied whole on their first read (so later
/// host changes do not show); larger ones are read by range.
const COPY_ON_READ_MAX: u64 = 1 << 20;

/// The host directories whose contents are the host's live state.
const LIVE_STATE: [&str; 3] = ["/proc", "/sys", "/dev"];

fn is_live_state(path: &Path) -> bool {
    LIVE_STATE.iter().any(|dir| path.starts_with(dir))
}

impl FileData {
    /// The contents, read from the host on first use if they fit in
    /// `free_pages` (`NOSPC` if not, `FBIG` past the file size cap).
    pub(super) fn load(&mut self, free_pages: u64) -> Result<&mut Pages, Errno> {
        if let FileData::Host { path, .. } = self {
            let file = std::fs::File::open(&*path).map_err(|e| host_errno(&e))?;
            let len = file.metadata().map_err(|e| host_errno(&e))?.len();
            if len > super::data::MAX_FILE_SIZE {
                return Err(Errno::FBIG);
            }
            if len.div_ceil(PAGE_BYTES) > free_pages {
                return Err(Errno::NOSPC);
            }
            // `take`: a file growing while it is read cannot take more.
            let mut reader = io::Read::take(file, len);
            let mut pages = Pages::default();
            let mut chunk = [0; PAGE_BYTES as usize];
            loop {
                let n = read_full(&mut reader, &mut chunk).map_err(|e| host_errno(&e))?;
                pages.append(&chunk[..n]);
                if n < chunk.len() {
                    break;
                }
            }
            *self = FileData::Mem(pages);
        }
        match self {
            FileData::Mem(pages) => Ok(pages),
            FileData::Host { .. } => Err(Errno::IO),
        }
    }

    /// Reads from `offset` into `buf` without copying the file, if it is a
    /// host file too large to copy: past `COPY_ON_READ_MAX` or past the
    /// disk's `free_bytes` (`None`: use the copy).
    pub(super) fn read_host_range(
        &mut self,
        offset: u64,
        buf: &mut [u8],
        free_bytes: u64,
    ) -> Option<Result<usize, Errno>> {
        let copy_max_bytes = COPY_ON_READ_MAX.min(free_bytes);
        let size = match self.size() {
            Ok(size) if size > copy_max_bytes => size,
            Ok(_) => return None,
            Err(e) => return Some(Err(e)),
        };
        let FileData::Host { path, .. } = self else { return None };
        let want = size.saturating_sub(offset).min(buf.len() as u64) as usize;
        if want == 0 {
            return Some(Ok(0));
        }
        let mut read = || -> io::Result<usize> {
            let file = std::fs::File::open(&*path)?;
            let mut done = 0;
            while done < want {
                match read_at(&file, &mut buf[done..want], offset + done as u64) {
                    Ok(0) => break, // the host file shrank: a short read
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(done)
        };
        Some(read().map_err(|e| host_errno(&e)))
    }

    /// The size, asking the host (once) rather than reading the bytes.
    pub(super) fn size(&mut self) -> Result<u64, Errno> {
        match self {
            FileData::Mem(pages) => Ok(pages.len()),
            FileData::Host { size: Some(size), .. } => Ok(*size),
            FileData::Host { path, size } => {
                let len = std::fs::metadata(path).map_err(|e| host_errno(&e))?.len();
                *size = Some(len);
                Ok(len)
            }
        }
    }
}

/// Fills `buf` from `reader`, short only at its end.
fn read_full(reader: &mut impl io::Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match reader.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// The entries of a host directory as unlinked nodes, sorted by name (the
/// host's order is arbitrary).
fn list_host_dir(path: &Path) -> Result<Vec<(String, Node)>, Errno> {
    let mut found: Vec<(String, Node)> =
        std::fs::read_dir(path).map_err(|e| host_errno(&e))?.filter_map(|entry| host_node(&entry.ok()?)).collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// The node for one host entry, or `None` for entries the guest cannot see.
fn host_node(entry: &std::fs::DirEntry) -> Option<(String, Node)> {
    let name = entry.file_name().into_string().ok()?;
    let kind = entry.file_type().ok()?;
    let path = entry.path();
    if is_live_state(&path) {
        return None;
    }
    let node = if kind.is_dir() {
        Node::Dir(Dir::new(Some(path)))
    } else if kind.is_file() {
        Node::File(FileData::Host { path, size: None })
    } else if kind.is_symlink() {
        Node::Symlink(std::fs::read_link(&path).ok()?.into_os_string().into_string().ok()?)
    } else {
        return None;
    };
    Some((name, node))
}

fn host_errno(error: &io::Error) -> Errno {
    match error.kind() {
        io::ErrorKind::NotFound => Errno::NOENT,
        io::ErrorKind::PermissionDenied => Errno::ACCES,
        io::ErrorKind::NotADirectory => Errno::NOTDIR,
        _ => Errno::IO,
    }
}

/// `pread`: up to `buf.len()` bytes at `offset`. Windows' `seek_read` also
/// moves the file's cursor, which nothing here uses (each read opens the file).
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::read_at(file, buf, offset);
    #[cfg(windows)]
    return std::os::windows::fs::FileExt::seek_read(file, buf, offset);
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::super::FileType;
    use super::super::OpenFlags;
    use super::super::testutil::*;
    use super::*;
    use std::path::PathBuf;

    /// A host directory for one test, removed when dropped.
    struct HostDir(PathBuf);

    impl HostDir {
        fn new(test: &str) -> HostDir {
            let path = std::env::temp_dir().join(format!("seedfall-fs-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            HostDir(path)
        }

        fn put(&self, rel: &str, contents: &str) {
            let path = self.0.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
        }

        fn get(&self, rel: &str) -> io::Result<String> {
            std::fs::read_to_string(self.0.join(rel))
        }

        /// The host's names in `rel`, sorted.
        fn names(&self, rel: &str) -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(self.0.join(rel))
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for HostDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn mounted(host: &HostDir, guest: &str) -> Fs {
        let mut fs = Fs::new(T0);
        fs.mount_host(&host.0, guest).unwrap();
        fs
    }

    #[test]
    #[cfg(unix)] // creates a host symlink, which Windows allows only with a privilege
    fn contents_types_and_order_come_from_the_host() {
        let host = HostDir::new("contents");
        host.put("b.txt", "bee");
        host.put("a/inner.txt", "inner");
        host.put("c", "");
        std::os::unix::fs::symlink("a/inner.txt", host.0.join("link")).unwrap();
        let mut fs = mounted(&host, "/mnt/host");
        assert_eq!(names(&mut fs, "/mnt/host"), [".", "..", "a", "b.txt", "c", "link"]);
        assert_eq!(read(&mut fs, "/mnt/host/b.txt"), b"bee");
        assert_eq!(read(&mut fs, "/mnt/host/a/inner.txt"), b"inner");
        assert_eq!(read(&mut fs, "/mnt/host/link"), b"inner", "host symlinks resolve in the guest");
        let root = fs.root();
        assert_eq!(fs.readlink(root, "/mnt/host/link"), Ok("a/inner.txt".to_string()));
        let a = fs.lookup(root, "/mnt/host/a", true).unwrap();
        assert_eq!(fs.stat(a).unwrap().filetype, FileType::Directory);
        assert_eq!(fs.lookup(a, "..", true), fs.lookup(root, "/mnt/host", true));
    }

    #[test]
    fn host_entries_get_fixed_times_and_ordered_inodes() {
        let host = HostDir::new("times");
        host.put("z", "1");
        host.put("y", "22");
        let mut fs = mounted(&host, "/m");
        let root = fs.root();
        let m = fs.lookup(root, "/m", true).unwrap();
        let y = fs.lookup(root, "/m/y", true).unwrap();
        let z = fs.lookup(root, "/m/z", true).unwrap();
        assert_eq!((y, z), (Ino(m.0 + 1), Ino(m.0 + 2)), "name order within a directory");
        let st = fs.stat(y).unwrap();
        assert_eq!((st.size, st.nlink), (2, 1));
        assert_eq!((st.atim, st.mtim, st.ctim), (T0, T0, T0));
    }

    #[test]
    fn mounting_reads_nothing_and_entries_are_read_lazily() {
        let host = HostDir::new("lazy");
        let mut fs = mounted(&host, "/m");
        host.put("late/file", "v1");
        host.put("x/f", "before");
        assert_eq!(read(&mut fs, "/m/late/file"), b"v1", "made after the mount");
        host.put("late/other", "o");
        assert_eq!(names(&mut fs, "/m/late"), [".", "..", "file"], "a directory is read once");
        let root = fs.root();
        let f = fs.lookup(root, "/m/x/f", true).unwrap();
        assert_eq!(fs.size(f), Ok(6));
        host.put("x/f", "after!");
        assert_eq!(read(&mut fs, "/m/x/f"), b"after!", "bytes are read on first read");
        host.put("x/f", "changed again");
        assert_eq!(read(&mut fs, "/m/x/f"), b"after!", "and only once");
    }

    #[test]
    fn writes_stay_in_memory() {
        let host = HostDir::new("writes");
        host.put("f", "original");
        host.put("d/g", "g");
        let mut fs = mounted(&host, "/");
        let root = fs.root();
        let f = fs.lookup(root, "/f", true).unwrap();
        fs.write_at(f, 0, b"O", T0).unwrap();
        assert_eq!(read(&mut fs, "/f"), b"Original");
        write(&mut fs, "/new", b"n", T0);
        fs.mkdir(root, "/d/sub", T0).unwrap();
        write(&mut fs, "/d/g", b"rewritten", T0);
        let truncated = fs.open(root, "/f", OpenFlags { truncate: true, ..OpenFlags::default() }, true, T0).unwrap();
        assert_eq!(fs.size(truncated), Ok(0));
        assert_eq!(host.get("f").unwrap(), "original");
        assert_eq!(host.get("d/g").unwrap(), "g");
        assert_eq!(host.names(""), ["d", "f"]);
        assert_eq!(host.names("d"), ["g"]);
    }

    #[test]
    fn removals_and_renames_stay_in_memory() {
        let host = HostDir::new("removals");
        host.put("f", "f");
        host.put("d/g", "g");
        host.put("e/h", "h");
        let mut fs = mounted(&host, "/");
        let root = fs.root();
        fs.unlink(root, "/f", T0).unwrap();
        fs.rename(root, "/d", root, "/tmp/moved", T0).unwrap();
        assert_eq!(read(&mut fs, "/tmp/moved/g"), b"g", "a moved host directory still reads through");
        fs.unlink(root, "/e/h", T0).unwrap();
        fs.rmdir(root, "/e", T0).unwrap();
        assert_eq!(names(&mut fs, "/"), [".", "..", "dev", "tmp"]);
        assert_eq!(host.names(""), ["d", "e", "f"]);
        assert_eq!(host.get("d/g").unwrap(), "g");
        assert_eq!(fs.rmdir(root, "/tmp/moved", T0), Err(Errno::NOTEMPTY), "host entries count");
    }

    #[test]
    fn memory_entries_win_over_host_entries() {
        let host = HostDir::new("shadow");
        host.put("tmp/host-file", "x");
        host.put("etc/hosts", "host");
        host.put("dev/sda", "a host device");
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.mkdir(root, "/etc", T0).unwrap();
        write(&mut fs, "/etc/hosts", b"sim", T0);
        fs.mount_host(&host.0, "/").unwrap();
        assert_eq!(names(&mut fs, "/tmp"), [".", ".."], "/tmp stays the empty in-memory dir");
        assert_eq!(names(&mut fs, "/"), [".", "..", "dev", "etc", "tmp"]);
        assert_eq!(
            names(&mut fs, "/dev"),
            [".", "..", "antithesis", "null", "random", "urandom", "zero"],
            "the host's /dev stays hidden"
        );
        assert_eq!(read(&mut fs, "/etc/hosts"), b"sim");
    }

    #[test]
    fn vanished_host_entries_are_errors_not_panics() {
        let host = HostDir::new("vanish");
        host.put("f", "f");
        host.put("d/g", "g");
        let mut fs = mounted(&host, "/m");
        let root = fs.root();
        let f = fs.lookup(root, "/m/f", true).unwrap();
        let d = fs.lookup(root, "/m/d", true).unwrap();
        std::fs::remove_file(host.0.join("f")).unwrap();
        std::fs::remove_dir_all(host.0.join("d")).unwrap();
        let mut buf = [0; 1];
        assert_eq!(fs.read_at(f, 0, &mut buf), Err(Errno::NOENT));
        assert_eq!(fs.stat(f), Err(Errno::NOENT));
        assert_eq!(fs.read_dir(d), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/m/d/g", true), Err(Errno::NOENT));
        assert_eq!(fs.set_size(f, 0, T0), Ok(()), "truncation needs no host bytes");
        assert_eq!(fs.size(f), Ok(0));
    }

    /// The resident set of this process in KiB (`VmRSS`).
    #[cfg(target_os = "linux")]
    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Issue 19: a mounted host file was read whole on its first read, so 16
    /// bytes of a 20 GB sparse file cost 20 GB. Now a large file is read by
    /// range, and copying it for a write stops at the disk budget (`NOSPC`).
    #[test]
    #[cfg(target_os = "linux")] // measures the resident set in /proc
    fn issue_19_a_huge_sparse_host_file_is_read_by_range() {
        let host = HostDir::new("sparse");
        let path = host.0.join("huge");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(20 << 30).unwrap();
        std::os::unix::fs::FileExt::write_at(&file, b"sixteen bytes!!!", 10 << 30).unwrap();
        host.put("small", "small file");
        let mut fs = mounted(&host, "/m");
        let root = fs.root();
        let huge = fs.lookup(root, "/m/huge", true).unwrap();
        let before = rss_kib();
        let mut buf = [0u8; 16];
        assert_eq!(fs.read_at(huge, 10 << 30, &mut buf), Ok(16));
        assert_eq!(&buf, b"sixteen bytes!!!");
        assert_eq!(fs.read_at(huge, 1 << 30, &mut buf), Ok(16));
        assert_eq!(buf, [0; 16], "a hole reads as zeros");
        assert_eq!(fs.read_at(huge, (20 << 30) - 4, &mut buf), Ok(4), "up to the size stat saw");
        assert_eq!(fs.read_at(huge, u64::MAX, &mut buf), Ok(0));
        assert_eq!(fs.size(huge), Ok(20 << 30));
        assert_eq!(fs.write_at(huge, 0, b"x", T0), Err(Errno::NOSPC), "a copy would not fit the disk");
        let grown_kib = rss_kib().saturating_sub(before);
        assert!(grown_kib < 16 << 10, "reading a 20 GB sparse file grew RSS by {grown_kib} KiB");
        // Small files are still copied once, so host changes do not show.
        assert_eq!(read(&mut fs, "/m/small"), b"small file");
    }

    /// Issue 19: under a mount of `/`, `/proc/self` was seedfall's own
    /// process (its environment, its memory map); `/proc` and `/sys` are
    /// never read through, and mounting them is an error.
    #[test]
    fn issue_19_the_hosts_proc_and_sys_are_never_visible() {
        let mut fs = Fs::new(T0);
        fs.mount_host(Path::new("/"), "/").unwrap();
        let root = fs.root();
        assert_eq!(fs.lookup(root, "/proc/self/environ", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/proc", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/sys/kernel", true), Err(Errno::NOENT));
        let listed = names(&mut fs, "/");
        assert!(!listed.iter().any(|n| n == "proc" || n == "sys"), "{listed:?}");
        assert!(listed.iter().any(|n| n == "dev"), "{listed:?}");
        assert_eq!(
            names(&mut fs, "/dev"),
            [".", "..", "antithesis", "null", "random", "urandom", "zero"],
            "only the simulated devices"
        );
        let mut fs = Fs::new(T0);
        fs.mount_host(Path::new("/"), "/host").unwrap();
        assert_eq!(fs.lookup(root, "/host/proc/self", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/host/dev/shm", true), Err(Errno::NOENT));
        // Unix only: Windows has no /proc, /sys or /dev (under wine, Z:\proc
        // is the Linux host's, which a Windows build cannot tell apart).
        #[cfg(unix)]
        for dir in ["/proc", "/sys", "/proc/self", "/sys/kernel", "/dev"] {
            let err = Fs::new(T0).mount_host(Path::new(dir), "/m").unwrap_err().to_string();
            assert!(err.contains("live state"), "{dir}: {err}");
        }
    }

    #[test]
    fn mount_errors() {
        let host = HostDir::new("errors");
        host.put("file", "x");
        let mut fs = Fs::new(T0);
        assert!(fs.mount_host(&host.0.join("missing"), "/m").is_err());
        assert!(fs.mount_host(&host.0.join("file"), "/m").is_err());
        write(&mut fs, "/tmp/f", b"", T0);
        let err = fs.mount_host(&host.0, "/tmp/f").unwrap_err().to_string();
        assert!(err.contains("NOTDIR"), "{err}");
        assert_eq!(fs.lookup(fs.root(), "/m", true), Err(Errno::NOENT), "failed mounts create nothing");
    }
}
