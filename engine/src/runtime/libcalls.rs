//! The runtime functions compiled code calls through the vmctx. They are
//! `extern "C"` and must never panic (a panic here would abort the process):
//! host functions are run under `catch_unwind` by the instance's dispatcher.
//!
//! Every libcall shares one contract, stated once here and referred to as
//! "the libcall contract" in each `# Safety` section: it is called only by
//! compiled code, through the pointer in the vmctx header, with that code's
//! own `vmctx`, which points at a live instance (`VmCtxHeader::instance` is
//! its `InstanceCore`), on the fiber running that code.
//!
//! `InstanceCore`, the part of an instance they need, is defined here: the
//! instance (`runtime::instance`) builds on the libcalls, not the other way.

use crate::intrinsics::{BIG_ADD_MUL_VVWW, BIG_ADD_VV, BIG_MUL_ADD_VWW, BIG_SUB_VV, SHA256_BLOCKS, big, sha256};
use crate::runtime::code::Code;
use crate::runtime::fiber::{self, FiberYield};
use crate::runtime::host::HostError;
use crate::runtime::memory::LinearMemory;
use crate::runtime::trap::TrapKind;
use crate::runtime::vmctx::VmCtx;
use std::cell::Cell;
use std::rc::Rc;

/// The part of an instance the (non-generic) libcalls need. First field of
/// the instance's `InstanceInner<T>`, so a pointer to one is a pointer to the
/// other.
#[repr(C)]
pub(crate) struct InstanceCore {
    pub dispatch: unsafe fn(*mut InstanceCore, u32, *mut u64, usize) -> std::result::Result<(), HostError>,
    /// The instance's code (owned by `InstanceInner::code`), for naming traps.
    pub code: *const Code,
    pub memory: Option<Rc<LinearMemory>>,
    /// Why the running call was aborted by a host function.
    pub pending: Option<HostError>,
}

thread_local! {
    /// The module whose code last called `trap` on this thread. A trap's
    /// function index means nothing without it: the trapping function may be
    /// another instance's, reached through a shared table, not the fiber owner's.
    static TRAP_ORIGIN: Cell<*const Code> = const { Cell::new(std::ptr::null()) };
}

/// The module that raised the explicit-mode trap just reported, if any.
pub(crate) fn take_trap_origin() -> *const Code {
    TRAP_ORIGIN.with(|origin| origin.replace(std::ptr::null()))
}

/// The instance core behind `vmctx`, shared: the libcalls only read it
/// (`host_call` writes `pending` through a raw pointer instead).
///
/// # Safety
/// The libcall contract (module doc); the reference must not outlive the call.
unsafe fn core<'a>(vmctx: *mut VmCtx) -> &'a InstanceCore {
    // SAFETY: every vmctx points at the `InstanceCore` of its live instance,
    // which nothing mutates while its compiled code runs a libcall.
    unsafe { &*((*vmctx).header.instance as *const InstanceCore) }
}

/// Raise an explicit-mode trap: never returns to compiled code.
///
/// # Safety
/// The libcall contract (module doc).
pub(crate) unsafe extern "C" fn trap(vmctx: *mut VmCtx, kind: u32, func_index: u32) {
    let kind = TrapKind::from_u8(kind as u8).unwrap_or(TrapKind::HostError);
    // SAFETY: the libcall contract.
    TRAP_ORIGIN.with(|origin| origin.set(unsafe { core(vmctx) }.code));
    // SAFETY: compiled code only runs on a fiber, whose owner abandons it on
    // this yield; guest frames hold no destructors.
    unsafe { fiber::suspend_current(FiberYield::Trap { kind, func_index }) };
}

/// `memory.grow`.
///
/// # Safety
/// The libcall contract (module doc).
pub(crate) unsafe extern "C" fn memory_grow(vmctx: *mut VmCtx, delta: u32) -> u32 {
    // SAFETY: the libcall contract.
    let core = unsafe { core(vmctx) };
    match core.memory.as_ref().and_then(|m| m.grow_shared(delta as u64)) {
        Some(old) => old as u32,
        None => u32::MAX,
    }
}

/// Whether `[start, start + len)` lies inside `size` bytes.
fn in_bounds(start: u32, len: u32, size: u64) -> bool {
    start as u64 + len as u64 <= size
}

/// `memory.copy`: 0, or 1 for an out-of-bounds range (the caller traps).
///
/// # Safety
/// The libcall contract (module doc).
pub(crate) unsafe extern "C" fn memory_copy(vmctx: *mut VmCtx, dst: u32, src: u32, len: u32) -> u32 {
    // SAFETY: the libcall contract.
    let core = unsafe { core(vmctx) };
    let Some(memory) = core.memory.as_ref() else { return 1 };
    let size = memory.size_bytes();
    if !in_bounds(dst, len, size) || !in_bounds(src, len, size) {
        return 1;
    }
    // SAFETY: both ranges were checked against the accessible size.
    unsafe { std::ptr::copy(memory.base().add(src as usize), memory.base().add(dst as usize), len as usize) };
    0
}

