//! Operations on names: mkdir, rmdir, unlink, rename, link, symlink,
//! readlink and listing a directory.
//!
//! Errors follow Linux where POSIX leaves a choice, because Go's os package
//! was written against it: `unlink` of a directory is `ISDIR` (os.Remove
//! then tries rmdir, and os.RemoveAll reads `ISDIR` as "recurse"), `rmdir`
//! of a non-directory is `NOTDIR`. None of these follows a final symlink:
//! each acts on the name itself.

use super::faults::DiskOp;
use super::inode::{Dir, Node};
use super::path::{Budget, Parent};
use super::{DirEntry, Errno, FileType, Fs, Ino};

impl Fs {
    /// Makes an empty directory.
    pub fn mkdir(&mut self, dir: Ino, path: &str, now_ns: u64) -> Result<(), Errno> {
        let at = self.resolve_parent(dir, path, &mut Budget::new())?;
        self.create(&at, Node::Dir(Dir::new(None)), now_ns).map(|_| ())
    }

    /// Removes an empty directory.
    pub fn rmdir(&mut self, dir: Ino, path: &str, now_ns: u64) -> Result<(), Errno> {
        let at = self.resolve_parent(dir, path, &mut Budget::new())?;
        match at.name.as_str() {
            "." => return Err(Errno::INVAL),
            ".." => return Err(Errno::NOTEMPTY),
            _ => {}
        }
        let ino = self.existing(&at)?;
        if !self.loaded_dir(ino)?.entries.is_empty() {
            return Err(Errno::NOTEMPTY);
        }
        self.begin_op(DiskOp::Unlink)?;
        self.remove_name(&at, ino, now_ns)?;
        self.end_op(())
    }

    /// Removes a name of a file or symlink (the symlink itself, not its
    /// target); the inode lives on while other names or opens hold it.
    pub fn unlink(&mut self, dir: Ino, path: &str, now_ns: u64) -> Result<(), Errno> {
        let at = self.resolve_parent(dir, path, &mut Budget::new())?;
        let ino = self.existing(&at)?;
        if self.filetype(ino)? == FileType::Directory {
            return Err(Errno::ISDIR);
        }
        if at.trailing_slash {
            return Err(Errno::NOTDIR);
        }
        self.begin_op(DiskOp::Unlink)?;
        self.remove_name(&at, ino, now_ns)?;
        self.end_op(())
    }

    /// Moves a name, replacing what the new name held: a file by a file or
    /// symlink, an empty directory by a directory. Renaming a name onto
    /// another name of the same inode does nothing, as POSIX says.
    pub fn rename(
        &mut self,
        old_dir: Ino,
        old_path: &str,
        new_dir: Ino,
        new_path: &str,
        now_ns: u64,
    ) -> Result<(), Errno> {
        let from = self.resolve_parent(old_dir, old_path, &mut Budget::new())?;
        let to = self.resolve_parent(new_dir, new_path, &mut Budget::new())?;
        if from.is_dot_or_dotdot() || to.is_dot_or_dotdot() {
            return Err(Errno::INVAL);
        }
        let ino = self.existing(&from)?;
        let is_dir = self.filetype(ino)? == FileType::Directory;
        if !is_dir && (from.trailing_slash || to.trailing_slash) {
            return Err(Errno::NOTDIR);
        }
        self.require_live(to.dir)?;
        if is_dir {
            self.require_outside(to.dir, ino)?;
        }
        let replaced = self.child(to.dir, &to.name)?;
        if let Some(replaced) = replaced {
            if replaced == ino {
                return Ok(());
            }
            self.require_replaceable(is_dir, replaced)?;
        }
        if let Err(e) = self.begin_op(DiskOp::Rename) {
            self.disk_rename_crashed(to.dir, &to.name);
            return Err(e);
        }
        if let Some(replaced) = replaced {
            self.remove_name(&to, replaced, now_ns)?;
        }
        // Link the new name first so the inode never drops to zero links.
        self.inodes.attach(to.dir, to.name.clone(), ino)?;
        self.inodes.detach(from.dir, &from.name)?;
        self.inodes.get_mut(ino)?.ctim = now_ns;
        self.inodes.get_mut(from.dir)?.modified(now_ns);
        self.inodes.get_mut(to.dir)?.modified(now_ns);
        self.disk_renamed(from.dir, &from.name, to.dir, &to.name, ino);
        self.disk_rename_crashed(to.dir, &to.name);
        self.end_op(())
    }

