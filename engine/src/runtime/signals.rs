//! The signal handler that turns hardware faults in guest code into traps.
//!
//! Async-signal-safe by construction: it reads only the lock-free code
//! registry and a `const`-initialised thread-local (`fault::TRAP_HANDLER`),
//! allocates nothing, and takes no lock. A fault whose PC is in guest code on a
//! fiber is redirected so the fiber's coroutine returns `FiberReturn::Fault`;
//! any other fault goes to the handler that was installed before ours (for
//! example Rust's stack-overflow reporter), or to the default action.
//! `fault::INTERRUPT` is the watchdog's signal: it stops guest code the same
//! way and is ignored when the thread is running host code.

use crate::runtime::fault::{self, FiberReturn, TRAP_HANDLER};
use crate::runtime::{registry, signal_context};
use std::mem::MaybeUninit;
use std::sync::Once;

const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, fault::INTERRUPT];
/// Previous handlers, written once before ours is installed, read-only after.
static mut PREVIOUS: [MaybeUninit<libc::sigaction>; 5] = [const { MaybeUninit::uninit() }; 5];
static INSTALL: Once = Once::new();

/// The slot for signal `SIGNALS[i]`'s previous action, as a raw pointer: no
/// reference to the `static mut` is ever made outside a SAFETY-argued use.
fn previous(i: usize) -> *mut libc::sigaction {
    // `MaybeUninit<T>` has the layout of `T`; wrapping_add keeps this safe to
    // compute, and every caller passes an index below SIGNALS.len().
    (&raw mut PREVIOUS).cast::<libc::sigaction>().wrapping_add(i)
}
const ALT_STACK_SIZE: usize = 64 << 10;

thread_local! {
    static ALT_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Install the handler (once per process) and make sure this thread has an
/// alternate signal stack, which a stack-overflow fault needs.
pub fn ensure_installed() {
    INSTALL.call_once(|| {
        for (i, signal) in SIGNALS.iter().enumerate() {
            // SAFETY: `sigaction` is plain data, valid all-zero.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
            // SAFETY: a valid, exclusively borrowed signal set.
            unsafe { libc::sigemptyset(&mut action.sa_mask) };
            // SAFETY: `Once` makes this the only writer of PREVIOUS, and no
            // reader exists before our handler is installed by this very call
            // (the kernel writes the previous action first). `handler` has the
            // SA_SIGINFO signature.
            if unsafe { libc::sigaction(*signal, &action, previous(i)) } != 0 {
                panic!("installing the trap handler: {}", std::io::Error::last_os_error());
            }
        }
    });
    ALT_STACK.with(|done| {
        if done.get() {
            return;
        }
        done.set(true);
        // SAFETY: `stack_t` is plain data, valid all-zero.
        let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
        // SAFETY: only queries this thread's alternate stack into `current`.
        unsafe { libc::sigaltstack(std::ptr::null(), &mut current) };
        if current.ss_flags & libc::SS_DISABLE == 0 && current.ss_size >= ALT_STACK_SIZE {
            return; // Rust's runtime already gave this thread one.
        }
        // Leaked on purpose: a thread's alternate stack must outlive any signal on it.
        let memory = Box::leak(vec![0u8; ALT_STACK_SIZE].into_boxed_slice());
        let stack = libc::stack_t { ss_sp: memory.as_mut_ptr() as *mut _, ss_flags: 0, ss_size: ALT_STACK_SIZE };
        // SAFETY: the stack is ALT_STACK_SIZE bytes that are never freed and
        // used for nothing else.
        unsafe { libc::sigaltstack(&stack, std::ptr::null_mut()) };
    });
}

/// The handler for every signal in `SIGNALS`.
///
/// # Safety
/// Called by the kernel only (installed with SA_SIGINFO): `context` points at
/// the interrupted thread's `ucontext_t` and `info` at its `siginfo_t`.
unsafe extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let uc = context as *mut libc::ucontext_t;
    // SAFETY: the kernel passes a valid ucontext_t, ours alone until we return.
    let (pc, sp) = unsafe { signal_context::pc_and_sp(uc) };
    if registry::contains(pc)
        && let Some(trap_handler) = TRAP_HANDLER.with(|h| h.get())
        && trap_handler.stack_ptr_in_bounds(sp)
    {
        // SAFETY: the PC is in guest code and the SP on the running
        // coroutine's stack, the case `setup_trap_handler` is for: the
        // coroutine's frames are abandoned and it returns the closure's
        // value. The closure allocates nothing (async-signal-safe).
        let regs = unsafe { trap_handler.setup_trap_handler(move || FiberReturn::Fault { pc, signal }) };
        // SAFETY: the same context, and registers for the running coroutine.
        unsafe { signal_context::redirect(uc, regs) };
        return;
    }
    if signal == fault::INTERRUPT {
        // Host code was running: the guest is not stuck, nothing to do.
        return;
    }
    // SAFETY: the kernel's arguments, passed on unchanged.
    unsafe { chain(signal, info, context) };
}

/// Hand a fault that is not ours to whoever handled it before us.
///
/// # Safety
/// Only from `handler`, with the kernel's arguments, after `ensure_installed`
/// filled `PREVIOUS` (it did: our handler is only reached once installed).
unsafe fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let Some(i) = SIGNALS.iter().position(|s| *s == signal) else { return };
    // SAFETY: written once before our handler was installed, read-only since.
    let previous = unsafe { &*previous(i) };
    if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: with SA_SIGINFO, `sa_sigaction` is a three-argument handler.
        let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(previous.sa_sigaction) };
        // SAFETY: calling it as the kernel would have.
        unsafe { f(signal, info, context) };
    } else if previous.sa_sigaction == libc::SIG_DFL || previous.sa_sigaction == libc::SIG_IGN {
        // Restore the default and return: the faulting instruction runs
        // again and the process dies with the original signal.
        // SAFETY: reinstalls a valid action read back from the kernel.
        unsafe { libc::sigaction(signal, previous, std::ptr::null_mut()) };
    } else {
        // SAFETY: without SA_SIGINFO, `sa_sigaction` is a one-argument handler.
        let f: unsafe extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(previous.sa_sigaction) };
        // SAFETY: calling it as the kernel would have.
        unsafe { f(signal) };
    }
}
