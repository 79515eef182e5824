//! `open`: resolving a path for `path_open`, with creation, exclusive
//! creation, truncation and the directory requirement.
//!
//! Opening does not hold the inode: the caller's descriptor table calls
//! `retain` when it installs the descriptor. Access modes and rights are not
//! checked here (the WASI layer refuses writable opens of directories).

use super::inode::{FileData, Node};
use super::pages::Pages;
use super::path::{Budget, Parent};
use super::{Errno, FileType, Fs, Ino, OpenFlags};

impl Fs {
    /// Opens (and with `create` makes) the file `path` names relative to
    /// `dir`. A final symlink is followed if `follow_last_symlink`, else
    /// `LOOP`; following a dangling symlink with `create` creates its target,
    /// as POSIX does.
    pub fn open(
        &mut self,
        dir: Ino,
        path: &str,
        flags: OpenFlags,
        follow_last_symlink: bool,
        now_ns: u64,
    ) -> Result<Ino, Errno> {
        self.open_in(dir, path, flags, follow_last_symlink, now_ns, &mut Budget::new())
    }

    fn open_in(
        &mut self,
        dir: Ino,
        path: &str,
        flags: OpenFlags,
        follow: bool,
        now_ns: u64,
        budget: &mut Budget,
    ) -> Result<Ino, Errno> {
        let at = self.resolve_parent(dir, path, budget)?;
        // A trailing slash asks for a directory and follows a final symlink.
        let flags = OpenFlags { directory: flags.directory || at.trailing_slash, ..flags };
        let follow = follow || at.trailing_slash;
        match self.child(at.dir, &at.name)? {
            Some(ino) => self.open_existing(&at, ino, flags, follow, now_ns, budget),
            None => self.open_new(&at, flags, now_ns),
        }
    }

    fn open_existing(
        &mut self,
        at: &Parent,
        ino: Ino,
        flags: OpenFlags,
        follow: bool,
        now_ns: u64,
        budget: &mut Budget,
    ) -> Result<Ino, Errno> {
        if flags.create && flags.exclusive {
            return Err(Errno::EXIST);
        }
        if let Some(target) = self.symlink_target(ino)? {
            if !follow {
                return Err(Errno::LOOP);
            }
            budget.spend()?;
            return self.open_in(at.dir, &target, flags, true, now_ns, budget);
        }
        let is_dir = self.filetype(ino)? == FileType::Directory;
        if flags.directory && !is_dir {
            return Err(Errno::NOTDIR);
        }
        // Linux refuses O_CREAT and O_TRUNC on an existing directory.
        if is_dir && (flags.create || flags.truncate) {
            return Err(Errno::ISDIR);
        }
        // Linux ignores O_TRUNC on a device (`> /dev/null` is fine).
        if flags.truncate && self.device(ino)?.is_none() {
            self.set_size(ino, 0, now_ns)?;
        }
        Ok(ino)
    }

    fn open_new(&mut self, at: &Parent, flags: OpenFlags, now_ns: u64) -> Result<Ino, Errno> {
        if !flags.create {
            return Err(Errno::NOENT);
        }
        if at.trailing_slash {
            return Err(Errno::ISDIR);
        }
        // Only regular files are created by open.
        if flags.directory {
            return Err(Errno::INVAL);
        }
        self.create(at, Node::File(FileData::Mem(Pages::default())), now_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    const EXCL: OpenFlags = OpenFlags { exclusive: true, ..CREATE };
    const TRUNC: OpenFlags = OpenFlags { create: false, exclusive: false, truncate: true, directory: false };
    const DIR: OpenFlags = OpenFlags { create: false, exclusive: false, truncate: false, directory: true };
    const PLAIN: OpenFlags = OpenFlags { create: false, exclusive: false, truncate: false, directory: false };

    #[test]
    fn create_makes_an_empty_file_and_touches_the_parent() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = fs.open(root, "/tmp/f", CREATE, true, T0 + 1).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/f", true), Ok(file));
        let st = fs.stat(file).unwrap();
        assert_eq!((st.filetype, st.size, st.nlink, st.ctim), (FileType::RegularFile, 0, 1, T0 + 1));
        let tmp = fs.lookup(root, "/tmp", true).unwrap();
        assert_eq!(fs.stat(tmp).unwrap().mtim, T0 + 1);
        assert_eq!(fs.open(root, "/tmp/f", CREATE, true, T0), Ok(file), "create opens an existing file");
    }

    #[test]
    fn missing_files_and_parents() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        assert_eq!(fs.open(root, "/tmp/nope", PLAIN, true, T0), Err(Errno::NOENT));
        assert_eq!(fs.open(root, "/nodir/f", CREATE, true, T0), Err(Errno::NOENT));
        write(&mut fs, "/tmp/f", b"", T0);
        assert_eq!(fs.open(root, "/tmp/f/g", CREATE, true, T0), Err(Errno::NOTDIR));
    }

