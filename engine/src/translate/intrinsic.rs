//! Emits an intrinsic's call (`crate::intrinsics`) before the operator its
//! known body names: the locals go to the libcall through a stack slot and
//! come back as it left them. Knows each known body's locals, nothing else of
//! it; the fingerprint guarantees the rest.

use super::Translator;
use crate::intrinsics::{Kind, Sha256Locals, sha256};
use crate::runtime::vmctx;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, types};
use wasmparser::Operator;

impl Translator<'_, '_> {
    pub(crate) fn emit_intrinsic(&mut self, kind: Kind) {
        match kind {
            Kind::Sha256Blocks(locals) => self.sha256_blocks(kind.code(), locals),
            Kind::WholeCall(code) => self.whole_call(code),
        }
    }

    /// After the body's stack check: the libcall runs the whole call from
    /// SP; when it did, SP pops the return address and the function returns
    /// 0, as Go's epilogue does; when not, the body runs as compiled.
    fn whole_call(&mut self, code: u32) {
        const SP: u32 = 0;
        self.translate_memory(&Operator::GlobalGet { global_index: SP });
        let sp = self.pop();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let sp_word = self.b.ins().uextend(types::I64, sp);
        self.b.ins().stack_store(types::I64, sp_word, slot, 0);
        let args = self.b.ins().stack_addr(types::I64, slot, 0);
        let kind = self.b.ins().iconst(types::I32, code as i64);
        let done = self.libcall(vmctx::LIBCALL_INTRINSIC, &[kind, args], &[types::I32]).expect("has result");
        let native = self.b.create_block();
        let body = self.b.create_block();
        self.b.ins().brif(done, native, &[], body, &[]);
        self.b.switch_to_block(native);
        self.b.seal_block(native);
        let popped = self.b.ins().iadd_imm_s(sp, 8);
        self.push(popped);
        self.translate_memory(&Operator::GlobalSet { global_index: SP });
        let unwind = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[unwind]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
    }

    /// `blockGeneric` at the head of its loop over blocks, its locals as
    /// `locals` says. With two blocks or more, all but the last are compressed
    /// natively and the locals are left as that many iterations leave them
    /// (the state words' upper bits aside, which the body never lets reach
    /// memory); the loop then runs the last block itself.
    fn sha256_blocks(&mut self, code: u32, locals: Sha256Locals) {
        let [state, len_at, ptr_at, cap_at] = [locals.state, locals.len, locals.ptr, locals.cap].map(|l| l as usize);
        let len = self.b.use_var(self.locals[len_at]);
        let call = self.b.create_block();
        let after = self.b.create_block();
        let two_or_more = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, len, 128);
        self.b.ins().brif(two_or_more, call, &[], after, &[]);
        self.b.switch_to_block(call);
        self.b.seal_block(call);

        let size = 8 * sha256::ARGS as u32;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 3));
        for i in 0..8 {
            let word = self.b.use_var(self.locals[state + i]);
            self.b.ins().stack_store(types::I64, word, slot, 8 * i as i32);
        }
        let ptr = self.b.use_var(self.locals[ptr_at]);
        self.b.ins().stack_store(types::I64, ptr, slot, 64);
        let all = self.b.ins().sshr_imm_u(len, 6);
        let blocks = self.b.ins().iadd_imm_s(all, -1);
        self.b.ins().stack_store(types::I64, blocks, slot, 72);
        let args = self.b.ins().stack_addr(types::I64, slot, 0);
        let kind = self.b.ins().iconst(types::I32, code as i64);
        let done = self.libcall(vmctx::LIBCALL_INTRINSIC, &[kind, args], &[types::I32]).expect("has result");
        for i in 0..8 {
            let word = self.b.ins().stack_load(types::I64, types::I64, slot, 8 * i as i32);
            self.b.def_var(self.locals[state + i], word);
        }
        let bytes = self.b.ins().ishl_imm_u(blocks, 6);
        let zero = self.b.ins().iconst(types::I64, 0);
        let advance = self.b.ins().select(done, bytes, zero);
        let ptr = self.b.ins().iadd(ptr, advance);
        self.b.def_var(self.locals[ptr_at], ptr);
        let len = self.b.ins().isub(len, advance);
        self.b.def_var(self.locals[len_at], len);
        let cap = self.b.use_var(self.locals[cap_at]);
        let cap = self.b.ins().isub(cap, advance);
        self.b.def_var(self.locals[cap_at], cap);
        self.b.ins().jump(after, &[]);

        self.b.switch_to_block(after);
        self.b.seal_block(after);
    }
}
