//! `CompileConfig::function_bitmap`: every defined function marks its byte of
//! the instance's "ran" bitmap on entry, and nothing the guest can see changes
//! (docs/function-bitmap.md).

use seedfall_engine::*;
use std::sync::Arc;

/// Two imports, two globals, one memory and a table: defined function
/// indices differ from wasm function indices, and the bitmap sits after the
/// globals. `run` calls `$a`, which calls `$b` directly and `$c` through the
/// table; `$d` and `$e` are never called; `$f` is a separate export.
const WAT: &str = r#"(module
  (import "env" "h1" (func $h1))
  (import "env" "h2" (func $h2 (param i32)))
  (global $g0 (mut i32) (i32.const 7))
  (global $g1 (mut i64) (i64.const 0))
  (memory (export "memory") 1)
  (table 1 funcref)
  (elem (i32.const 0) $c)
  (type $void (func (result i32)))
  (func $a (result i32)
    call $h1
    call $b
    (call_indirect (type $void) (i32.const 0))
    i32.add)
  (func $b (result i32)
    (global.set $g0 (i32.add (global.get $g0) (i32.const 1)))
    (i32.store (i32.const 16) (global.get $g0))
    global.get $g0)
  (func $c (result i32) i32.const 100)
  (func $d (result i32) call $e)
  (func $e (result i32) unreachable)
  (func $f (export "f") (result i32) i32.const 5)
  (func (export "run") (result i32) call $a)
  (func (export "trap") (result i32) call $e))"#;

fn linker() -> Linker<()> {
    let mut linker = Linker::new();
    linker.func("env", "h1", &[], &[], |_, _| Ok(()));
    linker.func("env", "h2", &[ValType::I32], &[], |_, _| Ok(()));
    linker
}

fn load(bitmap: bool, mode: TrapMode) -> Arc<Code> {
    let wasm = wat::parse_str(WAT).expect("valid wat");
    let config = CompileConfig { trap_mode: mode, verify: true, function_bitmap: bitmap, ..CompileConfig::default() };
    let artifact = compile(&wasm, &config).expect("compiles");
    assert_eq!(artifact.function_bitmap, bitmap);
    // Through the encoding, as a cache hit would bring it.
    let artifact = Artifact::decode(&artifact.encode()).expect("round trip");
    Arc::new(Code::load(artifact).expect("loads"))
}

/// The names of the defined functions whose byte is 1.
fn ran(code: &Code, bitmap: &[u8]) -> Vec<String> {
    assert_eq!(bitmap.len(), code.num_defined_functions() as usize);
    assert!(bitmap.iter().all(|b| *b <= 1), "only 0 or 1: {bitmap:?}");
    (0..bitmap.len() as u32)
        .filter(|&i| bitmap[i as usize] == 1)
        .map(|i| code.function_name(i).map_or_else(|| format!("#{i}"), str::to_string))
        .collect()
}

#[test]
fn exactly_the_called_functions_have_their_byte_set() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let code = load(true, mode);
        assert!(code.has_function_bitmap());
        assert_eq!(code.num_defined_functions(), 8);
        assert_eq!((code.function_name(0), code.function_name(5)), (Some("a"), Some("f")));
        assert_eq!(code.function_name(8), None, "past the defined functions");
        let mut instance = Instance::new(code.clone(), &linker(), ()).expect("instantiates");
        assert_eq!(instance.functions_ran().unwrap(), &[0u8; 8], "zeroed at instantiation");

        assert_eq!(instance.call("run", &[]).unwrap(), Run::Returned(vec![Val::I32(108)]));
        // Defined index 6 is the unnamed "run" export.
        assert_eq!(ran(&code, instance.functions_ran().unwrap()), ["a", "b", "c", "#6"], "{mode:?}");
        assert_eq!(instance.functions_ran().unwrap(), &[1, 1, 1, 0, 0, 0, 1, 0]);

        // Bytes stay set across calls (an incarnation's union) and a trap
        // still counts the function it trapped in.
        assert!(matches!(instance.call("trap", &[]).unwrap(), Run::Trapped(_)));
        assert_eq!(instance.functions_ran().unwrap(), &[1, 1, 1, 0, 1, 0, 1, 1]);

        // The guest saw nothing: its globals and memory are as without the bitmap.
        let plain = load(false, mode);
        let mut reference = Instance::new(plain, &linker(), ()).unwrap();
        assert_eq!(reference.call("run", &[]).unwrap(), Run::Returned(vec![Val::I32(108)]));
        assert!(matches!(reference.call("trap", &[]).unwrap(), Run::Trapped(_)));
        for g in 0..2 {
            assert_eq!(instance.global_get(g), reference.global_get(g), "global {g}");
        }
        assert_eq!(instance.memory().unwrap().bytes(), reference.memory().unwrap().bytes());

        // A fresh instance of the same code starts from zero again.
        let mut other = Instance::new(code.clone(), &linker(), ()).unwrap();
        assert_eq!(other.call("f", &[]).unwrap(), Run::Returned(vec![Val::I32(5)]));
        assert_eq!(ran(&code, other.functions_ran().unwrap()), ["f"]);
    }
}

