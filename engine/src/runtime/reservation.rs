//! Address-space reservations for linear memories, kept for reuse: a memory
//! that is dropped hands its reservation back, reset to what a fresh one is
//! (every page inaccessible, and zero when made accessible again), and the
//! next memory takes it instead of asking the kernel for 8 GiB of address
//! space again. Nodes crash and restart many times a seed, so this saves a
//! large mmap and munmap per boot; and it is what lets the engine run under
//! qemu-user, whose 7.2 release keeps about 50 MB of bookkeeping for every
//! reservation ever made, even after it is unmapped (docs/platforms.md).
//!
//! It does not decide how much of a reservation is accessible: `memory` does.

use std::sync::Mutex;

/// Bytes of one reservation: every address a wasm32 access can form (a
/// 4 GiB index plus a 4 GiB static offset) and a guard.
pub const RESERVATION: usize = (8 << 30) + (64 << 10);
/// Reservations kept for reuse at most; more are unmapped.
const KEPT: usize = 64;

/// Bases of free reservations (addresses, so the list is `Send`).
static FREE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn free() -> std::sync::MutexGuard<'static, Vec<usize>> {
    // A list of addresses stays consistent even if a holder panicked.
    FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A reservation of `RESERVATION` inaccessible bytes: a kept one, else a new
/// one. None when the kernel refuses.
pub fn take() -> Option<*mut u8> {
    if let Some(base) = free().pop() {
        return Some(base as *mut u8);
    }
    // SAFETY: a fresh anonymous PROT_NONE mapping; no existing memory is affected.
    let base = unsafe { map_inaccessible(std::ptr::null_mut(), RESERVATION, 0) };
    (base != libc::MAP_FAILED).then_some(base as *mut u8)
}

/// Hand back the reservation at `base`, of which the first `used` bytes
/// were made accessible. Those are replaced by fresh inaccessible pages,
/// which drops their contents (written pages, a mapped memory image).
///
/// # Safety
/// `base` came from `take` and nothing refers to its memory any more.
pub unsafe fn give_back(base: *mut u8, used: usize) {
    // SAFETY: replaces the caller's own, no longer used, range in place.
    let reset = used == 0 || unsafe { map_inaccessible(base.cast(), used, libc::MAP_FIXED) } == base.cast();
    let mut free = free();
    if reset && free.len() < KEPT {
        free.push(base as usize);
        return;
    }
    drop(free);
    // SAFETY: unmapping exactly one reservation that no one uses.
    unsafe { libc::munmap(base.cast(), RESERVATION) };
}

/// `mmap` of `len` anonymous, inaccessible, unreserved bytes at `at`.
///
/// # Safety
/// With `MAP_FIXED` in `flags`, `at..at + len` must be the caller's own
/// mapping, unused by anyone.
unsafe fn map_inaccessible(at: *mut libc::c_void, len: usize, flags: libc::c_int) -> *mut libc::c_void {
    let flags = flags | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    // SAFETY: the caller's promise for MAP_FIXED; otherwise the kernel picks a free range.
    unsafe { libc::mmap(at, len, libc::PROT_NONE, flags, -1, 0) }
}
