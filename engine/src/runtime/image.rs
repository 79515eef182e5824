//! Per-module initial state built once and shared by every instance, so that
//! booting a node does not redo work the module fixes:
//! - the memory image: the data segments laid out in a memfd, mapped
//!   copy-on-write over a new linear memory instead of copying megabytes of
//!   Go data into fresh pages on every instantiation (pages the guest never
//!   writes stay shared with the page cache). Where there is no memfd
//!   (everywhere but Linux) the image is plain bytes copied into the new
//!   memory: the same contents, without the sharing;
//! - the table template: each element's code address and signature, so a
//!   table is filled without looking functions up one by one.
//!
//! The image also tells which pages a run left as they started
//! (`Code::initial_memory`), which the trace hash skips. On Linux a memory
//! built from it goes back warm when dropped, and the next memory of the
//! same image restores only the pages the last one touched
//! (`MemoryImage::new_memory`, docs/warm-memory.md).
//! Only modules whose segments have constant offsets get an image; the others
//! (imported globals in offsets, out-of-bounds segments, whose traps must
//! happen in order) take the general path in `Instance::initialize`.

use crate::error::Result;
use crate::module::{ConstExpr, ConstOp, ModuleInfo};
use crate::runtime::memory::LinearMemory;
use crate::runtime::memory::PAGE_SIZE;
#[cfg(target_os = "linux")]
use crate::runtime::{memory_unix, reservation};
#[cfg(target_os = "linux")]
use std::fs::File;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, FromRawFd};
#[cfg(target_os = "linux")]
use std::os::unix::fs::FileExt;

/// The host page: the granularity of a copy-on-write mapping.
const HOST_PAGE: usize = 4096;

/// What instantiation reuses, built on a module's first instantiation.
pub struct Prepared {
    pub memory: Option<MemoryImage>,
    /// Per element segment, per entry: the function's code address and
    /// signature id (None for a null entry).
    pub elements: Vec<Vec<Option<(usize, u64)>>>,
}

impl Prepared {
    /// Built from the module's `info` and where its functions' code is
    /// (`function_address`, by function index).
    pub fn build(info: &ModuleInfo, function_address: impl Fn(u32) -> usize) -> Prepared {
        let elements = info
            .elements
            .iter()
            .map(|segment| {
                segment
                    .funcs
                    .iter()
                    .map(|f| f.map(|f| (function_address(f), info.func_type(f).signature_id())))
                    .collect()
            })
            .collect();
        Prepared { memory: MemoryImage::build(info), elements }
    }
}

/// The data segments of a module as one file to map.
#[cfg(target_os = "linux")]
pub struct MemoryImage {
    /// Unique in the process: the key of its warm reservations.
    id: u64,
    file: File,
    /// Bytes mapped from the start of memory (a multiple of the host page).
    len: usize,
    /// A read-only view of the image, for comparing a memory against it.
    view: memmap2::Mmap,
}

/// A constant offset, or None when it reads a global.
fn constant(expr: &ConstExpr) -> Option<u64> {
    match expr.ops() {
        [ConstOp::I32(v)] => Some(*v as u32 as u64),
        _ => None,
    }
}

impl MemoryImage {
    /// A memory of `min_pages` (limits as `LinearMemory::with_cap`) that
    /// holds this image: on Linux a warm reservation of it restored when
    /// there is one, else a fresh memory with the image mapped. None when the
    /// image does not fit (the caller then copies the segments itself).
    pub fn new_memory(
        &self,
        min_pages: u64,
        declared_max: Option<u64>,
        cap_pages: Option<u64>,
    ) -> Option<Result<LinearMemory>> {
        if self.bytes().len() as u64 > min_pages * PAGE_SIZE {
            return None;
        }
        if let Some(memory) = self.warm_memory(min_pages, declared_max, cap_pages) {
            return Some(memory);
        }
        let mut memory = match LinearMemory::with_cap(min_pages, declared_max, cap_pages) {
            Ok(memory) => memory,
            Err(e) => return Some(Err(e)),
        };
        // SAFETY: a fresh memory no guest code has run on.
        if !unsafe { self.map_at(memory.base(), memory.size_bytes()) } {
            return None;
        }
        self.keep_warm(&mut memory);
        Some(Ok(memory))
    }
}

/// The data segments of a module as bytes to copy.
#[cfg(not(target_os = "linux"))]
pub struct MemoryImage {
    /// The first `len` bytes of memory as instantiation leaves them (`len`
    /// a multiple of the host page, as on Linux, so `bytes` agrees).
    bytes: Vec<u8>,
}

/// The image's length: the end of the last segment, rounded up to a host
/// page; None when a segment reads a global or does not fit in the memory's
/// minimum size (then instantiation takes the general path).
fn image_len(info: &ModuleInfo) -> Option<usize> {
    let memory = info.memory?;
    if info.memory_imported || info.data.is_empty() {
        return None;
    }
    let min_bytes = memory.min_pages * PAGE_SIZE;
    let mut end = 0u64;
    for segment in &info.data {
        let start = constant(segment.offset.as_ref()?)?;
        end = end.max(start.checked_add(segment.bytes.len() as u64).filter(|e| *e <= min_bytes)?);
    }
    Some((end as usize).div_ceil(HOST_PAGE) * HOST_PAGE)
}

#[cfg(not(target_os = "linux"))]
impl MemoryImage {
    /// The image of `info`'s data segments (see `image_len` for None).
    pub fn build(info: &ModuleInfo) -> Option<MemoryImage> {
        let mut bytes = vec![0u8; image_len(info)?];
        for segment in &info.data {
            let start = constant(segment.offset.as_ref()?)? as usize;
            bytes[start..start + segment.bytes.len()].copy_from_slice(&segment.bytes);
        }
        Some(MemoryImage { bytes })
    }

