//! Trap emission, the only place that knows the two trap modes.
//!
//! `Signals`: a conditional trap is Cranelift's `trapnz`, an instruction that
//! faults (ud2); the signal handler finds the kind in the Artifact's trap table.
//! `Explicit`: the condition branches to a cold block, one per kind per function,
//! that calls the trap libcall (which abandons the instance and never returns).
//! Also the prologue stack check, which both modes share.

use super::Translator;
use super::memory::trap_code;
use crate::compile::isa::TrapMode;
use crate::runtime::trap::TrapKind;
use crate::runtime::vmctx;
use cranelift_codegen::ir::TrapCode;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};

impl Translator<'_, '_> {
    /// Trap with `kind` when `cond` is nonzero.
    pub(crate) fn trap_if(&mut self, cond: Value, kind: TrapKind) {
        match self.mode {
            TrapMode::Signals => {
                self.b.ins().trapnz(cond, trap_code(kind));
            }
            TrapMode::Explicit => {
                let trap_block = self.trap_block(kind);
                let next = self.b.create_block();
                self.b.ins().brif(cond, trap_block, &[], next, &[]);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
            }
        }
    }

    /// Trap unconditionally; the current block ends here.
    pub(crate) fn trap(&mut self, kind: TrapKind) {
        match self.mode {
            TrapMode::Signals => {
                self.b.ins().trap(trap_code(kind));
            }
            TrapMode::Explicit => {
                let trap_block = self.trap_block(kind);
                self.b.ins().jump(trap_block, &[]);
            }
        }
    }

    /// The cold block that raises `kind`; filled in by `fill_trap_blocks`
    /// because the builder cannot leave a block half-built.
    fn trap_block(&mut self, kind: TrapKind) -> cranelift_codegen::ir::Block {
        if let Some((_, block)) = self.trap_blocks.iter().find(|(k, _)| *k == kind as u8) {
            return *block;
        }
        let block = self.b.create_block();
        self.b.set_cold_block(block);
        self.trap_blocks.push((kind as u8, block));
        block
    }

    /// Emit the body of every trap block: call the trap libcall, which never returns.
    pub(crate) fn fill_trap_blocks(&mut self) {
        for (kind, block) in std::mem::take(&mut self.trap_blocks) {
            self.b.switch_to_block(block);
            let kind_value = self.b.ins().iconst(types::I32, kind as i64);
            let func_value = self.b.ins().iconst(types::I32, self.func_index as i64);
            self.libcall(vmctx::LIBCALL_TRAP, &[kind_value, func_value], &[]);
            self.b.ins().trap(TrapCode::unwrap_user(kind));
        }
    }

    /// Trap with stack exhaustion before the guest stack reaches the fiber's
    /// guard, leaving room for host calls made from this frame. The limit is
    /// the thread's current one, reached through the vmctx's pointer (see
    /// `VmCtxHeader::stack_limit`).
    pub(crate) fn stack_check(&mut self) {
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let fixed = MemFlagsData::trusted().with_readonly().with_can_move();
        let limit_ptr = self.b.ins().load(types::I64, fixed, self.vmctx, vmctx::STACK_LIMIT);
        let limit = self.b.ins().load(types::I64, MemFlagsData::trusted(), limit_ptr, 0);
        let exhausted = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        self.trap_if(exhausted, TrapKind::StackOverflow);
    }
}
