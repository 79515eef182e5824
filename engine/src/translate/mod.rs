//! The wasm → CLIF translator: one wasm function body in, one Cranelift
//! `Function` out. It is a stack-machine → SSA conversion on `FunctionBuilder`:
//! wasm locals are `Variable`s, the operand stack is a `Vec<Value>`, and every
//! wasm block/loop/if is a control frame whose results become block parameters.
//!
//! Opcode semantics are split by concern (`control`, `numeric`, `memory`,
//! `calls`); runtime layout comes only from `runtime::vmctx`. Traps go through
//! `traps`, which knows the two trap modes. Known wart: the memory base is
//! loaded once in the entry block even by functions that never touch memory.

mod calls;
mod control;
mod dispatch;
mod edges;
mod intrinsic;
mod memory;
mod numeric;
pub mod stubs;
mod traps;

use crate::compile::isa::{CompileConfig, HOST_CALL_CONV, TrapMode};
use crate::module::{ModuleInfo, ValType};
use crate::runtime::vmctx;
use control::Frame;
use cranelift_codegen::ir::{self, AbiParam, InstBuilder, Signature, Value, types};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use wasmparser::{FunctionBody, Operator};

/// Cranelift type of a wasm value type.
pub fn ir_type(t: ValType) -> ir::Type {
    match t {
        ValType::I32 => types::I32,
        ValType::I64 => types::I64,
        ValType::F32 => types::F32,
        ValType::F64 => types::F64,
    }
}

/// The native signature of a wasm function: `(vmctx, params...) -> results`.
pub fn wasm_signature(ty: &crate::module::FuncType) -> Signature {
    let mut sig = Signature::new(HOST_CALL_CONV);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.extend(ty.params.iter().map(|t| AbiParam::new(ir_type(*t))));
    sig.returns.extend(ty.results.iter().map(|t| AbiParam::new(ir_type(*t))));
    sig
}

/// The external name compiled code uses to call wasm function `index`.
pub fn func_ref_name(func: &mut ir::Function, index: u32) -> ir::ExternalName {
    let name = func.declare_imported_user_function(ir::UserExternalName::new(0, index));
    ir::ExternalName::user(name)
}

pub(crate) struct Translator<'a, 'f> {
    pub(crate) b: FunctionBuilder<'f>,
    pub(crate) info: &'a ModuleInfo,
    pub(crate) mode: TrapMode,
    pub(crate) func_index: u32,
    pub(crate) vmctx: Value,
    /// `ModuleInfo::pinned_global`: accessed as the pinned register.
    pub(crate) pinned_global: Option<u32>,
    /// `vmctx.mem_base`, loaded once in the entry block.
    pub(crate) mem_base: Option<Value>,
    pub(crate) locals: Vec<Variable>,
    pub(crate) stack: Vec<Value>,
    pub(crate) frames: Vec<Frame>,
    pub(crate) reachable: bool,
    /// Blocks opened inside unreachable code, skipped until their `end`.
    pub(crate) unreachable_depth: u32,
    /// Explicit mode: one cold trap block per kind per function.
    pub(crate) trap_blocks: Vec<(u8, ir::Block)>,
    /// Wasm byte offset of the operator being translated.
    pub(crate) offset: usize,
    /// How far the operators just translated match Go's resume dispatch.
    pub(crate) watch: Option<dispatch::Watch>,
    /// The edge map's vmctx offset, with `CompileConfig::edge_bitmap` (`edges`).
    pub(crate) edge_map: Option<i32>,
}

