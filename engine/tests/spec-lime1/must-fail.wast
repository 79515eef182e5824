;; The harness's own check: every assertion here expects a WRONG value (off
;; by one from what the extended-const expression computes), so each must
;; FAIL; one that passes means the harness parses assertions without
;; comparing their values. Modules must instantiate.

(module
  (global (import "spectest" "global_i32") i32)
  (global $z3 i32 (i32.add (i32.sub (i32.mul (i32.const 20) (i32.const 2)) (i32.const 2)) (i32.const 4)))
  (global $z4 i64 (i64.add (i64.sub (i64.mul (i64.const 20) (i64.const 2)) (i64.const 2)) (i64.const 5)))
  (global (export "z5") i32 (i32.add (global.get 0) (i32.const 42)))
  (func (export "get-z3") (result i32) (global.get $z3))
  (func (export "get-z4") (result i64) (global.get $z4))
)
(assert_return (invoke "get-z3") (i32.const 41))
(assert_return (invoke "get-z4") (i64.const 42))
(assert_return (get "z5") (i32.const 709))

(module
  (table 10 funcref)
  (func (result i32) (i32.const 42))
  (func (export "call_in_table") (param i32) (result i32)
    (call_indirect (type 0) (local.get 0)))
  (elem (table 0) (offset (i32.add (i32.const 1) (i32.const 2))) func 0)
)
(assert_return (invoke "call_in_table" (i32.const 3)) (i32.const 43))
(assert_trap (invoke "call_in_table" (i32.const 3)) "uninitialized element")

(module
  (memory 1)
  (data (i32.add (i32.const 0) (i32.const 42)) "a")
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
)
(assert_return (invoke "load" (i32.const 42)) (i32.const 0x62))
(assert_return (invoke "load" (i32.const 41)) (i32.const 0x61))
