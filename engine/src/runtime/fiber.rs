//! Fibers: every call into guest code runs on its own stack (a corosensei
//! coroutine), so a host function can suspend the guest in the middle of a
//! call and the owner can resume it later, or abandon it without unwinding.
//!
//! Rules this module enforces:
//! - A suspended coroutine is never dropped with unwinding (that would unwind
//!   through JIT frames); it is `force_reset` first and its stack recycled.
//! - The thread-locals the trap paths need (the coroutine's trap handler for
//!   the fault handler, `fault::TRAP_HANDLER`; the yielder for the trap and
//!   host libcalls) are set on every resume and restored after it, so fibers
//!   may nest.
//! - Stacks are pooled per thread: creating a fiber costs no mmap in steady state.

use crate::runtime::fault::{FiberReturn, TRAP_HANDLER};
use crate::runtime::trap::TrapKind;
use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};

/// Native stack per fiber. Committed lazily by the OS.
pub const STACK_SIZE: usize = 16 << 20;
/// Room kept free below guest frames for host functions and the trap path.
pub const HOST_STACK_RESERVE: usize = 256 << 10;
const POOL_MAX: usize = 32;

/// What a fiber hands its owner when it stops without finishing.
#[derive(Debug, Clone, Copy)]
pub enum FiberYield {
    /// A host function suspended the guest with this value; resume to continue.
    Suspend(u64),
    /// Explicit-mode trap raised by compiled code.
    Trap { kind: TrapKind, func_index: u32 },
    /// A host function failed or exited; the reason is stored by the instance.
    Abort,
}

pub type GuestYielder = Yielder<u64, FiberYield>;

thread_local! {
    static YIELDER: Cell<*const GuestYielder> = const { Cell::new(std::ptr::null()) };
    static POOL: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// Suspend the running fiber, handing `value` to its owner; returns the value
/// the owner resumes with.
///
/// # Safety
/// Must be called on a fiber (from a host function); no value with a
/// destructor may be live in guest-called frames if the owner abandons it.
#[inline]
pub unsafe fn suspend_current(value: FiberYield) -> u64 {
    let yielder = YIELDER.with(|y| y.get());
    assert!(!yielder.is_null(), "suspend outside a fiber");
    // SAFETY: the yielder outlives the coroutine body it was set by.
    unsafe { (*yielder).suspend(value) }
}

pub enum FiberStep {
    Suspended(u64),
    Yielded(FiberYield),
    Finished,
    Fault { pc: usize, signal: i32 },
}

pub struct Fiber {
    coroutine: Option<Coroutine<u64, FiberYield, FiberReturn, DefaultStack>>,
    yielder: Box<Cell<*const GuestYielder>>,
    stack_limit: usize,
}

fn take_stack() -> std::io::Result<DefaultStack> {
    match POOL.with(|p| p.borrow_mut().pop()) {
        Some(stack) => Ok(stack),
        None => DefaultStack::new(STACK_SIZE),
    }
}

fn return_stack(stack: DefaultStack) {
    POOL.with(|p| {
        let mut pool = p.borrow_mut();
        if pool.len() < POOL_MAX {
            pool.push(stack);
        }
    });
}

impl Fiber {
    /// A fiber that will run `body` (guest code) when first resumed.
    pub fn new(body: impl FnOnce() + 'static) -> std::io::Result<Fiber> {
        // Before any guest code can fault: once per process, not per resume.
        #[cfg(unix)]
        crate::runtime::signals::ensure_installed();
        #[cfg(windows)]
        crate::runtime::traps_windows::ensure_installed();
        let stack = take_stack()?;
        let stack_limit = stack.limit().get() + HOST_STACK_RESERVE;
        let yielder: Box<Cell<*const GuestYielder>> = Box::new(Cell::new(std::ptr::null()));
        let slot: *const Cell<*const GuestYielder> = &*yielder;
        let coroutine = Coroutine::with_stack(stack, move |y: &GuestYielder, _first: u64| {
            YIELDER.with(|c| c.set(y));
            // SAFETY: `slot` points into the Box owned by the Fiber, which
            // outlives its coroutine.
            unsafe { (*slot).set(y) };
            body();
            FiberReturn::Finished
        });
        Ok(Fiber { coroutine: Some(coroutine), yielder, stack_limit })
    }

    pub fn stack_limit(&self) -> usize {
        self.stack_limit
    }

    /// Run until the guest finishes, suspends or faults.
    #[inline]
    pub fn resume(&mut self, value: u64) -> FiberStep {
        let coroutine = self.coroutine.as_mut().expect("resume of a finished fiber");
        let previous_handler = TRAP_HANDLER.with(|h| h.replace(Some(coroutine.trap_handler())));
        let previous_yielder = YIELDER.with(|y| y.replace(self.yielder.get()));
        let result = coroutine.resume(value);
        TRAP_HANDLER.with(|h| h.set(previous_handler));
        YIELDER.with(|y| y.set(previous_yielder));
        match result {
            CoroutineResult::Yield(FiberYield::Suspend(v)) => FiberStep::Suspended(v),
            CoroutineResult::Yield(other) => {
                self.abandon();
                FiberStep::Yielded(other)
            }
            CoroutineResult::Return(FiberReturn::Finished) => {
                self.recycle();
                FiberStep::Finished
            }
            CoroutineResult::Return(FiberReturn::Fault { pc, signal }) => {
                self.recycle();
                FiberStep::Fault { pc, signal }
            }
        }
    }

    /// Drop a suspended guest without running or unwinding any of its frames.
    pub fn abandon(&mut self) {
        if let Some(coroutine) = self.coroutine.as_mut()
            && coroutine.started()
            && !coroutine.done()
        {
            // SAFETY: guest frames and the host shims between them hold no
            // values with destructors across a suspension (see module doc).
            unsafe { coroutine.force_reset() };
        }
        self.recycle();
    }

    fn recycle(&mut self) {
        if let Some(coroutine) = self.coroutine.take() {
            if coroutine.started() && !coroutine.done() {
                // Unreachable by construction: callers reset first.
                std::mem::forget(coroutine);
                return;
            }
            return_stack(coroutine.into_stack());
        }
    }
}

impl Drop for Fiber {
    fn drop(&mut self) {
        self.abandon();
    }
}