/// Translate defined function `func_index` (its body is `body`) into `func`.
pub fn translate_function(
    info: &ModuleInfo,
    config: &CompileConfig,
    func_index: u32,
    body: &FunctionBody<'_>,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    frontend: TargetFrontendConfig,
) -> wasmparser::Result<()> {
    let ty = info.func_type(func_index).clone();
    func.signature = wasm_signature(&ty);
    let mut b = FunctionBuilder::new(func, fctx);
    let params = enter_function(&mut b);
    let vmctx = params[0];
    if config.function_bitmap {
        mark_ran(&mut b, info, func_index, vmctx);
    }

    let mut locals = Vec::new();
    for (i, t) in ty.params.iter().enumerate() {
        let var = b.declare_var(ir_type(*t));
        b.def_var(var, params[i + 1]);
        locals.push(var);
    }
    let mut reader = body.get_locals_reader()?;
    for _ in 0..reader.get_count() {
        let (count, t) = reader.read()?;
        let t = match t {
            wasmparser::ValType::I32 => ValType::I32,
            wasmparser::ValType::I64 => ValType::I64,
            wasmparser::ValType::F32 => ValType::F32,
            wasmparser::ValType::F64 => ValType::F64,
            _ => unreachable!("validated under LIME1"),
        };
        let zero = zero_value(&mut b, t);
        for _ in 0..count {
            let var = b.declare_var(ir_type(t));
            b.def_var(var, zero);
            locals.push(var);
        }
    }
    let mem_base = info.memory.map(|_| {
        let flags = ir::MemFlagsData::trusted().with_readonly().with_can_move();
        b.ins().load(types::I64, flags, vmctx, vmctx::MEM_BASE)
    });

    let mut t = Translator {
        b,
        info,
        mode: config.trap_mode,
        func_index,
        vmctx,
        pinned_global: config.pinned_global(info),
        mem_base,
        locals,
        stack: Vec::new(),
        frames: Vec::new(),
        reachable: true,
        unreachable_depth: 0,
        trap_blocks: Vec::new(),
        offset: body.range().start as usize,
        watch: None,
        edge_map: config.edge_bitmap.then(|| {
            vmctx::edge_map_offset(info.globals.len(), info.num_funcs() - info.num_imported_funcs)
                .expect("checked by compile: the edge map lies within i32 offsets of the vmctx")
        }),
    };
    t.stack_check();
    t.push_function_frame(&ty.results);

    let intrinsic = if config.intrinsics { crate::intrinsics::select(info, func_index, body) } else { None };
    let mut ops = body.get_operators_reader()?;
    let mut index = 0;
    while !ops.eof() {
        let (op, offset) = ops.read_with_offset()?;
        t.offset = offset as usize;
        t.b.set_srcloc(ir::SourceLoc::new(offset as u32));
        if let Some(known) = intrinsic.filter(|k| k.at_operator == index && t.reachable) {
            t.emit_intrinsic(known.kind);
        }
        t.translate(op);
        index += 1;
    }
    t.fill_trap_blocks();
    t.b.seal_all_blocks();
    t.b.finalize(frontend);
    Ok(())
}

/// Start the entry block; returns the function's parameters (vmctx first).
pub(crate) fn enter_function(b: &mut FunctionBuilder<'_>) -> Vec<Value> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// `CompileConfig::function_bitmap`: one byte store of 1 into this function's
/// byte of the vmctx's "ran" bitmap (`vmctx::function_ran_offset`). No load,
/// no branch, no call, and nothing the guest can observe: not its memory, not
/// its globals, not the instrumentation's counter.
fn mark_ran(b: &mut FunctionBuilder<'_>, info: &ModuleInfo, func_index: u32, vmctx: Value) {
    let defined = func_index - info.num_imported_funcs;
    let offset = vmctx::function_ran_offset(info.globals.len(), defined)
        .expect("checked by compile: the bitmap lies within i32 offsets of the vmctx");
    let one = b.ins().iconst(types::I8, 1);
    b.ins().store(ir::MemFlagsData::trusted(), one, vmctx, offset);
}

pub(crate) fn zero_value(b: &mut FunctionBuilder<'_>, t: ValType) -> Value {
    match t {
        ValType::I32 => b.ins().iconst(types::I32, 0),
        ValType::I64 => b.ins().iconst(types::I64, 0),
        ValType::F32 => b.ins().f32const(0.0),
        ValType::F64 => b.ins().f64const(0.0),
    }
}

impl Translator<'_, '_> {
    pub(crate) fn pop(&mut self) -> Value {
        self.stack.pop().expect("validated: operand stack underflow")
    }

    pub(crate) fn pop2(&mut self) -> (Value, Value) {
        let b = self.pop();
        let a = self.pop();
        (a, b)
    }

    pub(crate) fn pop_n(&mut self, n: usize) -> Vec<Value> {
        let at = self.stack.len() - n;
        self.stack.split_off(at)
    }

    pub(crate) fn push(&mut self, v: Value) {
        self.stack.push(v);
    }

    fn translate(&mut self, op: Operator<'_>) {
        if !self.reachable {
            self.watch = None;
            self.translate_unreachable(op);
            return;
        }
        let handled = self.translate_control(&op) || self.translate_memory(&op) || self.translate_call(&op);
        if !handled && !self.translate_numeric(&op) {
            // Every LIME1 operator is handled above; validation rejected the rest.
            unreachable!("operator {op:?} passed LIME1 validation but has no translation");
        }
        self.watch = self.watch_after(&op, self.watch);
    }
}
