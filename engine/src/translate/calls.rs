//! Calls: direct `call`, `call_indirect` with its three checks (table bounds,
//! null entry, signature), and calls to runtime libcalls through the vmctx.
//!
//! Every function index has code: imported functions are compiled as stubs
//! (see `stubs`), so a direct call never needs to know whether its target is
//! an import. A table entry carries the callee's vmctx, so tables can hold
//! functions of other instances.

use super::{Translator, func_ref_name, wasm_signature};
use crate::compile::isa::HOST_CALL_CONV;
use crate::runtime::trap::TrapKind;
use crate::runtime::vmctx;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, AbiParam, InstBuilder, MemFlagsData, Signature, Value, types};
use wasmparser::Operator;

impl Translator<'_, '_> {
    /// Call the runtime function whose pointer is at `vmctx + offset`.
    pub(crate) fn libcall(&mut self, offset: i32, args: &[Value], results: &[ir::Type]) -> Option<Value> {
        let mut sig = Signature::new(HOST_CALL_CONV);
        sig.params.push(AbiParam::new(types::I64));
        for arg in args {
            sig.params.push(AbiParam::new(self.b.func.dfg.value_type(*arg)));
        }
        sig.returns.extend(results.iter().map(|t| AbiParam::new(*t)));
        let sigref = self.b.import_signature(sig);
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        let callee = self.b.ins().load(types::I64, flags, self.vmctx, offset);
        let mut call_args = vec![self.vmctx];
        call_args.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sigref, callee, &call_args);
        self.b.inst_results(call).first().copied()
    }

    fn push_results(&mut self, call: ir::Inst) {
        let results = self.b.inst_results(call).to_vec();
        self.stack.extend(results);
    }

    pub(crate) fn translate_call(&mut self, op: &Operator<'_>) -> bool {
        match *op {
            Operator::Call { function_index } => {
                let ty = self.info.func_type(function_index).clone();
                let signature = self.b.import_signature(wasm_signature(&ty));
                let name = func_ref_name(self.b.func, function_index);
                let callee =
                    self.b.import_function(ir::ExtFuncData { name, signature, colocated: true, patchable: false });
                let mut args = vec![self.vmctx];
                args.extend(self.pop_n(ty.params.len()));
                let call = self.b.ins().call(callee, &args);
                self.push_results(call);
            }
            Operator::CallIndirect { type_index, table_index } => {
                debug_assert_eq!(table_index, 0, "LIME1 has one table");
                let ty = self.info.types[type_index as usize].clone();
                let index = self.pop();
                let index = self.b.ins().uextend(types::I64, index);
                let fixed = MemFlagsData::trusted().with_readonly().with_can_move();
                let len = self.b.ins().load(types::I64, fixed, self.vmctx, vmctx::TABLE_LEN);
                let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, len);
                self.trap_if(out, TrapKind::TableOutOfBounds);
                let base = self.b.ins().load(types::I64, fixed, self.vmctx, vmctx::TABLE_BASE);
                let scaled = self.b.ins().imul_imm_u(index, vmctx::ENTRY_SIZE as i64);
                let entry = self.b.ins().iadd(base, scaled);
                let flags = MemFlagsData::trusted();
                let signature = self.b.ins().load(types::I64, flags, entry, vmctx::ENTRY_SIGNATURE);
                let null = self.b.ins().icmp_imm_u(IntCC::Equal, signature, 0);
                self.trap_if(null, TrapKind::IndirectCallToNull);
                let expected = ty.signature_id() as i64;
                let mismatch = self.b.ins().icmp_imm_s(IntCC::NotEqual, signature, expected);
                self.trap_if(mismatch, TrapKind::BadSignature);
                let code = self.b.ins().load(types::I64, flags, entry, vmctx::ENTRY_CODE);
                let callee_vmctx = self.b.ins().load(types::I64, flags, entry, vmctx::ENTRY_VMCTX);
                let sigref = self.b.import_signature(wasm_signature(&ty));
                let mut args = vec![callee_vmctx];
                args.extend(self.pop_n(ty.params.len()));
                let call = self.b.ins().call_indirect(sigref, code, &args);
                self.push_results(call);
            }
            _ => return false,
        }
        true
    }
}
