//! The inode table: what each inode holds, how names link to inodes, and when
//! an inode dies.
//!
//! An inode lives while a directory entry names it or an open file
//! description holds it (`links`, `opens`); the table frees it when both reach
//! zero. Inode numbers come from a counter and are never reused, so they are a
//! pure function of the order of creation. The table also keeps the disk
//! budget's count (`space.rs`): every change of a file's pages goes through
//! `Inodes::with_file` or `Inodes::clear_file`, and freeing an inode gives
//! its pages back. This file knows nothing about paths, symlink resolution
//! or the host: a host-backed directory or file is only a marker here,
//! filled in by `host_mount.rs`.

use super::pages::Pages;
use super::space::Space;
use super::{Errno, FileType, Ino};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One file system object and its metadata.
pub(super) struct Inode {
    pub(super) node: Node,
    /// Directory entries naming this inode (0 or 1 for a directory).
    pub(super) links: u32,
    /// Open file descriptions holding it (`Fs::retain` / `Fs::release`).
    pub(super) opens: u32,
    pub(super) atim: u64,
    pub(super) mtim: u64,
    pub(super) ctim: u64,
}

pub(super) enum Node {
    Dir(Dir),
    File(FileData),
    Symlink(String),
    Device(Device),
}

/// A device file (`device.rs` makes `/dev` and reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Device {
    Null,
    Zero,
    /// `/dev/random` and `/dev/urandom`: read by the WASI layer (`fd.rs`),
    /// never through `read`, which knows no randomness.
    Random,
    Antithesis,
}

pub(super) struct Dir {
    /// Sorted by name, so directory listings are deterministic.
    pub(super) entries: BTreeMap<String, Ino>,
    /// Where `..` leads; set whenever the directory is linked into a parent.
    pub(super) parent: Ino,
    /// Child directories, for the POSIX link count `2 + subdirs`.
    pub(super) subdirs: u32,
    /// A host directory whose entries have not been read yet. Entries already
    /// present when it is read win over the host's (copy-on-write).
    pub(super) host: Option<PathBuf>,
}

/// The contents of a regular file: in the page cache here, and on the disk
/// in `durability.rs` once the disk model runs.
#[derive(Clone)]
pub(super) enum FileData {
    Mem(Pages),
    /// Not read yet: the bytes are still those of a host file. `size` caches
    /// the host's answer so `stat` does not read the contents.
    Host {
        path: PathBuf,
        size: Option<u64>,
    },
}

impl FileData {
    /// The pages it holds in memory (none while still on the host).
    pub(super) fn allocated(&self) -> u64 {
        match self {
            FileData::Mem(pages) => pages.allocated(),
            FileData::Host { .. } => 0,
        }
    }
}

impl Dir {
    /// An empty directory; `attach` sets its parent.
    pub(super) fn new(host: Option<PathBuf>) -> Dir {
        Dir { entries: BTreeMap::new(), parent: Ino(0), subdirs: 0, host }
    }
}

impl Inode {
    pub(super) fn filetype(&self) -> FileType {
        match self.node {
            Node::Dir(_) => FileType::Directory,
            Node::File(_) => FileType::RegularFile,
            Node::Symlink(_) => FileType::SymbolicLink,
            Node::Device(_) => FileType::CharacterDevice,
        }
    }

    /// The contents of a regular file, for reading its size or a host file
    /// by range: its pages change only through `Inodes::with_file`.
    pub(super) fn file_mut(&mut self) -> Result<&mut FileData, Errno> {
        match &mut self.node {
            Node::File(data) => Ok(data),
            Node::Dir(_) => Err(Errno::ISDIR),
            Node::Symlink(_) | Node::Device(_) => Err(Errno::INVAL),
        }
    }

    /// Contents changed: POSIX updates both mtime and ctime.
    pub(super) fn modified(&mut self, now_ns: u64) {
        self.mtim = now_ns;
        self.ctim = now_ns;
    }
}

pub(super) struct Inodes {
    map: BTreeMap<Ino, Inode>,
    next: u64,
    /// The pages the files of `map` hold, against the node's budget.
    space: Space,
}

impl Inodes {
    /// A table holding only the root directory, inode 1, which is its own
    /// parent and permanently linked.
    pub(super) fn with_root(root: Ino, now_ns: u64) -> Inodes {
        let space = Space::new(super::space::DEFAULT_DISK_BYTES);
        let mut inodes = Inodes { map: BTreeMap::new(), next: root.0, space };
        let mut dir = Dir::new(None);
        dir.parent = root;
        let ino = inodes.alloc(Node::Dir(dir), now_ns);
        if let Some(inode) = inodes.map.get_mut(&ino) {
            inode.links = 1;
        }
        inodes
    }

    /// A new, not yet linked inode.
    pub(super) fn alloc(&mut self, node: Node, now_ns: u64) -> Ino {
        debug_assert!(!matches!(&node, Node::File(data) if data.allocated() > 0), "a new file holds no pages");
        let ino = Ino(self.next);
        self.next += 1;
        let inode = Inode { node, links: 0, opens: 0, atim: now_ns, mtim: now_ns, ctim: now_ns };
        self.map.insert(ino, inode);
        ino
    }