    /// Adds a hard link `new_path` to what `old_path` names (a final symlink
    /// is linked itself, as Go's `os.Link` asks). Directories cannot be
    /// linked (`PERM`).
    pub fn link(
        &mut self,
        old_dir: Ino,
        old_path: &str,
        new_dir: Ino,
        new_path: &str,
        now_ns: u64,
    ) -> Result<(), Errno> {
        let ino = self.lookup(old_dir, old_path, false)?;
        if self.filetype(ino)? == FileType::Directory {
            return Err(Errno::PERM);
        }
        let at = self.resolve_parent(new_dir, new_path, &mut Budget::new())?;
        self.require_free(&at, false)?;
        self.begin_op(DiskOp::Link)?;
        self.inodes.attach(at.dir, at.name.clone(), ino)?;
        self.inodes.get_mut(ino)?.ctim = now_ns;
        self.inodes.get_mut(at.dir)?.modified(now_ns);
        self.disk_linked(at.dir, &at.name, ino);
        self.end_op(())
    }

    /// Makes a symlink at `path` holding `target` verbatim (it is resolved
    /// only when followed).
    pub fn symlink(&mut self, target: &str, dir: Ino, path: &str, now_ns: u64) -> Result<(), Errno> {
        if target.is_empty() {
            return Err(Errno::NOENT);
        }
        let at = self.resolve_parent(dir, path, &mut Budget::new())?;
        self.create(&at, Node::Symlink(target.to_string()), now_ns).map(|_| ())
    }

    /// The target of the symlink `path` names; `INVAL` if it is not one.
    pub fn readlink(&mut self, dir: Ino, path: &str) -> Result<String, Errno> {
        let ino = self.lookup(dir, path, false)?;
        self.symlink_target(ino)?.ok_or(Errno::INVAL)
    }

    /// `.`, `..`, then the entries sorted by name. A removed directory lists
    /// nothing at all, as on Linux.
    pub fn read_dir(&mut self, dir: Ino) -> Result<Vec<DirEntry>, Errno> {
        self.require_dir(dir)?;
        if self.inodes.get(dir)?.links == 0 {
            return Ok(Vec::new());
        }
        let parent = self.inodes.parent(dir)?;
        let names: Vec<(String, Ino)> =
            self.loaded_dir(dir)?.entries.iter().map(|(name, &ino)| (name.clone(), ino)).collect();
        let mut list = vec![
            DirEntry { name: ".".to_string(), ino: dir, filetype: FileType::Directory },
            DirEntry { name: "..".to_string(), ino: parent, filetype: FileType::Directory },
        ];
        for (name, ino) in names {
            list.push(DirEntry { name, ino, filetype: self.filetype(ino)? });
        }
        Ok(list)
    }

    /// Links a new inode holding `node` at a free name; returns it.
    pub(super) fn create(&mut self, at: &Parent, node: Node, now_ns: u64) -> Result<Ino, Errno> {
        self.require_free(at, matches!(node, Node::Dir(_)))?;
        self.inodes.has_free_inode()?;
        self.begin_op(DiskOp::Create)?;
        let ino = self.inodes.alloc(node, now_ns);
        self.inodes.attach(at.dir, at.name.clone(), ino)?;
        self.inodes.get_mut(at.dir)?.modified(now_ns);
        self.disk_created(at.dir, &at.name, ino);
        self.end_op(ino)
    }

    /// Checks that a new entry can be made at `at`: the name is unused, a
    /// trailing slash names a directory, and the directory was not removed.
    fn require_free(&mut self, at: &Parent, is_dir: bool) -> Result<(), Errno> {
        if self.child(at.dir, &at.name)?.is_some() {
            return Err(Errno::EXIST);
        }
        if at.trailing_slash && !is_dir {
            return Err(Errno::NOENT);
        }
        self.require_live(at.dir)
    }

