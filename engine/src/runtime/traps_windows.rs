//! The Windows counterpart of `signals`: a vectored exception handler that
//! turns hardware faults in guest code into traps.
//!
//! Registered first in the chain, it sees an exception before any frame-based
//! (SEH) handler, so compiled code needs no unwind tables. It acts only when
//! the faulting instruction is in registered guest code and the stack pointer
//! is on the running fiber's stack; then it redirects the thread so the
//! fiber's coroutine returns `FiberReturn::Fault` (the same corosensei call as
//! the Unix handler) and execution continues there. Every other exception,
//! and every exception code it does not know, goes on down the chain
//! untouched: Rust's own stack-overflow report, a debugger, the default crash.
//!
//! It also owns the interrupt stub: one executable `ud2`, where
//! `interrupt_windows` points a guest thread the watchdog stops. A fault at
//! the stub is reported as an interrupt at the instruction the thread was
//! redirected from, which `interrupt_windows` leaves in `Rax` (the fiber is
//! abandoned, so no register the guest held matters any more).
//!
//! It does not restore a fiber stack's guard pages after a real
//! `EXCEPTION_STACK_OVERFLOW`: compiled code checks its stack limit, which
//! lies `HOST_STACK_RESERVE` above the guard, and traps long before it.

use crate::runtime::fault::{self, FiberReturn, TRAP_HANDLER};
use crate::runtime::registry;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};
use windows_sys::Win32::Foundation::{
    EXCEPTION_ACCESS_VIOLATION, EXCEPTION_ILLEGAL_INSTRUCTION, EXCEPTION_INT_DIVIDE_BY_ZERO, EXCEPTION_INT_OVERFLOW,
    EXCEPTION_STACK_OVERFLOW,
};
use windows_sys::Win32::System::Diagnostics::Debug::{
    AddVectoredExceptionHandler, EXCEPTION_CONTINUE_EXECUTION, EXCEPTION_CONTINUE_SEARCH, EXCEPTION_POINTERS,
};
use windows_sys::Win32::System::Memory::{
    MEM_COMMIT, MEM_RESERVE, PAGE_EXECUTE_READ, PAGE_READWRITE, VirtualAlloc, VirtualProtect,
};

static INSTALL: Once = Once::new();
/// The interrupt stub's address; 0 until `ensure_installed` made it.
static INTERRUPT_STUB: AtomicUsize = AtomicUsize::new(0);

/// `ud2`: the shortest instruction that always faults.
const UD2: [u8; 2] = [0x0f, 0x0b];

/// Install the handler and make the interrupt stub (once per process).
pub fn ensure_installed() {
    INSTALL.call_once(|| {
        INTERRUPT_STUB.store(make_stub(), Ordering::Release);
        // SAFETY: `handler` has the PVECTORED_EXCEPTION_HANDLER signature and
        // lives as long as the process; it is never removed.
        let added = unsafe { AddVectoredExceptionHandler(1, Some(handler)) };
        if added.is_null() {
            panic!("installing the trap handler: {}", std::io::Error::last_os_error());
        }
    });
}

/// The interrupt stub's address (0 before `ensure_installed`).
pub fn interrupt_stub() -> usize {
    INTERRUPT_STUB.load(Ordering::Acquire)
}

/// One page holding `ud2`, executable and never writable again; leaked on
/// purpose (a thread may be redirected to it at any time).
fn make_stub() -> usize {
    // SAFETY: a fresh allocation at an address the OS picks.
    let page = unsafe { VirtualAlloc(std::ptr::null(), 4096, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE) } as *mut u8;
    assert!(!page.is_null(), "allocating the interrupt stub: {}", std::io::Error::last_os_error());
    // SAFETY: the page is ours, writable and at least 2 bytes long.
    unsafe { std::ptr::copy_nonoverlapping(UD2.as_ptr(), page, UD2.len()) };
    let mut old = 0;
    // SAFETY: flips our own page from writable to executable (W^X).
    let protected = unsafe { VirtualProtect(page as *const _, 4096, PAGE_EXECUTE_READ, &mut old) };
    assert!(protected != 0, "protecting the interrupt stub: {}", std::io::Error::last_os_error());
    page as usize
}

/// The `FiberReturn::Fault` signal value for an exception code, or None for
/// codes that are never guest traps.
fn fault_kind(code: i32) -> Option<i32> {
    match code {
        EXCEPTION_INT_DIVIDE_BY_ZERO | EXCEPTION_INT_OVERFLOW => Some(fault::DIVIDE),
        EXCEPTION_ACCESS_VIOLATION | EXCEPTION_STACK_OVERFLOW | EXCEPTION_ILLEGAL_INSTRUCTION => Some(code),
        _ => None,
    }
}

/// The vectored exception handler.
///
/// # Safety
/// Called by Windows only, with valid exception pointers whose context
/// belongs to the faulting thread (the calling thread) until we return.
unsafe extern "system" fn handler(info: *mut EXCEPTION_POINTERS) -> i32 {
    // SAFETY: Windows passes valid pointers, ours alone until we return.
    let (record, context) = unsafe { (&*(*info).ExceptionRecord, &mut *(*info).ContextRecord) };
    let Some(kind) = fault_kind(record.ExceptionCode) else { return EXCEPTION_CONTINUE_SEARCH };
    let stub = interrupt_stub();
    let (pc, signal) =
        if stub != 0 && context.Rip as usize == stub && record.ExceptionCode == EXCEPTION_ILLEGAL_INSTRUCTION {
            (context.Rax as usize, fault::INTERRUPT)
        } else {
            (context.Rip as usize, kind)
        };
    let sp = context.Rsp as usize;
    if registry::contains(pc)
        && let Some(trap_handler) = TRAP_HANDLER.with(|h| h.get())
        && trap_handler.stack_ptr_in_bounds(sp)
    {
        // SAFETY: the PC is in guest code and the SP on the running
        // coroutine's stack, the case `setup_trap_handler` is for: the
        // coroutine's frames are abandoned and it returns the closure's value.
        let regs = unsafe { trap_handler.setup_trap_handler(move || FiberReturn::Fault { pc, signal }) };
        context.Rip = regs.rip;
        context.Rsp = regs.rsp;
        context.Rbp = regs.rbp;
        context.Rdi = regs.rdi;
        context.Rsi = regs.rsi;
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    EXCEPTION_CONTINUE_SEARCH
}
