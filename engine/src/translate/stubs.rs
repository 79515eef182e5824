//! Functions the engine generates rather than translates:
//! - an import stub per imported function, with the wasm calling convention,
//!   that spills the arguments to an 8-byte-per-value buffer and calls the
//!   `host_call` libcall, so guests call imports like any other function;
//! - a trampoline per function type, `(vmctx, callee, values)`, through which the
//!   runtime calls a wasm function of any signature with arguments and results
//!   in the same buffer layout.
//!
//! In a module with a pinned global (`CompileConfig::pinned_global`) both keep
//! its vmctx slot and the register in step: the stub writes the register to
//! the slot before the host runs and reads it back after (the host may read,
//! change, or call back into the guest); the trampoline loads the register
//! from the slot, and on return writes it back and restores the caller's
//! value, since r15 is callee-saved for the host.
//!
//! - a lazy stub per function type (`runtime::lazy`): a thunk of a function
//!   not compiled yet jumps to it with the function's arguments; it asks the
//!   `lazy_compile` libcall for the code and calls it. Lazily loaded code
//!   never pins a global, so it has nothing to keep in step.
//!
//! Buffer layout: value i in bytes 8i..8i+8, little-endian; a 32-bit value is
//! zero-extended when compiled code writes it, and only its low four bytes are
//! read back.

use super::{enter_function, ir_type, wasm_signature};
use crate::compile::isa::HOST_CALL_CONV;
use crate::module::FuncType;
use crate::runtime::vmctx;
use cranelift_codegen::ir::{
    self, AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, types,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

/// Store each value as a full 8-byte slot, 32-bit values zero-extended.
fn store_values(b: &mut FunctionBuilder<'_>, values: &[ir::Value], buffer: ir::Value) {
    for (i, v) in values.iter().enumerate() {
        let mut v = *v;
        if b.func.dfg.value_type(v) == types::F32 {
            v = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
        }
        if b.func.dfg.value_type(v) == types::I32 {
            v = b.ins().uextend(types::I64, v);
        }
        b.ins().store(MemFlagsData::trusted(), v, buffer, 8 * i as i32);
    }
}

fn load_values(b: &mut FunctionBuilder<'_>, tys: &[crate::module::ValType], buffer: ir::Value) -> Vec<ir::Value> {
    tys.iter()
        .enumerate()
        .map(|(i, t)| b.ins().load(ir_type(*t), MemFlagsData::trusted(), buffer, 8 * i as i32))
        .collect()
}

/// Write the pinned register to global `index`'s slot.
fn spill_pinned(b: &mut FunctionBuilder<'_>, vmctx_value: ir::Value, index: u32) {
    let v = b.ins().get_pinned_reg(types::I64);
    b.ins().store(MemFlagsData::trusted(), v, vmctx_value, vmctx::global_offset(index));
}

/// Set the pinned register from global `index`'s slot, which holds a value of
/// type `ty` (an i32 is zero-extended: the register always holds 64 bits).
fn reload_pinned(b: &mut FunctionBuilder<'_>, vmctx_value: ir::Value, (index, ty): (u32, ir::Type)) {
    let mut v = b.ins().load(ty, MemFlagsData::trusted(), vmctx_value, vmctx::global_offset(index));
    if ty == types::I32 {
        v = b.ins().uextend(types::I64, v);
    }
    b.ins().set_pinned_reg(v);
}

/// A builder for `func` as a function of wasm type `ty`, in its entry
/// block, and its parameters (the vmctx first).
fn wasm_function<'a>(
    ty: &FuncType,
    func: &'a mut ir::Function,
    fctx: &'a mut FunctionBuilderContext,
) -> (FunctionBuilder<'a>, Vec<ir::Value>) {
    func.signature = wasm_signature(ty);
    let mut b = FunctionBuilder::new(func, fctx);
    let params = enter_function(&mut b);
    (b, params)
}

