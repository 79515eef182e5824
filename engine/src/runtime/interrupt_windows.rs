//! Stopping a guest thread on Windows, which has no signals: the watchdog
//! suspends the thread, reads its registers and, if it is executing guest
//! code, points it at the interrupt stub (`traps_windows`) and resumes it.
//! The stub faults at once and the exception handler turns that into a
//! `TrapKind::Interrupted` trap at the instruction the thread was stopped
//! at, exactly where the Unix signal would have landed.
//!
//! If the thread is in host code (or the kernel, or anywhere else) it is
//! resumed untouched: the guest is not stuck, as on Unix where the signal is
//! then ignored. The watchdog asks again at its next tick.
//!
//! The thread is named by a real handle (a duplicate of the pseudo-handle
//! `GetCurrentThread` returns), closed when the slot holding it is cleared.

use crate::runtime::registry;
use crate::runtime::traps_windows;
use windows_sys::Win32::Foundation::{CloseHandle, DUPLICATE_SAME_ACCESS, DuplicateHandle, HANDLE};
use windows_sys::Win32::System::Diagnostics::Debug::{
    CONTEXT, CONTEXT_CONTROL_AMD64, CONTEXT_INTEGER_AMD64, GetThreadContext, SetThreadContext,
};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentThread, GetCurrentThreadId, GetThreadId, ResumeThread, SuspendThread,
};

/// An owned handle on a thread; closed on drop.
#[derive(Debug)]
pub(crate) struct Thread(HANDLE);

// SAFETY: a thread handle is a process-wide kernel object reference, usable
// from any thread; `interrupt` is only called under the Interrupter's lock.
unsafe impl Send for Thread {}

impl Drop for Thread {
    fn drop(&mut self) {
        // SAFETY: our own handle, closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// A handle on the calling thread that other threads can use.
pub(crate) fn this_thread() -> Thread {
    let handle = current_thread_handle().unwrap_or_else(|error| panic!("duplicating the thread handle: {error}"));
    Thread(handle)
}

/// A real handle on the calling thread (a duplicate of the pseudo-handle
/// `GetCurrentThread` returns, which names whichever thread uses it), for
/// other threads to use; the caller closes it. Also the host watchdog's way
/// to read the guest thread's CPU time.
pub fn current_thread_handle() -> std::io::Result<HANDLE> {
    let mut handle: HANDLE = std::ptr::null_mut();
    // SAFETY: duplicates this thread's pseudo-handle into a real one, written
    // to a valid out-pointer.
    let duplicated = unsafe {
        DuplicateHandle(
            GetCurrentProcess(),
            GetCurrentThread(),
            GetCurrentProcess(),
            &mut handle,
            0,
            0,
            DUPLICATE_SAME_ACCESS,
        )
    };
    if duplicated == 0 { Err(std::io::Error::last_os_error()) } else { Ok(handle) }
}

/// `GetThreadContext` needs a 16-byte-aligned CONTEXT; windows-sys's
/// declaration does not say so.
#[repr(C, align(16))]
struct AlignedContext(CONTEXT);

/// Redirect `thread` to the interrupt stub if it is running guest code.
///
/// # Safety
/// `thread` must not have exited, and `traps_windows::ensure_installed` must
/// have run (the stub and the handler exist).
pub(crate) unsafe fn interrupt(thread: &Thread) {
    // A thread interrupting itself is running host code (this function), so
    // there is nothing to stop; and suspending itself would never resume.
    // SAFETY: a live thread's handle (the caller's promise).
    if unsafe { GetThreadId(thread.0) } == unsafe { GetCurrentThreadId() } {
        return;
    }
    let stub = traps_windows::interrupt_stub();
    // SAFETY: a live thread's handle (the caller's promise).
    if stub == 0 || unsafe { SuspendThread(thread.0) } == u32::MAX {
        return;
    }
    // SAFETY: CONTEXT is plain data, valid all-zero.
    let mut context = AlignedContext(unsafe { std::mem::zeroed() });
    context.0.ContextFlags = CONTEXT_CONTROL_AMD64 | CONTEXT_INTEGER_AMD64;
    // SAFETY: the thread is suspended (GetThreadContext waits until it truly
    // is) and the context is aligned and writable.
    if unsafe { GetThreadContext(thread.0, &mut context.0) } != 0 && registry::contains(context.0.Rip as usize) {
        // Rax carries the stopped instruction to the handler; the guest's
        // value in it is lost, and so is the guest: its fiber is abandoned.
        context.0.Rax = context.0.Rip;
        context.0.Rip = stub as u64;
        // SAFETY: the thread is still suspended; it resumes at the stub,
        // whose fault the installed handler turns into a trap.
        unsafe { SetThreadContext(thread.0, &context.0) };
    }
    // SAFETY: balances the SuspendThread above.
    unsafe { ResumeThread(thread.0) };
}
