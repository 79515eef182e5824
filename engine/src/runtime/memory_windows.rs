//! Linear memory's address space on Windows: the same reservation as on
//! Linux, made with `VirtualAlloc`. Windows separates reserving (address
//! space only, `PAGE_NOACCESS`, faults like Linux's `PROT_NONE`) from
//! committing (backed by the page file, readable and writable, zero-filled),
//! so growing commits pages instead of changing their protection, and a
//! reservation handed back for reuse (`reservation`) is decommitted. Does not
//! track which pages were touched (`LinearMemory::untouched_pages` is None
//! here).

use windows_sys::Win32::System::Memory::{
    MEM_COMMIT, MEM_DECOMMIT, MEM_RELEASE, MEM_RESERVE, PAGE_NOACCESS, PAGE_READWRITE, VirtualAlloc, VirtualFree,
};

/// Reserve `len` bytes of inaccessible address space; null on failure.
pub(crate) fn reserve(len: usize) -> *mut u8 {
    // SAFETY: a fresh reservation at an address the OS picks; no existing
    // memory is affected.
    unsafe { VirtualAlloc(std::ptr::null(), len, MEM_RESERVE, PAGE_NOACCESS) as *mut u8 }
}

/// Make `[start, start + len)` readable and writable; false if the OS refuses
/// (commit charge exhausted).
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`.
pub(crate) unsafe fn commit(start: *mut u8, len: usize) -> bool {
    // SAFETY: inside our own reservation (the caller's promise); committing
    // already-committed pages keeps their contents.
    !unsafe { VirtualAlloc(start as *const _, len, MEM_COMMIT, PAGE_READWRITE) }.is_null()
}

/// Return `[base, base + len)` to how `reserve` made it: decommitted, so
/// inaccessible and zero-filled when committed again. False if the OS refuses.
///
/// # Safety
/// The range must lie inside a reservation made by `reserve`, unused by anyone.
pub(crate) unsafe fn reset(base: *mut u8, len: usize) -> bool {
    // SAFETY: the caller's own, unused range.
    unsafe { VirtualFree(base as *mut _, len, MEM_DECOMMIT) != 0 }
}

/// Free a whole reservation (Windows frees it whole: the length is unused).
///
/// # Safety
/// `base` must be what `reserve` returned, and nothing may use it afterwards.
pub(crate) unsafe fn release(base: *mut u8, _len: usize) {
    // SAFETY: the caller's promise; MEM_RELEASE takes size 0 and frees the
    // reservation and every page committed in it.
    unsafe { VirtualFree(base as *mut _, 0, MEM_RELEASE) };
}
