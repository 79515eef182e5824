//! The pass on small hand-written modules: renumbering, names, counted calls under another engine
//! (Python `wasmtime`), edge cases and bad input.

mod common;

use common::*;
use seedfall_instrument::{Config, Error, config_bytes, instrument};
use wasmparser::{Operator, Parser, Payload};

/// Calls, `call_indirect` through a table, a loop, exports, a start function, an imported function
/// and global, and names (wat emits function, local and label names from the `$ids`).
const MODULE: &str = r#"
(module
  (import "env" "log" (func $log (param i32)))
  (import "env" "base" (global $base i32))
  (type $binop (func (param i32 i32) (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $add $mul)
  (global $started (mut i32) (i32.const 0))
  (func $add (type $binop) (i32.add (local.get 0) (local.get 1)))
  (func $mul (type $binop) (i32.mul (local.get 0) (local.get 1)))
  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_s (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (call $add
        (call $fib (i32.sub (local.get $n) (i32.const 1)))
        (call $fib (i32.sub (local.get $n) (i32.const 2)))))))
  (func $apply (export "apply") (param $op i32) (param $a i32) (param $b i32) (result i32)
    (call_indirect (type $binop) (local.get $a) (local.get $b) (local.get $op)))
  (func $sum (export "sum") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $acc (i32.add (local.get $acc) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $acc))
  (func $init
    (global.set $started (i32.add (global.get $base) (i32.const 1)))
    (call $log (global.get $started)))
  (func $started (export "started") (result i32) (global.get $started))
  (start $init)
)
"#;

/// Runs MODULE's exports under Python wasmtime and prints JSON: results, logs, hook calls during
/// instantiation (the start function) and in total. argv: wasm path, re-arm value (0 = the hook
/// does not touch the counter; otherwise it writes the value to the exported global "counter").
const RUN_MODULE: &str = r#"
import sys, json, wasmtime as w
path, rearm = sys.argv[1], int(sys.argv[2])
engine = w.Engine()
store = w.Store(engine)
module = w.Module.from_file(engine, path)
linker = w.Linker(engine)
logs, hook = [], [0]
linker.define_func("env", "log", w.FuncType([w.ValType.i32()], []), lambda x: logs.append(x))
linker.define(store, "env", "base", w.Global(store, w.GlobalType(w.ValType.i32(), False), w.Val.i32(41)))
def preempt(caller):
    hook[0] += 1
    if rearm:
        caller.get("counter").set_value(caller, w.Val.i64(rearm))
linker.define_func("seedfall", "preempt", w.FuncType([], []), preempt, access_caller=True)
inst = linker.instantiate(store, module)
after_start = hook[0]
ex = inst.exports(store)
results = [ex["fib"](store, 10), ex["apply"](store, 0, 3, 4), ex["apply"](store, 1, 3, 4),
           ex["sum"](store, 5), ex["sum"](store, 0), ex["started"](store)]
print(json.dumps({"results": results, "logs": logs, "after_start": after_start, "hook": hook[0]}))
"#;

fn run_module(wasm: &[u8], name: &str, rearm: i64) -> serde_like::Run {
    let path = tmp(name);
    std::fs::write(&path, wasm).unwrap();
    let out = python(RUN_MODULE, &[path.to_str().unwrap(), &rearm.to_string()]);
    std::fs::remove_file(&path).ok();
    serde_like::parse(&out)
}

/// A tiny parser for the one JSON line RUN_MODULE prints (no serde in this crate).
mod serde_like {
    #[derive(Debug, PartialEq)]
    pub struct Run {
        pub results: Vec<i64>,
        pub logs: Vec<i64>,
        pub after_start: u64,
        pub hook: u64,
    }
    fn list(s: &str, key: &str) -> Vec<i64> {
        let start = s.find(&format!("\"{key}\": [")).unwrap() + key.len() + 5;
        let end = start + s[start..].find(']').unwrap();
        s[start..end].split(',').filter(|x| !x.trim().is_empty()).map(|x| x.trim().parse().unwrap()).collect()
    }
    fn num(s: &str, key: &str) -> u64 {
        let start = s.find(&format!("\"{key}\": ")).unwrap() + key.len() + 4;
        let end = start + s[start..].find([',', '}']).unwrap();
        s[start..end].trim().parse().unwrap()
    }
    pub fn parse(s: &str) -> Run {
        Run {
            results: list(s, "results"),
            logs: list(s, "logs"),
            after_start: num(s, "after_start"),
            hook: num(s, "hook"),
        }
    }
}

