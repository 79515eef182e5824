//! Numeric operators: constants, integer and float arithmetic, comparisons,
//! conversions, sign extension, reinterpretation.
//!
//! Exactness notes: integer division checks its divisor explicitly (zero, and
//! MIN / -1 for signed division) so no hardware #DE is ever raised; trapping
//! float→int conversions check NaN and range before a saturating convert; float
//! results get bit-identical NaNs through Cranelift's NaN canonicalization.

use super::Translator;
use crate::runtime::trap::TrapKind;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use wasmparser::Operator;

impl Translator<'_, '_> {
    fn unop(&mut self, f: impl FnOnce(&mut Self, Value) -> Value) {
        let a = self.pop();
        let v = f(self, a);
        self.push(v);
    }

    fn binop(&mut self, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let (a, b) = self.pop2();
        let v = f(self, a, b);
        self.push(v);
    }

    fn icmp(&mut self, cc: IntCC) {
        self.binop(|t, a, b| {
            let c = t.b.ins().icmp(cc, a, b);
            t.b.ins().uextend(types::I32, c)
        });
    }

    fn fcmp(&mut self, cc: FloatCC) {
        self.binop(|t, a, b| {
            let c = t.b.ins().fcmp(cc, a, b);
            t.b.ins().uextend(types::I32, c)
        });
    }

    fn eqz(&mut self) {
        self.unop(|t, a| {
            let c = t.b.ins().icmp_imm_u(IntCC::Equal, a, 0);
            t.b.ins().uextend(types::I32, c)
        });
    }

    fn sign_extend(&mut self, from: Type, to: Type) {
        self.unop(|t, a| {
            let narrow = t.b.ins().ireduce(from, a);
            t.b.ins().sextend(to, narrow)
        });
    }

    fn reinterpret(&mut self, to: Type) {
        self.unop(|t, a| t.b.ins().bitcast(to, MemFlagsData::new(), a));
    }

