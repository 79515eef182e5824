//! Preemption entry checks for Go functions that have none: which defined functions get one (the
//! safe rule, docs/preemption.md), and the check's code.
//!
//! Go's wasm backend emits a stack check (`SP <= g.stackguard0` → `runtime.morestack`) only in
//! functions with a frame that are not NOSPLIT, so a loop that calls only frameless leaves (or
//! `sync/atomic`'s assembly loads) never reads a preemption request. The check added here reads the
//! same request and takes the same exit Go's prologue takes: push the function's entry PC, call
//! `runtime.morestack(_noctxt)`, unwind; `newstack` preempts, and `gogo` later restarts the function
//! from its entry.
//!
//! It decides and encodes only; `body` splices the check in, after the counter snippet, once it
//! has seen that the body has no stack check of its own.

use crate::encoding::write_u32;

/// Low 32 bits of Go's `stackPreempt` (`0xFFFF_FFFF_FFFF_FADE` on wasm), as the prologue compares.
const STACK_PREEMPT_LOW: i32 = 0xFFFF_FADEu32 as i32;
/// Go's linker: the wasm global holding SP (i32), and the one holding CTXT (i64).
const GLOBAL_SP: u8 = 0;
const GLOBAL_CTXT: u32 = 1;
/// The wasm global holding the current g (i64 address).
const GLOBAL_G: u8 = 2;
/// `g.stackguard0`'s offset in Go's `g` (go_asm.h; the same in every supported release).
const G_STACKGUARD0: u8 = 16;
/// Go's code addresses: `PC_F = FUNC_VALUE_OFFSET + defined index` (cmd/link/internal/wasm).
const FUNC_VALUE_OFFSET: u64 = 0x1000;

/// Package prefixes (as Go's linker spells them in the `name` section: `/` becomes `_`) whose
/// functions never get a check. See `docs/preemption.md`, "Which functions get an entry check".
const EXCLUDED_PREFIXES: &[&str] = &["runtime.", "runtime_", "internal_", "reflect."];

/// What the checks need from the module: the morestack functions (input indices).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Morestack {
    pub(crate) morestack: u32,
    pub(crate) noctxt: u32,
}

impl Morestack {
    /// Whether `func` (an input index) is one of the two: a body calling it has Go's own check.
    pub(crate) fn is(self, func: u32) -> bool {
        func == self.morestack || func == self.noctxt
    }
}

/// Whether the function named `name`, of a Go function type, may get a check, by its package alone.
/// Whether it already has one is only known from its body.
pub(crate) fn eligible_name(name: &str) -> bool {
    // A bare symbol (`wasm_pc_f_loop`, `gcWriteBarrier`, `memeqbody`) is runtime assembly glue.
    name.contains('.') && !EXCLUDED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether a body that reads `global 1` needs `morestack` (which saves CTXT and has `gogo`
/// restore it) rather than `morestack_noctxt` (which clears it, so the GC never scans a stale
/// closure pointer in `g.sched.ctxt`): Go's compiler makes the same choice through NeedCtxt.
pub(crate) fn reads_ctxt(global: u32) -> bool {
    global == GLOBAL_CTXT
}

/// The check for defined function `defined`, calling `callee` (its index in the output):
///
/// ```wat
/// global.get $g  i32.wrap_i64  i32.load offset=16      ;; low half of g.stackguard0
/// i32.const 0xFFFFFADE  i32.xor  local.get 0  i32.or   ;; 0 iff preempt requested and PC_B == 0
/// i32.eqz
/// if
///   global.get $SP  i32.const 8  i32.sub  global.set $SP
///   global.get $SP  i64.const PC_F<<16  i64.store     ;; return address: this function's entry
///   i32.const 0  call $runtime.morestack_noctxt       ;; saves g.sched, preempts, unwinds (1)
///   return
/// end
/// ```
///
/// Only a preemption request fires it, never a stack-growth condition: the function needs no
/// stack, and growing the stack under a NOSPLIT caller is what NOSPLIT forbids. g0's stackguard0 is
/// never `stackPreempt` (neither the host nor the runtime writes it), so it never fires on g0.
/// `PC_B == 0` is the entry; a resume at another point must not restart the function.
pub(crate) fn check(defined: u32, callee: u32) -> Vec<u8> {
    let mut s = Vec::with_capacity(48);
    s.extend_from_slice(&[0x23, GLOBAL_G, 0xa7, 0x28, 0x02, G_STACKGUARD0]); // global.get; i32.wrap_i64; i32.load
    s.push(0x41); // i32.const
    write_i64(&mut s, STACK_PREEMPT_LOW as i64);
    s.extend_from_slice(&[0x73, 0x20, 0x00, 0x72, 0x45]); // i32.xor; local.get 0; i32.or; i32.eqz
    s.extend_from_slice(&[0x04, 0x40]); // if (empty block type)
    s.extend_from_slice(&[0x23, GLOBAL_SP, 0x41, 0x08, 0x6b, 0x24, GLOBAL_SP]); // SP -= 8
    s.extend_from_slice(&[0x23, GLOBAL_SP, 0x42]); // global.get SP; i64.const
    write_i64(&mut s, ((FUNC_VALUE_OFFSET + defined as u64) << 16) as i64);
    s.extend_from_slice(&[0x37, 0x03, 0x00]); // i64.store align=3 offset=0
    s.extend_from_slice(&[0x41, 0x00, 0x10]); // i32.const 0; call
    write_u32(&mut s, callee);
    s.extend_from_slice(&[0x0f, 0x0b]); // return; end
    s
}

/// Signed LEB128.
fn write_i64(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_by_name() {
        for ok in
            ["main.mix", "sync_atomic.LoadUint32", "type_.eq.main.T", "example.com_internal_x.F", "syscall.fd_write"]
        {
            assert!(eligible_name(ok), "{ok}");
        }
        for no in [
            "runtime.morestack",
            "runtime_debug.SetGCPercent",
            "internal_runtime_atomic.Load",
            "internal_bytealg.IndexByte",
            "reflect.makeFuncStub",
            "wasm_pc_f_loop",
            "gcWriteBarrier",
        ] {
            assert!(!eligible_name(no), "{no}");
        }
    }

    #[test]
    fn sleb() {
        let enc = |v| {
            let mut o = Vec::new();
            write_i64(&mut o, v);
            o
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(-1), [0x7f]);
        assert_eq!(enc(63), [0x3f]);
        assert_eq!(enc(64), [0xc0, 0x00]);
        assert_eq!(enc(-1314), [0xde, 0x75]);
    }
}
