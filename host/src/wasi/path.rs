//! Path calls, each relative to a directory descriptor: open, stat, mkdir,
//! rmdir, unlink, rename, link, symlink, readlink, set times.

use super::abi::*;
use super::bind;
use super::fd::encode_filestat;
use crate::fdtable::FdKind;
use crate::fs::{FileType, Ino, OpenFlags};
use crate::node::Node;
use seedfall_engine::{Caller, Linker, ValType::*};

const LOOKUP_SYMLINK_FOLLOW: u32 = 1;
const OFLAG_CREAT: u16 = 1;
const OFLAG_DIRECTORY: u16 = 2;
const OFLAG_EXCL: u16 = 4;
const OFLAG_TRUNC: u16 = 8;
const RIGHT_FD_WRITE: u64 = 1 << 6;
const FSTFLAG_ATIM: u16 = 1;
const FSTFLAG_ATIM_NOW: u16 = 2;
const FSTFLAG_MTIM: u16 = 4;
const FSTFLAG_MTIM_NOW: u16 = 8;

/// The directory inode behind descriptor `fd`.
fn dir_ino(c: &Caller<'_, Node>, fd: u32) -> Result<Ino, Errno> {
    match c.data().fds.get(fd).map(|e| &e.kind) {
        Some(FdKind::Dir { ino, .. }) => Ok(*ino),
        Some(_) => Err(ENOTDIR),
        None => Err(EBADF),
    }
}

/// (directory inode, path) from the (fd, ptr, len) triple most calls take.
fn dir_and_path(c: &Caller<'_, Node>, fd: u64, ptr: u64, len: u64) -> Result<(Ino, String), Errno> {
    Ok((dir_ino(c, fd as u32)?, read_str(c, ptr as u32, len as u32)?))
}

fn now(c: &Caller<'_, Node>) -> u64 {
    c.data().clock.realtime_now()
}