/// The stub for import number `import_index` of type `ty`.
pub fn import_stub(
    ty: &FuncType,
    import_index: u32,
    pinned: Option<(u32, ir::Type)>,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    frontend: TargetFrontendConfig,
) {
    let (mut b, params) = wasm_function(ty, func, fctx);
    let vmctx_value = params[0];
    let slots = ty.params.len().max(ty.results.len()).max(1) as u32;
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8 * slots, 3));
    let buffer = b.ins().stack_addr(types::I64, slot, 0);
    store_values(&mut b, &params[1..], buffer);

    let mut sig = Signature::new(HOST_CALL_CONV);
    sig.params.extend([
        AbiParam::new(types::I64),
        AbiParam::new(types::I32),
        AbiParam::new(types::I64),
        AbiParam::new(types::I64),
    ]);
    let sigref = b.import_signature(sig);
    let flags = MemFlagsData::trusted().with_readonly().with_can_move();
    // Where the stub returns to: inside the wasm function that called the import
    // (`Caller::calling_function`). Frame pointers are kept, so this is one load.
    let return_address = b.ins().get_return_address(types::I64);
    let host_call = b.ins().load(types::I64, flags, vmctx_value, vmctx::LIBCALL_HOST_CALL);
    let index = b.ins().iconst(types::I32, import_index as i64);
    if let Some((global, _)) = pinned {
        spill_pinned(&mut b, vmctx_value, global);
    }
    b.ins().call_indirect(sigref, host_call, &[vmctx_value, index, buffer, return_address]);
    if let Some(pinned) = pinned {
        reload_pinned(&mut b, vmctx_value, pinned);
    }

    let results = load_values(&mut b, &ty.results, buffer);
    b.ins().return_(&results);
    b.finalize(frontend);
}

/// The native signature of every trampoline: `(vmctx, callee, values)`.
pub fn trampoline_signature() -> Signature {
    let mut sig = Signature::new(HOST_CALL_CONV);
    sig.params.extend([AbiParam::new(types::I64), AbiParam::new(types::I64), AbiParam::new(types::I64)]);
    sig
}

/// The trampoline that calls a function of type `ty`.
pub fn trampoline(
    ty: &FuncType,
    pinned: Option<(u32, ir::Type)>,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    frontend: TargetFrontendConfig,
) {
    func.signature = trampoline_signature();
    let mut b = FunctionBuilder::new(func, fctx);
    let [vmctx_value, callee, buffer] = enter_function(&mut b).try_into().expect("three params");
    let mut args = vec![vmctx_value];
    args.extend(load_values(&mut b, &ty.params, buffer));
    let sigref = b.import_signature(wasm_signature(ty));
    let callers = pinned.map(|pinned| {
        let callers = b.ins().get_pinned_reg(types::I64);
        reload_pinned(&mut b, vmctx_value, pinned);
        callers
    });
    let call = b.ins().call_indirect(sigref, callee, &args);
    let results = b.inst_results(call).to_vec();
    if let (Some((global, _)), Some(callers)) = (pinned, callers) {
        spill_pinned(&mut b, vmctx_value, global);
        b.ins().set_pinned_reg(callers);
    }
    store_values(&mut b, &results, buffer);
    b.ins().return_(&[]);
    b.finalize(frontend);
}

/// The lazy stub for functions of type `ty`: the function index is in the
/// vmctx (`vmctx::LAZY_FUNC`, stored by the thunk just before).
#[cfg(target_os = "linux")]
pub fn lazy_stub(
    ty: &FuncType,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    frontend: TargetFrontendConfig,
) {
    let (mut b, params) = wasm_function(ty, func, fctx);
    let vmctx_value = params[0];
    let func_index = b.ins().load(types::I32, MemFlagsData::trusted(), vmctx_value, vmctx::LAZY_FUNC);
    let mut sig = Signature::new(HOST_CALL_CONV);
    sig.params.extend([AbiParam::new(types::I64), AbiParam::new(types::I32)]);
    sig.returns.push(AbiParam::new(types::I64));
    let sigref = b.import_signature(sig);
    let flags = MemFlagsData::trusted().with_readonly().with_can_move();
    let lazy_compile = b.ins().load(types::I64, flags, vmctx_value, vmctx::LIBCALL_LAZY_COMPILE);
    let call = b.ins().call_indirect(sigref, lazy_compile, &[vmctx_value, func_index]);
    let code = b.inst_results(call)[0];
    let sigref = b.import_signature(wasm_signature(ty));
    let call = b.ins().call_indirect(sigref, code, &params);
    let results = b.inst_results(call).to_vec();
    b.ins().return_(&results);
    b.finalize(frontend);
}