#[test]
fn without_the_option_there_is_no_bitmap() {
    let code = load(false, TrapMode::Signals);
    assert!(!code.has_function_bitmap());
    assert_eq!(code.function_name(1), Some("b"), "names do not need the bitmap");
    let mut instance = Instance::new(code, &linker(), ()).unwrap();
    assert_eq!(instance.call("run", &[]).unwrap(), Run::Returned(vec![Val::I32(108)]));
    assert_eq!(instance.functions_ran(), None);
}

#[test]
fn the_option_is_part_of_the_cache_key_and_off_leaves_the_code_alone() {
    let base = CompileConfig::default();
    assert!(!base.function_bitmap, "off by default");
    let on = CompileConfig { function_bitmap: true, ..base };
    assert_ne!(base.key_material(), on.key_material());
    let pair = |c: &CompileConfig| c.key_material().into_iter().find(|(name, _)| *name == "function_bitmap");
    assert_eq!(pair(&base), Some(("function_bitmap", "off".to_string())));
    assert_eq!(pair(&on), Some(("function_bitmap", "on".to_string())));

    let wasm = wat::parse_str(WAT).unwrap();
    let plain = compile(&wasm, &base).unwrap();
    let marked = compile(&wasm, &on).unwrap();
    assert!(!plain.function_bitmap && marked.function_bitmap);
    assert_ne!(plain.code, marked.code);
    // Each defined function grows by its one store (a few bytes; alignment
    // padding can absorb it), no function shrinks.
    let defined = plain.info.num_imported_funcs as usize..plain.info.num_funcs() as usize;
    for i in defined {
        let (p, m) = (plain.functions[i].len, marked.functions[i].len);
        assert!(m > p && m <= p + 16, "function {i}: {p} -> {m} bytes");
    }
    assert_eq!(compile(&wasm, &base).unwrap().code, plain.code, "off: deterministic and unchanged");
}

#[test]
fn a_shared_table_marks_the_callee_instance() {
    // `$c` of instance A, called through a table from instance B, marks A's bitmap.
    let exporter = wat::parse_str(
        r#"(module
          (table (export "t") 1 funcref)
          (elem (i32.const 0) $c)
          (func $c (result i32) i32.const 3)
          (func $unused))"#,
    )
    .unwrap();
    let importer = wat::parse_str(
        r#"(module
          (import "a" "t" (table 1 funcref))
          (type $v (func (result i32)))
          (func (export "go") (result i32) (call_indirect (type $v) (i32.const 0))))"#,
    )
    .unwrap();
    let on = CompileConfig { function_bitmap: true, ..CompileConfig::default() };
    let code_a = Arc::new(Code::load(compile(&exporter, &on).unwrap()).unwrap());
    let code_b = Arc::new(Code::load(compile(&importer, &on).unwrap()).unwrap());
    let a = Instance::new(code_a, &Linker::<()>::new(), ()).unwrap();
    let mut linker = Linker::new();
    linker.define("a", "t", a.export("t").unwrap());
    let mut b = Instance::new(code_b, &linker, ()).unwrap();
    assert_eq!(b.call("go", &[]).unwrap(), Run::Returned(vec![Val::I32(3)]));
    assert_eq!(a.functions_ran().unwrap(), &[1, 0]);
    assert_eq!(b.functions_ran().unwrap(), &[1]);
}
