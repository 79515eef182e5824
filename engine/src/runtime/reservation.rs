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

#[cfg(unix)]
use crate::runtime::memory_unix as sys;
#[cfg(windows)]
use crate::runtime::memory_windows as sys;
use std::sync::Mutex;

/// Bytes of one reservation: every address a wasm32 access can form (a
/// 4 GiB index plus a 4 GiB static offset) and a guard.
pub const RESERVATION: usize = (8 << 30) + (64 << 10);
/// Reservations kept for reuse at most; more are unmapped.
const KEPT: usize = 64;

/// Bases of free reservations (addresses, so the list is `Send`).
static FREE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// The pool, locked (also for `fork_locks`).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Vec<usize>> {
    // A list of addresses stays consistent even if a holder panicked.
    FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A reservation of `RESERVATION` inaccessible bytes: a kept one, else a new
/// one. None when the OS refuses.
pub fn take() -> Option<*mut u8> {
    if let Some(base) = lock().pop() {
        return Some(base as *mut u8);
    }
    let base = sys::reserve(RESERVATION);
    (!base.is_null()).then_some(base)
}

/// Hand back the reservation at `base`, of which the first `used` bytes
/// were made accessible. Those are made inaccessible again and lose their
/// contents (written pages, a mapped memory image).
///
/// # Safety
/// `base` came from `take` and nothing refers to its memory any more.
pub unsafe fn give_back(base: *mut u8, used: usize) {
    // SAFETY: the caller's own reservation, no longer used.
    let reset = used == 0 || unsafe { sys::reset(base, used) };
    let mut free = lock();
    if reset && free.len() < KEPT {
        free.push(base as usize);
        return;
    }
    drop(free);
    // SAFETY: exactly one reservation that no one uses.
    unsafe { sys::release(base, RESERVATION) };
}
