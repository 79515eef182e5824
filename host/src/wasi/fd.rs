//! Calls on open descriptors: read, write, seek, stat, readdir, close, sync,
//! and the preopen scan. Socket descriptors are handed to `sock.rs`;
//! sock_recv and sock_send (which Go never calls) answer ENOTSUP on sockets.

use super::abi::*;
use super::stat::{encode_filestat, set_times, stdio_filestat};
use super::{bind, sock};
use crate::fdtable::{FdEntry, FdKind};
use crate::node::{Node, Report, park, park_for};
use seedfall_engine::{Caller, Linker};

const WHENCE_SET: u8 = 0;
const WHENCE_CUR: u8 = 1;
const WHENCE_END: u8 = 2;
const PREOPEN_TYPE_DIR: u8 = 0;
/// Size of a dirent header before the name.
const DIRENT_SIZE: usize = 24;

fn entry(c: &Caller<'_, Node>, fd: u32) -> Result<FdEntry, Errno> {
    c.data().fds.get(fd).cloned().ok_or(EBADF)
}

/// The most one socket read or write moves (a short count past it, which
/// Go's poll loop continues from): a socket sink needs its bytes in one
/// host buffer, so the buffer is bounded, not the guest's iovec sum.
const SOCKET_IO_MAX_BYTES: usize = 1 << 20;
/// File reads go through a buffer of at most this size, chunk by chunk.
const FILE_READ_CHUNK_BYTES: usize = 1 << 20;

/// fd_write, and with an `offset` fd_pwrite.
fn fd_write(
    c: &mut Caller<'_, Node>,
    fd: u32,
    iovs: u32,
    count: u32,
    offset: Option<u64>,
    result_ptr: u32,
) -> WasiResult {
    let iovecs = read_iovecs(c, iovs, count)?;
    let entry = entry(c, fd)?;
    let written = match entry.kind {
        FdKind::Stdout | FdKind::Stderr if offset.is_none() => {
            let stderr = entry.kind == FdKind::Stderr;
            let (memory, node) = c.memory_and_data();
            let out = if stderr { &mut node.stderr } else { &mut node.stdout };
            let mut dropped = 0;
            for &(ptr, len) in &iovecs {
                dropped += out.write(&memory[ptr as usize..][..len as usize], stderr);
            }
            node.output_dropped += dropped;
            iovecs.iter().map(|(_, len)| *len as usize).sum()
        }
        FdKind::Stdout | FdKind::Stderr | FdKind::Stdin => return Err(ESPIPE),
        // As on Linux: a directory is never open for writing, and neither
        // is a file opened O_RDONLY.
        FdKind::Dir { .. } => return Err(EBADF),
        FdKind::File { .. } if !entry.can_write() => return Err(EBADF),
        FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) if offset.is_some() => return Err(ESPIPE),
        FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) => {
            let data = gather(c, &iovecs, SOCKET_IO_MAX_BYTES)?;
            sock::write(c, fd, &entry, &data)?
        }
        FdKind::File { ino, .. } if c.data().fs.is_antithesis_output(ino) => antithesis_write(c, &iovecs),
        FdKind::File { ino, offset: position } => {
            let (memory, node) = c.memory_and_data();
            let now = node.clock.realtime_now();
            let start = match offset {
                Some(at) => at,
                None if entry.flags & FDFLAG_APPEND != 0 => node.fs.size(ino)?,
                None => position,
            };
            // One disk write per iovec, straight from guest memory; an
            // empty list is one empty write, as a single empty iovec is.
            let mut done = 0u64;
            for &(ptr, len) in if iovecs.is_empty() { &[(0, 0)][..] } else { &iovecs[..] } {
                let at = start.checked_add(done).ok_or(EINVAL)?;
                match node.fs.write_at(ino, at, &memory[ptr as usize..][..len as usize], now) {
                    Ok(n) => {
                        done += n as u64;
                        if n < len as usize {
                            break;
                        }
                    }
                    Err(e) if done == 0 => return Err(e.into()),
                    // What was written stays written: a short count.
                    Err(_) => break,
                }
            }
            if offset.is_none()
                && let Some(FdEntry { kind: FdKind::File { offset, .. }, .. }) = node.fds.get_mut(fd)
            {
                *offset = start + done;
            }
            if let Some(ops) = node.file_ops.as_mut() {
                ops.wrote(node.clock.now(), fd, done, start);
            }
            if done > 0 && !node.mappings.is_empty() {
                node.mappings.refresh(&mut node.fs, memory, ino, start, start + done)?;
            }
            // Synchronous I/O: the write is durable when it returns, or it
            // fails as its sync did (a crash in it, an fsync EIO).
            if done > 0
                && entry.flags & (FDFLAG_DSYNC | FDFLAG_RSYNC | FDFLAG_SYNC) != 0
                && node.fs.honours_sync_flags()
            {
                node.fs.sync(ino)?;
            }
            done as usize
        }
    };
    write_u32(c, result_ptr, written as u32)
}

