//! Lazy compilation (Linux): a module loaded lazily runs as the eagerly
//! compiled one does, compiling only the functions called; traps in lazily
//! compiled code name their function; what was compiled is stored as a
//! partial Artifact that a later load places and completes from the wasm,
//! read only when a missing function is first called; and missing or wrong
//! wasm is a clear error, never a crash.
#![cfg(target_os = "linux")]

use seedfall_engine::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const MODULE: &str = r#"(module
  (type $unary (func (param i64) (result i64)))
  (import "host" "double" (func $double (param i64) (result i64)))
  (table 2 funcref)
  (elem (i32.const 0) $square $fac)
  (func $square (param i64) (result i64) local.get 0 local.get 0 i64.mul)
  (func $fac (param i64) (result i64)
    local.get 0 i64.eqz
    if (result i64) i64.const 1
    else local.get 0 local.get 0 i64.const 1 i64.sub call $fac i64.mul end)
  (func $pair (param i64) (result i64 i64) local.get 0 local.get 0)
  (func (export "fac") (param i64) (result i64) local.get 0 call $fac)
  (func (export "indirect") (param i64 i32) (result i64) local.get 0 local.get 1 call_indirect (type $unary))
  (func (export "host") (param i64) (result i64) local.get 0 call $double call $square)
  (func (export "pair_sum") (param i64) (result i64) local.get 0 call $pair i64.add)
  (func $divide (param i32) (result i32) i32.const 100 local.get 0 i32.div_u)
  (func (export "divide") (param i32) (result i32) local.get 0 call $divide))"#;

fn wasm() -> Vec<u8> {
    wat::parse_str(MODULE).expect("valid wat")
}

fn linker() -> Linker<()> {
    let mut linker = Linker::new();
    linker.func("host", "double", &[ValType::I64], &[ValType::I64], |_, values| {
        values[0] = values[0].wrapping_mul(2);
        Ok(())
    });
    linker
}

/// Every export's result (or trap kind) on a few inputs.
fn behaviour(code: Arc<Code>) -> Vec<String> {
    let mut instance = Instance::new(code, &linker(), ()).expect("instantiates");
    let calls: [(&str, Vec<Val>); 7] = [
        ("fac", vec![Val::I64(20)]),
        ("indirect", vec![Val::I64(7), Val::I32(0)]),
        ("indirect", vec![Val::I64(5), Val::I32(1)]),
        ("host", vec![Val::I64(3)]),
        ("pair_sum", vec![Val::I64(21)]),
        ("divide", vec![Val::I32(7)]),
        ("divide", vec![Val::I32(0)]),
    ];
    calls
        .into_iter()
        .map(|(name, args)| match instance.call(name, &args).expect("runs") {
            Run::Trapped(trap) => format!("{name}: trap {:?} in {:?}", trap.kind, trap.func_name),
            other => format!("{name}: {other:?}"),
        })
        .collect()
}

fn config(trap_mode: TrapMode) -> CompileConfig {
    CompileConfig { trap_mode, verify: true, ..CompileConfig::default() }
}

#[test]
fn lazily_loaded_code_behaves_as_eager_code_and_compiles_only_what_runs() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let eager = Arc::new(Code::load(compile(&wasm(), &config(mode)).unwrap()).unwrap());
        let lazy = Arc::new(Code::load_lazy(wasm(), &config(mode), None).unwrap());
        assert!(lazy.is_lazy() && !eager.is_lazy());
        // $pair has two results: compiled at load (its thunk stores nothing).
        assert_eq!(lazy.compiled_functions(), 1, "{mode:?}");
        let expected = behaviour(eager);
        assert!(
            expected.last().unwrap().contains("IntegerDivideByZero") && expected.last().unwrap().contains("divide")
        );
        assert_eq!(behaviour(lazy.clone()), expected, "{mode:?}");
        assert_eq!(lazy.compiled_functions(), lazy.num_defined_functions(), "every function ran");
    }
}