/// `memory.fill`: 0, or 1 for an out-of-bounds range (the caller traps).
///
/// # Safety
/// The libcall contract (module doc).
pub(crate) unsafe extern "C" fn memory_fill(vmctx: *mut VmCtx, dst: u32, byte: u32, len: u32) -> u32 {
    // SAFETY: the libcall contract.
    let core = unsafe { core(vmctx) };
    let Some(memory) = core.memory.as_ref() else { return 1 };
    if !in_bounds(dst, len, memory.size_bytes()) {
        return 1;
    }
    // SAFETY: the range was checked against the accessible size.
    unsafe { std::ptr::write_bytes(memory.base().add(dst as usize), byte as u8, len as usize) };
    0
}

/// An intrinsic's native part (`crate::intrinsics`): 1 when it did its
/// work, 0 when it did nothing (the wasm body then does all of it).
///
/// # Safety
/// The libcall contract (module doc), from code the translator emitted for
/// `kind`, which passes a buffer of that kind's argument count.
pub(crate) unsafe extern "C" fn intrinsic(vmctx: *mut VmCtx, kind: u32, args: *mut u64) -> u32 {
    // SAFETY: the libcall contract.
    let core = unsafe { core(vmctx) };
    let Some(memory) = core.memory.as_ref() else { return 0 };
    // SAFETY: the guest is this thread, stopped in this call; nothing else
    // refers to its memory's bytes until it returns.
    let bytes = unsafe { memory.bytes_mut() };
    let whole_call: fn(&mut [u8], usize) -> bool = match kind {
        SHA256_BLOCKS => {
            // SAFETY: the caller passes `sha256::ARGS` slots for this kind.
            let args = unsafe { &mut *(args as *mut [u64; sha256::ARGS]) };
            return sha256::blocks(bytes, args) as u32;
        }
        BIG_ADD_VV => big::add_vv,
        BIG_SUB_VV => big::sub_vv,
        BIG_MUL_ADD_VWW => big::mul_add_vww,
        BIG_ADD_MUL_VVWW => big::add_mul_vvww,
        _ => return 0,
    };
    // SAFETY: the caller passes one slot, SP, for a whole call.
    let sp = unsafe { *args } as u32 as usize;
    whole_call(bytes, sp) as u32
}

/// The code of function `func_index`, compiled now if it is not yet
/// (`runtime::lazy`). A function that fails to compile ends the guest with
/// the compiler's message, as a failed host call does.
///
/// # Safety
/// The libcall contract (module doc), from a lazy stub.
pub(crate) unsafe extern "C" fn lazy_compile(vmctx: *mut VmCtx, func_index: u32) -> usize {
    // SAFETY: the libcall contract: the instance and its code are live.
    let code = unsafe { &*core(vmctx).code };
    match code.compile_lazily(func_index) {
        Ok(address) => address,
        Err(message) => {
            // SAFETY: the libcall contract: the vmctx header is initialised.
            let core = unsafe { (*vmctx).header.instance as *mut InstanceCore };
            // SAFETY: the instance is live and no reference into it remains.
            unsafe { (*core).pending = Some(HostError::Fail(message.to_string())) };
            // SAFETY: on a fiber; the owner reads `pending` and abandons the
            // guest, whose frames hold no destructors.
            unsafe { fiber::suspend_current(FiberYield::Abort) };
            unreachable!("an aborted guest is never resumed")
        }
    }
}

/// Call host function `import_index`; `values` holds its arguments and
/// receives its results.
///
/// # Safety
/// The libcall contract (module doc), from the import stub of function
/// `import_index`, which passes a buffer of `max(params, results, 1)` slots
/// and its own return address (in the wasm function that called it).
pub(crate) unsafe extern "C" fn host_call(
    vmctx: *mut VmCtx,
    import_index: u32,
    values: *mut u64,
    return_address: usize,
) {
    // Raw pointer, not a reference: the dispatcher borrows parts of the instance.
    // SAFETY: the libcall contract: the vmctx header is initialised.
    let core = unsafe { (*vmctx).header.instance as *mut InstanceCore };
    // SAFETY: `dispatch` is the instance's own monomorphised dispatcher, and
    // this is the host-call stub `dispatch` requires.
    let result = unsafe { ((*core).dispatch)(core, import_index, values, return_address) };
    if let Err(error) = result {
        // SAFETY: the instance is live; `dispatch` has returned, so no
        // reference into it remains.
        unsafe { (*core).pending = Some(error) };
        // SAFETY: on a fiber; the owner reads `pending` and abandons the
        // guest, whose frames hold no destructors.
        unsafe { fiber::suspend_current(FiberYield::Abort) };
    }
}
