//! Structured control flow: block, loop, if/else, end, br, br_if, br_table,
//! return, unreachable, plus the operand-stack ops (drop, select) and locals.
//!
//! Every frame has a `dest` block (where `end` continues) whose parameters are
//! the frame's results; a branch to a loop goes to its header instead, whose
//! parameters are the loop's params. Code after an unconditional branch is
//! skipped, counting nested blocks so the matching `else`/`end` is found.

use super::{Translator, ir_type};
use crate::module::ValType;
use crate::runtime::trap::TrapKind;
use cranelift_codegen::ir::{self, BlockArg, BlockCall, InstBuilder, JumpTableData};
use wasmparser::{BlockType, Operator};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameKind {
    Function,
    Block,
    Loop,
    /// An `if`; `else_block` is taken when the condition is false. `at`:
    /// the `if` operator's offset, which names its edges (`edges.rs`).
    If {
        else_block: ir::Block,
        has_else: bool,
        at: u32,
    },
}

#[derive(Debug)]
pub(crate) struct Frame {
    pub kind: FrameKind,
    /// Where `end` continues; its params are the results.
    pub dest: ir::Block,
    /// The loop header for loops, else `dest`.
    pub br_dest: ir::Block,
    pub num_params: usize,
    pub num_results: usize,
    /// Operand stack height below the frame's params.
    pub height: usize,
    /// Whether anything branches to (or falls into) `dest`.
    pub dest_reachable: bool,
    /// A loop that begins with a resume dispatch (`dispatch`).
    pub dispatch: Option<super::dispatch::Dispatch>,
    /// Its blocks may gain predecessors after its `end` (a dispatch target):
    /// sealed with the rest at the function's end instead.
    pub keep_unsealed: bool,
}

impl Frame {
    /// The values a branch to this frame carries.
    pub(crate) fn br_arity(&self) -> usize {
        if self.kind == FrameKind::Loop { self.num_params } else { self.num_results }
    }
}

impl Translator<'_, '_> {
    fn block_type(&self, bt: BlockType) -> (Vec<ValType>, Vec<ValType>) {
        match bt {
            BlockType::Empty => (vec![], vec![]),
            BlockType::Type(t) => (vec![], vec![to_val_type(t)]),
            BlockType::FuncType(i) => {
                let ty = &self.info.types[i as usize];
                (ty.params.clone(), ty.results.clone())
            }
        }
    }

    fn new_block_with(&mut self, tys: &[ValType]) -> ir::Block {
        let block = self.b.create_block();
        for t in tys {
            self.b.append_block_param(block, ir_type(*t));
        }
        block
    }

    pub(crate) fn push_function_frame(&mut self, results: &[ValType]) {
        let dest = self.new_block_with(results);
        self.frames.push(Frame {
            kind: FrameKind::Function,
            dest,
            br_dest: dest,
            num_params: 0,
            num_results: results.len(),
            height: 0,
            dest_reachable: false,
            dispatch: None,
            keep_unsealed: false,
        });
    }

    fn args(values: &[ir::Value]) -> Vec<BlockArg> {
        values.iter().copied().map(BlockArg::Value).collect()
    }

    /// Branch target `depth` frames out: (block, arity); marks it reachable.
    fn branch_target(&mut self, depth: u32) -> (ir::Block, usize) {
        let i = self.frames.len() - 1 - depth as usize;
        let frame = &mut self.frames[i];
        if frame.kind != FrameKind::Loop {
            frame.dest_reachable = true;
        }
        (frame.br_dest, frame.br_arity())
    }