/// A write to `/dev/antithesis`: the Antithesis SDK's assertions, read as
/// the world's reports (`antithesis.rs`); outside the world they vanish. A
/// failing one parks the node, as a failing `sim` property does.
fn antithesis_write(c: &mut Caller<'_, Node>, iovecs: &[(u32, u32)]) -> usize {
    let (memory, node) = c.memory_and_data();
    let mut reports = Vec::new();
    for &(ptr, len) in iovecs {
        reports.extend(node.antithesis.feed(&memory[ptr as usize..][..len as usize]));
    }
    let fails = reports.iter().any(|r| matches!(r, Report::Property { kind, cond, .. } if kind.fails(*cond)));
    if let Some(sim) = node.sim.as_mut() {
        sim.reports.extend(reports);
        if fails {
            let now = node.clock.now();
            park(c, Some(now));
        }
    }
    iovecs.iter().map(|(_, len)| *len as usize).sum()
}

/// fd_sync and fd_datasync; with `disk_latency` the node waits before the
/// call returns, failed or not, as a flush takes its time either way.
fn fd_sync(c: &mut Caller<'_, Node>, (fd,): (u32,)) -> WasiResult {
    let ino = file_ino(c, fd)?;
    write_back_mapped(c, ino)?;
    let node = c.data_mut();
    let result = node.fs.sync(ino);
    if let Some(ops) = node.file_ops.as_mut() {
        ops.synced(node.clock.now(), fd, result.err());
    }
    // A crash in the middle of the sync ends the incarnation instead.
    let crashing = node.fs.crash_requested().is_some();
    if let Some(wait) = node.disk_latency.as_mut().filter(|_| !crashing).map(|l| l.draw()) {
        let until = node.clock.now().plus(wait);
        park_for(c, Some(until), "fsync");
    }
    Ok(result?)
}

/// Reads file `ino` from `at` into the iovecs through a bounded buffer: a
/// guest asking for gigabytes (of a sparse file, say) costs the host one
/// chunk. The test hook's read perturbation sees the call's first chunk,
/// as it saw the whole read before.
fn read_file(c: &mut Caller<'_, Node>, ino: crate::fs::Ino, at: u64, iovecs: &[(u32, u32)]) -> Result<u64, Errno> {
    if c.data().fs.is_random_device(ino) {
        for &(ptr, len) in iovecs {
            super::proc::fill_random(c, ptr, len)?;
        }
        return Ok(iovecs.iter().map(|&(_, len)| u64::from(len)).sum());
    }
    write_back_mapped(c, ino)?;
    let done = read_chunks(c, ino, at, iovecs)?;
    if done > 0 {
        let node = c.data_mut();
        let now = node.clock.realtime_now();
        node.fs.accessed(ino, now);
    }
    Ok(done)
}

/// Before a read or sync of `ino`: what its shared writable mappings
/// changed goes to the file, so the call sees it (`crate::mmap`).
fn write_back_mapped(c: &mut Caller<'_, Node>, ino: crate::fs::Ino) -> Result<(), Errno> {
    let (memory, node) = c.memory_and_data();
    if node.mappings.has_writable(ino) {
        let now = node.clock.realtime_now();
        node.mappings.write_back(&mut node.fs, memory, Some(ino), now)?;
    }
    Ok(())
}

