//! Path calls, each relative to a directory descriptor: open, stat, mkdir,
//! rmdir, unlink, rename, link, symlink, readlink, set times.

use super::abi::*;
use super::bind;
use super::stat::{encode_filestat, set_times};
use crate::fdtable::FdKind;
use crate::fs::{FileType, Ino, OpenFlags};
use crate::node::Node;
use seedfall_engine::{Caller, Linker};

const LOOKUP_SYMLINK_FOLLOW: u32 = 1;
const OFLAG_CREAT: u16 = 1;
const OFLAG_DIRECTORY: u16 = 2;
const OFLAG_EXCL: u16 = 4;
const OFLAG_TRUNC: u16 = 8;
const RIGHT_FD_WRITE: u64 = 1 << 6;

/// The directory inode behind descriptor `fd`.
fn dir_ino(c: &Caller<'_, Node>, fd: u32) -> Result<Ino, Errno> {
    match c.data().fds.get(fd).map(|e| &e.kind) {
        Some(FdKind::Dir { ino, .. }) => Ok(*ino),
        Some(_) => Err(ENOTDIR),
        None => Err(EBADF),
    }
}

/// (directory inode, path) from the (fd, ptr, len) triple most calls take.
fn dir_and_path(c: &Caller<'_, Node>, fd: u32, ptr: u32, len: u32) -> Result<(Ino, String), Errno> {
    Ok((dir_ino(c, fd)?, read_str(c, ptr, len)?))
}

fn now(c: &Caller<'_, Node>) -> u64 {
    c.data().clock.realtime_now()
}

/// path_open(fd, lookup, path, path_len, oflags, rights, rights_inheriting, fdflags, *fd).
type OpenArgs = (u32, u32, u32, u32, u32, u64, u64, u32, u32);

fn path_open(c: &mut Caller<'_, Node>, args: OpenArgs) -> WasiResult {
    let (dir_fd, lookup, ptr, len, oflags, rights, rights_inheriting, fdflags, result_ptr) = args;
    let (dir, path) = dir_and_path(c, dir_fd, ptr, len)?;
    let (oflags, fdflags) = (oflags as u16, fdflags as u16);
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
        let path = ops.resolve(dir_fd, &path);
        ops.opened(node.clock.now(), fd, path, &how.join(", "));
    }
    write_u32(c, result_ptr, fd)
}

pub fn register(l: &mut Linker<Node>) {
    bind(l, "path_open", path_open);
    bind(l, "path_filestat_get", |c, (fd, lookup, ptr, len, result): (u32, u32, u32, u32, u32)| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let node = c.data_mut();
        let ino = node.fs.lookup(dir, &path, lookup & LOOKUP_SYMLINK_FOLLOW != 0)?;
        let stat = encode_filestat(&node.fs.stat(ino)?);
        write_bytes(c, result, &stat)
    });
    type SetTimesArgs = (u32, u32, u32, u32, u64, u64, u32);
    bind(l, "path_filestat_set_times", |c, (fd, lookup, ptr, len, atim, mtim, flags): SetTimesArgs| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let ino = c.data_mut().fs.lookup(dir, &path, lookup & LOOKUP_SYMLINK_FOLLOW != 0)?;
        set_times(c, ino, atim, mtim, flags as u16)
    });
    bind(l, "path_create_directory", |c, (fd, ptr, len): (u32, u32, u32)| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let time = now(c);
        Ok(c.data_mut().fs.mkdir(dir, &path, time)?)
    });
    bind(l, "path_remove_directory", |c, (fd, ptr, len): (u32, u32, u32)| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let time = now(c);
        Ok(c.data_mut().fs.rmdir(dir, &path, time)?)
    });
    bind(l, "path_unlink_file", |c, (fd, ptr, len): (u32, u32, u32)| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let time = now(c);
        let node = c.data_mut();
        node.fs.unlink(dir, &path, time)?;
        if let Some(ops) = node.file_ops.as_mut() {
            let path = ops.resolve(fd, &path);
            ops.unlinked(node.clock.now(), path);
        }
        Ok(())
    });
    type RenameArgs = (u32, u32, u32, u32, u32, u32);
    bind(l, "path_rename", |c, (from_fd, from_ptr, from_len, to_fd, to_ptr, to_len): RenameArgs| {
        let (from_dir, from) = dir_and_path(c, from_fd, from_ptr, from_len)?;
        let (to_dir, to) = dir_and_path(c, to_fd, to_ptr, to_len)?;
        let time = now(c);
        let node = c.data_mut();
        node.fs.rename(from_dir, &from, to_dir, &to, time)?;
        if let Some(ops) = node.file_ops.as_mut() {
            let (from, to) = (ops.resolve(from_fd, &from), ops.resolve(to_fd, &to));
            ops.renamed(node.clock.now(), from, to);
        }
        Ok(())
    });
    type LinkArgs = (u32, u32, u32, u32, u32, u32, u32);
    bind(l, "path_link", |c, (from_fd, _lookup, from_ptr, from_len, to_fd, to_ptr, to_len): LinkArgs| {
        let (from_dir, from) = dir_and_path(c, from_fd, from_ptr, from_len)?;
        let (to_dir, to) = dir_and_path(c, to_fd, to_ptr, to_len)?;
        let time = now(c);
        Ok(c.data_mut().fs.link(from_dir, &from, to_dir, &to, time)?)
    });
    bind(l, "path_symlink", |c, (target_ptr, target_len, fd, ptr, len): (u32, u32, u32, u32, u32)| {
        let target = read_str(c, target_ptr, target_len)?;
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let time = now(c);
        Ok(c.data_mut().fs.symlink(&target, dir, &path, time)?)
    });
    type ReadlinkArgs = (u32, u32, u32, u32, u32, u32);
    bind(l, "path_readlink", |c, (fd, ptr, len, buf, buf_len, result): ReadlinkArgs| {
        let (dir, path) = dir_and_path(c, fd, ptr, len)?;
        let target = c.data_mut().fs.readlink(dir, &path)?;
        let len = (buf_len as usize).min(target.len());
        write_bytes(c, buf, &target.as_bytes()[..len])?;
        write_u32(c, result, len as u32)
    });
}