    pub(crate) fn translate_control(&mut self, op: &Operator<'_>) -> bool {
        match *op {
            Operator::Nop => {}
            Operator::Unreachable => {
                self.trap(TrapKind::Unreachable);
                self.reachable = false;
            }
            Operator::Block { blockty } => {
                let (params, results) = self.block_type(blockty);
                let dest = self.new_block_with(&results);
                self.frames.push(Frame {
                    kind: FrameKind::Block,
                    dest,
                    br_dest: dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    height: self.stack.len() - params.len(),
                    dest_reachable: false,
                    dispatch: None,
                    keep_unsealed: false,
                });
            }
            Operator::Loop { blockty } => {
                let (params, results) = self.block_type(blockty);
                let header = self.new_block_with(&params);
                let dest = self.new_block_with(&results);
                let args = self.pop_n(params.len());
                self.b.ins().jump(header, &Self::args(&args));
                self.b.switch_to_block(header);
                let header_params = self.b.block_params(header).to_vec();
                let height = self.stack.len();
                self.stack.extend(header_params);
                self.frames.push(Frame {
                    kind: FrameKind::Loop,
                    dest,
                    br_dest: header,
                    num_params: params.len(),
                    num_results: results.len(),
                    height,
                    dest_reachable: false,
                    dispatch: None,
                    keep_unsealed: false,
                });
            }
            Operator::If { blockty } => {
                let (params, results) = self.block_type(blockty);
                let cond = self.pop();
                let then_block = self.new_block_with(&params);
                let else_block = self.new_block_with(&params);
                let dest = self.new_block_with(&results);
                let args = Self::args(&self.pop_n(params.len()));
                self.b.ins().brif(cond, then_block, &args, else_block, &args);
                self.b.seal_block(then_block);
                self.b.seal_block(else_block);
                self.b.switch_to_block(then_block);
                let at = self.offset as u32;
                self.mark_edge(at, 1);
                let height = self.stack.len();
                self.stack.extend(self.b.block_params(then_block).to_vec());
                self.frames.push(Frame {
                    kind: FrameKind::If { else_block, has_else: false, at },
                    dest,
                    br_dest: dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    height,
                    dest_reachable: false,
                    dispatch: None,
                    keep_unsealed: false,
                });
            }
            Operator::Else => self.translate_else(),
            Operator::End => self.translate_end(),
            Operator::Br { relative_depth } => {
                if let Some(block) = self.threaded_target(relative_depth) {
                    self.b.ins().jump(block, &[]);
                } else {
                    let (block, arity) = self.branch_target(relative_depth);
                    let args = Self::args(&self.stack[self.stack.len() - arity..]);
                    self.b.ins().jump(block, &args);
                }
                self.reachable = false;
            }
            Operator::BrIf { relative_depth } => {
                let cond = self.pop();
                let (block, arity) = match self.threaded_target(relative_depth) {
                    Some(block) => (block, 0),
                    None => self.branch_target(relative_depth),
                };
                let args = Self::args(&self.stack[self.stack.len() - arity..]);
                let next = self.b.create_block();
                self.brif_marked(cond, block, &args, next);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
                self.mark_edge(self.offset as u32, 0);
            }
            Operator::BrTable { ref targets } => {
                let index = self.pop();
                if !matches!(self.watch, Some(super::dispatch::Watch::Local { .. })) {
                    self.mark_table(index, targets.len());
                }
                // Index 0 first, by a conditional branch: every Go function
                // dispatches on its resume point at entry, and every plain
                // call passes 0 (docs/resume-dispatch.md).
                if let Some(first) = targets.targets().next() {
                    let (block, arity) = self.branch_target(first.expect("validated br_table"));
                    let args = Self::args(&self.stack[self.stack.len() - arity..]);
                    let rest = self.b.create_block();
                    self.b.ins().brif(index, rest, &[], block, &args);
                    self.b.seal_block(rest);
                    self.b.switch_to_block(rest);
                }
                let mut calls = Vec::new();
                for depth in targets.targets() {
                    let depth = depth.expect("validated br_table");
                    calls.push(self.block_call(depth));
                }
                let default = self.block_call(targets.default());
                self.note_dispatch(targets);
                let table = self.b.create_jump_table(JumpTableData::new(default, &calls));
                self.b.ins().br_table(index, table);
                self.reachable = false;
            }
            Operator::Return => {
                let n = self.frames[0].num_results;
                let values = self.stack[self.stack.len() - n..].to_vec();
                self.b.ins().return_(&values);
                self.reachable = false;
            }
            Operator::Drop => {
                self.pop();
            }
            Operator::Select => {
                let cond = self.pop();
                let (a, b) = self.pop2();
                let v = self.b.ins().select(cond, a, b);
                self.push(v);
            }
            Operator::LocalGet { local_index } => {
                let v = self.b.use_var(self.locals[local_index as usize]);
                self.push(v);
            }
            Operator::LocalSet { local_index } => {
                let v = self.pop();
                self.b.def_var(self.locals[local_index as usize], v);
            }
            Operator::LocalTee { local_index } => {
                let v = *self.stack.last().expect("validated local.tee");
                self.b.def_var(self.locals[local_index as usize], v);
            }
            _ => return false,
        }
        true
    }

