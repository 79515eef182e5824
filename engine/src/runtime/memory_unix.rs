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

/// Make `[start, start + len)` readable and executable, never writable
/// again; false if the OS refuses.
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`, and hold the
/// finished machine code nothing writes any more.
#[cfg(target_os = "linux")]
pub(crate) unsafe fn make_executable(start: *mut u8, len: usize) -> bool {
    // SAFETY: inside our own reservation (the caller's promise).
    unsafe { libc::mprotect(start.cast(), len, libc::PROT_READ | libc::PROT_EXEC) == 0 }
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

/// Per 4 KiB host page of `[base, base + len)`, whether it still holds what
/// it was mapped with, as `/proc/self/pagemap` tells: never written since
/// it was mapped (not present, or present as the mapped file's own page,
/// which a private mapping replaces with an anonymous copy on the first
/// write) and not swapped out. None when the kernel does not say, or its
/// pages are not 4 KiB.
#[cfg(target_os = "linux")]
pub(crate) fn untouched_pages(base: *const u8, len: usize) -> Option<Vec<bool>> {
    const HOST_PAGE: usize = 4096;
    const PRESENT: u64 = 1 << 63;
    const SWAPPED: u64 = 1 << 62;
    const FILE: u64 = 1 << 61;
    // The pagemap has one entry per kernel page; kernels with 16 or 64 KiB
    // pages (some arm64 ones) would be misread as 4 KiB ones.
    // SAFETY: plain query.
    if unsafe { libc::sysconf(libc::_SC_PAGESIZE) } != HOST_PAGE as libc::c_long {
        return None;
    }
    let file = std::fs::File::open("/proc/self/pagemap").ok()?;
    let mut entries = vec![0u8; len / HOST_PAGE * 8];
    let offset = (base as usize / HOST_PAGE * 8) as u64;
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut entries, offset).ok()?;
    let untouched = entries
        .chunks_exact(8)
        .map(|entry| {
            let entry = u64::from_le_bytes(entry.try_into().expect("chunks of 8"));
            entry & SWAPPED == 0 && (entry & PRESENT == 0 || entry & FILE != 0)
        })
        .collect();
    Some(untouched)
}

/// Make `[start, start + len)` inaccessible again, keeping its pages and
/// their contents; false if the OS refuses.
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`, unused by anyone.
#[cfg(target_os = "linux")]
pub(crate) unsafe fn decommit_keeping(start: *mut u8, len: usize) -> bool {
    // SAFETY: inside our own reservation (the caller's promise).
    unsafe { libc::mprotect(start.cast(), len, libc::PROT_NONE) == 0 }
}
