//! Linear memory: one reservation of address space per memory, made accessible
//! page by page as the guest grows it. The base never moves, so compiled code
//! can keep it in a register and other instances importing the memory see the
//! same bytes.
//!
//! The reservation (`reservation`, which also reuses them) covers every
//! address a wasm32 access can form and a guard, so in `Signals` mode no
//! access can reach memory outside the reservation; everything past the
//! accessible size is PROT_NONE (on Windows: reserved, not committed) and
//! faults. The system calls are in `memory_unix` and `memory_windows`.
//!
//! A memory is shared (`Rc`) by the instance that defines it and every
//! importer, and `memory.grow` in any of them grows it: the runtime grows
//! through `&LinearMemory` (`grow_shared`), which is sound because the bounds
//! live in an `UnsafeCell` that is only accessed through raw pointers and the
//! type is neither `Send` nor `Sync`. The public `grow` takes `&mut self`.

use crate::error::{Error, Result};
#[cfg(unix)]
use crate::runtime::memory_unix::commit;
#[cfg(windows)]
use crate::runtime::memory_windows::commit;
use crate::runtime::reservation;
use crate::runtime::vmctx::MemoryDef;
use std::cell::UnsafeCell;

pub const PAGE_SIZE: u64 = 65536;
/// wasm32 limit: 4 GiB.
pub const MAX_PAGES: u64 = 65536;

/// A linear memory. Dropping it unmaps everything.
pub struct LinearMemory {
    /// Heap-allocated so its address (shared with compiled code) is stable;
    /// written only by `grow_shared`, on the thread running the instance.
    def: Box<UnsafeCell<MemoryDef>>,
    /// The growth limit: the declared maximum, capped at wasm32's 4 GiB and
    /// at the embedder's cap.
    max_pages: u64,
    /// The declared maximum itself; import matching needs to know whether
    /// there was one.
    declared_max: Option<u64>,
    /// The memory image mapped at the base, whose next memory may take this
    /// reservation warm when this one is dropped (`reservation`).
    warm_for: Option<u64>,
    /// `reservation::Warm::extent` of the reservation when it was taken warm
    /// (0 otherwise).
    warm_extent: usize,
    /// Whether its module's memory image is in place (`MemoryImage::new_memory`).
    holds_image: bool,
}

impl LinearMemory {
    pub fn new(min_pages: u64, declared_max: Option<u64>) -> Result<LinearMemory> {
        Self::with_cap(min_pages, declared_max, None)
    }

    /// A memory that never grows past `cap_pages` whatever it declares (the
    /// embedder's per-instance budget): `memory.grow` past it returns -1, as
    /// it does at the declared maximum, and a minimum above it is an error.
    pub fn with_cap(min_pages: u64, declared_max: Option<u64>, cap_pages: Option<u64>) -> Result<LinearMemory> {
        let max_pages = Self::limit(min_pages, declared_max, cap_pages)?;
        let base = reservation::take()
            .ok_or_else(|| Error::Os(format!("reserving linear memory: {}", std::io::Error::last_os_error())))?;
        let def = Box::new(UnsafeCell::new(MemoryDef { base, size: 0 }));
        let mut memory =
            LinearMemory { def, max_pages, declared_max, warm_for: None, warm_extent: 0, holds_image: false };
        if memory.grow(min_pages).is_none() {
            return Err(Error::Os(format!("committing {min_pages} pages of linear memory")));
        }
        Ok(memory)
    }

    /// A memory over a warm reservation whose first `min_pages` pages the
    /// caller has made accessible and restored to the image's initial bytes,
    /// with everything past them inaccessible.
    ///
    /// # Safety
    /// `warm` came from `reservation::take_warm` and is in that state.
    #[cfg(target_os = "linux")]
    pub(crate) unsafe fn from_warm(
        warm: reservation::Warm,
        min_pages: u64,
        declared_max: Option<u64>,
        cap_pages: Option<u64>,
    ) -> Result<LinearMemory> {
        let base = warm.base as *mut u8;
        let max_pages = match Self::limit(min_pages, declared_max, cap_pages) {
            Ok(max) => max,
            Err(e) => {
                // SAFETY: the caller's promise; nothing else has the reservation.
                unsafe { reservation::give_back(base, warm.extent) };
                return Err(e);
            }
        };
        let def = Box::new(UnsafeCell::new(MemoryDef { base, size: min_pages * PAGE_SIZE }));
        Ok(LinearMemory {
            def,
            max_pages,
            declared_max,
            warm_for: Some(warm.image),
            warm_extent: warm.extent,
            holds_image: true,
        })
    }

    /// Marks the memory as holding its module's memory image; with
    /// `warm_for`, its reservation goes back warm for that image.
    pub(crate) fn hold_image(&mut self, warm_for: Option<u64>) {
        self.holds_image = true;
        self.warm_for = warm_for;
    }

    /// Whether `MemoryImage::new_memory` put its module's image in place.
    pub(crate) fn holds_image(&self) -> bool {
        self.holds_image
    }

    /// The growth limit for a memory of `min_pages` declared with
    /// `declared_max` under the embedder's `cap_pages`.
    fn limit(min_pages: u64, declared_max: Option<u64>, cap_pages: Option<u64>) -> Result<u64> {
        let max_pages = declared_max.unwrap_or(MAX_PAGES).min(MAX_PAGES);
        if min_pages > max_pages {
            return Err(Error::Link(format!("memory minimum {min_pages} pages exceeds the maximum {max_pages}")));
        }
        let max_pages = match cap_pages {
            Some(cap) if min_pages > cap => {
                return Err(Error::Link(format!(
                    "memory minimum {min_pages} pages ({} bytes) exceeds the memory cap of {} bytes",
                    min_pages * PAGE_SIZE,
                    cap * PAGE_SIZE
                )));
            }
            Some(cap) => max_pages.min(cap),
            None => max_pages,
        };
        Ok(max_pages)
    }

