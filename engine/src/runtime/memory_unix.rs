//! Linear memory's address space on Linux and macOS: an anonymous mapping
//! with no access and no swap reserved, made readable and writable page by
//! page as memory grows. What to reserve and when is `reservation`'s and
//! `memory`'s business; this only makes the calls.

/// Reserve `len` bytes of inaccessible address space; null on failure.
pub(crate) fn reserve(len: usize) -> *mut u8 {
    // SAFETY: a fresh anonymous PROT_NONE mapping; no existing memory is affected.
    let base = unsafe { map_inaccessible(std::ptr::null_mut(), len, 0) };
    if base == libc::MAP_FAILED { std::ptr::null_mut() } else { base.cast() }
}

/// Make `[start, start + len)` readable and writable; false if the OS refuses.
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`.
pub(crate) unsafe fn commit(start: *mut u8, len: usize) -> bool {
    // SAFETY: inside our own reservation (the caller's promise).
    unsafe { libc::mprotect(start.cast(), len, libc::PROT_READ | libc::PROT_WRITE) == 0 }
}

/// Return `[base, base + len)` to how `reserve` made it: inaccessible, and
/// zero when committed again (fresh pages replace whatever was there, a
/// mapped memory image included). False if the OS refuses.
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`, unused by anyone.
pub(crate) unsafe fn reset(base: *mut u8, len: usize) -> bool {
    // SAFETY: replaces the caller's own, unused range in place.
    unsafe { map_inaccessible(base.cast(), len, libc::MAP_FIXED) == base.cast() }
}

/// Free a whole reservation of `len` bytes.
///
/// # Safety
/// `base` must be what `reserve(len)` returned, and nothing may use it afterwards.
pub(crate) unsafe fn release(base: *mut u8, len: usize) {
    // SAFETY: the caller's promise.
    unsafe { libc::munmap(base.cast(), len) };
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