    /// ENOSPC once the disk's inodes are all in use (`Space::limit_inodes`),
    /// like a full inode table, or while the disk is full. Checked before a create begins, so a create
    /// that cannot happen is not a disk operation (as a write that fits
    /// nothing is not).
    pub(super) fn has_free_inode(&self) -> Result<(), Errno> {
        if self.space.full() || self.map.len() as u64 >= self.space.limit_inodes() {
            return Err(Errno::NOSPC);
        }
        Ok(())
    }

    /// The table a crash rebuilt: exactly `map`, numbering going on where it
    /// was, so no number is ever reused, and its pages counted anew.
    pub(super) fn rebuilt(&self, map: BTreeMap<Ino, Inode>) -> Inodes {
        debug_assert!(map.keys().all(|ino| ino.0 < self.next));
        let mut space = self.space.emptied();
        for inode in map.values() {
            if let Node::File(data) = &inode.node {
                space.charge(0, data.allocated());
            }
        }
        Inodes { map, next: self.next, space }
    }

    pub(super) fn space(&self) -> Space {
        self.space
    }

    /// Sets the budget to `disk_bytes`; pages already held stay.
    pub(super) fn set_disk_bytes(&mut self, disk_bytes: u64) {
        let used = self.space.used_pages();
        let full = self.space.full();
        self.space = Space::new(disk_bytes);
        self.space.charge(0, used);
        self.space.set_full(full);
    }

    /// Makes the disk full, or gives its space back (`Fs::set_full`).
    pub(super) fn set_full(&mut self, full: bool) {
        self.space.set_full(full);
    }

    /// Runs `f` on the pages of regular file `ino` (to read or change them),
    /// telling it how many pages are still free; a host file is read in
    /// first, if it fits (`NOSPC` if not). The budget is charged with the
    /// difference, so no change of pages escapes the count.
    pub(super) fn with_file<T>(&mut self, ino: Ino, f: impl FnOnce(&mut Pages, u64) -> T) -> Result<T, Errno> {
        let free = self.space.free_pages();
        let data = self.get_mut(ino)?.file_mut()?;
        let before = data.allocated();
        let pages = data.load(free)?;
        let loaded = pages.allocated() - before;
        let out = f(pages, free - loaded);
        let after = pages.allocated();
        self.space.charge(before, after);
        Ok(out)
    }

    /// Empties regular file `ino` without reading a host file's bytes.
    pub(super) fn clear_file(&mut self, ino: Ino) -> Result<(), Errno> {
        let data = self.get_mut(ino)?.file_mut()?;
        let before = data.allocated();
        *data = FileData::Mem(Pages::default());
        self.space.charge(before, 0);
        Ok(())
    }

    /// Every live inode, in number order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (Ino, &Inode)> {
        self.map.iter().map(|(ino, inode)| (*ino, inode))
    }

    /// A freed or never allocated inode can only come from a stale handle.
    pub(super) fn get(&self, ino: Ino) -> Result<&Inode, Errno> {
        self.map.get(&ino).ok_or(Errno::BADF)
    }

    pub(super) fn get_mut(&mut self, ino: Ino) -> Result<&mut Inode, Errno> {
        self.map.get_mut(&ino).ok_or(Errno::BADF)
    }

    /// The directory as stored: host entries may not have been read yet (use
    /// `Fs::loaded_dir` to see the entries).
    pub(super) fn dir_mut(&mut self, ino: Ino) -> Result<&mut Dir, Errno> {
        match &mut self.get_mut(ino)?.node {
            Node::Dir(dir) => Ok(dir),
            _ => Err(Errno::NOTDIR),
        }
    }

    /// The parent of a linked directory (`..`).
    pub(super) fn parent(&mut self, dir: Ino) -> Result<Ino, Errno> {
        let linked = self.get(dir)?.links > 0;
        let parent = self.dir_mut(dir)?.parent;
        if linked { Ok(parent) } else { Err(Errno::NOENT) }
    }

    /// Adds the entry `name -> child` to `parent`. The caller has checked
    /// that `name` is free and `parent` is a live directory.
    pub(super) fn attach(&mut self, parent: Ino, name: String, child: Ino) -> Result<(), Errno> {
        // Checked first so a failure changes nothing.
        self.dir_mut(parent)?;
        let inode = self.get_mut(child)?;
        inode.links += 1;
        let is_dir = match &mut inode.node {
            Node::Dir(dir) => {
                dir.parent = parent;
                true
            }
            _ => false,
        };
        let dir = self.dir_mut(parent)?;
        dir.entries.insert(name, child);
        dir.subdirs += u32::from(is_dir);
        Ok(())
    }

    /// Removes the entry `name` from `parent` and frees its inode if nothing
    /// else holds it.
    pub(super) fn detach(&mut self, parent: Ino, name: &str) -> Result<(), Errno> {
        let child = self.dir_mut(parent)?.entries.remove(name).ok_or(Errno::NOENT)?;
        let inode = self.get_mut(child)?;
        inode.links -= 1;
        let is_dir = inode.filetype() == FileType::Directory;
        self.dir_mut(parent)?.subdirs -= u32::from(is_dir);
        self.collect(child);
        Ok(())
    }

    /// Frees `ino` once no name and no open file description refers to it.
    pub(super) fn collect(&mut self, ino: Ino) {
        if self.map.get(&ino).is_some_and(|inode| inode.links == 0 && inode.opens == 0)
            && let Some(Inode { node: Node::File(data), .. }) = self.map.remove(&ino)
        {
            self.space.charge(data.allocated(), 0);
        }
    }
}
