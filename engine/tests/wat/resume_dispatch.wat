;; Go's resume-dispatch shape (docs/resume-dispatch.md), for the engine's
;; tests: resume points 0 (start), 1 (loop test), 2 (done, also the
;; default). sum(0, n) is 1 + ... + n; n = 1000 jumps to point 7 (past the
;; table: the default); n = 999 stores a computed point, which is not
;; threaded. Every other branch to $entry stores a constant point.
(module
  (func (export "sum") (param $pc i32) (param $n i32) (result i32) (local $acc i32)
    (loop $entry
      (block $b2 (block $b1 (block $b0
        (br_table $b0 $b1 $b2 (local.get $pc)))
        (if (i32.eq (local.get $n) (i32.const 1000))
          (then (local.set $pc (i32.const 7)) (br $entry)))
        (if (i32.eq (local.get $n) (i32.const 999))
          (then (local.set $acc (i32.const 5))
                (local.set $pc (i32.add (local.get $n) (i32.const -997)))
                (br $entry)))
        (local.set $pc (i32.const 1))
        (br $entry))
      (local.set $pc (i32.const 2))
      (br_if $entry (i32.eqz (local.get $n)))
      (local.set $acc (i32.add (local.get $acc) (local.get $n)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (local.set $pc (i32.const 1))
      (br $entry)))
    (local.get $acc)))
