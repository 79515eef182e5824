//! The calling convention between compiled code and the Rust functions it
//! calls (the libcalls) or that call it (the trampolines).
//!
//! Compiled code always uses Cranelift's System V convention. On Linux that
//! is Rust's `extern "C"`; on Windows `extern "C"` is the Microsoft x64
//! convention (other argument registers, other callee-saved registers), so
//! the Rust side must say `extern "sysv64"` there. These two macros pick the
//! spelling per target, so every other target keeps `extern "C"` unchanged.
//! They change no signature and no argument order.

/// An `unsafe fn` item with the guest's calling convention.
#[cfg(windows)]
macro_rules! guest_abi_fn {
    ($(#[$meta:meta])* $vis:vis unsafe fn $($rest:tt)*) => { $(#[$meta])* $vis unsafe extern "sysv64" fn $($rest)* };
}
/// An `unsafe fn` item with the guest's calling convention.
#[cfg(not(windows))]
macro_rules! guest_abi_fn {
    ($(#[$meta:meta])* $vis:vis unsafe fn $($rest:tt)*) => { $(#[$meta])* $vis unsafe extern "C" fn $($rest)* };
}

/// The type of an `unsafe fn` pointer with the guest's calling convention:
/// `guest_abi_fn_type!((u32, u32) -> u32)`.
#[cfg(windows)]
macro_rules! guest_abi_fn_type {
    ($($rest:tt)*) => { unsafe extern "sysv64" fn $($rest)* };
}
/// The type of an `unsafe fn` pointer with the guest's calling convention:
/// `guest_abi_fn_type!((u32, u32) -> u32)`.
#[cfg(not(windows))]
macro_rules! guest_abi_fn_type {
    ($($rest:tt)*) => { unsafe extern "C" fn $($rest)* };
}

pub(crate) use {guest_abi_fn, guest_abi_fn_type};