/// Function entries of `fib(n)` in MODULE (fib itself plus one `add` per inner node).
fn fib_entries(n: i32) -> u64 {
    if n < 2 { 1 } else { 2 + fib_entries(n - 1) + fib_entries(n - 2) }
}

/// Counted events of RUN_MODULE's calls: (during start, total).
fn expected_events(loops: bool) -> (u64, u64) {
    let start = 1; // $init
    let calls = fib_entries(10) + 2 + 2 + 1 + 1 + 1; // fib, apply ×2 (+ add/mul), sum ×2, started
    let loop_heads = if loops { (5 + 1) + 1 } else { 0 }; // sum(5) enters the loop 6 times, sum(0) once
    (start, start + calls + loop_heads)
}

#[test]
fn renumbers_names_and_validates() {
    let wasm = wat::parse_str(MODULE).unwrap();
    let names = function_names(&wasm);
    let locals = local_names(&wasm);
    let nfi = func_imports(&wasm);
    assert_eq!(nfi, 1);
    for loops in [false, true] {
        let out = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        validate_lime1(&out.wasm);
        assert_eq!(out.hook_import, ("seedfall", "preempt"));
        assert_eq!(out.hook_function, 1, "the hook is the last function import");
        assert_eq!(out.counter_global, 2, "one imported and one defined global before it");
        assert_eq!(out.entry_sites, 7);
        assert_eq!(out.loop_sites, if loops { 1 } else { 0 });
        assert_eq!(func_imports(&out.wasm), 2);

        let new_names = function_names(&out.wasm);
        let mut expected: std::collections::BTreeMap<u32, String> =
            names.iter().map(|(&i, n)| (if i < nfi { i } else { i + 1 }, n.clone())).collect();
        expected.insert(nfi, "seedfall.preempt".into());
        assert_eq!(new_names, expected);
        assert_eq!(new_names[&0], "log");
        assert_eq!(new_names[&2], "add");
        assert_eq!(new_names[&4], "fib");

        let new_locals = local_names(&out.wasm);
        let expected_locals: std::collections::BTreeMap<_, _> =
            locals.iter().map(|(&i, m)| (if i < nfi { i } else { i + 1 }, m.clone())).collect();
        assert_eq!(new_locals, expected_locals);
        assert_eq!(new_locals[&6][&2], "acc", "sum's locals");

        // Exports and the start function follow their functions.
        for payload in Parser::new(0).parse_all(&out.wasm) {
            match payload.unwrap() {
                Payload::ExportSection(r) => {
                    for e in r {
                        let e = e.unwrap();
                        assert_eq!(new_names[&e.index], e.name, "export {}", e.name);
                    }
                }
                Payload::StartSection { func, .. } => assert_eq!(new_names[&func], "init"),
                Payload::ElementSection(r) => {
                    for el in r {
                        let wasmparser::ElementItems::Functions(fs) = el.unwrap().items else {
                            panic!("function list expected")
                        };
                        let fs: Vec<u32> = fs.into_iter().map(Result::unwrap).collect();
                        assert_eq!(fs.iter().map(|f| new_names[f].as_str()).collect::<Vec<_>>(), ["add", "mul"]);
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn counts_calls_and_loops_under_wasmtime() {
    let wasm = wat::parse_str(MODULE).unwrap();
    let original = run_module(&wasm, "orig.wasm", 0);
    assert_eq!(original.results, [55, 7, 12, 10, 0, 42]);
    assert_eq!(original.logs, [42]);
    assert_eq!(original.hook, 0);
    for loops in [false, true] {
        let out = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        let (start, total) = expected_events(loops);

        // The counter starts at 0 and a hook that never re-arms it is called at every event.
        let run = run_module(&out.wasm, &format!("inst-{loops}.wasm"), 0);
        assert_eq!(run.results, original.results, "loops={loops}");
        assert_eq!(run.logs, original.logs);
        assert_eq!(run.after_start, start, "the start function is counted");
        assert_eq!(run.hook, total, "loops={loops}: one hook call per counted event");

        // A hook that re-arms the counter to N is called at events 1, N+1, 2N+1, ...
        let exported = export_global(&out.wasm, out.counter_global, "counter");
        validate_lime1(&exported);
        for n in [1u64, 7, 10, 1000] {
            let run = run_module(&exported, &format!("rearm-{loops}-{n}.wasm"), n as i64);
            assert_eq!(run.results, original.results);
            assert_eq!(run.hook, 1 + (total - 1) / n, "loops={loops} rearm={n}");
        }
    }
}

#[test]
fn reference_types_tail_calls_and_const_exprs() {
    // ref.func in code, in a global initialiser and in an expression element segment; return_call;
    // a declared element segment; a call to an import (unchanged index).
    let wasm = wat::parse_str(
        r#"(module
          (import "env" "imp" (func $imp (result i32)))
          (type $t (func (result i32)))
          (table $tab 2 funcref)
          (global $g funcref (ref.func $two))
          (elem (table $tab) (i32.const 0) funcref (ref.func $one) (ref.func $two))
          (elem declare func $three)
          (func $one (result i32) (i32.const 1))
          (func $two (result i32) (return_call $one))
          (func $three (result i32) (call $imp))
          (func $get (export "get") (result funcref) (ref.func $three))
        )"#,
    )
    .unwrap();
    let out = instrument(&wasm, &Config::default()).unwrap();
    validate_default(&out.wasm);
    let names = function_names(&out.wasm);
    let mut refs = Vec::new();
    let mut calls = Vec::new();
    for payload in Parser::new(0).parse_all(&out.wasm) {
        match payload.unwrap() {
            Payload::GlobalSection(r) => {
                for g in r {
                    for op in g.unwrap().init_expr.get_operators_reader() {
                        if let Operator::RefFunc { function_index } = op.unwrap() {
                            refs.push(names[&function_index].clone());
                        }
                    }
                }
            }
            Payload::ElementSection(r) => {
                for el in r {
                    match el.unwrap().items {
                        wasmparser::ElementItems::Expressions(_, es) => {
                            for e in es {
                                for op in e.unwrap().get_operators_reader() {
                                    if let Operator::RefFunc { function_index } = op.unwrap() {
                                        refs.push(names[&function_index].clone());
                                    }
                                }
                            }
                        }
                        wasmparser::ElementItems::Functions(fs) => {
                            for f in fs {
                                refs.push(names[&f.unwrap()].clone());
                            }
                        }
                    }
                }
            }
            Payload::CodeSectionEntry(body) => {
                for op in body.get_operators_reader().unwrap() {
                    match op.unwrap() {
                        Operator::RefFunc { function_index } => refs.push(names[&function_index].clone()),
                        Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                            calls.push(names[&function_index].clone())
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    assert_eq!(refs, ["two", "one", "two", "three", "three"]);
    // Every body starts with the hook call; then two's return_call and three's import call.
    let hooks = calls.iter().filter(|c| *c == "seedfall.preempt").count();
    assert_eq!(hooks, 4);
    let others: Vec<_> = calls.iter().filter(|c| *c != "seedfall.preempt").collect();
    assert_eq!(others, ["one", "imp"]);
}

#[test]
fn label_names_follow_inserted_blocks() {
    let wasm = wat::parse_str(
        r#"(module
          (func $f (export "f") (param $x i32) (result i32) (local $acc i32)
            block $outer
              loop $again
                (br_if $outer (i32.eqz (local.get $x)))
                (local.set $x (i32.sub (local.get $x) (i32.const 1)))
                (local.set $acc (i32.add (local.get $acc) (i32.const 2)))
                br $again
              end
            end
            loop $second
            end
            block $after
            end
            local.get $acc))"#,
    )
    .unwrap();
    let labels = label_names(&wasm);
    assert!(!labels.is_empty(), "wat emits label names");
    for loops in [false, true] {
        let out = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        validate_lime1(&out.wasm);
        let labels = label_names(&out.wasm);
        let f = &labels[&1]; // $f moved from 0 to 1
        // Block-introducing instructions of $f in order, by kind.
        let mut kinds = Vec::new();
        for payload in Parser::new(0).parse_all(&out.wasm) {
            if let Payload::CodeSectionEntry(body) = payload.unwrap() {
                for op in body.get_operators_reader().unwrap() {
                    match op.unwrap() {
                        Operator::Block { .. } => kinds.push("block"),
                        Operator::Loop { .. } => kinds.push("loop"),
                        Operator::If { .. } => kinds.push("if"),
                        _ => {}
                    }
                }
            }
        }
        let kind_of = |name: &str| {
            let (&i, _) = f.iter().find(|(_, n)| *n == name).unwrap();
            kinds[i as usize]
        };
        assert_eq!(kind_of("outer"), "block", "loops={loops} {f:?} {kinds:?}");
        assert_eq!(kind_of("again"), "loop", "loops={loops} {f:?} {kinds:?}");
        assert_eq!(kind_of("second"), "loop", "loops={loops} {f:?} {kinds:?}");
        assert_eq!(kind_of("after"), "block", "loops={loops} {f:?} {kinds:?}");
        // Check the exact numbering too: entry `if` is 0; each instrumented loop adds one after it.
        let expected: Vec<(u32, &str)> = if loops {
            vec![(1, "outer"), (2, "again"), (4, "second"), (6, "after")]
        } else {
            vec![(1, "outer"), (2, "again"), (3, "second"), (4, "after")]
        };
        let got: Vec<(u32, &str)> = f.iter().map(|(&i, n)| (i, n.as_str())).collect();
        assert_eq!(got, expected);
    }
}

#[test]
fn loop_with_params_and_results() {
    // The inserted code is stack-neutral, so loops with block parameters stay valid.
    let wasm = wat::parse_str(
        r#"(module
          (func (export "count") (param i32) (result i32)
            (local.get 0)
            (loop $l (param i32) (result i32)
              (i32.sub (i32.const 1))
              (local.tee 0)
              (br_if $l (local.get 0))
              )))"#,
    )
    .unwrap();
    let out = instrument(&wasm, &Config { loops: true, ..Config::default() }).unwrap();
    validate_lime1(&out.wasm);
    assert_eq!(out.loop_sites, 1);
}

#[test]
fn adds_missing_sections() {
    for (src, hook, counter) in [
        ("(module)", 0, 0),
        ("(module (func (export \"f\")))", 0, 0),
        ("(module (memory 1) (func (export \"f\") (result i32) (i32.const 7)))", 0, 0),
        ("(module (import \"a\" \"b\" (global i64)) (func (export \"f\")) (global (mut i32) (i32.const 0)))", 0, 2),
    ] {
        let wasm = wat::parse_str(src).unwrap();
        let out = instrument(&wasm, &Config { loops: true, ..Config::default() }).unwrap();
        validate_lime1(&out.wasm);
        assert_eq!((out.hook_function, out.counter_global), (hook, counter), "{src}");
    }
}

#[test]
fn reuses_an_existing_empty_function_type() {
    let count_types = |wasm: &[u8]| {
        Parser::new(0)
            .parse_all(wasm)
            .filter_map(|p| match p.unwrap() {
                Payload::TypeSection(r) => Some(r.count()),
                _ => None,
            })
            .sum::<u32>()
    };
    let with = wat::parse_str("(module (func (export \"f\")))").unwrap();
    let without = wat::parse_str("(module (func (export \"f\") (result i32) (i32.const 1)))").unwrap();
    let a = instrument(&with, &Config::default()).unwrap();
    let b = instrument(&without, &Config::default()).unwrap();
    assert_eq!(count_types(&a.wasm), count_types(&with));
    assert_eq!(count_types(&b.wasm), count_types(&without) + 1);
    validate_lime1(&a.wasm);
    validate_lime1(&b.wasm);
}

#[test]
fn keeps_custom_sections() {
    let mut wasm = wat::parse_str(MODULE).unwrap();
    // A custom section at the end and one between sections is not possible with wat; append one.
    let section =
        wasm_encoder::CustomSection { name: "producers-like".into(), data: (&b"some bytes\x00\x01"[..]).into() };
    use wasm_encoder::Section;
    wasm.push(section.id());
    wasm_encoder::Encode::encode(&section, &mut wasm);
    let out = instrument(&wasm, &Config::default()).unwrap();
    let customs = |w: &[u8]| {
        Parser::new(0)
            .parse_all(w)
            .filter_map(|p| match p.unwrap() {
                Payload::CustomSection(c) if c.name() != "name" => Some((c.name().to_string(), c.data().to_vec())),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(customs(&out.wasm), customs(&wasm));
    assert_eq!(customs(&out.wasm).len(), 1);
}

#[test]
fn deterministic_and_config_bytes() {
    let wasm = wat::parse_str(MODULE).unwrap();
    for loops in [false, true] {
        let a = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        let b = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        assert_eq!(a.wasm, b.wasm);
    }
    let bytes = |loops, entry_checks| config_bytes(&Config { loops, entry_checks });
    assert_eq!(bytes(false, true), b"seedfall-instrument/v2;hook=seedfall.preempt;loops=0;entry_checks=1");
    assert_eq!(bytes(true, true), b"seedfall-instrument/v2;hook=seedfall.preempt;loops=1;entry_checks=1");
    assert_eq!(bytes(false, false), b"seedfall-instrument/v2;hook=seedfall.preempt;loops=0;entry_checks=0");
}

#[test]
fn rejects_already_instrumented_and_components() {
    let wasm = wat::parse_str(MODULE).unwrap();
    let once = instrument(&wasm, &Config::default()).unwrap();
    let err = instrument(&once.wasm, &Config::default()).unwrap_err();
    assert_eq!(err, Error::AlreadyInstrumented);
    assert!(err.to_string().contains("already instrumented"), "{err}");

    let component = wat::parse_str("(component)").unwrap();
    let err = instrument(&component, &Config::default()).unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err:?}");
    assert!(err.to_string().contains("component"), "{err}");
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for (input, what) in [
        (&b""[..], "empty"),
        (&b"\0asm"[..], "truncated header"),
        (&b"hello world, not wasm"[..], "garbage"),
        (&b"\0asm\x01\0\0\0\x01\x05\x01\x60"[..], "truncated type section"),
        (&b"\0asm\x01\0\0\0\x0a\x04\x01\x02\x00\x0b"[..], "short code body"),
    ] {
        let err = instrument(input, &Config::default()).unwrap_err();
        assert!(matches!(err, Error::Malformed { .. }), "{what}: {err:?}");
        assert!(err.to_string().starts_with("malformed wasm at byte offset"), "{what}: {err}");
    }

    // Every strict prefix of a real module: never a panic; inside a section, an error.
    let wasm = wat::parse_str(MODULE).unwrap();
    let boundaries: Vec<usize> =
        Parser::new(0).parse_all(&wasm).filter_map(|p| p.unwrap().as_section().map(|(_, r)| r.end as usize)).collect();
    for len in 0..wasm.len() {
        let r = instrument(&wasm[..len], &Config { loops: true, ..Config::default() });
        if len != 8 && !boundaries.contains(&len) {
            assert!(r.is_err(), "prefix of {len} bytes accepted");
        }
    }

    // Corrupted bytes (deterministic pseudo-random): never a panic.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rand = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut errors = 0;
    for _ in 0..5000 {
        let mut bad = wasm.clone();
        for _ in 0..1 + rand() % 3 {
            let i = 8 + (rand() as usize) % (bad.len() - 8);
            bad[i] = rand() as u8;
        }
        for loops in [false, true] {
            if instrument(&bad, &Config { loops, ..Config::default() }).is_err() {
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
}
