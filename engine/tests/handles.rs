//! The engine API's soundness checks: out-of-range globals are errors, exported
//! functions and globals keep their instance alive, a dropped instance's
//! functions leave a shared table, and an interrupt aimed at a thread that has
//! exited does nothing.

mod common;

use seedfall_engine::module::{GlobalType, ValType};
use seedfall_engine::*;

#[test]
fn global_access_out_of_range_is_an_error_not_a_wild_read() {
    let code = common::load_wat(r#"(module (global (mut i32) (i32.const 7)))"#, TrapMode::Signals);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    assert_eq!(instance.global_get(0), Some(7));
    assert_eq!(instance.global_get(1), None);
    assert_eq!(instance.global_get(u32::MAX), None);
    assert!(instance.global_set(1, 5).is_err());
    assert!(instance.global_ref(1).is_none());
    assert!(instance.global_ptr(1).is_none());
    instance.global_set(0, 9).unwrap();
    assert_eq!(instance.global_get(0), Some(9));
}

#[test]
fn exported_function_and_global_outlive_the_instance() {
    let exporter = common::load_wat(
        r#"(module
          (global (export "g") (mut i32) (i32.const 40))
          (func (export "f") (result i32) (i32.add (global.get 0) (i32.const 2))))"#,
        TrapMode::Signals,
    );
    let exporter = Instance::new(exporter, &Linker::<()>::new(), ()).unwrap();
    let mut linker = Linker::<()>::new();
    linker.define("m", "f", exporter.export("f").expect("exported function"));
    let global = exporter.export::<()>("g").expect("exported global");
    linker.define("m", "g", global.clone());
    // The handles keep the exporter's vmctx and code alive.
    drop(exporter);
    let Extern::Global(global) = global else { panic!("a global") };
    assert_eq!(global.get(), 40);
    global.set(50);
    let importer = common::load_wat(
        r#"(module
          (import "m" "f" (func $f (result i32)))
          (import "m" "g" (global (mut i32)))
          (func (export "call") (result i32) (call $f))
          (func (export "read") (result i32) (global.get 0)))"#,
        TrapMode::Signals,
    );
    let mut importer = Instance::new(importer, &linker, ()).unwrap();
    assert_eq!(importer.call("call", &[]).unwrap(), Run::Returned(vec![Val::I32(52)]));
    assert_eq!(importer.call("read", &[]).unwrap(), Run::Returned(vec![Val::I32(50)]));
}

#[test]
fn a_dropped_instances_functions_leave_the_shared_table() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let owner = common::load_wat(
            r#"(module
              (type $t (func (result i32)))
              (table (export "t") 1 funcref)
              (func (export "get") (result i32) (call_indirect (type $t) (i32.const 0))))"#,
            mode,
        );
        let mut owner = Instance::new(owner, &Linker::<()>::new(), ()).unwrap();
        let mut linker = Linker::<()>::new();
        linker.define("owner", "t", owner.export("t").expect("exported table"));
        let writer = common::load_wat(
            r#"(module
              (import "owner" "t" (table 1 funcref))
              (func $f (result i32) (i32.const 42))
              (elem (i32.const 0) $f))"#,
            mode,
        );
        let writer = Instance::new(writer, &linker, ()).unwrap();
        assert_eq!(owner.call("get", &[]).unwrap(), Run::Returned(vec![Val::I32(42)]), "{mode:?}");
        drop(writer);
        match owner.call("get", &[]).unwrap() {
            Run::Trapped(trap) => assert_eq!(trap.kind, TrapKind::IndirectCallToNull, "{mode:?}: {trap}"),
            other => panic!("{mode:?}: expected a null-entry trap, got {other:?}"),
        }
    }
}

#[test]
fn a_host_global_is_shared_by_its_handles() {
    let global = Global::new(GlobalType { ty: ValType::I64, mutable: true }, 1);
    let copy = global.clone();
    copy.set(2);
    assert_eq!(global.get(), 2);
    assert_eq!(global.ty().ty, ValType::I64);
}

#[test]
fn interrupting_a_thread_that_has_exited_is_harmless() {
    let interrupter = std::thread::spawn(Interrupter::current).join().unwrap();
    assert!(!interrupter.is_alive());
    interrupter.interrupt();
    interrupter.interrupt();
    // And one on a live thread that runs no guest code is ignored.
    let here = Interrupter::current();
    assert!(here.is_alive());
    here.interrupt();
}