fn read_chunks(c: &mut Caller<'_, Node>, ino: crate::fs::Ino, at: u64, iovecs: &[(u32, u32)]) -> Result<u64, Errno> {
    let mut chunk = Vec::new();
    let mut done = 0u64;
    let mut first = true;
    for &(ptr, len) in iovecs {
        let mut filled = 0u32;
        while filled < len {
            let want = ((len - filled) as usize).min(FILE_READ_CHUNK_BYTES);
            chunk.resize(want, 0);
            let from = at.checked_add(done).ok_or(EINVAL)?;
            let n = match c.data_mut().fs.read_at(ino, from, &mut chunk) {
                Ok(n) => n,
                Err(e) if done == 0 => return Err(e.into()),
                Err(_) => return Ok(done),
            };
            if first && c.data().perturb.is_some() {
                c.data_mut().perturb_read(&mut chunk[..n]);
            }
            first = false;
            write_bytes(c, ptr + filled, &chunk[..n])?;
            done += n as u64;
            filled += n as u32;
            if n < want {
                return Ok(done);
            }
        }
    }
    Ok(done)
}

/// fd_read, and with an `offset` fd_pread.
fn fd_read(
    c: &mut Caller<'_, Node>,
    fd: u32,
    iovs: u32,
    count: u32,
    offset: Option<u64>,
    result_ptr: u32,
) -> WasiResult {
    let iovecs = read_iovecs(c, iovs, count)?;
    let wanted = iovecs.iter().map(|(_, len)| *len as usize).sum::<usize>();
    let entry = entry(c, fd)?;
    let data = match entry.kind {
        FdKind::Stdin => Vec::new(), // always at end of file: runs never depend on input
        FdKind::Stdout | FdKind::Stderr => return Err(EBADF),
        FdKind::Dir { .. } => return Err(EISDIR),
        // As on Linux: a file opened O_WRONLY cannot be read.
        FdKind::File { .. } if !entry.can_read() => return Err(EBADF),
        FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) if offset.is_some() => return Err(ESPIPE),
        FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) => {
            sock::read(c, fd, &entry, wanted.min(SOCKET_IO_MAX_BYTES))?
        }
        FdKind::File { ino, offset: position } => {
            let at = offset.unwrap_or(position);
            let n = read_file(c, ino, at, &iovecs)?;
            if offset.is_none()
                && let Some(FdEntry { kind: FdKind::File { offset, .. }, .. }) = c.data_mut().fds.get_mut(fd)
            {
                *offset = at + n;
            }
            return write_u32(c, result_ptr, n as u32);
        }
    };
    let n = scatter(c, &iovecs, &data)?;
    write_u32(c, result_ptr, n)
}

fn fd_seek(c: &mut Caller<'_, Node>, (fd, delta, whence, result_ptr): (u32, i64, u32, u32)) -> WasiResult {
    let FdKind::File { ino, offset } = entry(c, fd)?.kind else {
        return Err(match entry(c, fd)?.kind {
            FdKind::Dir { .. } => EISDIR,
            _ => ESPIPE,
        });
    };
    let base = match whence as u8 {
        WHENCE_SET => 0,
        WHENCE_CUR => offset as i64,
        WHENCE_END => c.data_mut().fs.size(ino)? as i64,
        _ => return Err(EINVAL),
    };
    let target = base.checked_add(delta).filter(|t| *t >= 0).ok_or(EINVAL)? as u64;
    if let Some(FdEntry { kind: FdKind::File { offset, .. }, .. }) = c.data_mut().fds.get_mut(fd) {
        *offset = target;
    }
    write_u64(c, result_ptr, target)
}

fn fd_fdstat_get(c: &mut Caller<'_, Node>, (fd, result_ptr): (u32, u32)) -> WasiResult {
    let entry = entry(c, fd)?;
    let filetype = match entry.kind {
        FdKind::Stdin | FdKind::Stdout | FdKind::Stderr => FILETYPE_CHARACTER_DEVICE,
        FdKind::Dir { .. } => FILETYPE_DIRECTORY,
        // A regular file or a device such as /dev/null.
        FdKind::File { ino, .. } => c.data().fs.filetype(ino)?.wasi_code(),
        FdKind::Socket(_) | FdKind::Listener(_) => sock::FILETYPE_SOCKET_STREAM,
        FdKind::Udp(_) => sock::FILETYPE_SOCKET_DGRAM,
    };
    let mut out = [0u8; 24];
    out[0] = filetype;
    out[2..4].copy_from_slice(&entry.flags.to_le_bytes());
    out[8..16].copy_from_slice(&entry.rights_base.to_le_bytes());
    out[16..24].copy_from_slice(&entry.rights_inheriting.to_le_bytes());
    write_bytes(c, result_ptr, &out)
}

