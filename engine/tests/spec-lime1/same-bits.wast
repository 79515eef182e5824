;; Float results whose bits the wasm spec leaves to the machine, pinned to
;; one answer so a guest sees the same bits on x86-64 and aarch64
;; (docs/platforms.md). Every NaN an arithmetic operation makes is the
;; positive canonical NaN, whatever NaNs went in; the bitwise operations
;; (neg, abs, copysign, reinterpret, load/store) keep payloads as the spec
;; demands. x86-64's own answer for 0/0 is the negative NaN 0xffc00000, and
;; aarch64 keeps an input NaN's payload: both would fail these lines
;; without canonicalization.
(module
  (func (export "f32.div") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.div (local.get 0) (local.get 1))))
  (func (export "f32.add") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.add (local.get 0) (local.get 1))))
  (func (export "f32.mul") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.mul (local.get 0) (local.get 1))))
  (func (export "f32.sub") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.sub (local.get 0) (local.get 1))))
  (func (export "f32.min") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.min (local.get 0) (local.get 1))))
  (func (export "f32.max") (param f32 f32) (result i32) (i32.reinterpret_f32 (f32.max (local.get 0) (local.get 1))))
  (func (export "f32.sqrt") (param f32) (result i32) (i32.reinterpret_f32 (f32.sqrt (local.get 0))))
  (func (export "f32.ceil") (param f32) (result i32) (i32.reinterpret_f32 (f32.ceil (local.get 0))))
  (func (export "f32.nearest") (param f32) (result i32) (i32.reinterpret_f32 (f32.nearest (local.get 0))))
  (func (export "f32.demote") (param f64) (result i32) (i32.reinterpret_f32 (f32.demote_f64 (local.get 0))))
  (func (export "f32.neg") (param f32) (result i32) (i32.reinterpret_f32 (f32.neg (local.get 0))))
  (func (export "f32.abs") (param f32) (result i32) (i32.reinterpret_f32 (f32.abs (local.get 0))))
  (func (export "f64.div") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.div (local.get 0) (local.get 1))))
  (func (export "f64.add") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.add (local.get 0) (local.get 1))))
  (func (export "f64.mul") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.mul (local.get 0) (local.get 1))))
  (func (export "f64.min") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.min (local.get 0) (local.get 1))))
  (func (export "f64.max") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.max (local.get 0) (local.get 1))))
  (func (export "f64.sqrt") (param f64) (result i64) (i64.reinterpret_f64 (f64.sqrt (local.get 0))))
  (func (export "f64.floor") (param f64) (result i64) (i64.reinterpret_f64 (f64.floor (local.get 0))))
  (func (export "f64.trunc") (param f64) (result i64) (i64.reinterpret_f64 (f64.trunc (local.get 0))))
  (func (export "f64.promote") (param f32) (result i64) (i64.reinterpret_f64 (f64.promote_f32 (local.get 0))))
  (func (export "f64.copysign") (param f64 f64) (result i64) (i64.reinterpret_f64 (f64.copysign (local.get 0) (local.get 1))))
  (func (export "i32.trunc_sat_f32_s") (param f32) (result i32) (i32.trunc_sat_f32_s (local.get 0)))
  (func (export "i32.trunc_sat_f64_u") (param f64) (result i32) (i32.trunc_sat_f64_u (local.get 0)))
  (func (export "i64.trunc_sat_f64_s") (param f64) (result i64) (i64.trunc_sat_f64_s (local.get 0)))
  (func (export "i64.trunc_sat_f32_u") (param f32) (result i64) (i64.trunc_sat_f32_u (local.get 0)))
  (func (export "f32.convert_i64_u") (param i64) (result i32) (i32.reinterpret_f32 (f32.convert_i64_u (local.get 0))))
  (func (export "f64.convert_i64_u") (param i64) (result i64) (i64.reinterpret_f64 (f64.convert_i64_u (local.get 0))))
  (func (export "f32.convert_i64_s") (param i64) (result i32) (i32.reinterpret_f32 (f32.convert_i64_s (local.get 0))))
)

