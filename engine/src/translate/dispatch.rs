//! Go's resume dispatch, threaded. Go's wasm port wraps every function body
//! in `loop (block (block ... (br_table (local.get 0) ...))))`: the loop
//! header dispatches on a local (PC_B) to one of the blocks, and every jump
//! between Go basic blocks, each iteration of every Go loop included, is
//! `i32.const K; local.set 0; br $loop`, then the dispatch's `br_table` on K.
//! Where the local's value at such a branch is that constant, the branch
//! goes straight to the table's target for K: the same state (the local
//! still holds K, the header only read it) without the indirect jump.
//!
//! It recognizes only that exact shape: a loop without params whose first
//! operators are `block`s without params or results, then `local.get X`,
//! then `br_table` whose every target takes no values. Anything else in
//! between (loop counters, which the instrumentation puts first in every
//! loop, included) means no threading, so no counted point is skipped
//! (docs/resume-dispatch.md).

use super::Translator;
use cranelift_codegen::ir::{self, InstructionData, Opcode};
use wasmparser::{BlockType, BrTable, Operator};

/// A loop's dispatch: the local it reads and the table's blocks.
#[derive(Debug, Clone)]
pub(crate) struct Dispatch {
    local: u32,
    targets: Vec<ir::Block>,
    default: ir::Block,
}

/// How far the operators since a loop's start match the dispatch shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Watch {
    /// Only `block`s since the loop at this frame index.
    Blocks { loop_frame: usize },
    /// Then `local.get local`.
    Local { loop_frame: usize, local: u32 },
}

impl Translator<'_, '_> {
    /// Where the shape stands after `op` (translated), given where it stood before.
    pub(crate) fn watch_after(&self, op: &Operator<'_>, before: Option<Watch>) -> Option<Watch> {
        match (op, before) {
            (Operator::Loop { blockty: BlockType::Empty }, _) => {
                Some(Watch::Blocks { loop_frame: self.frames.len() - 1 })
            }
            (Operator::Block { blockty: BlockType::Empty }, Some(Watch::Blocks { .. })) => before,
            (Operator::LocalGet { local_index }, Some(Watch::Blocks { loop_frame })) => {
                Some(Watch::Local { loop_frame, local: *local_index })
            }
            _ => None,
        }
    }

    /// At a `br_table` (its operands already taken): if it completes the
    /// shape, records the dispatch on its loop and keeps its targets'
    /// blocks open for the threaded branches to come.
    pub(crate) fn note_dispatch(&mut self, table: &BrTable<'_>) {
        let Some(Watch::Local { loop_frame, local }) = self.watch else { return };
        let top = self.frames.len() - 1;
        let frames: Vec<usize> = table.targets().map(|d| top - d.expect("validated br_table") as usize).collect();
        let default = top - table.default() as usize;
        let takes_nothing = |at: &usize| self.frames[*at].br_arity() == 0;
        if !frames.iter().chain([&default]).all(takes_nothing) {
            return;
        }
        for at in frames.iter().chain([&default]) {
            self.frames[*at].keep_unsealed = true;
        }
        let targets = frames.iter().map(|at| self.frames[*at].br_dest).collect();
        let default = self.frames[default].br_dest;
        self.frames[loop_frame].dispatch = Some(Dispatch { local, targets, default });
    }

    /// For a branch `depth` frames out: the dispatch's target, when the
    /// branch goes to a loop with a dispatch and the local it reads holds a
    /// constant here.
    pub(crate) fn threaded_target(&mut self, depth: u32) -> Option<ir::Block> {
        let at = self.frames.len() - 1 - depth as usize;
        let dispatch = self.frames[at].dispatch.as_ref()?;
        let (local, targets, default) = (dispatch.local, dispatch.targets.clone(), dispatch.default);
        let value = self.b.use_var(self.locals[local as usize]);
        let value = self.b.func.dfg.resolve_aliases(value);
        let ir::ValueDef::Result(inst, _) = self.b.func.dfg.value_def(value) else { return None };
        let InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } = self.b.func.dfg.insts[inst] else {
            return None;
        };
        let index = imm.bits() as u32 as usize;
        Some(targets.get(index).copied().unwrap_or(default))
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::CompileConfig;
    use cranelift_codegen::flowgraph::ControlFlowGraph;
    use cranelift_codegen::ir::{self, Opcode};
    use cranelift_frontend::FunctionBuilderContext;

    /// A Go-shaped loop; its comments say what it computes.
    const GO_SHAPED: &str = include_str!("../../tests/wat/resume_dispatch.wat");

    /// How many branches reach the loop header of the only function in `wat`:
    /// the block whose successor holds the `br_table` (the header tests the
    /// index for 0 first).
    fn header_predecessors(wat: &str) -> usize {
        let wasm = wat::parse_str(wat).unwrap();
        let parsed = crate::module::parse(&wasm).unwrap();
        let config = CompileConfig::default();
        let isa = config.build_isa().unwrap();
        let range = parsed.bodies[0].clone();
        let body =
            wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(&wasm[range.clone()], range.start as u64));
        let mut func = ir::Function::new();
        let mut fctx = FunctionBuilderContext::new();
        let index = parsed.info.num_imported_funcs;
        super::super::translate_function(
            &parsed.info,
            &config,
            index,
            &body,
            &mut func,
            &mut fctx,
            isa.frontend_config(),
        )
        .unwrap();
        let cfg = ControlFlowGraph::with_function(&func);
        let holds_table = |block: &ir::Block| {
            func.layout.block_insts(*block).any(|inst| func.dfg.insts[inst].opcode() == Opcode::BrTable)
        };
        let table = func.layout.blocks().find(holds_table).expect("a br_table");
        let header = cfg.pred_iter(table).next().expect("the header").block;
        cfg.pred_iter(header).count()
    }

    #[test]
    fn branches_that_store_a_constant_point_skip_the_dispatch() {
        // The entry, and the one branch whose point is computed.
        assert_eq!(header_predecessors(GO_SHAPED), 2, "the constant points skip the dispatch");
        // Anything between the loop and its blocks (here a nop; a loop counter
        // in practice) is not the shape: every branch goes through the header.
        let not_the_shape = GO_SHAPED.replace("(loop $entry", "(loop $entry nop");
        assert_eq!(header_predecessors(&not_the_shape), 6, "the entry and five branches");
    }
}
