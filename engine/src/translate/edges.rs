//! `CompileConfig::edge_bitmap`: just before a conditional branch, a store of
//! 1 into the edge-map byte of the outcome it is about to take
//! (`vmctx::edge_byte`): for `if` and `br_if` 0 (not taken) or 1 (taken),
//! for `br_table` the position of its target (the default last). The byte
//! is computed from the condition, so no block is added and the control
//! flow stays as it was; the store goes to the vmctx past the globals,
//! nothing the guest can name. Go's resume dispatch (`dispatch.rs`) is not
//! marked: it runs at every call and at every jump between Go blocks, and
//! where a goroutine resumes is the scheduler's doing, not the program's
//! branches (docs/edge-coverage.md).

use super::Translator;
use crate::runtime::vmctx;
use cranelift_codegen::ir::{self, InstBuilder, Value, condcodes::IntCC, types};

impl Translator<'_, '_> {
    /// Marks the outcome of the `if`/`br_if` on `cond` (an i32).
    pub(crate) fn mark_branch(&mut self, cond: Value) {
        if self.edge_map.is_none() {
            return;
        }
        let taken = self.b.ins().icmp_imm_u(IntCC::NotEqual, cond, 0);
        let outcome = self.b.ins().uextend(types::I64, taken);
        self.mark_outcome(outcome);
    }

    /// Marks which of the `targets` targets (or the default, after them) the
    /// `br_table` on `index` (an i32) takes.
    pub(crate) fn mark_table(&mut self, index: Value, targets: u32) {
        if self.edge_map.is_none() {
            return;
        }
        let last = self.b.ins().iconst(types::I32, i64::from(targets));
        let position = self.b.ins().umin(index, last);
        let outcome = self.b.ins().uextend(types::I64, position);
        self.mark_outcome(outcome);
    }

    fn mark_outcome(&mut self, outcome: Value) {
        let Some(map) = self.edge_map else { return };
        let site = vmctx::edge_site(self.offset as u32);
        let byte = self.b.ins().iadd_imm_u(outcome, i64::from(site));
        let byte = self.b.ins().band_imm_u(byte, (vmctx::EDGE_MAP_BYTES - 1) as i64);
        let at = self.b.ins().iadd(self.vmctx, byte);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(ir::MemFlagsData::trusted(), one, at, map);
    }
}
