//! Path resolution: from a starting directory and a path string to an inode
//! (`lookup`) or to the directory and last name an operation acts on
//! (`resolve_parent`).
//!
//! Absolute paths start at the root; `..` at the root stays there. Symlinks
//! are followed with a budget of `MAX_SYMLINKS` per resolution (then `LOOP`);
//! a relative target resolves from the directory holding the link, an
//! absolute one from the root. A trailing slash requires a directory and
//! follows a final symlink. Resolution reads host directories on the way
//! (through `Fs::loaded_dir`) but never changes the tree.

use super::inode::Node;
use super::{Errno, FileType, Fs, Ino, ROOT};

/// Linux's MAXSYMLINKS.
const MAX_SYMLINKS: u32 = 40;
/// Longest path and longest name Linux accepts (PATH_MAX counts the NUL).
const PATH_MAX: usize = 4095;
const NAME_MAX: usize = 255;

/// A path split into names. `.` and `..` stay as names: whether they are
/// valid depends on the directory they are looked up in.
struct Parsed<'a> {
    absolute: bool,
    names: Vec<&'a str>,
    trailing_slash: bool,
}

fn parse(path: &str) -> Result<Parsed<'_>, Errno> {
    if path.is_empty() {
        return Err(Errno::NOENT);
    }
    if path.len() > PATH_MAX {
        return Err(Errno::NAMETOOLONG);
    }
    // A NUL cannot be passed to the POSIX calls Go's os package mirrors.
    if path.contains('\0') {
        return Err(Errno::INVAL);
    }
    let names: Vec<&str> = path.split('/').filter(|name| !name.is_empty()).collect();
    if names.iter().any(|name| name.len() > NAME_MAX) {
        return Err(Errno::NAMETOOLONG);
    }
    Ok(Parsed { absolute: path.starts_with('/'), names, trailing_slash: path.ends_with('/') })
}

/// The symlinks one resolution may still follow.
pub(super) struct Budget(u32);

impl Budget {
    pub(super) fn new() -> Budget {
        Budget(MAX_SYMLINKS)
    }

    pub(super) fn spend(&mut self) -> Result<(), Errno> {
        self.0 = self.0.checked_sub(1).ok_or(Errno::LOOP)?;
        Ok(())
    }
}

/// Where a creating or removing operation acts: the name `name` in the
/// directory `dir` (`name` may be `.` or `..`; a path like `/` ends in `.`).
pub(super) struct Parent {
    pub(super) dir: Ino,
    pub(super) name: String,
    pub(super) trailing_slash: bool,
}

impl Parent {
    pub(super) fn is_dot_or_dotdot(&self) -> bool {
        self.name == "." || self.name == ".."
    }
}

impl Fs {
    /// The inode `path` names, relative to `dir` unless absolute. With
    /// `follow_last_symlink` false a final symlink is returned itself.
    pub fn lookup(&mut self, dir: Ino, path: &str, follow_last_symlink: bool) -> Result<Ino, Errno> {
        self.resolve(dir, path, follow_last_symlink, &mut Budget::new())
    }

    pub(super) fn resolve(
        &mut self,
        dir: Ino,
        path: &str,
        follow_last: bool,
        budget: &mut Budget,
    ) -> Result<Ino, Errno> {
        let at = self.resolve_parent(dir, path, budget)?;
        let ino = self.step(at.dir, &at.name, follow_last || at.trailing_slash, budget)?;
        if at.trailing_slash {
            self.require_dir(ino)?;
        }
        Ok(ino)
    }

    /// Resolves all but the last name of `path`, which must lead to a
    /// directory.
    pub(super) fn resolve_parent(&mut self, dir: Ino, path: &str, budget: &mut Budget) -> Result<Parent, Errno> {
        let parsed = parse(path)?;
        let (name, init) = parsed.names.split_last().unwrap_or((&".", &[]));
        let mut cur = if parsed.absolute { ROOT } else { dir };
        for name in init {
            cur = self.step(cur, name, true, budget)?;
        }
        self.require_dir(cur)?;
        Ok(Parent { dir: cur, name: name.to_string(), trailing_slash: parsed.trailing_slash })
    }

    /// The inode `name` names in `dir`, or `None` if there is no such entry.
    pub(super) fn child(&mut self, dir: Ino, name: &str) -> Result<Option<Ino>, Errno> {
        match name {
            "." => self.require_dir(dir).map(|()| Some(dir)),
            ".." => self.inodes.parent(dir).map(Some),
            _ => Ok(self.loaded_dir(dir)?.entries.get(name).copied()),
        }
    }

    /// The target of `ino` if it is a symlink.
    pub(super) fn symlink_target(&self, ino: Ino) -> Result<Option<String>, Errno> {
        match &self.inodes.get(ino)?.node {
            Node::Symlink(target) => Ok(Some(target.clone())),
            _ => Ok(None),
        }
    }

    pub fn filetype(&self, ino: Ino) -> Result<FileType, Errno> {
        Ok(self.inodes.get(ino)?.filetype())
    }

    fn step(&mut self, dir: Ino, name: &str, follow: bool, budget: &mut Budget) -> Result<Ino, Errno> {
        let child = self.child(dir, name)?.ok_or(Errno::NOENT)?;
        match self.symlink_target(child)? {
            Some(target) if follow => {
                budget.spend()?;
                self.resolve(dir, &target, true, budget)
            }
            _ => Ok(child),
        }
    }