    fn block_call(&mut self, depth: u32) -> BlockCall {
        let (block, arity) = self.branch_target(depth);
        let args = Self::args(&self.stack[self.stack.len() - arity..]);
        BlockCall::new(block, args, &mut self.b.func.dfg.value_lists)
    }

    fn translate_else(&mut self) {
        let frame = self.frames.last_mut().expect("validated else");
        let FrameKind::If { else_block, at, .. } = frame.kind else { unreachable!("validated else") };
        frame.kind = FrameKind::If { else_block, has_else: true, at };
        let (dest, num_results, height) = (frame.dest, frame.num_results, frame.height);
        if self.reachable {
            frame.dest_reachable = true;
            let args = Self::args(&self.stack[self.stack.len() - num_results..]);
            self.b.ins().jump(dest, &args);
        }
        self.stack.truncate(height);
        self.b.switch_to_block(else_block);
        self.mark_edge(at, 0);
        self.stack.extend(self.b.block_params(else_block).to_vec());
        self.reachable = true;
    }

    fn translate_end(&mut self) {
        let frame = self.frames.pop().expect("validated end");
        if self.reachable {
            let args = Self::args(&self.stack[self.stack.len() - frame.num_results..]);
            self.b.ins().jump(frame.dest, &args);
        }
        let mut dest_reachable = frame.dest_reachable || self.reachable;
        if let FrameKind::If { else_block, has_else: false, at } = frame.kind {
            // No else: the false path carries the params straight to the end.
            self.b.switch_to_block(else_block);
            self.mark_edge(at, 0);
            let params = Self::args(self.b.block_params(else_block));
            self.b.ins().jump(frame.dest, &params);
            dest_reachable = true;
        }
        if frame.kind == FrameKind::Loop && !frame.keep_unsealed {
            self.b.seal_block(frame.br_dest);
        }
        self.stack.truncate(frame.height);
        self.b.switch_to_block(frame.dest);
        if !frame.keep_unsealed {
            self.b.seal_block(frame.dest);
        }
        let results = self.b.block_params(frame.dest).to_vec();
        if frame.kind == FrameKind::Function {
            if dest_reachable {
                self.b.ins().return_(&results);
            } else {
                self.trap(TrapKind::Unreachable);
            }
            self.reachable = false;
            return;
        }
        self.stack.extend(results);
        self.reachable = dest_reachable;
        if !dest_reachable {
            // Nothing reaches the continuation: terminate it so the block is well formed.
            self.trap(TrapKind::Unreachable);
        }
    }

    /// Skip code that follows an unconditional branch, tracking nesting so that
    /// the `else`/`end` of the current frame is still handled.
    pub(crate) fn translate_unreachable(&mut self, op: Operator<'_>) {
        match op {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => {
                self.unreachable_depth += 1;
            }
            Operator::Else if self.unreachable_depth == 0 => self.translate_else(),
            Operator::End if self.unreachable_depth == 0 => self.translate_end(),
            Operator::End => self.unreachable_depth -= 1,
            _ => {}
        }
    }
}

fn to_val_type(t: wasmparser::ValType) -> ValType {
    match t {
        wasmparser::ValType::I32 => ValType::I32,
        wasmparser::ValType::I64 => ValType::I64,
        wasmparser::ValType::F32 => ValType::F32,
        wasmparser::ValType::F64 => ValType::F64,
        _ => unreachable!("validated under LIME1"),
    }
}
