//! The vmctx: the one pointer every compiled function receives first. Its layout
//! is the contract between the translator (which emits loads at these offsets)
//! and the runtime (which fills the struct). The offsets are plain constants the
//! translator uses; a unit test checks them against `offset_of!`.
//!
//! Layout: a fixed `VmCtxHeader`, then one 8-byte slot per wasm global. A defined
//! global lives in its slot (f32/f64 as raw bits); an imported global's slot holds
//! a pointer to the exporting instance's slot, so mutable globals can be shared.
//! Code compiled with `CompileConfig::function_bitmap` finds, after the globals,
//! one byte per defined function (the "ran" bitmap, padded to whole slots): its
//! entry stores 1 into its own byte at a constant offset from the vmctx, so the
//! header (and every offset code without the bitmap uses) is unchanged.
//! Code compiled with `CompileConfig::edge_bitmap` as well finds the edge map
//! (`EDGE_MAP_BYTES`) right after that bitmap's slots.
//!
//! The funcref table's entries (`TableEntry`) are part of the same contract:
//! `call_indirect` loads their fields at the `ENTRY_*` offsets. The table
//! that holds them is `runtime::table`.

/// The bounds of a linear memory, shared by every instance that uses it.
#[repr(C)]
pub struct MemoryDef {
    pub base: *mut u8,
    /// Accessible bytes (a multiple of the page size).
    pub size: u64,
}

#[repr(C)]
pub struct VmCtxHeader {
    /// Copy of `MemoryDef::base`; never changes for the life of the instance.
    pub mem_base: *mut u8,
    pub memory: *const MemoryDef,
    /// Points at the lowest stack address guest code may use on this thread
    /// (the running fiber's limit plus room for host calls). A pointer, not a
    /// value: a function called through a shared table runs on its caller's
    /// fiber, so the limit belongs to the thread's current stack, not to the
    /// instance. See `runtime::instance::GUEST_STACK_LIMIT`.
    pub stack_limit: *const usize,
    pub table_base: *const TableEntry,
    pub table_len: u64,
    /// Runtime functions are reached through the vmctx, so compiled code has no
    /// absolute relocations and one Artifact works at any address.
    /// `(vmctx, trap_kind, func_index) -> !`, explicit-trap mode only.
    pub trap: unsafe extern "C" fn(*mut VmCtx, u32, u32),
    /// `(vmctx, delta_pages) -> old_pages or u32::MAX`
    pub memory_grow: unsafe extern "C" fn(*mut VmCtx, u32) -> u32,
    /// `(vmctx, dst, src, len) -> 0 ok / 1 out of bounds`
    pub memory_copy: unsafe extern "C" fn(*mut VmCtx, u32, u32, u32) -> u32,
    /// `(vmctx, dst, byte, len) -> 0 ok / 1 out of bounds`
    pub memory_fill: unsafe extern "C" fn(*mut VmCtx, u32, u32, u32) -> u32,
    /// `(vmctx, import_index, values)`: arguments in, results out, 8 bytes each.
    pub host_call: unsafe extern "C" fn(*mut VmCtx, u32, *mut u64, usize),
    /// The instance's `runtime::libcalls::InstanceCore` (first field of its
    /// `InstanceInner`), which the libcalls reach through this pointer.
    pub instance: *mut u8,
    /// `(vmctx, intrinsics::Kind, args) -> 1 done / 0 not done` (docs/intrinsics.md).
    pub intrinsic: unsafe extern "C" fn(*mut VmCtx, u32, *mut u64) -> u32,
    /// `(vmctx, func_index) -> code address`: lazily loaded code only
    /// (`runtime::lazy`), from the stub a function's thunk jumps to.
    pub lazy_compile: unsafe extern "C" fn(*mut VmCtx, u32) -> usize,
    /// The function a lazy thunk was entered for: the thunk stores its index
    /// here and the stub reads it back on the same thread at once.
    pub lazy_func: u64,
}

