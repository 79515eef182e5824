//! The platform-neutral names of the two faults `code::fault_trap` tells
//! apart from the rest: a hardware division fault, and the watchdog's
//! interrupt. Everything else a guest can fault with (an access outside its
//! memory, the stack guard, a trap instruction) is described by the trap
//! table, so it needs no name. The value travels as `FiberReturn::Fault`'s
//! `signal`: a signal number on Unix, an exception code on Windows.

/// A hardware division fault (`idiv` by zero, or its overflow).
#[cfg(unix)]
pub const DIVIDE: i32 = libc::SIGFPE;
/// The watchdog stopped guest code (`Interrupter::interrupt`).
#[cfg(unix)]
pub const INTERRUPT: i32 = crate::runtime::signals::INTERRUPT_SIGNAL;

/// A hardware division fault: `EXCEPTION_INT_DIVIDE_BY_ZERO` (Windows reports
/// the `INT_MIN / -1` overflow as `EXCEPTION_INT_OVERFLOW`, mapped to this too).
#[cfg(windows)]
pub const DIVIDE: i32 = windows_sys::Win32::Foundation::EXCEPTION_INT_DIVIDE_BY_ZERO;
/// The watchdog stopped guest code. Not an exception code Windows raises
/// (bit 29, the customer bit, is set), so it cannot be confused with one.
#[cfg(windows)]
pub const INTERRUPT: i32 = 0xE5EE_D001_u32 as i32;
