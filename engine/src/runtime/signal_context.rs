//! The registers of an interrupted thread, read from and written to the
//! `ucontext_t` the kernel hands a signal handler. Each (system, architecture)
//! pair lays the context out its own way; this is the only place that knows
//! how. It does not decide anything: `signals` does.

use corosensei::trap::TrapHandlerRegs;

/// The interrupted thread's program counter and stack pointer.
///
/// # Safety
/// `uc` must be the `ucontext_t` the kernel passed to the running handler.
pub unsafe fn pc_and_sp(uc: *mut libc::ucontext_t) -> (usize, usize) {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        // SAFETY: the kernel's context, valid for the handler's duration.
        let gregs = unsafe { &(*uc).uc_mcontext.gregs };
        (gregs[libc::REG_RIP as usize] as usize, gregs[libc::REG_RSP as usize] as usize)
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        // SAFETY: as above.
        let mc = unsafe { &(*uc).uc_mcontext };
        (mc.pc as usize, mc.sp as usize)
    }
    #[cfg(all(target_os = "macos", target_arch = "x86_64"))]
    {
        // SAFETY: as above; on macOS `uc_mcontext` points into the same frame.
        let ss = unsafe { &(*(*uc).uc_mcontext).__ss };
        (ss.__rip as usize, ss.__rsp as usize)
    }
    #[cfg(all(target_os = "macos", target_arch = "aarch64"))]
    {
        // SAFETY: as above.
        let ss = unsafe { &(*(*uc).uc_mcontext).__ss };
        (ss.__pc as usize, ss.__sp as usize)
    }
}

/// Make the interrupted thread resume with `regs` (corosensei's registers
/// for unwinding a coroutine that faulted).
///
/// # Safety
/// As `pc_and_sp`; and `regs` must come from `setup_trap_handler` for the
/// coroutine the thread was running.
pub unsafe fn redirect(uc: *mut libc::ucontext_t, regs: TrapHandlerRegs) {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        // SAFETY: the kernel's context, ours alone until the handler returns.
        let gregs = unsafe { &mut (*uc).uc_mcontext.gregs };
        gregs[libc::REG_RIP as usize] = regs.rip as i64;
        gregs[libc::REG_RSP as usize] = regs.rsp as i64;
        gregs[libc::REG_RBP as usize] = regs.rbp as i64;
        gregs[libc::REG_RDI as usize] = regs.rdi as i64;
        gregs[libc::REG_RSI as usize] = regs.rsi as i64;
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        // SAFETY: as above.
        let mc = unsafe { &mut (*uc).uc_mcontext };
        mc.pc = regs.pc;
        mc.sp = regs.sp;
        mc.regs[0] = regs.x0;
        mc.regs[1] = regs.x1;
        mc.regs[29] = regs.x29;
        mc.regs[30] = regs.lr;
    }
    #[cfg(all(target_os = "macos", target_arch = "x86_64"))]
    {
        // SAFETY: as above.
        let ss = unsafe { &mut (*(*uc).uc_mcontext).__ss };
        ss.__rip = regs.rip;
        ss.__rsp = regs.rsp;
        ss.__rbp = regs.rbp;
        ss.__rdi = regs.rdi;
        ss.__rsi = regs.rsi;
    }
    #[cfg(all(target_os = "macos", target_arch = "aarch64"))]
    {
        // SAFETY: as above.
        let ss = unsafe { &mut (*(*uc).uc_mcontext).__ss };
        ss.__pc = regs.pc;
        ss.__sp = regs.sp;
        ss.__x[0] = regs.x0;
        ss.__x[1] = regs.x1;
        ss.__fp = regs.x29;
        ss.__lr = regs.lr;
    }
}