/// One funcref table slot as compiled code reads it (`runtime::table` owns the
/// slots); signature 0 marks a null entry.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableEntry {
    pub code: usize,
    pub vmctx: *mut VmCtx,
    pub signature: u64,
}

pub const ENTRY_CODE: i32 = 0;
pub const ENTRY_VMCTX: i32 = 8;
pub const ENTRY_SIGNATURE: i32 = 16;
pub const ENTRY_SIZE: i32 = 24;

impl TableEntry {
    pub const NULL: TableEntry = TableEntry { code: 0, vmctx: std::ptr::null_mut(), signature: 0 };
}

/// Opaque: compiled code only ever sees a pointer to it.
#[repr(C)]
pub struct VmCtx {
    pub header: VmCtxHeader,
}

pub const MEM_BASE: i32 = 0;
pub const MEMORY: i32 = 8;
pub const STACK_LIMIT: i32 = 16;
pub const TABLE_BASE: i32 = 24;
pub const TABLE_LEN: i32 = 32;
pub const LIBCALL_TRAP: i32 = 40;
pub const LIBCALL_MEMORY_GROW: i32 = 48;
pub const LIBCALL_MEMORY_COPY: i32 = 56;
pub const LIBCALL_MEMORY_FILL: i32 = 64;
pub const LIBCALL_HOST_CALL: i32 = 72;
pub const INSTANCE: i32 = 80;
pub const LIBCALL_INTRINSIC: i32 = 88;
pub const LIBCALL_LAZY_COMPILE: i32 = 96;
pub const LAZY_FUNC: i32 = 104;
pub const HEADER_SIZE: usize = 112;

/// `MemoryDef::size`.
pub const MEMORY_DEF_SIZE: i32 = 8;

/// Offset of global `index`'s slot.
pub const fn global_offset(index: u32) -> i32 {
    HEADER_SIZE as i32 + 8 * index as i32
}

/// Offset of the "ran" byte of defined function `defined_index` in a module
/// with `num_globals` globals, or None past `i32::MAX`.
pub fn function_ran_offset(num_globals: usize, defined_index: u32) -> Option<i32> {
    let offset = (HEADER_SIZE as u64) + 8 * num_globals as u64 + defined_index as u64;
    i32::try_from(offset).ok()
}

/// The 8-byte vmctx slots the bitmap of `num_defined` functions takes.
pub const fn function_bitmap_slots(num_defined: usize) -> usize {
    num_defined.div_ceil(8)
}

/// The bytes of an edge map: a power of two, so a branch outcome's byte is
/// its hash masked (`edge_byte`). 64 KiB, as AFL's map: a Go program's
/// conditional branches that run number in the tens of thousands, so some
/// share a byte, and that costs a little coverage, never correctness.
pub const EDGE_MAP_BYTES: usize = 1 << 16;

/// Offset of the edge map in a module with `num_globals` globals and
/// `num_defined` defined functions (after their "ran" bitmap), or None when
/// its last byte lies past `i32::MAX`.
pub fn edge_map_offset(num_globals: usize, num_defined: u32) -> Option<i32> {
    let start = HEADER_SIZE as u64 + 8 * (num_globals + function_bitmap_slots(num_defined as usize)) as u64;
    i32::try_from(start + EDGE_MAP_BYTES as u64).ok().map(|_| start as i32)
}

/// The edge-map byte of outcome `outcome` of the conditional branch at
/// `wasm_offset` (its operator's byte offset in the module: unique to it).
/// Outcome 0 is "not taken" for `if`/`br_if` (1 taken), the target's
/// position for `br_table` (the default last). A branch's outcomes get
/// neighbouring bytes: the translator adds the outcome to `edge_site` and
/// masks.
pub fn edge_byte(wasm_offset: u32, outcome: u32) -> usize {
    (edge_site(wasm_offset) as usize + outcome as usize) & (EDGE_MAP_BYTES - 1)
}