    /// The bounds' address, for the vmctx (compiled code reads the size there).
    pub fn def_ptr(&self) -> *const MemoryDef {
        self.def.get()
    }

    pub fn base(&self) -> *mut u8 {
        // SAFETY: a plain read of the cell; no reference into it is ever held
        // and nothing writes it concurrently (!Sync).
        unsafe { (*self.def.get()).base }
    }

    pub fn size_bytes(&self) -> u64 {
        // SAFETY: as in `base`.
        unsafe { (*self.def.get()).size }
    }

    pub fn pages(&self) -> u64 {
        self.size_bytes() / PAGE_SIZE
    }

    pub fn max_pages(&self) -> u64 {
        self.max_pages
    }

    /// The maximum the memory was declared with, if any.
    pub fn declared_max_pages(&self) -> Option<u64> {
        self.declared_max
    }

    /// Grow by `delta` pages; returns the old size in pages, or `None` (and no
    /// change) when the maximum would be exceeded or the OS refuses.
    pub fn grow(&mut self, delta: u64) -> Option<u64> {
        self.grow_shared(delta)
    }

    /// `grow` for the `memory.grow` libcall, which reaches a memory shared by
    /// several instances. Sound through `&self` for the reasons in the module
    /// doc; crate-only so embedders cannot grow a memory another view is using.
    pub(crate) fn grow_shared(&self, delta: u64) -> Option<u64> {
        let old = self.pages();
        let new = old.checked_add(delta).filter(|n| *n <= self.max_pages)?;
        if delta > 0 {
            // SAFETY: the range starts at the accessible end and, since `new`
            // is at most 4 GiB of pages, lies inside our own reservation.
            let committed =
                unsafe { commit(self.base().add(self.size_bytes() as usize), (delta * PAGE_SIZE) as usize) };
            if !committed {
                return None;
            }
        }
        // SAFETY: no reference into the cell is live (see `base`) and the
        // type is !Sync, so this write cannot race a read.
        unsafe { (*self.def.get()).size = new * PAGE_SIZE };
        Some(old)
    }

    /// The accessible bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `size` bytes from `base` are mapped read/write and stay
        // mapped while `self` lives (memory never shrinks).
        unsafe { std::slice::from_raw_parts(self.base(), self.size_bytes() as usize) }
    }

    /// Per 4 KiB host page of the accessible bytes, whether it was never
    /// written since it was mapped: not present, or present as the memory
    /// image's own file page, and not swapped out, as `/proc/self/pagemap`
    /// tells; so it still holds what it was mapped with (zeros, or the
    /// module's memory image) and need not be read. Reading a page that is
    /// not present would fault it in, one kernel entry per page. `None` when
    /// the kernel does not say: every page must then be read. Only ever a
    /// shortcut, never a different answer: a page that is present may
    /// still hold its initial bytes, and the caller compares those.
    #[cfg(target_os = "linux")]
    pub fn untouched_pages(&self) -> Option<Vec<bool>> {
        crate::runtime::memory_unix::untouched_pages(self.base(), self.size_bytes() as usize)
    }

    /// Off Linux no kernel interface says which pages were touched: None,
    /// so every page is read (allowed by the contract above).
    #[cfg(not(target_os = "linux"))]
    pub fn untouched_pages(&self) -> Option<Vec<bool>> {
        None
    }

    /// The accessible bytes, writable.
    ///
    /// # Safety
    /// No other reference to the memory's bytes may be live (guest code is not
    /// running, or is suspended in the host call that uses this slice).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn bytes_mut(&self) -> &mut [u8] {
        // SAFETY: mapped as in `bytes`; exclusivity is the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.base(), self.size_bytes() as usize) }
    }
}

impl Drop for LinearMemory {
    fn drop(&mut self) {
        let (base, accessible) = (self.base(), self.size_bytes() as usize);
        let extent = accessible.max(self.warm_extent);
        match self.warm_for {
            Some(image) => {
                let warm = reservation::Warm { image, base: base as usize, accessible, extent };
                // SAFETY: the reservation this memory took; no slice of it
                // outlives `self` (they borrow it), and no other memory has its base.
                unsafe { reservation::give_back_warm(warm) }
            }
            // SAFETY: as above.
            None => unsafe { reservation::give_back(base, extent) },
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn untouched_pages_are_the_ones_never_read_or_written() {
        let memory = LinearMemory::new(2, None).unwrap();
        // SAFETY: no other reference to the bytes is live.
        let bytes = unsafe { memory.bytes_mut() };
        bytes[17 * 4096 + 3] = 1;
        assert_eq!(std::hint::black_box(bytes[20 * 4096]), 0);
        // Linux gives every process its own pagemap (root or not: only the
        // frame numbers are hidden from the unprivileged, never the present
        // bit), so None here is a failure, not a reason to check nothing.
        let untouched = memory.untouched_pages().expect("/proc/self/pagemap is readable on Linux");
        assert_eq!(untouched.len(), 32);
        assert!(!untouched[17], "written");
        assert!(!untouched[20], "read: the zero page is mapped there");
        assert!(untouched.iter().enumerate().all(|(i, &u)| u || i == 17 || i == 20), "{untouched:?}");
    }
}