    /// The initial contents of the first `len` bytes of memory.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Off Linux nothing says which pages a memory touched, so no memory is
    /// kept warm: `keep_warm` only marks the image as in place.
    fn warm_memory(&self, _: u64, _: Option<u64>, _: Option<u64>) -> Option<Result<LinearMemory>> {
        None
    }

    fn keep_warm(&self, memory: &mut LinearMemory) {
        memory.hold_image(None);
    }

    /// Copies the image to `base`, the start of a linear memory whose first
    /// `accessible` bytes are read-write.
    ///
    /// # Safety
    /// `base` must be a fresh linear memory's base with at least `len`
    /// accessible bytes, and no guest code may run concurrently.
    pub unsafe fn map_at(&self, base: *mut u8, accessible: u64) -> bool {
        if (self.bytes.len() as u64) > accessible {
            return false;
        }
        // SAFETY: the caller's memory has `accessible` writable bytes, at
        // least the image's length, and nothing else uses them now; the
        // image is our own allocation, so the two cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.bytes.as_ptr(), base, self.bytes.len()) };
        true
    }
}

#[cfg(target_os = "linux")]
impl MemoryImage {
    /// The image of `info`'s data segments, if they all have constant offsets
    /// and fit in the memory's minimum size (else None: the general path).
    pub fn build(info: &ModuleInfo) -> Option<MemoryImage> {
        let len = image_len(info)?;
        // SAFETY: plain syscall; the name is a NUL-terminated literal.
        let fd = unsafe { libc::memfd_create(c"seedfall-memory-image".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a fresh descriptor this File now owns.
        let file = unsafe { File::from_raw_fd(fd) };
        file.set_len(len as u64).ok()?;
        for segment in &info.data {
            let start = constant(segment.offset.as_ref()?)?;
            file.write_all_at(&segment.bytes, start).ok()?;
        }
        // SAFETY: the memfd is private to this image and never written again.
        let view = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(MemoryImage { id, file, len, view })
    }

    /// A restored warm reservation of this image, if one is kept (the
    /// caller has checked that the image fits in `min_pages`).
    fn warm_memory(
        &self,
        min_pages: u64,
        declared_max: Option<u64>,
        cap_pages: Option<u64>,
    ) -> Option<Result<LinearMemory>> {
        while let Some(warm) = reservation::take_warm(self.id) {
            // SAFETY: a warm reservation of this image, now ours alone.
            if unsafe { self.restore(&warm, (min_pages * PAGE_SIZE) as usize) } {
                // SAFETY: restored to a fresh memory's state just above.
                return Some(unsafe { LinearMemory::from_warm(warm, min_pages, declared_max, cap_pages) });
            }
            // SAFETY: as above; it could not be restored, so it is reset.
            unsafe { reservation::give_back(warm.base as *mut u8, warm.extent) };
        }
        None
    }

    /// Marks a fresh memory with this image mapped, to go back warm.
    fn keep_warm(&self, memory: &mut LinearMemory) {
        memory.hold_image(Some(self.id));
    }

    /// Brings a warm reservation back to what a fresh memory of `min_bytes`
    /// with this image mapped holds: every page the last memory touched
    /// (present or swapped, by the pagemap) gets the image's bytes or zeros
    /// where they differ, and everything past `min_bytes` is made
    /// inaccessible (its pages stay, zero, for when the memory grows). Pages
    /// never touched still hold what they were mapped with. False when the
    /// kernel does not say which pages were touched, or the OS refuses.
    ///
    /// # Safety
    /// `warm` is a reservation of this image that nothing else uses.
    unsafe fn restore(&self, warm: &reservation::Warm, min_bytes: usize) -> bool {
        static ZEROS: [u8; HOST_PAGE] = [0; HOST_PAGE];
        let base = warm.base as *mut u8;
        if warm.accessible < min_bytes {
            return false;
        }
        let Some(untouched) = memory_unix::untouched_pages(base, warm.accessible) else { return false };
        for (page, untouched) in untouched.into_iter().enumerate() {
            let at = page * HOST_PAGE;
            if untouched {
                continue;
            }
            let initial = if at < self.len { &self.view[at..at + HOST_PAGE] } else { &ZEROS[..] };
            // SAFETY: a page of the accessible part of a reservation only we use.
            let page = unsafe { std::slice::from_raw_parts_mut(base.add(at), HOST_PAGE) };
            if page != initial {
                page.copy_from_slice(initial);
            }
        }
        let past = warm.accessible - min_bytes;
        // SAFETY: inside the reservation, which only we use.
        past == 0 || unsafe { memory_unix::decommit_keeping(base.add(min_bytes), past) }
    }

    /// The initial contents of the first `len` bytes of memory.
    pub fn bytes(&self) -> &[u8] {
        &self.view
    }

    /// Maps the image copy-on-write at `base`, the start of a linear memory
    /// whose first `accessible` bytes are read-write.
    ///
    /// # Safety
    /// `base` must be a fresh linear memory's base with at least `len`
    /// accessible bytes, and no guest code may run concurrently.
    pub unsafe fn map_at(&self, base: *mut u8, accessible: u64) -> bool {
        if (self.len as u64) > accessible {
            return false;
        }
        // SAFETY: replaces the first `len` bytes of the caller's own mapping.
        let mapped = unsafe {
            libc::mmap(
                base as *mut libc::c_void,
                self.len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                self.file.as_raw_fd(),
                0,
            )
        };
        mapped == base as *mut libc::c_void
    }
}

#[cfg(target_os = "linux")]
impl Drop for MemoryImage {
    fn drop(&mut self) {
        reservation::forget_image(self.id);
    }
}
