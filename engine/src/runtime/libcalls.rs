//! The runtime functions compiled code calls through the vmctx. They are
//! `extern "C"` and must never panic (a panic here would abort the process):
//! host functions are run under `catch_unwind` by the instance's dispatcher.

use crate::runtime::code::Code;
use crate::runtime::fiber::{self, FiberYield};
use crate::runtime::instance::InstanceCore;
use crate::runtime::trap::TrapKind;
use crate::runtime::vmctx::VmCtx;
use std::cell::Cell;

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

unsafe fn core<'a>(vmctx: *mut VmCtx) -> &'a mut InstanceCore {
    // SAFETY: every vmctx points at the `InstanceCore` of its live instance.
    unsafe { &mut *((*vmctx).header.instance as *mut InstanceCore) }
}

pub(crate) unsafe extern "C" fn trap(vmctx: *mut VmCtx, kind: u32, func_index: u32) {
    let kind = TrapKind::from_u8(kind as u8).unwrap_or(TrapKind::HostError);
    TRAP_ORIGIN.with(|origin| origin.set(unsafe { core(vmctx) }.code));
    // SAFETY: compiled code only runs on a fiber; the owner abandons it.
    unsafe { fiber::suspend_current(FiberYield::Trap { kind, func_index }) };
}

pub(crate) unsafe extern "C" fn memory_grow(vmctx: *mut VmCtx, delta: u32) -> u32 {
    let core = unsafe { core(vmctx) };
    match core.memory.as_ref().and_then(|m| m.grow(delta as u64)) {
        Some(old) => old as u32,
        None => u32::MAX,
    }
}

/// Whether `[start, start + len)` lies inside `size` bytes.
fn in_bounds(start: u32, len: u32, size: u64) -> bool {
    start as u64 + len as u64 <= size
}

pub(crate) unsafe extern "C" fn memory_copy(vmctx: *mut VmCtx, dst: u32, src: u32, len: u32) -> u32 {
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

pub(crate) unsafe extern "C" fn memory_fill(vmctx: *mut VmCtx, dst: u32, byte: u32, len: u32) -> u32 {
    let core = unsafe { core(vmctx) };
    let Some(memory) = core.memory.as_ref() else { return 1 };
    if !in_bounds(dst, len, memory.size_bytes()) {
        return 1;
    }
    // SAFETY: the range was checked against the accessible size.
    unsafe { std::ptr::write_bytes(memory.base().add(dst as usize), byte as u8, len as usize) };
    0
}

pub(crate) unsafe extern "C" fn host_call(vmctx: *mut VmCtx, import_index: u32, values: *mut u64) {
    // Raw pointer, not a reference: the dispatcher borrows the whole instance.
    let core = unsafe { (*vmctx).header.instance as *mut InstanceCore };
    // SAFETY: `dispatch` is the instance's own monomorphised dispatcher.
    if let Err(error) = unsafe { ((*core).dispatch)(core, import_index, values) } {
        unsafe { (*core).pending = Some(error) };
        // SAFETY: on a fiber; the owner reads `pending` and abandons the guest.
        unsafe { fiber::suspend_current(FiberYield::Abort) };
    }
}