    /// Signed or unsigned division/remainder with wasm's traps.
    fn divide(&mut self, ty: Type, signed: bool, remainder: bool) {
        let (a, b) = self.pop2();
        let zero = self.b.ins().icmp_imm_u(IntCC::Equal, b, 0);
        self.trap_if(zero, TrapKind::IntegerDivideByZero);
        let v = if signed {
            if remainder {
                // srem of MIN by -1 is 0 in wasm; avoid the hardware fault by
                // dividing by 1 instead, which also yields remainder 0.
                let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let one = self.b.ins().iconst(ty, 1);
                let divisor = self.b.ins().select(minus_one, one, b);
                self.b.ins().srem(a, divisor)
            } else {
                let min = if ty == types::I32 { i32::MIN as i64 } else { i64::MIN };
                let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, a, min);
                let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let overflow = self.b.ins().band(is_min, minus_one);
                self.trap_if(overflow, TrapKind::IntegerOverflow);
                self.b.ins().sdiv(a, b)
            }
        } else if remainder {
            self.b.ins().urem(a, b)
        } else {
            self.b.ins().udiv(a, b)
        };
        self.push(v);
    }

    /// A trapping float → int conversion: NaN traps as a bad conversion, values
    /// outside the open interval (lower, upper) trap as an overflow.
    fn trunc(&mut self, to: Type, signed: bool, lower: f64, upper: f64) {
        let x = self.pop();
        let from = self.b.func.dfg.value_type(x);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        self.trap_if(nan, TrapKind::BadConversionToInteger);
        let (lo, hi) = if from == types::F32 {
            (self.b.ins().f32const(lower as f32), self.b.ins().f32const(upper as f32))
        } else {
            (self.b.ins().f64const(lower), self.b.ins().f64const(upper))
        };
        // For signed targets the lower bound is exactly representable and valid
        // (-2^31, -2^63) when the source is too narrow to hold MIN - 1.
        let below_cc =
            if signed && lower_is_inclusive(from, to) { FloatCC::LessThan } else { FloatCC::LessThanOrEqual };
        let below = self.b.ins().fcmp(below_cc, x, lo);
        let above = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, hi);
        let out = self.b.ins().bor(below, above);
        self.trap_if(out, TrapKind::IntegerOverflow);
        let v = if signed { self.b.ins().fcvt_to_sint_sat(to, x) } else { self.b.ins().fcvt_to_uint_sat(to, x) };
        self.push(v);
    }

    pub(crate) fn translate_numeric(&mut self, op: &Operator<'_>) -> bool {
        use types::{F32, F64, I8, I16, I32, I64};
        match *op {
            Operator::I32Const { value } => {
                let v = self.b.ins().iconst(I32, value as i64);
                self.push(v);
            }
            Operator::I64Const { value } => {
                let v = self.b.ins().iconst(I64, value);
                self.push(v);
            }
            Operator::F32Const { value } => {
                let v = self.b.ins().f32const(f32::from_bits(value.bits()));
                self.push(v);
            }
            Operator::F64Const { value } => {
                let v = self.b.ins().f64const(f64::from_bits(value.bits()));
                self.push(v);
            }

            Operator::I32Eqz | Operator::I64Eqz => self.eqz(),
            Operator::I32Eq | Operator::I64Eq => self.icmp(IntCC::Equal),
            Operator::I32Ne | Operator::I64Ne => self.icmp(IntCC::NotEqual),
            Operator::I32LtS | Operator::I64LtS => self.icmp(IntCC::SignedLessThan),
            Operator::I32LtU | Operator::I64LtU => self.icmp(IntCC::UnsignedLessThan),
            Operator::I32GtS | Operator::I64GtS => self.icmp(IntCC::SignedGreaterThan),
            Operator::I32GtU | Operator::I64GtU => self.icmp(IntCC::UnsignedGreaterThan),
            Operator::I32LeS | Operator::I64LeS => self.icmp(IntCC::SignedLessThanOrEqual),
            Operator::I32LeU | Operator::I64LeU => self.icmp(IntCC::UnsignedLessThanOrEqual),
            Operator::I32GeS | Operator::I64GeS => self.icmp(IntCC::SignedGreaterThanOrEqual),
            Operator::I32GeU | Operator::I64GeU => self.icmp(IntCC::UnsignedGreaterThanOrEqual),

            Operator::F32Eq | Operator::F64Eq => self.fcmp(FloatCC::Equal),
            Operator::F32Ne | Operator::F64Ne => self.fcmp(FloatCC::NotEqual),
            Operator::F32Lt | Operator::F64Lt => self.fcmp(FloatCC::LessThan),
            Operator::F32Gt | Operator::F64Gt => self.fcmp(FloatCC::GreaterThan),
            Operator::F32Le | Operator::F64Le => self.fcmp(FloatCC::LessThanOrEqual),
            Operator::F32Ge | Operator::F64Ge => self.fcmp(FloatCC::GreaterThanOrEqual),

            Operator::I32Clz | Operator::I64Clz => self.unop(|t, a| t.b.ins().clz(a)),
            Operator::I32Ctz | Operator::I64Ctz => self.unop(|t, a| t.b.ins().ctz(a)),
            Operator::I32Popcnt | Operator::I64Popcnt => self.unop(|t, a| t.b.ins().popcnt(a)),
            Operator::I32Add | Operator::I64Add => self.binop(|t, a, b| t.b.ins().iadd(a, b)),
            Operator::I32Sub | Operator::I64Sub => self.binop(|t, a, b| t.b.ins().isub(a, b)),
            Operator::I32Mul | Operator::I64Mul => self.binop(|t, a, b| t.b.ins().imul(a, b)),
            Operator::I32DivS => self.divide(I32, true, false),
            Operator::I64DivS => self.divide(I64, true, false),
            Operator::I32DivU => self.divide(I32, false, false),
            Operator::I64DivU => self.divide(I64, false, false),
            Operator::I32RemS => self.divide(I32, true, true),
            Operator::I64RemS => self.divide(I64, true, true),
            Operator::I32RemU => self.divide(I32, false, true),
            Operator::I64RemU => self.divide(I64, false, true),
            Operator::I32And | Operator::I64And => self.binop(|t, a, b| t.b.ins().band(a, b)),
            Operator::I32Or | Operator::I64Or => self.binop(|t, a, b| t.b.ins().bor(a, b)),
            Operator::I32Xor | Operator::I64Xor => self.binop(|t, a, b| t.b.ins().bxor(a, b)),
            // Cranelift masks shift and rotate amounts to the type width, as wasm does.
            Operator::I32Shl | Operator::I64Shl => self.binop(|t, a, b| t.b.ins().ishl(a, b)),
            Operator::I32ShrS | Operator::I64ShrS => self.binop(|t, a, b| t.b.ins().sshr(a, b)),
            Operator::I32ShrU | Operator::I64ShrU => self.binop(|t, a, b| t.b.ins().ushr(a, b)),
            Operator::I32Rotl | Operator::I64Rotl => self.binop(|t, a, b| t.b.ins().rotl(a, b)),
            Operator::I32Rotr | Operator::I64Rotr => self.binop(|t, a, b| t.b.ins().rotr(a, b)),

            Operator::F32Abs | Operator::F64Abs => self.unop(|t, a| t.b.ins().fabs(a)),
            Operator::F32Neg | Operator::F64Neg => self.unop(|t, a| t.b.ins().fneg(a)),
            Operator::F32Ceil | Operator::F64Ceil => self.unop(|t, a| t.b.ins().ceil(a)),
            Operator::F32Floor | Operator::F64Floor => self.unop(|t, a| t.b.ins().floor(a)),
            Operator::F32Trunc | Operator::F64Trunc => self.unop(|t, a| t.b.ins().trunc(a)),
            Operator::F32Nearest | Operator::F64Nearest => self.unop(|t, a| t.b.ins().nearest(a)),
            Operator::F32Sqrt | Operator::F64Sqrt => self.unop(|t, a| t.b.ins().sqrt(a)),
            Operator::F32Add | Operator::F64Add => self.binop(|t, a, b| t.b.ins().fadd(a, b)),
            Operator::F32Sub | Operator::F64Sub => self.binop(|t, a, b| t.b.ins().fsub(a, b)),
            Operator::F32Mul | Operator::F64Mul => self.binop(|t, a, b| t.b.ins().fmul(a, b)),
            Operator::F32Div | Operator::F64Div => self.binop(|t, a, b| t.b.ins().fdiv(a, b)),
            Operator::F32Min | Operator::F64Min => self.binop(|t, a, b| t.b.ins().fmin(a, b)),
            Operator::F32Max | Operator::F64Max => self.binop(|t, a, b| t.b.ins().fmax(a, b)),
            Operator::F32Copysign | Operator::F64Copysign => self.binop(|t, a, b| t.b.ins().fcopysign(a, b)),

            Operator::I32WrapI64 => self.unop(|t, a| t.b.ins().ireduce(I32, a)),
            Operator::I64ExtendI32S => self.unop(|t, a| t.b.ins().sextend(I64, a)),
            Operator::I64ExtendI32U => self.unop(|t, a| t.b.ins().uextend(I64, a)),
            Operator::I32Extend8S => self.sign_extend(I8, I32),
            Operator::I32Extend16S => self.sign_extend(I16, I32),
            Operator::I64Extend8S => self.sign_extend(I8, I64),
            Operator::I64Extend16S => self.sign_extend(I16, I64),
            Operator::I64Extend32S => self.sign_extend(I32, I64),

            Operator::I32TruncF32S | Operator::I32TruncF64S => self.trunc(I32, true, -2147483649.0, 2147483648.0),
            Operator::I32TruncF32U | Operator::I32TruncF64U => self.trunc(I32, false, -1.0, 4294967296.0),
            Operator::I64TruncF32S | Operator::I64TruncF64S => {
                self.trunc(I64, true, -9223372036854775808.0, 9223372036854775808.0)
            }
            Operator::I64TruncF32U | Operator::I64TruncF64U => self.trunc(I64, false, -1.0, 18446744073709551616.0),
            Operator::I32TruncSatF32S | Operator::I32TruncSatF64S => {
                self.unop(|t, a| t.b.ins().fcvt_to_sint_sat(I32, a))
            }
            Operator::I32TruncSatF32U | Operator::I32TruncSatF64U => {
                self.unop(|t, a| t.b.ins().fcvt_to_uint_sat(I32, a))
            }
            Operator::I64TruncSatF32S | Operator::I64TruncSatF64S => {
                self.unop(|t, a| t.b.ins().fcvt_to_sint_sat(I64, a))
            }
            Operator::I64TruncSatF32U | Operator::I64TruncSatF64U => {
                self.unop(|t, a| t.b.ins().fcvt_to_uint_sat(I64, a))
            }
            Operator::F32ConvertI32S | Operator::F32ConvertI64S => self.unop(|t, a| t.b.ins().fcvt_from_sint(F32, a)),
            Operator::F32ConvertI32U | Operator::F32ConvertI64U => self.unop(|t, a| t.b.ins().fcvt_from_uint(F32, a)),
            Operator::F64ConvertI32S | Operator::F64ConvertI64S => self.unop(|t, a| t.b.ins().fcvt_from_sint(F64, a)),
            Operator::F64ConvertI32U | Operator::F64ConvertI64U => self.unop(|t, a| t.b.ins().fcvt_from_uint(F64, a)),
            Operator::F32DemoteF64 => self.unop(|t, a| t.b.ins().fdemote(F32, a)),
            Operator::F64PromoteF32 => self.unop(|t, a| t.b.ins().fpromote(F64, a)),
            Operator::I32ReinterpretF32 => self.reinterpret(I32),
            Operator::I64ReinterpretF64 => self.reinterpret(I64),
            Operator::F32ReinterpretI32 => self.reinterpret(F32),
            Operator::F64ReinterpretI64 => self.reinterpret(F64),
            _ => return false,
        }
        true
    }
}

/// Whether the signed lower bound must be compared with `<` (the bound itself,
/// -2^N, is a valid input) rather than `<=` (the bound is MIN - 1, invalid).
/// MIN - 1 is only representable when the source has more mantissa bits than
/// the target: f64 → i32.
fn lower_is_inclusive(from: Type, to: Type) -> bool {
    !(from == types::F64 && to == types::I32)
}