;; NaNs made from numbers.
(assert_return (invoke "f32.div" (f32.const 0) (f32.const 0)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.sub" (f32.const inf) (f32.const inf)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.mul" (f32.const inf) (f32.const -0)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.sqrt" (f32.const -1)) (i32.const 0x7fc00000))
(assert_return (invoke "f64.div" (f64.const 0) (f64.const -0)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.add" (f64.const -inf) (f64.const inf)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.sqrt" (f64.const -0x1p-1074)) (i64.const 0x7ff8000000000000))

;; NaNs that go in lose their sign and payload.
(assert_return (invoke "f32.add" (f32.const -nan:0x200001) (f32.const 1)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.add" (f32.const nan:0x1) (f32.const -nan:0x300000)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.mul" (f32.const 2) (f32.const -nan:0x7fffff)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.min" (f32.const -nan:0x12345) (f32.const 0)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.max" (f32.const 0) (f32.const -nan)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.ceil" (f32.const -nan:0x1)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.nearest" (f32.const nan:0x400001)) (i32.const 0x7fc00000))
(assert_return (invoke "f32.demote" (f64.const -nan:0x8000000000001)) (i32.const 0x7fc00000))
(assert_return (invoke "f64.add" (f64.const nan:0x1) (f64.const -nan:0x2)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.mul" (f64.const -nan:0xfffffffffffff) (f64.const 1)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.min" (f64.const 1) (f64.const -nan:0x4)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.max" (f64.const -nan) (f64.const -nan)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.floor" (f64.const -nan:0x1)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.trunc" (f64.const nan:0x8000000000001)) (i64.const 0x7ff8000000000000))
(assert_return (invoke "f64.promote" (f32.const -nan:0x1)) (i64.const 0x7ff8000000000000))

;; Bitwise operations keep the bits.
(assert_return (invoke "f32.neg" (f32.const nan:0x1)) (i32.const 0xff800001))
(assert_return (invoke "f32.abs" (f32.const -nan:0x123)) (i32.const 0x7f800123))
(assert_return (invoke "f64.copysign" (f64.const nan:0x5) (f64.const -1)) (i64.const 0xfff0000000000005))

;; Signed zeros from min and max.
(assert_return (invoke "f32.min" (f32.const 0) (f32.const -0)) (i32.const 0x80000000))
(assert_return (invoke "f64.max" (f64.const -0) (f64.const 0)) (i64.const 0))

;; Float to integer at the edges: NaN is 0, out of range saturates.
(assert_return (invoke "i32.trunc_sat_f32_s" (f32.const -nan:0x1)) (i32.const 0))
(assert_return (invoke "i32.trunc_sat_f32_s" (f32.const 0x1p31)) (i32.const 0x7fffffff))
(assert_return (invoke "i32.trunc_sat_f32_s" (f32.const -inf)) (i32.const 0x80000000))
(assert_return (invoke "i32.trunc_sat_f64_u" (f64.const -0.9)) (i32.const 0))
(assert_return (invoke "i32.trunc_sat_f64_u" (f64.const 4294967296)) (i32.const 0xffffffff))
(assert_return (invoke "i64.trunc_sat_f64_s" (f64.const nan)) (i64.const 0))
(assert_return (invoke "i64.trunc_sat_f64_s" (f64.const 0x1p63)) (i64.const 0x7fffffffffffffff))
(assert_return (invoke "i64.trunc_sat_f64_s" (f64.const -0x1p63)) (i64.const 0x8000000000000000))
(assert_return (invoke "i64.trunc_sat_f32_u" (f32.const inf)) (i64.const 0xffffffffffffffff))
(assert_return (invoke "i64.trunc_sat_f32_u" (f32.const -1)) (i64.const 0))

;; Unsigned 64-bit integers to floats round once, to nearest even (x86-64
;; has no instruction for it, and a careless emulation rounds twice).
(assert_return (invoke "f32.convert_i64_u" (i64.const 0xffffffffffffffff)) (i32.const 0x5f800000))
(assert_return (invoke "f32.convert_i64_u" (i64.const 0x8000008000000001)) (i32.const 0x5f000001))
(assert_return (invoke "f32.convert_i64_u" (i64.const 0x0020000020000001)) (i32.const 0x5a000001))
(assert_return (invoke "f64.convert_i64_u" (i64.const 0x8000000000000401)) (i64.const 0x43e0000000000001))
(assert_return (invoke "f64.convert_i64_u" (i64.const 0xfffffffffffffbff)) (i64.const 0x43efffffffffffff))
(assert_return (invoke "f32.convert_i64_s" (i64.const 0x7fffff4000000001)) (i32.const 0x5effffff))
