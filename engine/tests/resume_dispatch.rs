//! Go's resume dispatch threaded at translation (docs/resume-dispatch.md)
//! computes what the dispatch computes: a Go-shaped loop entered at every
//! resume point, with constant, computed and out-of-range points, in both
//! trap modes, and the same module outside the shape, agree.

mod common;

use seedfall_engine::*;

/// Resume points 0 (start), 1 (loop test), 2 (done, also the default).
/// `sum(0, n)` is 1 + ... + n; n = 1000 jumps to point 7 (past the table:
/// the default); n = 999 stores a computed point.
const GO_SHAPED: &str = r#"(module
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
    (local.get $acc)))"#;

fn sum(code: &std::sync::Arc<Code>, pc: i32, n: i32) -> Run {
    let mut instance = Instance::new(code.clone(), &Linker::<()>::new(), ()).unwrap();
    instance.call("sum", &[Val::I32(pc), Val::I32(n)]).unwrap()
}

#[test]
fn a_threaded_dispatch_computes_what_the_dispatch_does() {
    let cases = [((0, 10), 55), ((0, 0), 0), ((1, 5), 15), ((2, 5), 0), ((0, 1000), 0), ((0, 999), 5), ((9, 3), 0)];
    let outside_the_shape = GO_SHAPED.replace("(loop $entry", "(loop $entry nop");
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        for source in [GO_SHAPED, &outside_the_shape] {
            let code = common::load_wat(source, mode);
            for ((pc, n), want) in cases {
                assert_eq!(sum(&code, pc, n), Run::Returned(vec![Val::I32(want)]), "sum({pc}, {n}) in {mode:?}");
            }
        }
    }
}
