//! WASI preview1 ABI constants and guest-memory helpers: errno values, file
//! types, struct sizes, and little-endian reads and writes that turn an
//! out-of-bounds guest pointer into EFAULT instead of a host error.

use crate::node::Node;
use seedfall_engine::Caller;

pub type Errno = u16;
pub const SUCCESS: Errno = 0;
pub const EBADF: Errno = 8;
pub const EFAULT: Errno = 21;
pub const EINVAL: Errno = 28;
pub const EISDIR: Errno = 31;
pub const ENOSYS: Errno = 52;
pub const ENOTDIR: Errno = 54;
pub const ENOTSUP: Errno = 58;
pub const ESPIPE: Errno = 70;
pub const ENOTSOCK: Errno = 57;
pub const ENOTCONN: Errno = 53;
pub const EAGAIN: Errno = 6;
pub const EDESTADDRREQ: Errno = 17;
pub const ENOTCAPABLE: Errno = 76;
pub const ENAMETOOLONG: Errno = 37;

/// Linux's PATH_MAX: a longer path is ENAMETOOLONG before any of it is copied.
pub const PATH_MAX_BYTES: u32 = 4096;

pub const FILETYPE_CHARACTER_DEVICE: u8 = 2;
pub const FILETYPE_DIRECTORY: u8 = 3;

pub const FDFLAG_APPEND: u16 = 1;
/// O_DSYNC, O_RSYNC (Linux's O_RSYNC is O_SYNC) and O_SYNC: each write is
/// durable when it returns.
pub const FDFLAG_DSYNC: u16 = 2;
pub const FDFLAG_RSYNC: u16 = 8;
pub const FDFLAG_SYNC: u16 = 16;

pub const CLOCK_REALTIME: u32 = 0;
pub const CLOCK_MONOTONIC: u32 = 1;

/// Result of a WASI call body: `Err(errno)` is returned to the guest.
pub type WasiResult = Result<(), Errno>;

pub fn read_bytes<T>(c: &Caller<'_, T>, ptr: u32, len: u32) -> Result<Vec<u8>, Errno> {
    c.read(ptr, len).map(|b| b.to_vec()).map_err(|_| EFAULT)
}

pub fn read_u32<T>(c: &Caller<'_, T>, ptr: u32) -> Result<u32, Errno> {
    let b = c.read(ptr, 4).map_err(|_| EFAULT)?;
    Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
}

/// Every write into guest memory goes through here, so the trace hash
/// covers what the host gave the guest (read data, random bytes, clocks).
pub fn write_bytes(c: &mut Caller<'_, Node>, ptr: u32, bytes: &[u8]) -> WasiResult {
    c.write(ptr, bytes).map_err(|_| EFAULT)?;
    c.data_mut().trace.memory_write(ptr, bytes);
    Ok(())
}

pub fn write_u32(c: &mut Caller<'_, Node>, ptr: u32, v: u32) -> WasiResult {
    write_bytes(c, ptr, &v.to_le_bytes())
}

pub fn write_u64(c: &mut Caller<'_, Node>, ptr: u32, v: u64) -> WasiResult {
    write_bytes(c, ptr, &v.to_le_bytes())
}

/// A guest path of `len` bytes at `ptr`: EFAULT outside memory, then
/// ENAMETOOLONG past PATH_MAX, so the host never copies a guest-sized path.
pub fn read_str<T>(c: &Caller<'_, T>, ptr: u32, len: u32) -> Result<String, Errno> {
    c.read(ptr, len).map_err(|_| EFAULT)?;
    if len > PATH_MAX_BYTES {
        return Err(ENAMETOOLONG);
    }
    String::from_utf8(read_bytes(c, ptr, len)?).map_err(|_| EINVAL)
}

/// Linux's IOV_MAX: more iovecs in one call is EINVAL.
pub const IOV_MAX: u32 = 1024;
/// Linux's MAX_RW_COUNT: the most one read or write moves; iovecs past it
/// are cut (a short count, which Go's poll loop continues from).
pub const MAX_RW_BYTES: u64 = 0x7fff_f000;

/// The (ptr, len) pairs of an iovec array, each checked to lie in guest
/// memory (EFAULT, as Linux checks them before it moves a byte) and cut so
/// that they add up to at most `MAX_RW_BYTES`. Nothing is copied: iovecs
/// may add up to gigabytes (and overlap), so callers stream them.
pub fn read_iovecs<T>(c: &Caller<'_, T>, iovs: u32, count: u32) -> Result<Vec<(u32, u32)>, Errno> {
    if count > IOV_MAX {
        return Err(EINVAL);
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut left = MAX_RW_BYTES;
    for i in 0..count {
        // 8 * i < 8 * IOV_MAX: only the sum with `iovs` can overflow.
        let at = iovs.checked_add(8 * i).ok_or(EFAULT)?;
        let ptr = read_u32(c, at)?;
        let len = read_u32(c, at.checked_add(4).ok_or(EFAULT)?)?;
        c.read(ptr, len).map_err(|_| EFAULT)?;
        let len = (len as u64).min(left) as u32;
        left -= len as u64;
        out.push((ptr, len));
    }
    Ok(out)
}

/// The first `max` bytes an iovec array points at, concatenated: a bounded
/// copy for a sink that needs one buffer (a socket); the rest is a short write.
pub fn gather<T>(c: &Caller<'_, T>, iovecs: &[(u32, u32)], max: usize) -> Result<Vec<u8>, Errno> {
    let total = iovecs.iter().map(|(_, len)| *len as usize).sum::<usize>().min(max);
    let mut out = Vec::with_capacity(total);
    for &(ptr, len) in iovecs {
        let take = (len as usize).min(total - out.len());
        out.extend_from_slice(c.read(ptr, take as u32).map_err(|_| EFAULT)?);
        if out.len() == total {
            break;
        }
    }
    Ok(out)
}

/// Write `data` across an iovec array; returns the bytes written.
pub fn scatter(c: &mut Caller<'_, Node>, iovs: &[(u32, u32)], data: &[u8]) -> Result<u32, Errno> {
    let mut owned = None;
    if c.data().perturb.is_some() {
        let mut copy = data.to_vec();
        c.data_mut().perturb_read(&mut copy);
        owned = Some(copy);
    }
    let data = owned.as_deref().unwrap_or(data);
    let mut done = 0usize;
    for (ptr, len) in iovs {
        if done == data.len() {
            break;
        }
        let n = (*len as usize).min(data.len() - done);
        write_bytes(c, *ptr, &data[done..done + n])?;
        done += n;
    }
    Ok(done as u32)
}
