//! The pinned global (one global kept in a register: Go's SP, global 0, or the
//! instrumentation's counter, the last): the host sees its current value
//! during a host call, a value the host writes is the one the guest reads
//! next, and instances interleaved on fibers each keep their own, in both trap
//! modes, for an i32 and an i64 global.

use seedfall_engine::*;
use std::sync::Arc;

/// `run(n)`: n times, take 8 from global 0 and call `host.step(global 0)`,
/// which answers with the value the host saw in the slot, added up in the
/// last global (an i64); returns that sum plus global 0 at the end.
const MODULE: &str = r#"(module
  (import "host" "step" (func $step (param i32) (result i32)))
  (global $sp (mut i32) (i32.const 1000))
  (global $sum (mut i64) (i64.const 0))
  (func $down (param i32) (result i32)
    global.get $sp local.get 0 i32.sub global.set $sp
    global.get $sp call $step)
  (func (export "run") (param $n i32) (result i32)
    (block $done
      (loop $again
        local.get $n i32.eqz br_if $done
        i32.const 8 call $down i64.extend_i32_u global.get $sum i64.add global.set $sum
        local.get $n i32.const 1 i32.sub local.set $n
        br $again))
    global.get $sum i32.wrap_i64 global.get $sp i32.add))"#;

fn load(mode: TrapMode, pinned: PinnedGlobal) -> Arc<Code> {
    let wasm = wat::parse_str(MODULE).expect("valid wat");
    let config = CompileConfig { trap_mode: mode, verify: true, pinned_global: pinned, ..CompileConfig::default() };
    let artifact = compile(&wasm, &config).expect("compiles");
    assert!(artifact.info.pinned_global(pinned).is_some(), "{pinned:?} qualifies");
    Arc::new(Code::load(artifact).expect("loads"))
}

/// `step(sp)`: checks the slot holds `sp`, moves global 0 up by 3, suspends
/// with the slot's value and answers with it.
fn linker() -> Linker<()> {
    let mut linker = Linker::<()>::new();
    linker.func("host", "step", &[ValType::I32], &[ValType::I32], |caller, values| {
        let seen = caller.global_get(0) as u32;
        if seen != values[0] as u32 {
            return Err(HostError::Fail(format!("slot holds {seen}, guest passed {}", values[0])));
        }
        caller.global_set(0, u64::from(seen + 3));
        caller.suspend(u64::from(seen));
        values[0] = u64::from(seen);
        Ok(())
    });
    linker
}

#[test]
fn the_host_reads_and_writes_the_pinned_global_of_interleaved_instances() {
    let cases = [TrapMode::Signals, TrapMode::Explicit].map(|m| [(m, PinnedGlobal::First), (m, PinnedGlobal::Last)]);
    for (mode, pinned) in cases.into_iter().flatten() {
        let code = load(mode, pinned);
        let linker = linker();
        let mut a = Instance::new(code.clone(), &linker, ()).expect("instantiates");
        let mut b = Instance::new(code, &linker, ()).expect("instantiates");
        b.global_set(0, 5000).expect("global 0 is defined");
        let mut runs = [a.call("run", &[Val::I32(4)]).unwrap(), b.call("run", &[Val::I32(3)]).unwrap()];
        let mut seen = [Vec::new(), Vec::new()];
        while runs.iter().any(|r| matches!(r, Run::Suspended(_))) {
            for (id, node) in [&mut a, &mut b].into_iter().enumerate() {
                if let Run::Suspended(value) = runs[id] {
                    seen[id].push(value);
                    runs[id] = node.resume(0).unwrap();
                }
            }
        }
        // Each step takes 8 and the host adds 3: the slot moves by 5 a step,
        // so the host saw 992, 987, ... only if its write reached the guest.
        assert_eq!(seen[0], [992, 987, 982, 977], "{mode:?} {pinned:?}");
        assert_eq!(seen[1], [4992, 4987, 4982], "{mode:?} {pinned:?}");
        let sum_a: u64 = seen[0].iter().sum();
        let sum_b: u64 = seen[1].iter().sum();
        assert_eq!(runs[0], Run::Returned(vec![Val::I32((sum_a + 980) as i32)]), "{mode:?} {pinned:?}");
        assert_eq!(runs[1], Run::Returned(vec![Val::I32((sum_b + 4985) as i32)]), "{mode:?} {pinned:?}");
        assert_eq!(a.global_get(0), Some(980), "{mode:?} {pinned:?}: the trampoline wrote the register back");
    }
}

#[test]
fn only_an_unshared_mutable_integer_global_is_pinned() {
    let pinned = |wat: &str, which: PinnedGlobal| {
        let wasm = wat::parse_str(wat).expect("valid wat");
        compile(&wasm, &CompileConfig::default()).expect("compiles").info.pinned_global(which)
    };
    let first = |wat: &str| pinned(wat, PinnedGlobal::First);
    assert_eq!(first("(module (global (mut i32) (i32.const 0)))"), Some(0));
    assert_eq!(first("(module (global (mut i64) (i64.const 0)))"), Some(0));
    assert_eq!(first("(module (global (mut i32) (i32.const 0)) (table 1 funcref))"), Some(0));
    assert_eq!(first("(module (global i32 (i32.const 0)))"), None, "immutable");
    assert_eq!(first("(module (global (mut f64) (f64.const 0)))"), None, "not an integer");
    assert_eq!(first("(module (global (export \"g\") (mut i32) (i32.const 0)))"), None, "exported");
    assert_eq!(first("(module (import \"m\" \"g\" (global (mut i32))))"), None, "imported");
    assert_eq!(
        first("(module (global (mut i32) (i32.const 0)) (table (export \"t\") 1 funcref))"),
        None,
        "table exported"
    );
    assert_eq!(
        first("(module (import \"m\" \"t\" (table 1 funcref)) (global (mut i32) (i32.const 0)))"),
        None,
        "table imported"
    );
    assert_eq!(first("(module)"), None, "no globals");
    let two = "(module (global (mut i32) (i32.const 0)) (global (mut i64) (i64.const 0)))";
    assert_eq!(pinned(two, PinnedGlobal::Last), Some(1));
    assert_eq!(pinned(two, PinnedGlobal::None), None);
    let last_exported = "(module (global (mut i32) (i32.const 0)) (global (export \"c\") (mut i64) (i64.const 0)))";
    assert_eq!(pinned(last_exported, PinnedGlobal::Last), None, "exported");
}
