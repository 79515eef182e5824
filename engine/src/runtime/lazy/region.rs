//! One region of lazily compiled code: a reservation of inaccessible address
//! space that holds a thunk per function and then, page by page, functions
//! as they are compiled. Pages are written while nothing can run them (fresh,
//! inaccessible pages made writable) and then made executable, never
//! writable again, so no code that runs is ever written to (W^X) and no
//! other thread can see half a function.
//!
//! Direct calls reach ±2 GiB on x86-64 and ±128 MiB on aarch64, so a region
//! is at most that big and code in it calls only within it: to a function
//! compiled into the same region, or to this region's thunk for any other.

use super::thunk;
use crate::runtime::memory_unix;
use crate::runtime::registry::{self, Registration};
use std::sync::atomic::AtomicUsize;

/// Bytes of address space per region: within a direct call's reach.
pub const REGION_BYTES: usize = if cfg!(target_arch = "aarch64") { 128 << 20 } else { 1 << 30 };

pub struct Region {
    base: *mut u8,
    /// Where the thunk of function 0 is.
    thunks_at: usize,
    /// The first byte no page has been handed out for.
    next: usize,
    _registration: Registration,
}

// SAFETY: the region's pages are only written under the lazy compile lock,
// and only pages no thread can run yet; the pointer itself is plain data.
unsafe impl Send for Region {}
// SAFETY: as for Send: shared use only reads the address.
unsafe impl Sync for Region {}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

impl Region {
    /// A region that starts with `prefix` (machine code, run as is) and then
    /// the thunks of `slots.len()` functions, each jumping through its slot;
    /// those of `jump_only` functions store no index (`thunk::encode`).
    pub fn new(prefix: &[u8], slots: &[AtomicUsize], jump_only: &[bool]) -> Result<Region, String> {
        let thunks_at = prefix.len().next_multiple_of(thunk::SIZE);
        let header = (thunks_at + slots.len() * thunk::SIZE).next_multiple_of(page_size());
        if header > REGION_BYTES / 2 {
            return Err(format!("{} functions' thunks do not fit a code region", slots.len()));
        }
        let base = memory_unix::reserve(REGION_BYTES);
        if base.is_null() {
            return Err("cannot reserve address space for code".into());
        }
        let registration = registry::register(base as usize, base as usize + REGION_BYTES);
        let Some(registration) = registration else {
            // SAFETY: our own fresh reservation, used by no one.
            unsafe { memory_unix::release(base, REGION_BYTES) };
            return Err("too many code regions loaded at once".into());
        };
        let mut region = Region { base, thunks_at, next: 0, _registration: registration };
        let mut bytes = vec![crate::compile::PADDING; header];
        bytes[..prefix.len()].copy_from_slice(prefix);
        for (i, slot) in slots.iter().enumerate() {
            let at = thunks_at + i * thunk::SIZE;
            let thunk = thunk::encode(i as u32, slot.as_ptr() as usize, !jump_only[i]);
            bytes[at..at + thunk::SIZE].copy_from_slice(&thunk);
        }
        region.place(&bytes).ok_or("cannot write the code region's thunks")?;
        Ok(region)
    }

    pub fn base(&self) -> usize {
        self.base as usize
    }

    pub fn end(&self) -> usize {
        self.base() + REGION_BYTES
    }

    pub fn contains(&self, address: usize) -> bool {
        (self.base()..self.end()).contains(&address)
    }

    /// The address of function `func_index`'s thunk in this region.
    pub fn thunk(&self, func_index: u32) -> usize {
        self.base() + self.thunks_at + func_index as usize * thunk::SIZE
    }

    /// Whether `len` more bytes fit.
    pub fn has_room(&self, len: usize) -> bool {
        self.next + len.next_multiple_of(page_size()) <= REGION_BYTES
    }

    /// The address the next `place` writes at.
    pub fn next_address(&self) -> usize {
        self.base() + self.next
    }

    /// Write `code` into fresh pages and make them executable; its address,
    /// or None when it does not fit or the OS refuses.
    pub fn place(&mut self, code: &[u8]) -> Option<usize> {
        let len = code.len().max(1).next_multiple_of(page_size());
        if !self.has_room(len) {
            return None;
        }
        // SAFETY: the pages lie inside our reservation and were never handed
        // out, so no thread can run them while they are written.
        let start = unsafe { self.base.add(self.next) };
        // SAFETY: as above.
        unsafe {
            if !memory_unix::commit(start, len) {
                return None;
            }
            std::ptr::copy_nonoverlapping(code.as_ptr(), start, code.len());
            flush_instruction_cache(start, code.len());
            if !memory_unix::make_executable(start, len) {
                return None;
            }
        }
        self.next += len;
        Some(start as usize)
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: the Code that owned this region is gone, and with it every
        // instance that could run it.
        unsafe { memory_unix::release(self.base, REGION_BYTES) };
    }
}

/// Make freshly written code visible to instruction fetch (aarch64 keeps the
/// two caches apart; x86-64 keeps them coherent).
///
/// # Safety
/// `[start, start + len)` must be mapped.
unsafe fn flush_instruction_cache(start: *mut u8, len: usize) {
    #[cfg(target_arch = "aarch64")]
    {
        unsafe extern "C" {
            fn __clear_cache(start: *mut libc::c_char, end: *mut libc::c_char);
        }
        // SAFETY: the caller's promise.
        unsafe { __clear_cache(start.cast(), start.add(len).cast()) };
    }
    #[cfg(not(target_arch = "aarch64"))]
    let _ = (start, len);
}
