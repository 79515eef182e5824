//! `CompileConfig::edge_bitmap`: each outcome of a conditional branch stores
//! 1 into its byte of the edge map (`vmctx::edge_byte`): for `if` and
//! `br_if` outcome 0 (not taken) or 1 (taken), for `br_table` the position
//! of its target (the default last). An `if`'s outcomes mark at the start of
//! its then and else blocks, a `br_if`'s at the start of the block after it
//! and of a block of its own on the taken edge: one store at a constant
//! offset from the vmctx each, past the globals, nothing the guest can
//! name. A `br_table`'s byte is computed from its index before it. Go's
//! resume dispatch (`dispatch.rs`) is not marked: it runs at every call and
//! at every jump between Go blocks, and where a goroutine resumes is the
//! scheduler's doing, not the program's branches (docs/edge-coverage.md).
//! Without the option nothing here emits anything.

use super::Translator;
use crate::runtime::vmctx;
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, Value, types};

impl Translator<'_, '_> {
    /// Marks outcome `outcome` of the branch at module offset `at`, where the
    /// code now is.
    pub(crate) fn mark_edge(&mut self, at: u32, outcome: u32) {
        let Some(map) = self.edge_map else { return };
        let byte = i32::try_from(vmctx::edge_byte(at, outcome)).expect("the map is 64 KiB");
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(ir::MemFlagsData::trusted(), one, self.vmctx, map + byte);
    }

    /// `br_if`'s branch: to `target` when `cond` is non-zero, else to
    /// `next` (whose start the caller marks); with the edge map, through a
    /// block that marks the taken edge.
    pub(crate) fn brif_marked(&mut self, cond: Value, target: ir::Block, args: &[BlockArg], next: ir::Block) {
        if self.edge_map.is_none() {
            self.b.ins().brif(cond, target, args, next, &[]);
            return;
        }
        let taken = self.b.create_block();
        self.b.ins().brif(cond, taken, &[], next, &[]);
        self.b.seal_block(taken);
        self.b.switch_to_block(taken);
        self.mark_edge(self.offset as u32, 1);
        self.b.ins().jump(target, args);
    }

    /// Marks which of the `targets` targets (or the default, after them) the
    /// `br_table` on `index` (an i32) takes.
    pub(crate) fn mark_table(&mut self, index: Value, targets: u32) {
        let Some(map) = self.edge_map else { return };
        let last = self.b.ins().iconst(types::I32, i64::from(targets));
        let position = self.b.ins().umin(index, last);
        let position = self.b.ins().uextend(types::I64, position);
        let site = vmctx::edge_site(self.offset as u32);
        let byte = self.b.ins().iadd_imm_u(position, i64::from(site));
        let byte = self.b.ins().band_imm_u(byte, (vmctx::EDGE_MAP_BYTES - 1) as i64);
        let at = self.b.ins().iadd(self.vmctx, byte);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(ir::MemFlagsData::trusted(), one, at, map);
    }
}
