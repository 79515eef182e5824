//! Property test of the host ABI (issue 19): a guest calling any sequence of
//! the functions a world node links against (every WASI call, the seedfall
//! SDK, the preemption hook) with any pointers, lengths, counts and flags
//! gets an errno, a result or a trap, never a host panic or an engine error,
//! and the run ends with a verdict. The arguments lean on the values where
//! bounds checks live (0, the end of memory, wrapping pointers, u32 and u64
//! extremes) and on addresses of well-formed structures (an iovec, a path),
//! so calls get past their first check too.
//!
//! It does not check what each call answers: the per-call tests do that.

use super::tests::{run_logged, spec, workload};
use crate::node::Node;
use proptest::prelude::*;
use seedfall_engine::{Code, CompileConfig, FuncType, Linker, ValType, compile};
use std::fmt::Write;
use std::sync::Arc;

/// Every function a node links against, in name order.
fn imports() -> Vec<(String, String, FuncType)> {
    let linker: Linker<Node> = super::linker(crate::wasi::DEFAULT_MEMORY_BYTES);
    linker.funcs().map(|(module, name, ty)| (module.to_string(), name.to_string(), ty.clone())).collect()
}

/// One page of memory holding, at fixed addresses, an iovec of 16 bytes
/// (0x100 → 0x200), the path "tmp/x" (0x300, 5 bytes) and a clock
/// subscription of 1 ms (0x400), which arguments below point at.
const SETUP: &str = r#"
  (memory (export "memory") 1)
  (data (i32.const 0x100) "\00\02\00\00\10\00\00\00")
  (data (i32.const 0x300) "tmp/x")
  (data (i32.const 0x400) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\40\42\0f\00\00\00\00\00")"#;

/// Argument values: where checks are, where structures are, and anything.
fn arg() -> impl Strategy<Value = u64> {
    let edges: Vec<u64> = vec![
        0,
        1,
        2,
        3,
        4,
        5,
        8,
        16,
        0x100,
        0x200,
        0x300,
        0x400,
        1024,
        0xfff8,
        0xfffc,
        0x1_0000,
        0x7fff_ffff,
        0xffff_fff8,
        0xffff_ffff,
        1 << 32,
        1 << 63,
        u64::MAX,
    ];
    prop_oneof![4 => proptest::sample::select(edges), 1 => any::<u64>()]
}

/// A call: which import (an index into `imports()`) and its arguments
/// (as many as the longest signature; each call takes what it needs).
fn call() -> impl Strategy<Value = (usize, Vec<u64>)> {
    (any::<usize>(), proptest::collection::vec(arg(), 10))
}

/// The WAT of a guest that makes `calls` in order and returns.
fn guest(imports: &[(String, String, FuncType)], calls: &[(usize, Vec<u64>)]) -> String {
    let mut used: Vec<usize> = calls.iter().map(|(i, _)| i % imports.len()).collect();
    used.sort_unstable();
    used.dedup();
    let mut wat = String::from("(module\n");
    for &i in &used {
        let (module, name, ty) = &imports[i];
        let list = |types: &[ValType]| types.iter().map(|t| format!(" {}", wat_type(*t))).collect::<String>();
        writeln!(
            wat,
            r#"  (import "{module}" "{name}" (func $f{i} (param{}) (result{})))"#,
            list(&ty.params),
            list(&ty.results)
        )
        .unwrap();
    }
    wat.push_str(SETUP);
    wat.push_str("\n  (func (export \"_start\")\n");
    for (i, args) in calls {
        let i = i % imports.len();
        let ty = &imports[i].2;
        let operands: String = ty.params.iter().zip(args).map(|(t, &v)| constant(*t, v)).collect();
        let drops = " drop".repeat(ty.results.len());
        writeln!(wat, "    (call $f{i}{operands}){drops}").unwrap();
    }
    wat.push_str("  ))\n");
    wat
}

fn wat_type(t: ValType) -> &'static str {
    match t {
        ValType::I32 => "i32",
        ValType::I64 => "i64",
        ValType::F32 => "f32",
        ValType::F64 => "f64",
    }
}

fn constant(t: ValType, v: u64) -> String {
    match t {
        ValType::I32 => format!(" (i32.const {})", v as u32 as i32),
        ValType::I64 => format!(" (i64.const {})", v as i64),
        ValType::F32 => format!(" (f32.const {})", (v % 1000) as f32),
        ValType::F64 => format!(" (f64.const {})", (v % 1000) as f64),
    }
}

proptest! {
    #[test]
    fn any_calls_with_any_arguments_end_in_a_verdict(
        calls in proptest::collection::vec(call(), 1..12),
        seed in 1u64..1000,
    ) {
        let imports = imports();
        let wat = guest(&imports, &calls);
        let wasm = wat::parse_str(&wat).expect("the generated guest is valid WAT");
        let artifact = compile(&wasm, &CompileConfig::default()).expect("compiles");
        let code = Arc::new(Code::load(artifact).expect("loads"));
        // A panic (an engine error included) fails the case, and so does a
        // host function's panic the engine caught and made a trap; any
        // other verdict passes.
        let (verdict, _, _) = run_logged(&spec(seed, vec![workload(code)]));
        let verdict = format!("{verdict:?}");
        prop_assert!(!verdict.contains("panicked"), "a host function panicked: {verdict}");
    }
}

#[test]
fn every_import_is_reachable_and_no_signature_is_left_out() {
    let imports = imports();
    let modules: std::collections::BTreeSet<&str> = imports.iter().map(|(m, _, _)| m.as_str()).collect();
    assert!(modules.contains("wasi_snapshot_preview1") && modules.contains("seedfall"), "{modules:?}");
    assert!(imports.len() > 50, "{} functions", imports.len());
    // One guest calling each import once with edge values compiles and runs.
    for (i, _) in imports.iter().enumerate() {
        let wat = guest(&imports, &[(i, vec![0xffff_fff8; 10])]);
        let wasm = wat::parse_str(&wat).expect("valid WAT");
        let code = Arc::new(Code::load(compile(&wasm, &CompileConfig::default()).unwrap()).unwrap());
        let (verdict, _, _) = run_logged(&spec(1, vec![workload(code)]));
        assert!(!format!("{verdict:?}").contains("panicked"), "{}: {verdict:?}", imports[i].1);
    }
}