    /// A removed directory (still open somewhere) accepts no new entries.
    fn require_live(&self, dir: Ino) -> Result<(), Errno> {
        if self.inodes.get(dir)?.links == 0 {
            return Err(Errno::NOENT);
        }
        Ok(())
    }

    /// Refuses to move directory `moving` into `dir` if `dir` is inside it.
    fn require_outside(&mut self, dir: Ino, moving: Ino) -> Result<(), Errno> {
        let mut cur = dir;
        loop {
            if cur == moving {
                return Err(Errno::INVAL);
            }
            let parent = self.inodes.parent(cur)?;
            if parent == cur {
                return Ok(());
            }
            cur = parent;
        }
    }

    fn require_replaceable(&mut self, is_dir: bool, replaced: Ino) -> Result<(), Errno> {
        let replaced_is_dir = self.filetype(replaced)? == FileType::Directory;
        match (is_dir, replaced_is_dir) {
            (true, false) => Err(Errno::NOTDIR),
            (false, true) => Err(Errno::ISDIR),
            (true, true) if !self.loaded_dir(replaced)?.entries.is_empty() => Err(Errno::NOTEMPTY),
            _ => Ok(()),
        }
    }

    fn existing(&mut self, at: &Parent) -> Result<Ino, Errno> {
        self.child(at.dir, &at.name)?.ok_or(Errno::NOENT)
    }

    /// Removes the entry `at`, which names `ino`.
    fn remove_name(&mut self, at: &Parent, ino: Ino, now_ns: u64) -> Result<(), Errno> {
        // Stamped before the entry goes: detaching may free the inode.
        self.inodes.get_mut(ino)?.ctim = now_ns;
        self.inodes.detach(at.dir, &at.name)?;
        self.inodes.get_mut(at.dir)?.modified(now_ns);
        self.disk_removed(at.dir, &at.name, ino);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn ino(fs: &mut Fs, path: &str) -> Ino {
        fs.lookup(fs.root(), path, false).unwrap()
    }

    /// Go's os.Remove: unlink, then rmdir, and rmdir's error unless it is
    /// NOTDIR (file_unix.go).
    fn go_remove(fs: &mut Fs, path: &str) -> Result<(), Errno> {
        let root = fs.root();
        let unlinked = fs.unlink(root, path, T0);
        if unlinked.is_ok() {
            return unlinked;
        }
        match fs.rmdir(root, path, T0) {
            Ok(()) => Ok(()),
            Err(Errno::NOTDIR) => unlinked,
            Err(e) => Err(e),
        }
    }

    #[test]
    fn mkdir_creates_and_refuses_existing_names() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.mkdir(root, "/tmp/d", T0 + 1).unwrap();
        let dir = ino(&mut fs, "/tmp/d");
        assert_eq!(fs.stat(dir).unwrap().filetype, FileType::Directory);
        assert_eq!(fs.lookup(dir, "..", true), fs.lookup(root, "/tmp", true));
        assert_eq!(fs.mkdir(root, "/tmp/d", T0), Err(Errno::EXIST));
        assert_eq!(fs.mkdir(root, "/tmp/d/", T0), Err(Errno::EXIST));
        assert_eq!(fs.mkdir(root, "/", T0), Err(Errno::EXIST));
        assert_eq!(fs.mkdir(root, "/tmp/d/.", T0), Err(Errno::EXIST));
        assert_eq!(fs.mkdir(root, "/tmp/x/y", T0), Err(Errno::NOENT));
        write(&mut fs, "/tmp/f", b"", T0);
        assert_eq!(fs.mkdir(root, "/tmp/f", T0), Err(Errno::EXIST));
        assert_eq!(fs.mkdir(root, "/tmp/f/y", T0), Err(Errno::NOTDIR));
        assert!(fs.mkdir(root, "/tmp/e/", T0).is_ok(), "a trailing slash is fine for a directory");
        fs.symlink("/tmp/nowhere", root, "/tmp/dangling", T0).unwrap();
        assert_eq!(fs.mkdir(root, "/tmp/dangling", T0), Err(Errno::EXIST));
    }