    #[test]
    fn exclusive_create_fails_on_anything_existing() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.open(root, "/tmp/f", EXCL, true, T0).unwrap();
        assert_eq!(fs.open(root, "/tmp/f", EXCL, true, T0), Err(Errno::EXIST));
        assert_eq!(fs.open(root, "/tmp", EXCL, true, T0), Err(Errno::EXIST));
        fs.symlink("/tmp/missing", root, "/tmp/dangling", T0).unwrap();
        assert_eq!(fs.open(root, "/tmp/dangling", EXCL, true, T0), Err(Errno::EXIST));
        assert_eq!(fs.lookup(root, "/tmp/missing", true), Err(Errno::NOENT));
    }

    #[test]
    fn truncate_empties_a_file() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/f", b"abc", T0);
        assert_eq!(fs.open(root, "/tmp/f", PLAIN, true, T0), Ok(file));
        assert_eq!(fs.size(file), Ok(3), "no truncate flag, no truncation");
        assert_eq!(fs.open(root, "/tmp/f", TRUNC, true, T0 + 2), Ok(file));
        assert_eq!(fs.size(file), Ok(0));
        assert_eq!(fs.stat(file).unwrap().mtim, T0 + 2);
    }

    #[test]
    fn directories() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/f", b"", T0);
        let tmp = fs.lookup(root, "/tmp", true).unwrap();
        assert_eq!(fs.open(root, "/tmp", DIR, true, T0), Ok(tmp));
        assert_eq!(fs.open(root, "/tmp", PLAIN, true, T0), Ok(tmp));
        assert_eq!(fs.open(root, "/", DIR, true, T0), Ok(root));
        assert_eq!(fs.open(tmp, ".", DIR, true, T0), Ok(tmp));
        assert_eq!(fs.open(root, "/tmp/f", DIR, true, T0), Err(Errno::NOTDIR));
        assert_eq!(fs.open(root, "/tmp/f/", PLAIN, true, T0), Err(Errno::NOTDIR));
        assert_eq!(fs.open(root, "/tmp", TRUNC, true, T0), Err(Errno::ISDIR));
        assert_eq!(fs.open(root, "/tmp", CREATE, true, T0), Err(Errno::ISDIR));
        assert_eq!(fs.open(root, "/tmp/new/", CREATE, true, T0), Err(Errno::ISDIR));
        assert_eq!(fs.open(root, "/tmp/new", OpenFlags { directory: true, ..CREATE }, true, T0), Err(Errno::INVAL));
        assert_eq!(fs.size(file), Ok(0));
    }

    #[test]
    fn symlinks_are_followed_or_refused() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/f", b"x", T0);
        fs.symlink("f", root, "/tmp/link", T0).unwrap();
        fs.symlink("/tmp", root, "/dirlink", T0).unwrap();
        assert_eq!(fs.open(root, "/tmp/link", PLAIN, true, T0), Ok(file));
        assert_eq!(fs.open(root, "/tmp/link", PLAIN, false, T0), Err(Errno::LOOP));
        assert_eq!(fs.open(root, "/tmp/link", DIR, false, T0), Err(Errno::LOOP));
        let tmp = fs.lookup(root, "/tmp", true).unwrap();
        assert_eq!(fs.open(root, "/dirlink/", PLAIN, false, T0), Ok(tmp), "trailing slash follows");
        fs.symlink("loop", root, "/loop", T0).unwrap();
        assert_eq!(fs.open(root, "/loop", CREATE, true, T0), Err(Errno::LOOP));
    }

    #[test]
    fn create_through_a_dangling_symlink_creates_the_target() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        fs.symlink("target", root, "/tmp/link", T0).unwrap();
        let made = fs.open(root, "/tmp/link", CREATE, true, T0).unwrap();
        assert_eq!(fs.lookup(root, "/tmp/target", true), Ok(made));
    }
}
