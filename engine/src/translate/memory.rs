//! Linear memory and globals: loads and stores of every width, memory.size,
//! memory.grow, memory.copy, memory.fill, global.get and global.set.
//!
//! Addresses are `mem_base + zext(addr) + offset`. In `Signals` mode the
//! reservation behind `mem_base` is 8 GiB plus a guard, so any 32-bit address
//! plus 32-bit offset lands in the reservation and an out-of-bounds access
//! faults on an inaccessible page. In `Explicit` mode each access compares its
//! end against the current memory size first. grow/copy/fill are libcalls.

use super::{Translator, ir_type};
use crate::compile::isa::TrapMode;
use crate::module::ValType;
use crate::runtime::trap::TrapKind;
use crate::runtime::vmctx;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, TrapCode, Type, Value, types};
use wasmparser::{MemArg, Operator};

impl Translator<'_, '_> {
    /// Flags for a guest heap access.
    fn heap_flags(&self) -> MemFlagsData {
        let flags = MemFlagsData::new().with_endianness(Endianness::Little);
        match self.mode {
            TrapMode::Signals => flags.with_trap_code(Some(trap_code(TrapKind::MemoryOutOfBounds))),
            TrapMode::Explicit => flags.with_notrap(),
        }
    }

    /// Native address and immediate offset for an access of `size` bytes.
    fn heap_address(&mut self, addr: Value, memarg: &MemArg, size: u64) -> (Value, i32) {
        let index = self.b.ins().uextend(types::I64, addr);
        if self.mode == TrapMode::Explicit {
            let end = self.b.ins().iadd_imm_u(index, (memarg.offset + size) as i64);
            let def = self.memory_def();
            let bound = self.b.ins().load(types::I64, MemFlagsData::trusted(), def, vmctx::MEMORY_DEF_SIZE);
            let out = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, bound);
            self.trap_if(out, TrapKind::MemoryOutOfBounds);
        }
        let base = self.mem_base.expect("validated: memory access needs a memory");
        let pointer = self.b.ins().iadd(base, index);
        match i32::try_from(memarg.offset) {
            Ok(offset) => (pointer, offset),
            Err(_) => (self.b.ins().iadd_imm_u(pointer, memarg.offset as i64), 0),
        }
    }

    fn memory_def(&mut self) -> Value {
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        self.b.ins().load(types::I64, flags, self.vmctx, vmctx::MEMORY)
    }

    fn load(&mut self, memarg: &MemArg, size: u64, emit: impl FnOnce(&mut Self, MemFlagsData, Value, i32) -> Value) {
        let addr = self.pop();
        let (pointer, offset) = self.heap_address(addr, memarg, size);
        let flags = self.heap_flags();
        let v = emit(self, flags, pointer, offset);
        self.push(v);
    }

    fn store(&mut self, memarg: &MemArg, size: u64, narrow: Option<Type>) {
        let value = self.pop();
        let addr = self.pop();
        let (pointer, offset) = self.heap_address(addr, memarg, size);
        let flags = self.heap_flags();
        match narrow {
            Some(types::I8) => self.b.ins().istore8(flags, value, pointer, offset),
            Some(types::I16) => self.b.ins().istore16(flags, value, pointer, offset),
            Some(types::I32) => self.b.ins().istore32(flags, value, pointer, offset),
            _ => self.b.ins().store(flags, value, pointer, offset),
        };
    }

    /// A libcall through the vmctx that returns 0 on success and nonzero when
    /// the range is out of bounds.
    fn checked_libcall(&mut self, libcall: i32, args: &[Value]) {
        let status = self.libcall(libcall, args, &[types::I32]).expect("has result");
        self.trap_if(status, TrapKind::MemoryOutOfBounds);
    }

    fn global_address(&mut self, index: u32) -> (Value, i32) {
        if index < self.info.num_imported_globals() {
            let flags = MemFlagsData::trusted().with_readonly().with_can_move();
            let pointer = self.b.ins().load(types::I64, flags, self.vmctx, vmctx::global_offset(index));
            (pointer, 0)
        } else {
            (self.vmctx, vmctx::global_offset(index))
        }
    }

    pub(crate) fn translate_memory(&mut self, op: &Operator<'_>) -> bool {
        use types::{F32, F64, I8, I16, I32, I64};
        match *op {
            Operator::I32Load { ref memarg } => self.load(memarg, 4, |t, f, p, o| t.b.ins().load(I32, f, p, o)),
            Operator::I64Load { ref memarg } => self.load(memarg, 8, |t, f, p, o| t.b.ins().load(I64, f, p, o)),
            Operator::F32Load { ref memarg } => self.load(memarg, 4, |t, f, p, o| t.b.ins().load(F32, f, p, o)),
            Operator::F64Load { ref memarg } => self.load(memarg, 8, |t, f, p, o| t.b.ins().load(F64, f, p, o)),
            Operator::I32Load8S { ref memarg } => self.load(memarg, 1, |t, f, p, o| t.b.ins().sload8(I32, f, p, o)),
            Operator::I32Load8U { ref memarg } => self.load(memarg, 1, |t, f, p, o| t.b.ins().uload8(I32, f, p, o)),
            Operator::I32Load16S { ref memarg } => self.load(memarg, 2, |t, f, p, o| t.b.ins().sload16(I32, f, p, o)),
            Operator::I32Load16U { ref memarg } => self.load(memarg, 2, |t, f, p, o| t.b.ins().uload16(I32, f, p, o)),
            Operator::I64Load8S { ref memarg } => self.load(memarg, 1, |t, f, p, o| t.b.ins().sload8(I64, f, p, o)),
            Operator::I64Load8U { ref memarg } => self.load(memarg, 1, |t, f, p, o| t.b.ins().uload8(I64, f, p, o)),
            Operator::I64Load16S { ref memarg } => self.load(memarg, 2, |t, f, p, o| t.b.ins().sload16(I64, f, p, o)),
            Operator::I64Load16U { ref memarg } => self.load(memarg, 2, |t, f, p, o| t.b.ins().uload16(I64, f, p, o)),
            Operator::I64Load32S { ref memarg } => self.load(memarg, 4, |t, f, p, o| t.b.ins().sload32(f, p, o)),
            Operator::I64Load32U { ref memarg } => self.load(memarg, 4, |t, f, p, o| t.b.ins().uload32(f, p, o)),
            Operator::I32Store { ref memarg } | Operator::F32Store { ref memarg } => self.store(memarg, 4, None),
            Operator::I64Store { ref memarg } | Operator::F64Store { ref memarg } => self.store(memarg, 8, None),
            Operator::I32Store8 { ref memarg } | Operator::I64Store8 { ref memarg } => self.store(memarg, 1, Some(I8)),
            Operator::I32Store16 { ref memarg } | Operator::I64Store16 { ref memarg } => {
                self.store(memarg, 2, Some(I16))
            }
            Operator::I64Store32 { ref memarg } => self.store(memarg, 4, Some(I32)),
            Operator::MemorySize { .. } => {
                let def = self.memory_def();
                let bytes = self.b.ins().load(I64, MemFlagsData::trusted(), def, vmctx::MEMORY_DEF_SIZE);
                let pages = self.b.ins().ushr_imm_u(bytes, 16);
                let v = self.b.ins().ireduce(I32, pages);
                self.push(v);
            }
            Operator::MemoryGrow { .. } => {
                let delta = self.pop();
                let old = self.libcall(vmctx::LIBCALL_MEMORY_GROW, &[delta], &[I32]);
                self.push(old.expect("has result"));
            }
            Operator::MemoryCopy { .. } => {
                let len = self.pop();
                let src = self.pop();
                let dst = self.pop();
                self.checked_libcall(vmctx::LIBCALL_MEMORY_COPY, &[dst, src, len]);
            }
            Operator::MemoryFill { .. } => {
                let len = self.pop();
                let byte = self.pop();
                let dst = self.pop();
                self.checked_libcall(vmctx::LIBCALL_MEMORY_FILL, &[dst, byte, len]);
            }
            Operator::GlobalGet { global_index } if self.pinned_global == Some(global_index) => {
                let mut v = self.b.ins().get_pinned_reg(types::I64);
                if self.info.globals[global_index as usize].ty.ty == ValType::I32 {
                    v = self.b.ins().ireduce(types::I32, v);
                }
                self.push(v);
            }
            Operator::GlobalSet { global_index } if self.pinned_global == Some(global_index) => {
                let mut v = self.pop();
                if self.info.globals[global_index as usize].ty.ty == ValType::I32 {
                    v = self.b.ins().uextend(types::I64, v);
                }
                self.b.ins().set_pinned_reg(v);
            }
            Operator::GlobalGet { global_index } => {
                let ty = ir_type(self.info.globals[global_index as usize].ty.ty);
                let (base, offset) = self.global_address(global_index);
                let v = self.b.ins().load(ty, MemFlagsData::trusted(), base, offset);
                self.push(v);
            }
            Operator::GlobalSet { global_index } => {
                let v = self.pop();
                let (base, offset) = self.global_address(global_index);
                self.b.ins().store(MemFlagsData::trusted(), v, base, offset);
            }
            _ => return false,
        }
        true
    }
}

pub(crate) fn trap_code(kind: TrapKind) -> TrapCode {
    TrapCode::unwrap_user(kind as u8)
}