fn path_open(c: &mut Caller<'_, Node>, v: &[u64]) -> WasiResult {
    let (dir, path) = dir_and_path(c, v[0], v[2], v[3])?;
    let (lookup, oflags, fdflags, result_ptr) = (v[1] as u32, v[4] as u16, v[7] as u16, v[8] as u32);
    let (rights, rights_inheriting) = (v[5], v[6]);
    let flags = OpenFlags {
        create: oflags & OFLAG_CREAT != 0,
        exclusive: oflags & OFLAG_EXCL != 0,
        truncate: oflags & OFLAG_TRUNC != 0,
        directory: oflags & OFLAG_DIRECTORY != 0,
    };
    let time = now(c);
    let (memory, node) = c.memory_and_data();
    // EMFILE before the open can create or truncate anything.
    node.fds.room()?;
    let ino = node.fs.open(dir, &path, flags, lookup & LOOKUP_SYMLINK_FOLLOW != 0, time)?;
    if flags.truncate && !node.mappings.is_empty() {
        // A mapping of the file reads zeros from now on (crate::mmap).
        node.mappings.refresh(&mut node.fs, memory, ino, 0, u64::MAX)?;
    }
    let kind = match node.fs.stat(ino)?.filetype {
        FileType::Directory if rights & RIGHT_FD_WRITE != 0 && !flags.directory => return Err(EISDIR),
        FileType::Directory => FdKind::Dir { ino, preopen: None },
        _ => FdKind::File { ino, offset: 0 },
    };
    node.fs.retain(ino);
    // The rights asked for are the access mode: fd_read and fd_write check them.
    let fd = node.fds.insert_with_rights(kind, fdflags, rights, rights_inheriting)?;
    if let Some(ops) = node.file_ops.as_mut() {
        let how: Vec<&str> = [
            (flags.create, "create"),
            (flags.exclusive, "exclusive"),
            (flags.truncate, "truncate"),
            (fdflags & FDFLAG_APPEND != 0, "append"),
            (rights & RIGHT_FD_WRITE == 0, "read-only"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect();
        let path = ops.resolve(v[0] as u32, &path);
        ops.opened(node.clock.now(), fd, path, &how.join(", "));
    }
    write_u32(c, result_ptr, fd)
}

/// Apply WASI fst_flags to `ino`'s access and modification times.
pub(super) fn set_times(c: &mut Caller<'_, Node>, ino: Ino, atim: u64, mtim: u64, flags: u16) -> WasiResult {
    let time = now(c);
    let pick = |set: u16, set_now: u16, value: u64| -> Result<Option<u64>, Errno> {
        match (flags & set != 0, flags & set_now != 0) {
            (true, true) => Err(EINVAL),
            (true, false) => Ok(Some(value)),
            (false, true) => Ok(Some(time)),
            (false, false) => Ok(None),
        }
    };
    let (atim, mtim) = (pick(FSTFLAG_ATIM, FSTFLAG_ATIM_NOW, atim)?, pick(FSTFLAG_MTIM, FSTFLAG_MTIM_NOW, mtim)?);
    c.data_mut().fs.set_times(ino, atim, mtim, time)?;
    Ok(())
}

pub fn register(l: &mut Linker<Node>) {
    bind(l, "path_open", &[I32, I32, I32, I32, I32, I64, I64, I32, I32], path_open);
    bind(l, "path_filestat_get", &[I32, I32, I32, I32, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[2], v[3])?;
        let node = c.data_mut();
        let ino = node.fs.lookup(dir, &path, v[1] as u32 & LOOKUP_SYMLINK_FOLLOW != 0)?;
        let stat = encode_filestat(&node.fs.stat(ino)?);
        write_bytes(c, v[4] as u32, &stat)
    });
    bind(l, "path_filestat_set_times", &[I32, I32, I32, I32, I64, I64, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[2], v[3])?;
        let ino = c.data_mut().fs.lookup(dir, &path, v[1] as u32 & LOOKUP_SYMLINK_FOLLOW != 0)?;
        set_times(c, ino, v[4], v[5], v[6] as u16)
    });
    bind(l, "path_create_directory", &[I32, I32, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[1], v[2])?;
        let time = now(c);
        Ok(c.data_mut().fs.mkdir(dir, &path, time)?)
    });
    bind(l, "path_remove_directory", &[I32, I32, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[1], v[2])?;
        let time = now(c);
        Ok(c.data_mut().fs.rmdir(dir, &path, time)?)
    });
    bind(l, "path_unlink_file", &[I32, I32, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[1], v[2])?;
        let time = now(c);
        let node = c.data_mut();
        node.fs.unlink(dir, &path, time)?;
        if let Some(ops) = node.file_ops.as_mut() {
            let path = ops.resolve(v[0] as u32, &path);
            ops.unlinked(node.clock.now(), path);
        }
        Ok(())
    });
    bind(l, "path_rename", &[I32, I32, I32, I32, I32, I32], |c, v| {
        let (from_dir, from) = dir_and_path(c, v[0], v[1], v[2])?;
        let (to_dir, to) = dir_and_path(c, v[3], v[4], v[5])?;
        let time = now(c);
        let node = c.data_mut();
        node.fs.rename(from_dir, &from, to_dir, &to, time)?;
        if let Some(ops) = node.file_ops.as_mut() {
            let (from, to) = (ops.resolve(v[0] as u32, &from), ops.resolve(v[3] as u32, &to));
            ops.renamed(node.clock.now(), from, to);
        }
        Ok(())
    });
    bind(l, "path_link", &[I32, I32, I32, I32, I32, I32, I32], |c, v| {
        let (from_dir, from) = dir_and_path(c, v[0], v[2], v[3])?;
        let (to_dir, to) = dir_and_path(c, v[4], v[5], v[6])?;
        let time = now(c);
        Ok(c.data_mut().fs.link(from_dir, &from, to_dir, &to, time)?)
    });
    bind(l, "path_symlink", &[I32, I32, I32, I32, I32], |c, v| {
        let target = read_str(c, v[0] as u32, v[1] as u32)?;
        let (dir, path) = dir_and_path(c, v[2], v[3], v[4])?;
        let time = now(c);
        Ok(c.data_mut().fs.symlink(&target, dir, &path, time)?)
    });
    bind(l, "path_readlink", &[I32, I32, I32, I32, I32, I32], |c, v| {
        let (dir, path) = dir_and_path(c, v[0], v[1], v[2])?;
        let target = c.data_mut().fs.readlink(dir, &path)?;
        let len = (v[4] as u32 as usize).min(target.len());
        write_bytes(c, v[3] as u32, &target.as_bytes()[..len])?;
        write_u32(c, v[5] as u32, len as u32)
    });
}
