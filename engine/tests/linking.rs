//! Instances linked through a shared table: a function of one module called
//! through another's `call_indirect` runs on the caller's fiber, so its traps
//! must still be reported with their own kind and function, in both modes,
//! and whether that module's code was compiled whole or is compiled lazily.

use seedfall_engine::*;
use std::sync::Arc;

fn load(wat: &str, mode: TrapMode) -> Arc<Code> {
    let wasm = wat::parse_str(wat).expect("valid wat");
    let config = CompileConfig { trap_mode: mode, verify: true, ..CompileConfig::default() };
    Arc::new(Code::load(compile(&wasm, &config).expect("compiles")).expect("loads"))
}

/// As `load`, but compiled as its functions are first called where the
/// platform does that (Linux).
fn load_lazy(wat: &str, mode: TrapMode) -> Arc<Code> {
    let wasm = wat::parse_str(wat).expect("valid wat");
    let config = CompileConfig { trap_mode: mode, verify: true, ..CompileConfig::default() };
    Arc::new(Code::load_lazy(wasm, &config, None).expect("loads"))
}

#[test]
fn a_trap_in_another_modules_function_keeps_its_kind_and_name() {
    let loaders: [fn(&str, TrapMode) -> Arc<Code>; 2] = [load, load_lazy];
    for (mode, load_owner) in [TrapMode::Signals, TrapMode::Explicit].into_iter().flat_map(|m| loaders.map(|l| (m, l)))
    {
        let owner = load_owner(
            r#"(module
              (table (export "t") 2 funcref)
              (memory 1)
              (func $boom unreachable)
              (func $oob (drop (i32.load (i32.const 70000))))
              (elem (i32.const 0) $boom $oob))"#,
            mode,
        );
        let owner = Instance::new(owner, &Linker::<()>::new(), ()).expect("instantiates");
        let mut linker = Linker::<()>::new();
        linker.define("owner", "t", owner.export("t").expect("exported table"));
        let caller = load(
            r#"(module
              (import "owner" "t" (table 2 funcref))
              (func (export "call") (param i32) (call_indirect (local.get 0))))"#,
            mode,
        );
        let mut caller = Instance::new(caller, &linker, ()).expect("instantiates");
        for (index, kind, name) in [(0, TrapKind::Unreachable, "boom"), (1, TrapKind::MemoryOutOfBounds, "oob")] {
            match caller.call("call", &[Val::I32(index)]).expect("runs") {
                Run::Trapped(trap) => {
                    assert_eq!(trap.kind, kind, "{mode:?}: {trap}");
                    assert_eq!(trap.func_name.as_deref(), Some(name), "{mode:?}: {trap}");
                }
                other => panic!("{mode:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_failed_instantiation_keeps_the_functions_it_put_in_an_imported_table() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let owner = load(
            r#"(module
              (type $t (func (result i32)))
              (table (export "t") 1 funcref)
              (func (export "get") (result i32) (call_indirect (type $t) (i32.const 0))))"#,
            mode,
        );
        let mut owner = Instance::new(owner, &Linker::<()>::new(), ()).expect("instantiates");
        let mut linker = Linker::<()>::new();
        linker.define("owner", "t", owner.export("t").expect("exported table"));
        let failing = load(
            r#"(module
              (import "owner" "t" (table 1 funcref))
              (func $f (result i32) (i32.const 42))
              (elem (i32.const 0) $f)
              (func $start unreachable)
              (start $start))"#,
            mode,
        );
        match Instance::new(failing, &linker, ()) {
            Err(Error::Trap(trap)) => assert_eq!(trap.kind, TrapKind::Unreachable),
            Err(other) => panic!("{mode:?}: {other}"),
            Ok(_) => panic!("{mode:?}: the start function should trap"),
        }
        assert_eq!(owner.call("get", &[]).expect("runs"), Run::Returned(vec![Val::I32(42)]), "{mode:?}");
    }
}