#[test]
fn only_called_functions_are_compiled() {
    let lazy = Arc::new(Code::load_lazy(wasm(), &config(TrapMode::Signals), None).unwrap());
    let mut instance = Instance::new(lazy.clone(), &linker(), ()).unwrap();
    assert_eq!(instance.call("fac", &[Val::I64(5)]).unwrap(), Run::Returned(vec![Val::I64(120)]));
    // $pair at load, then the export and $fac.
    assert_eq!(lazy.compiled_functions(), 3);
}

#[test]
fn stored_partial_code_is_placed_and_completed_from_wasm_read_only_when_needed() {
    let first = Arc::new(Code::load_lazy(wasm(), &config(TrapMode::Signals), None).unwrap());
    let mut instance = Instance::new(first.clone(), &linker(), ()).unwrap();
    instance.call("fac", &[Val::I64(5)]).unwrap();
    let stored = first.compiled_artifact().expect("something was compiled");
    assert!(stored.partial);
    let stored = Artifact::decode(&stored.encode()).expect("round trip");

    let reads = Arc::new(AtomicUsize::new(0));
    let second = Arc::new(Code::load(stored.clone()).unwrap());
    let counter = reads.clone();
    second.attach_wasm(
        &config(TrapMode::Signals),
        Box::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(wasm())
        }),
    );
    assert_eq!(second.compiled_functions(), 3, "what the first process compiled");
    assert!(second.compiled_artifact().is_none(), "nothing new to store");
    let mut instance = Instance::new(second.clone(), &linker(), ()).unwrap();
    assert_eq!(instance.call("fac", &[Val::I64(20)]).unwrap(), Run::Returned(vec![Val::I64(2432902008176640000)]));
    assert_eq!(reads.load(Ordering::SeqCst), 0, "the stored functions needed no wasm");
    drop(instance);
    let eager = behaviour(Arc::new(Code::load(compile(&wasm(), &config(TrapMode::Signals)).unwrap()).unwrap()));
    assert_eq!(behaviour(second.clone()), eager);
    assert_eq!(reads.load(Ordering::SeqCst), 1, "read once, for the first missing function");
    let grown = second.compiled_artifact().expect("more was compiled");
    assert!(grown.functions.iter().filter(|f| f.len > 0).count() > 3);
}

#[test]
fn missing_or_wrong_wasm_is_a_clear_error() {
    let first = Arc::new(Code::load_lazy(wasm(), &config(TrapMode::Signals), None).unwrap());
    Instance::new(first.clone(), &linker(), ()).unwrap().call("fac", &[Val::I64(1)]).unwrap();
    let stored = first.compiled_artifact().unwrap();

    let without = Arc::new(Code::load(stored.clone()).unwrap());
    let mut instance = Instance::new(without, &linker(), ()).unwrap();
    assert_eq!(instance.call("fac", &[Val::I64(3)]).unwrap(), Run::Returned(vec![Val::I64(6)]));
    match instance.call("divide", &[Val::I32(4)]).unwrap() {
        Run::Trapped(trap) => {
            let text = trap.to_string();
            assert!(text.contains("no wasm to compile it from"), "{text}");
        }
        other => panic!("{other:?}"),
    }

    let wrong = Arc::new(Code::load(stored).unwrap());
    let other_module = wat::parse_str("(module (func (export \"f\")))").unwrap();
    wrong.attach_wasm(&config(TrapMode::Signals), Box::new(move || Ok(other_module)));
    let mut instance = Instance::new(wrong, &linker(), ()).unwrap();
    match instance.call("divide", &[Val::I32(4)]).unwrap() {
        Run::Trapped(trap) => {
            let text = trap.to_string();
            assert!(text.contains("not the module the stored code was compiled from"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn two_threads_calling_new_functions_at_once_compile_each_once() {
    let lazy = Arc::new(Code::load_lazy(wasm(), &config(TrapMode::Signals), None).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let lazy = lazy.clone();
            std::thread::spawn(move || behaviour(lazy))
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(results.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(lazy.compiled_functions(), lazy.num_defined_functions());
}
