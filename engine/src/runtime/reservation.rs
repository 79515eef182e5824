//! Address-space reservations for linear memories, kept for reuse: a memory
//! that is dropped hands its reservation back, and the next memory takes it
//! instead of asking the kernel for 8 GiB of address space again. Nodes
//! crash and restart many times a seed, so this saves a large mmap and
//! munmap per boot; and it is what lets the engine run under qemu-user,
//! whose 7.2 release keeps about 50 MB of bookkeeping for every reservation
//! ever made, even after it is unmapped (docs/platforms.md).
//!
//! A reservation comes back one of two ways:
//! - reset (`give_back`): every page inaccessible, and zero when made
//!   accessible again: what a fresh reservation is;
//! - warm (`give_back_warm`), for a memory built from a module's memory
//!   image: kept as the guest left it, pages resident, for the next memory
//!   of the same image, which restores the bytes itself (`image`). That
//!   saves the next boot a page fault per page it writes (docs/warm-memory.md).
//!
//! It does not decide how much of a reservation is accessible: `memory` does;
//! nor what a warm one holds: `image` does.

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
/// Warm reservations kept per memory image at most: enough for the nodes of
/// one world that crash and restart (a world runs one node at a time); more
/// would only hold resident memory.
const WARM_PER_IMAGE: usize = 4;

/// A reservation kept warm for a memory image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Warm {
    /// The image's identity (`MemoryImage::id`).
    pub image: u64,
    /// The reservation's base, as an address so the pool is `Send`.
    pub base: usize,
    /// The bytes that were accessible when it came back.
    pub accessible: usize,
    /// The bytes that may hold resident pages: the most that was ever
    /// accessible since the reservation was last reset. Past `accessible`
    /// they are all zero (warm memories are restored up to `accessible`).
    pub extent: usize,
}

/// The kept reservations.
pub(crate) struct Pool {
    /// Bases of reset reservations.
    free: Vec<usize>,
    warm: Vec<Warm>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { free: Vec::new(), warm: Vec::new() });

/// The pool, locked (also for `fork_locks`).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Pool> {
    // Lists of addresses stay consistent even if a holder panicked.
    POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A reservation of `RESERVATION` inaccessible bytes: a kept one, else a new
/// one. None when the OS refuses.
pub fn take() -> Option<*mut u8> {
    if let Some(base) = lock().free.pop() {
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
    let mut pool = lock();
    if reset && pool.free.len() < KEPT {
        pool.free.push(base as usize);
        return;
    }
    drop(pool);
    // SAFETY: exactly one reservation that no one uses.
    unsafe { sys::release(base, RESERVATION) };
}

/// Hand back a reservation as its memory left it, for the next memory of
/// the same image; reset instead when that image has enough kept already.
///
/// # Safety
/// As for `give_back`, and `warm.base` came from `take`.
pub unsafe fn give_back_warm(warm: Warm) {
    let mut pool = lock();
    if pool.warm.iter().filter(|w| w.image == warm.image).count() < WARM_PER_IMAGE {
        pool.warm.push(warm);
        return;
    }
    drop(pool);
    // SAFETY: the caller's promise.
    unsafe { give_back(warm.base as *mut u8, warm.extent) };
}

/// The most recently kept warm reservation of `image`, if any.
#[cfg(target_os = "linux")]
pub fn take_warm(image: u64) -> Option<Warm> {
    let mut pool = lock();
    let at = pool.warm.iter().rposition(|w| w.image == image)?;
    Some(pool.warm.swap_remove(at))
}

/// Reset every warm reservation of `image` (it is going away, so no memory
/// will take them).
#[cfg(target_os = "linux")]
pub fn forget_image(image: u64) {
    let forgotten: Vec<Warm> = {
        let mut pool = lock();
        let (gone, kept) = pool.warm.iter().partition(|w| w.image == image);
        pool.warm = kept;
        gone
    };
    for warm in forgotten {
        // SAFETY: taken out of the pool, so no one else has it.
        unsafe { give_back(warm.base as *mut u8, warm.extent) };
    }
}