fn fd_filestat_get(c: &mut Caller<'_, Node>, (fd, result_ptr): (u32, u32)) -> WasiResult {
    let out = match entry(c, fd)?.kind {
        FdKind::Stdin | FdKind::Stdout | FdKind::Stderr => stdio_filestat(),
        FdKind::Dir { ino, .. } | FdKind::File { ino, .. } => encode_filestat(&c.data_mut().fs.stat(ino)?),
        FdKind::Socket(_) | FdKind::Listener(_) => {
            let mut out = [0u8; 64];
            out[16] = sock::FILETYPE_SOCKET_STREAM;
            out
        }
        FdKind::Udp(_) => {
            let mut out = [0u8; 64];
            out[16] = sock::FILETYPE_SOCKET_DGRAM;
            out
        }
    };
    write_bytes(c, result_ptr, &out)
}

fn file_ino(c: &Caller<'_, Node>, fd: u32) -> Result<crate::fs::Ino, Errno> {
    match entry(c, fd)?.kind {
        FdKind::File { ino, .. } | FdKind::Dir { ino, .. } => Ok(ino),
        _ => Err(EINVAL),
    }
}

fn fd_readdir(
    c: &mut Caller<'_, Node>,
    (fd, buf, buf_len, cookie, result_ptr): (u32, u32, u32, u64, u32),
) -> WasiResult {
    let FdKind::Dir { ino, .. } = entry(c, fd)?.kind else { return Err(ENOTDIR) };
    let entries = c.data_mut().fs.read_dir(ino)?;
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate().skip(cookie as usize) {
        let mut dirent = [0u8; DIRENT_SIZE];
        dirent[0..8].copy_from_slice(&(i as u64 + 1).to_le_bytes());
        dirent[8..16].copy_from_slice(&e.ino.0.to_le_bytes());
        dirent[16..20].copy_from_slice(&(e.name.len() as u32).to_le_bytes());
        dirent[20] = e.filetype.wasi_code();
        out.extend_from_slice(&dirent);
        out.extend_from_slice(e.name.as_bytes());
        if out.len() >= buf_len as usize {
            break; // a full buffer tells the guest to ask again with a bigger one
        }
    }
    out.truncate(buf_len as usize);
    write_bytes(c, buf, &out)?;
    write_u32(c, result_ptr, out.len() as u32)
}

fn fd_close(c: &mut Caller<'_, Node>, (fd,): (u32,)) -> WasiResult {
    let node = c.data_mut();
    let entry = node.fds.remove(fd).ok_or(EBADF)?;
    if let Some(ops) = node.file_ops.as_mut() {
        ops.closed(fd);
    }
    if let FdKind::File { ino, .. } | FdKind::Dir { ino, .. } = entry.kind {
        node.locks.closed(ino, fd);
    }
    node.release(&entry.kind);
    Ok(())
}

fn fd_prestat(c: &Caller<'_, Node>, fd: u32) -> Result<String, Errno> {
    match entry(c, fd)?.kind {
        FdKind::Dir { preopen: Some(name), .. } => Ok(name),
        // Not EBADF: Go's preopen scan stops at the first EBADF.
        _ => Err(ENOTDIR),
    }
}

fn not_for_sockets(c: &Caller<'_, Node>, fd: u32) -> WasiResult {
    match entry(c, fd)?.kind {
        FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) => Err(ENOTSUP),
        _ => Err(ENOTSOCK),
    }
}

