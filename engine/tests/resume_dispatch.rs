//! Go's resume dispatch threaded at translation (docs/resume-dispatch.md)
//! computes what the dispatch computes: a Go-shaped loop entered at every
//! resume point, with constant, computed and out-of-range points, in both
//! trap modes, and the same module outside the shape, agree.

mod common;

use seedfall_engine::*;

const GO_SHAPED: &str = include_str!("wat/resume_dispatch.wat");

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
