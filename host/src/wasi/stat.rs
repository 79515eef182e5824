//! File status for the descriptor and path calls alike: the WASI filestat
//! encoding, and how `fst_flags` set a file's times. It makes no calls of
//! its own (`fd.rs` and `path.rs` bind them).

use super::abi::*;
use crate::fs::{Ino, Stat};
use crate::node::Node;
use seedfall_engine::Caller;

/// The one device every simulated file lives on (Go's os.SameFile compares it).
const DEVICE: u64 = 1;
const FSTFLAG_ATIM: u16 = 1;
const FSTFLAG_ATIM_NOW: u16 = 2;
const FSTFLAG_MTIM: u16 = 4;
const FSTFLAG_MTIM_NOW: u16 = 8;

/// The 64-byte WASI filestat.
pub(super) fn encode_filestat(stat: &Stat) -> [u8; 64] {
    let mut out = [0u8; 64];
    out[0..8].copy_from_slice(&DEVICE.to_le_bytes());
    out[8..16].copy_from_slice(&stat.ino.0.to_le_bytes());
    out[16] = stat.filetype.wasi_code();
    out[24..32].copy_from_slice(&stat.nlink.to_le_bytes());
    out[32..40].copy_from_slice(&stat.size.to_le_bytes());
    out[40..48].copy_from_slice(&stat.atim.to_le_bytes());
    out[48..56].copy_from_slice(&stat.mtim.to_le_bytes());
    out[56..64].copy_from_slice(&stat.ctim.to_le_bytes());
    out
}

pub(super) fn stdio_filestat() -> [u8; 64] {
    let mut out = [0u8; 64];
    out[16] = FILETYPE_CHARACTER_DEVICE;
    out[24..32].copy_from_slice(&1u64.to_le_bytes());
    out
}

/// Apply WASI fst_flags to `ino`'s access and modification times.
pub(super) fn set_times(c: &mut Caller<'_, Node>, ino: Ino, atim: u64, mtim: u64, flags: u16) -> WasiResult {
    let time = c.data().clock.realtime_now();
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
