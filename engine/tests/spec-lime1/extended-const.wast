;; The extended-const directives of the upstream suite that spec-skips.txt
;; skips only because their modules also use reference types (outside LIME1),
;; rewritten without them so the values of the constant expressions are
;; compared. Each block names where it comes from; the expected values are
;; upstream's. Upstream data.wast's extended-const segments have no bytes,
;; so nothing there showed where they land: these do, and are read back.

;; proposals/extended-const/global.wast:3 (externref/funcref globals dropped)
(module
  (global (import "spectest" "global_i32") i32)
  (global (import "spectest" "global_i64") i64)
  (global $z1 i32 (global.get 0))
  (global $z2 i64 (global.get 1))
  (global $z3 i32 (i32.add (i32.sub (i32.mul (i32.const 20) (i32.const 2)) (i32.const 2)) (i32.const 4)))
  (global $z4 i64 (i64.add (i64.sub (i64.mul (i64.const 20) (i64.const 2)) (i64.const 2)) (i64.const 5)))
  (global $z5 i32 (i32.add (global.get 0) (i32.const 42)))
  (global $z6 i64 (i64.add (global.get 1) (i64.const 42)))
  (global (export "z5") i32 (i32.add (global.get 0) (i32.const 42)))
  (func (export "get-z1") (result i32) (global.get $z1))
  (func (export "get-z2") (result i64) (global.get $z2))
  (func (export "get-z3") (result i32) (global.get $z3))
  (func (export "get-z4") (result i64) (global.get $z4))
  (func (export "get-z5") (result i32) (global.get $z5))
  (func (export "get-z6") (result i64) (global.get $z6))
)
(assert_return (invoke "get-z1") (i32.const 666))
(assert_return (invoke "get-z2") (i64.const 666))
(assert_return (invoke "get-z3") (i32.const 42))
(assert_return (invoke "get-z4") (i64.const 43))
(assert_return (invoke "get-z5") (i32.const 708))
(assert_return (invoke "get-z6") (i64.const 708))
(assert_return (get "z5") (i32.const 708))

;; proposals/extended-const/elem.wast:706, 717, 728, 741 (function-index element lists instead of ref.func expressions)
(module
  (table 10 funcref)
  (func (result i32) (i32.const 42))
  (func (export "call_in_table") (param i32) (result i32)
    (call_indirect (type 0) (local.get 0)))
  (elem (table 0) (offset (i32.add (i32.const 1) (i32.const 2))) func 0)
)
(assert_return (invoke "call_in_table" (i32.const 3)) (i32.const 42))
(assert_trap (invoke "call_in_table" (i32.const 0)) "uninitialized element")
(assert_trap (invoke "call_in_table" (i32.const 4)) "uninitialized element")

(module
  (table 10 funcref)
  (func (result i32) (i32.const 42))
  (func (export "call_in_table") (param i32) (result i32)
    (call_indirect (type 0) (local.get 0)))
  (elem (table 0) (offset (i32.sub (i32.const 2) (i32.const 1))) func 0)
)
(assert_return (invoke "call_in_table" (i32.const 1)) (i32.const 42))
(assert_trap (invoke "call_in_table" (i32.const 0)) "uninitialized element")

(module
  (table 10 funcref)
  (func (result i32) (i32.const 42))
  (func (export "call_in_table") (param i32) (result i32)
    (call_indirect (type 0) (local.get 0)))
  (elem (table 0) (offset (i32.mul (i32.const 2) (i32.const 2))) func 0)
)
(assert_return (invoke "call_in_table" (i32.const 4)) (i32.const 42))
(assert_trap (invoke "call_in_table" (i32.const 0)) "uninitialized element")

(module
  (global (import "spectest" "global_i32") i32)
  (table 10 funcref)
  (func (result i32) (i32.const 42))
  (func (export "call_in_table") (param i32) (result i32)
    (call_indirect (type 0) (local.get 0)))
  (elem (table 0)
        (offset (i32.mul (i32.const 2) (i32.add (i32.sub (global.get 0) (i32.const 665)) (i32.const 2))))
        func 0)
)
(assert_return (invoke "call_in_table" (i32.const 6)) (i32.const 42))
(assert_trap (invoke "call_in_table" (i32.const 0)) "uninitialized element")
(assert_trap (invoke "call_in_table" (i32.const 5)) "uninitialized element")

;; proposals/extended-const/data.wast:180-209, with bytes to find
(module
  (global (import "spectest" "global_i32") i32)
  (memory 1)
  (data (i32.add (i32.const 0) (i32.const 42)) "a")
  (data (i32.sub (i32.const 50) (i32.const 0)) "b")
  (data (i32.mul (i32.const 1) (i32.const 2)) "c")
  (data (i32.mul (i32.const 2) (i32.add (i32.sub (global.get 0) (i32.const 1)) (i32.const 2))) "d")
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
)
(assert_return (invoke "load" (i32.const 41)) (i32.const 0))
(assert_return (invoke "load" (i32.const 42)) (i32.const 0x61))
(assert_return (invoke "load" (i32.const 50)) (i32.const 0x62))
(assert_return (invoke "load" (i32.const 2)) (i32.const 0x63))
(assert_return (invoke "load" (i32.const 1334)) (i32.const 0x64))
(assert_return (invoke "load" (i32.const 1335)) (i32.const 0))
