//! How a hardware fault in guest code reaches the fiber it interrupted: the
//! handoff between the platform's fault handler (`signals` on Unix,
//! `traps_windows` on Windows) and `fiber`, which both build on this module.
//! The handler reads the running coroutine's trap handler (`TRAP_HANDLER`,
//! which `fiber` sets on every resume) and makes that coroutine return
//! `FiberReturn::Fault`. Installing the handler and running fibers are left
//! to those modules.
//!
//! It also names the two faults `code::fault_trap` tells apart from the rest:
//! a hardware division fault, and the watchdog's interrupt. Everything else a
//! guest can fault with (an access outside its memory, the stack guard, a trap
//! instruction) is described by the trap table, so it needs no name. The value
//! travels as `FiberReturn::Fault`'s `signal`: a signal number on Unix, an
//! exception code on Windows.

use corosensei::trap::CoroutineTrapHandler;
use std::cell::Cell;

/// How a fiber's coroutine ends.
#[derive(Debug, Clone, Copy)]
pub enum FiberReturn {
    Finished,
    /// A hardware fault in guest code, redirected by the fault handler.
    Fault {
        pc: usize,
        signal: i32,
    },
}

thread_local! {
    /// Trap handler of the running coroutine; read by the fault handler, hence
    /// `const`-initialised and `Copy` (no lazy init, no destructor).
    pub(crate) static TRAP_HANDLER: Cell<Option<CoroutineTrapHandler<FiberReturn>>> = const { Cell::new(None) };
}

/// A hardware division fault (`idiv` by zero, or its overflow).
#[cfg(unix)]
pub const DIVIDE: i32 = libc::SIGFPE;
/// The watchdog stopped guest code (`Interrupter::interrupt`): the signal it
/// sends, which the handler in `signals` installs for; ours alone, never
/// chained.
#[cfg(unix)]
pub const INTERRUPT: i32 = libc::SIGUSR2;

/// A hardware division fault: `EXCEPTION_INT_DIVIDE_BY_ZERO` (Windows reports
/// the `INT_MIN / -1` overflow as `EXCEPTION_INT_OVERFLOW`, mapped to this too).
#[cfg(windows)]
pub const DIVIDE: i32 = windows_sys::Win32::Foundation::EXCEPTION_INT_DIVIDE_BY_ZERO;
/// The watchdog stopped guest code. Not an exception code Windows raises
/// (bit 29, the customer bit, is set), so it cannot be confused with one.
#[cfg(windows)]
pub const INTERRUPT: i32 = 0xE5EE_D001_u32 as i32;