/// A branch's first byte: the top 16 bits of its offset times 2^32/φ
/// (Fibonacci hashing), so nearby branches spread over the map.
pub fn edge_site(wasm_offset: u32) -> u32 {
    const _: () = assert!(EDGE_MAP_BYTES == 1 << 16, "the site is the top 16 bits");
    wasm_offset.wrapping_mul(0x9e37_79b9) >> 16
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn offsets_match_the_struct() {
        assert_eq!(offset_of!(VmCtxHeader, mem_base), MEM_BASE as usize);
        assert_eq!(offset_of!(VmCtxHeader, memory), MEMORY as usize);
        assert_eq!(offset_of!(VmCtxHeader, stack_limit), STACK_LIMIT as usize);
        assert_eq!(offset_of!(VmCtxHeader, table_base), TABLE_BASE as usize);
        assert_eq!(offset_of!(VmCtxHeader, table_len), TABLE_LEN as usize);
        assert_eq!(offset_of!(VmCtxHeader, trap), LIBCALL_TRAP as usize);
        assert_eq!(offset_of!(VmCtxHeader, memory_grow), LIBCALL_MEMORY_GROW as usize);
        assert_eq!(offset_of!(VmCtxHeader, memory_copy), LIBCALL_MEMORY_COPY as usize);
        assert_eq!(offset_of!(VmCtxHeader, memory_fill), LIBCALL_MEMORY_FILL as usize);
        assert_eq!(offset_of!(VmCtxHeader, host_call), LIBCALL_HOST_CALL as usize);
        assert_eq!(offset_of!(VmCtxHeader, instance), INSTANCE as usize);
        assert_eq!(offset_of!(VmCtxHeader, intrinsic), LIBCALL_INTRINSIC as usize);
        assert_eq!(offset_of!(VmCtxHeader, lazy_compile), LIBCALL_LAZY_COMPILE as usize);
        assert_eq!(offset_of!(VmCtxHeader, lazy_func), LAZY_FUNC as usize);
        assert_eq!(size_of::<VmCtxHeader>(), HEADER_SIZE);
        assert_eq!(offset_of!(MemoryDef, size), MEMORY_DEF_SIZE as usize);
        assert_eq!(offset_of!(VmCtx, header), 0);
    }

    #[test]
    fn the_function_bitmap_follows_the_globals() {
        assert_eq!(function_ran_offset(0, 0), Some(HEADER_SIZE as i32));
        assert_eq!(function_ran_offset(3, 5), Some(global_offset(3) + 5));
        assert_eq!(function_ran_offset(1, u32::MAX), None, "past i32 offsets");
        assert_eq!((function_bitmap_slots(0), function_bitmap_slots(8), function_bitmap_slots(9)), (0, 1, 2));
    }

    #[test]
    fn the_edge_map_follows_the_function_bitmap_and_a_branch_gets_neighbouring_bytes() {
        assert_eq!(edge_map_offset(3, 9), Some(global_offset(3) + 16), "9 functions: 2 slots");
        assert_eq!(edge_map_offset(0, 0), Some(HEADER_SIZE as i32));
        assert_eq!(edge_map_offset(1 << 28, 0), None, "past i32 offsets");
        let site = edge_site(1234) as usize;
        assert_eq!((edge_byte(1234, 0), edge_byte(1234, 1)), (site, (site + 1) % EDGE_MAP_BYTES));
        let sites: std::collections::BTreeSet<u32> = (0..1000).map(|o| edge_site(100 + 3 * o)).collect();
        assert!(sites.len() > 990, "neighbouring branches rarely share a byte: {} of 1000", sites.len());
    }

    #[test]
    fn table_entry_layout() {
        assert_eq!(offset_of!(TableEntry, code), ENTRY_CODE as usize);
        assert_eq!(offset_of!(TableEntry, vmctx), ENTRY_VMCTX as usize);
        assert_eq!(offset_of!(TableEntry, signature), ENTRY_SIGNATURE as usize);
        assert_eq!(size_of::<TableEntry>(), ENTRY_SIZE as usize);
    }
}