pub fn register(l: &mut Linker<Node>) {
    bind(l, "fd_write", |c, (fd, iovs, count, result): (u32, u32, u32, u32)| {
        fd_write(c, fd, iovs, count, None, result)
    });
    bind(l, "fd_pwrite", |c, (fd, iovs, count, offset, result): (u32, u32, u32, u64, u32)| {
        fd_write(c, fd, iovs, count, Some(offset), result)
    });
    bind(l, "fd_read", |c, (fd, iovs, count, result): (u32, u32, u32, u32)| fd_read(c, fd, iovs, count, None, result));
    bind(l, "fd_pread", |c, (fd, iovs, count, offset, result): (u32, u32, u32, u64, u32)| {
        fd_read(c, fd, iovs, count, Some(offset), result)
    });
    bind(l, "fd_seek", fd_seek);
    bind(l, "fd_tell", |c, (fd, result): (u32, u32)| match entry(c, fd)?.kind {
        FdKind::File { offset, .. } => write_u64(c, result, offset),
        _ => Err(ESPIPE),
    });
    bind(l, "fd_close", fd_close);
    bind(l, "fd_fdstat_get", fd_fdstat_get);
    bind(l, "fd_fdstat_set_flags", |c, (fd, flags): (u32, u32)| {
        let entry = c.data_mut().fds.get_mut(fd).ok_or(EBADF)?;
        entry.flags = flags as u16;
        Ok(())
    });
    bind(l, "fd_fdstat_set_rights", |c, (fd, base, inheriting): (u32, u64, u64)| {
        let entry = c.data_mut().fds.get_mut(fd).ok_or(EBADF)?;
        // Rights can only be dropped, never regained.
        if base & !entry.rights_base != 0 || inheriting & !entry.rights_inheriting != 0 {
            return Err(ENOTCAPABLE);
        }
        entry.rights_base = base;
        entry.rights_inheriting = inheriting;
        Ok(())
    });
    bind(l, "fd_filestat_get", fd_filestat_get);
    bind(l, "fd_filestat_set_size", |c, (fd, size): (u32, u64)| {
        let ino = file_ino(c, fd)?;
        // Linux's ftruncate on a descriptor not open for writing.
        if !entry(c, fd)?.can_write() {
            return Err(EINVAL);
        }
        write_back_mapped(c, ino)?;
        let (memory, node) = c.memory_and_data();
        let now = node.clock.realtime_now();
        node.fs.set_size(ino, size, now)?;
        // Mapped bytes past the new end read as zeros.
        Ok(node.mappings.refresh(&mut node.fs, memory, ino, size, u64::MAX)?)
    });
    bind(l, "fd_filestat_set_times", |c, (fd, atim, mtim, flags): (u32, u64, u64, u32)| {
        let ino = file_ino(c, fd)?;
        set_times(c, ino, atim, mtim, flags as u16)
    });
    // The disk model (fs/durability.rs) tells data from metadata apart no
    // more than this: both make a file's writes, or a directory's entries,
    // durable. EIO is fsync_eio, or crash_on_io (then Fs::crash_requested
    // says the node must crash before the guest runs again).
    bind(l, "fd_sync", fd_sync);
    bind(l, "fd_datasync", fd_sync);
    bind(l, "fd_advise", |c, (fd, _, _, _): (u32, u64, u64, u32)| file_ino(c, fd).map(|_| ()));
    bind(l, "fd_allocate", |_, _: (u32, u64, u64)| Err(ENOTSUP));
    bind(l, "fd_renumber", |_, _: (u32, u32)| Err(ENOTSUP));
    bind(l, "fd_readdir", fd_readdir);
    bind(l, "fd_prestat_get", |c, (fd, result): (u32, u32)| {
        let name = fd_prestat(c, fd)?;
        let mut out = [0u8; 8];
        out[0] = PREOPEN_TYPE_DIR;
        out[4..8].copy_from_slice(&(name.len() as u32).to_le_bytes());
        write_bytes(c, result, &out)
    });
    bind(l, "fd_prestat_dir_name", |c, (fd, buf, len): (u32, u32, u32)| {
        let name = fd_prestat(c, fd)?;
        let len = (len as usize).min(name.len());
        write_bytes(c, buf, &name.as_bytes()[..len])
    });
    bind(l, "sock_accept", sock::accept);
    bind(l, "sock_shutdown", sock::shutdown);
    bind(l, "sock_recv", |c, (fd, ..): (u32, u32, u32, u32, u32, u32)| not_for_sockets(c, fd));
    bind(l, "sock_send", |c, (fd, ..): (u32, u32, u32, u32, u32)| not_for_sockets(c, fd));
}