    #[test]
    fn rmdir_removes_only_empty_directories() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.mkdir(root, "/tmp/d", T0).unwrap();
        write(&mut fs, "/tmp/d/f", b"", T0);
        assert_eq!(fs.rmdir(root, "/tmp/d", T0), Err(Errno::NOTEMPTY));
        assert_eq!(fs.rmdir(root, "/tmp/d/f", T0), Err(Errno::NOTDIR));
        assert_eq!(fs.rmdir(root, "/tmp/nope", T0), Err(Errno::NOENT));
        assert_eq!(fs.rmdir(root, "/tmp/d/.", T0), Err(Errno::INVAL));
        assert_eq!(fs.rmdir(root, "/tmp/d/..", T0), Err(Errno::NOTEMPTY));
        assert_eq!(fs.rmdir(root, "/", T0), Err(Errno::INVAL));
        fs.symlink("d", root, "/tmp/dl", T0).unwrap();
        assert_eq!(fs.rmdir(root, "/tmp/dl", T0), Err(Errno::NOTDIR), "symlinks are not followed");
        fs.unlink(root, "/tmp/d/f", T0).unwrap();
        fs.rmdir(root, "/tmp/d/", T0 + 4).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/d", true), Err(Errno::NOENT));
        let tmp = ino(&mut fs, "/tmp");
        assert_eq!(fs.stat(tmp).unwrap().mtim, T0 + 4);
    }

    #[test]
    fn unlink_removes_files_and_symlinks_not_directories() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/f", b"x", T0);
        fs.symlink("f", root, "/tmp/l", T0).unwrap();
        fs.unlink(root, "/tmp/l", T0).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/f", true), Ok(file), "the target stays");
        assert_eq!(fs.unlink(root, "/tmp", T0), Err(Errno::ISDIR));
        assert_eq!(fs.unlink(root, "/tmp/f/", T0), Err(Errno::NOTDIR));
        assert_eq!(fs.unlink(root, "/tmp/nope", T0), Err(Errno::NOENT));
        assert_eq!(fs.unlink(root, "/tmp/f/x", T0), Err(Errno::NOTDIR));
        fs.unlink(root, "/tmp/f", T0 + 2).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/f", true), Err(Errno::NOENT));
        assert_eq!(fs.stat(file), Err(Errno::BADF), "not open: freed");
        let tmp = ino(&mut fs, "/tmp");
        assert_eq!(fs.stat(tmp).unwrap().mtim, T0 + 2);
    }

    #[test]
    fn go_os_remove_works_on_files_and_empty_directories() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        write(&mut fs, "/tmp/f", b"", T0);
        fs.mkdir(root, "/tmp/d", T0).unwrap();
        fs.mkdir(root, "/tmp/full", T0).unwrap();
        write(&mut fs, "/tmp/full/x", b"", T0);
        assert_eq!(go_remove(&mut fs, "/tmp/f"), Ok(()));
        assert_eq!(go_remove(&mut fs, "/tmp/d"), Ok(()));
        assert_eq!(go_remove(&mut fs, "/tmp/full"), Err(Errno::NOTEMPTY));
        assert_eq!(go_remove(&mut fs, "/tmp/nope"), Err(Errno::NOENT));
        assert_eq!(names(&mut fs, "/tmp"), [".", "..", "full"]);
    }

    #[test]
    fn rename_moves_a_file_keeping_its_inode() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/a", b"data", T0);
        fs.mkdir(root, "/d", T0).unwrap();
        fs.rename(root, "/tmp/a", root, "/d/b", T0 + 1).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/a", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/d/b", true), Ok(file));
        assert_eq!(read(&mut fs, "/d/b"), b"data");
        let st = fs.stat(file).unwrap();
        assert_eq!((st.nlink, st.ctim, st.mtim), (1, T0 + 1, T0));
        let d = ino(&mut fs, "/d");
        assert_eq!(fs.stat(d).unwrap().mtim, T0 + 1);
    }

    #[test]
    fn rename_over_an_existing_file_replaces_it() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let a = write(&mut fs, "/tmp/a", b"new", T0);
        let b = write(&mut fs, "/tmp/b", b"old", T0);
        fs.retain(b);
        fs.rename(root, "/tmp/a", root, "/tmp/b", T0).unwrap();
        assert_eq!(read(&mut fs, "/tmp/b"), b"new");
        assert_eq!(fs.lookup(root, "/tmp/b", true), Ok(a));
        assert_eq!(names(&mut fs, "/tmp"), [".", "..", "b"]);
        let mut buf = [0; 3];
        assert_eq!(fs.read_at(b, 0, &mut buf), Ok(3), "the replaced file stays readable while open");
        assert_eq!(fs.stat(b).unwrap().nlink, 0);
    }

    #[test]
    fn rename_directories() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.mkdir(root, "/a", T0).unwrap();
        let a = ino(&mut fs, "/a");
        write(&mut fs, "/a/f", b"f", T0);
        fs.mkdir(root, "/empty", T0).unwrap();
        fs.mkdir(root, "/full", T0).unwrap();
        fs.mkdir(root, "/full/x", T0).unwrap();
        write(&mut fs, "/file", b"", T0);
        assert_eq!(fs.rename(root, "/a", root, "/full", T0), Err(Errno::NOTEMPTY));
        assert_eq!(fs.rename(root, "/a", root, "/file", T0), Err(Errno::NOTDIR));
        assert_eq!(fs.rename(root, "/file", root, "/empty", T0), Err(Errno::ISDIR));
        fs.rename(root, "/a", root, "/empty", T0).unwrap();
        assert_eq!(fs.lookup(root, "/empty", true), Ok(a));
        assert_eq!(read(&mut fs, "/empty/f"), b"f");
        fs.rename(root, "/empty/", root, "/full/x/", T0).unwrap();
        assert_eq!(fs.lookup(root, "/full/x", true), Ok(a));
        let full = ino(&mut fs, "/full");
        assert_eq!(fs.lookup(a, "..", true), Ok(full), ".. follows the move");
        assert_eq!(fs.stat(full).unwrap().nlink, 3);
        assert_eq!(fs.stat(root).unwrap().nlink, 5, "subdirectories /tmp, /dev and /full are left");
    }

    #[test]
    fn rename_into_own_subtree_is_inval() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.mkdir(root, "/a", T0).unwrap();
        fs.mkdir(root, "/a/b", T0).unwrap();
        assert_eq!(fs.rename(root, "/a", root, "/a/b/c", T0), Err(Errno::INVAL));
        assert_eq!(fs.rename(root, "/a", root, "/a/c", T0), Err(Errno::INVAL));
        assert_eq!(fs.rename(root, "/a/b", root, "/a", T0), Err(Errno::NOTEMPTY));
    }

    #[test]
    fn rename_edge_cases() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let f = write(&mut fs, "/tmp/f", b"", T0);
        fs.link(root, "/tmp/f", root, "/tmp/g", T0).unwrap();
        fs.rename(root, "/tmp/f", root, "/tmp/g", T0).unwrap();
        assert_eq!(names(&mut fs, "/tmp"), [".", "..", "f", "g"], "same inode: nothing happens");
        fs.rename(root, "/tmp/f", root, "/tmp/f", T0).unwrap();
        assert_eq!(fs.stat(f).unwrap().nlink, 2);
        assert_eq!(fs.rename(root, "/tmp/nope", root, "/tmp/x", T0), Err(Errno::NOENT));
        assert_eq!(fs.rename(root, "/tmp/f", root, "/nodir/x", T0), Err(Errno::NOENT));
        assert_eq!(fs.rename(root, "/tmp/f/", root, "/tmp/x", T0), Err(Errno::NOTDIR));
        assert_eq!(fs.rename(root, "/tmp/f", root, "/tmp/x/", T0), Err(Errno::NOTDIR));
        assert_eq!(fs.rename(root, "/tmp/.", root, "/x", T0), Err(Errno::INVAL));
        assert_eq!(fs.rename(root, "/tmp/f", root, "/tmp/..", T0), Err(Errno::INVAL));
        fs.symlink("f", root, "/tmp/l", T0).unwrap();
        fs.rename(root, "/tmp/l", root, "/tmp/m", T0).unwrap();
        assert_eq!(fs.readlink(root, "/tmp/m"), Ok("f".to_string()), "the symlink itself moves");
    }

    #[test]
    fn link_counts() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let f = write(&mut fs, "/tmp/f", b"x", T0);
        fs.link(root, "/tmp/f", root, "/tmp/g", T0 + 1).unwrap();
        fs.link(root, "/tmp/g", root, "/h", T0 + 1).unwrap();
        assert_eq!(fs.lookup(root, "/h", true), Ok(f));
        let st = fs.stat(f).unwrap();
        assert_eq!((st.nlink, st.ctim), (3, T0 + 1));
        fs.unlink(root, "/tmp/f", T0).unwrap();
        fs.unlink(root, "/tmp/g", T0).unwrap();
        assert_eq!(fs.stat(f).unwrap().nlink, 1);
        assert_eq!(read(&mut fs, "/h"), b"x");
        fs.unlink(root, "/h", T0).unwrap();
        assert_eq!(fs.stat(f), Err(Errno::BADF));
    }

    #[test]
    fn link_errors() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        write(&mut fs, "/tmp/f", b"", T0);
        write(&mut fs, "/tmp/g", b"", T0);
        assert_eq!(fs.link(root, "/tmp", root, "/t2", T0), Err(Errno::PERM));
        assert_eq!(fs.link(root, "/tmp/f", root, "/tmp/g", T0), Err(Errno::EXIST));
        assert_eq!(fs.link(root, "/tmp/nope", root, "/tmp/x", T0), Err(Errno::NOENT));
        assert_eq!(fs.link(root, "/tmp/f", root, "/nodir/x", T0), Err(Errno::NOENT));
        assert_eq!(fs.link(root, "/tmp/f", root, "/tmp/x/", T0), Err(Errno::NOENT));
        fs.symlink("f", root, "/tmp/l", T0).unwrap();
        let l = ino(&mut fs, "/tmp/l");
        fs.link(root, "/tmp/l", root, "/tmp/l2", T0).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/l2", false), Ok(l), "the symlink itself is linked");
    }

    #[test]
    fn symlink_and_readlink() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.symlink("../some/where", root, "/tmp/l", T0).unwrap();
        let l = ino(&mut fs, "/tmp/l");
        let st = fs.stat(l).unwrap();
        assert_eq!((st.filetype, st.size, st.nlink), (FileType::SymbolicLink, 13, 1));
        assert_eq!(fs.readlink(root, "/tmp/l"), Ok("../some/where".to_string()));
        assert_eq!(fs.symlink("x", root, "/tmp/l", T0), Err(Errno::EXIST));
        assert_eq!(fs.symlink("x", root, "/tmp", T0), Err(Errno::EXIST));
        assert_eq!(fs.symlink("", root, "/tmp/e", T0), Err(Errno::NOENT));
        assert_eq!(fs.readlink(root, "/tmp"), Err(Errno::INVAL));
        assert_eq!(fs.readlink(root, "/tmp/nope"), Err(Errno::NOENT));
    }

    #[test]
    fn read_dir_lists_dot_dotdot_then_sorted_names() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        for name in ["zeta", "alpha", "Beta", "m"] {
            write(&mut fs, &format!("/tmp/{name}"), b"", T0);
        }
        fs.mkdir(root, "/tmp/dir", T0).unwrap();
        fs.symlink("m", root, "/tmp/link", T0).unwrap();
        let sub = ino(&mut fs, "/tmp/dir");
        let link = ino(&mut fs, "/tmp/link");
        let tmp = ino(&mut fs, "/tmp");
        let list = fs.read_dir(tmp).unwrap();
        let listed: Vec<&str> = list.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(listed, [".", "..", "Beta", "alpha", "dir", "link", "m", "zeta"]);
        assert_eq!(list[0], DirEntry { name: ".".into(), ino: tmp, filetype: FileType::Directory });
        assert_eq!(list[1], DirEntry { name: "..".into(), ino: root, filetype: FileType::Directory });
        assert_eq!(list[4], DirEntry { name: "dir".into(), ino: sub, filetype: FileType::Directory });
        assert_eq!(list[5], DirEntry { name: "link".into(), ino: link, filetype: FileType::SymbolicLink });
        assert_eq!(list[6].filetype, FileType::RegularFile);
        assert_eq!(fs.read_dir(root).unwrap()[1].ino, root, "the root is its own parent");
        let file = ino(&mut fs, "/tmp/m");
        assert_eq!(fs.read_dir(file), Err(Errno::NOTDIR));
    }
}