    pub(super) fn require_dir(&mut self, ino: Ino) -> Result<(), Errno> {
        self.inodes.dir_mut(ino).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn setup() -> Fs {
        let mut fs = Fs::new(T0);
        fs.mkdir(fs.root(), "/a", T0).unwrap();
        fs.mkdir(fs.root(), "/a/b", T0).unwrap();
        write(&mut fs, "/a/b/f", b"f", T0);
        fs
    }

    #[test]
    fn absolute_and_relative_paths() {
        let mut fs = setup();
        let root = fs.root();
        let a = fs.lookup(root, "/a", true).unwrap();
        let f = fs.lookup(root, "/a/b/f", true).unwrap();
        assert_eq!(fs.lookup(a, "b/f", true), Ok(f));
        assert_eq!(fs.lookup(a, "/a/b/f", true), Ok(f), "absolute ignores dir");
        assert_eq!(fs.lookup(root, "a//b///f", true), Ok(f));
        assert_eq!(fs.lookup(root, "/", true), Ok(root));
    }

    #[test]
    fn dot_and_dotdot() {
        let mut fs = setup();
        let root = fs.root();
        let a = fs.lookup(root, "/a", true).unwrap();
        let b = fs.lookup(root, "/a/b", true).unwrap();
        assert_eq!(fs.lookup(b, ".", true), Ok(b));
        assert_eq!(fs.lookup(b, "..", true), Ok(a));
        assert_eq!(fs.lookup(b, "../..", true), Ok(root));
        assert_eq!(fs.lookup(b, "../../../..", true), Ok(root), ".. at the root stays");
        assert_eq!(fs.lookup(root, "/a/./b/../b/f", true), fs.lookup(root, "/a/b/f", true));
    }

    #[test]
    fn missing_and_wrong_types() {
        let mut fs = setup();
        let root = fs.root();
        assert_eq!(fs.lookup(root, "/nope", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/nope/x", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "/a/b/f/x", true), Err(Errno::NOTDIR));
        assert_eq!(fs.lookup(root, "/a/b/f/", true), Err(Errno::NOTDIR), "trailing slash needs a dir");
        assert_eq!(fs.lookup(root, "/a/b/f/.", true), Err(Errno::NOTDIR));
        assert!(fs.lookup(root, "/a/b/", true).is_ok());
        let f = fs.lookup(root, "/a/b/f", true).unwrap();
        assert_eq!(fs.lookup(f, "x", true), Err(Errno::NOTDIR), "relative to a file");
        assert_eq!(fs.lookup(Ino(999), "x", true), Err(Errno::BADF));
    }

    #[test]
    fn malformed_paths() {
        let mut fs = setup();
        let root = fs.root();
        assert_eq!(fs.lookup(root, "", true), Err(Errno::NOENT));
        assert_eq!(fs.lookup(root, "a\0b", true), Err(Errno::INVAL));
        let long_name = "x".repeat(NAME_MAX + 1);
        assert_eq!(fs.lookup(root, &long_name, true), Err(Errno::NAMETOOLONG));
        let long_path = "a/".repeat(PATH_MAX / 2 + 1);
        assert_eq!(fs.lookup(root, &long_path, true), Err(Errno::NAMETOOLONG));
    }

    #[test]
    fn symlinks_follow_relative_and_absolute_targets() {
        let mut fs = setup();
        let root = fs.root();
        let f = fs.lookup(root, "/a/b/f", true).unwrap();
        let b = fs.lookup(root, "/a/b", true).unwrap();
        fs.symlink("b/f", root, "/a/rel", T0).unwrap();
        let rel = fs.lookup(root, "/a/rel", false).unwrap();
        fs.symlink("/a/b", root, "/abs", T0).unwrap();
        fs.symlink("rel", root, "/a/chain", T0).unwrap();
        assert_eq!(fs.lookup(root, "/a/rel", true), Ok(f), "relative to the link's directory");
        assert_eq!(fs.lookup(root, "/a/rel", false), Ok(rel));
        assert_eq!(fs.lookup(root, "/abs/f", false), Ok(f), "intermediate links are always followed");
        assert_eq!(fs.lookup(root, "/abs/", false), Ok(b), "a trailing slash follows");
        assert_eq!(fs.lookup(root, "/a/chain", true), Ok(f));
        assert_eq!(fs.lookup(root, "/abs/..", true), fs.lookup(root, "/a", true), ".. is physical");
    }

    #[test]
    fn symlink_loops_and_dangling_links() {
        let mut fs = setup();
        let root = fs.root();
        fs.symlink("loop2", root, "/loop1", T0).unwrap();
        fs.symlink("loop1", root, "/loop2", T0).unwrap();
        fs.symlink("self/x", root, "/self", T0).unwrap();
        fs.symlink("/nowhere", root, "/dangling", T0).unwrap();
        assert_eq!(fs.lookup(root, "/loop1", true), Err(Errno::LOOP));
        assert_eq!(fs.lookup(root, "/self", true), Err(Errno::LOOP));
        assert!(fs.lookup(root, "/loop1", false).is_ok());
        assert_eq!(fs.lookup(root, "/dangling", true), Err(Errno::NOENT));
        assert!(fs.lookup(root, "/dangling", false).is_ok());
        assert_eq!(fs.lookup(root, "/a/b/f/", false), Err(Errno::NOTDIR));
    }

    #[test]
    fn long_symlink_chain_is_allowed_up_to_the_limit() {
        let mut fs = setup();
        let root = fs.root();
        let f = fs.lookup(root, "/a/b/f", true).unwrap();
        fs.symlink("/a/b/f", root, "/l0", T0).unwrap();
        for i in 1..=MAX_SYMLINKS {
            fs.symlink(&format!("l{}", i - 1), root, &format!("/l{i}"), T0).unwrap();
        }
        let last = MAX_SYMLINKS - 1;
        assert_eq!(fs.lookup(root, &format!("/l{last}"), true), Ok(f));
        assert_eq!(fs.lookup(root, &format!("/l{MAX_SYMLINKS}"), true), Err(Errno::LOOP));
    }
}
