//! `CompileConfig::edge_bitmap`: each conditional branch marks the edge-map
//! byte of the outcome it takes, Go's resume dispatch marks nothing, and the
//! guest sees nothing (docs/edge-coverage.md).

use seedfall_engine::runtime::vmctx::{EDGE_MAP_BYTES, edge_byte};
use seedfall_engine::*;
use std::collections::BTreeSet;
use std::sync::Arc;

/// `sign`: an `if`, and a `br_if` in its else arm. `pick`: a `br_table` of
/// three targets and a default. `dispatch`: Go's resume-dispatch shape.
const WAT: &str = r#"(module
  (global $calls (mut i32) (i32.const 0))
  (func (export "sign") (param i32) (result i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (if (result i32) (i32.lt_s (local.get 0) (i32.const 0))
      (then (i32.const -1))
      (else
        (block (result i32)
          (br_if 0 (i32.const 0) (i32.eqz (local.get 0)))
          drop
          (i32.const 1)))))
  (func (export "pick") (param i32) (result i32)
    (block (block (block (block (br_table 0 1 2 3 (local.get 0)))
      (return (i32.const 10))) (return (i32.const 11))) (return (i32.const 12)))
    (i32.const 13))
  (func (export "dispatch") (param i32) (result i32)
    (loop $top
      (block (block
        local.get 0
        br_table 0 1 $top)
        (return (i32.const 20)))
      (return (i32.const 21)))
    (i32.const 22)))"#;

fn load(edges: bool) -> Arc<Code> {
    let wasm = wat::parse_str(WAT).expect("valid wat");
    let config = CompileConfig { verify: true, function_bitmap: edges, edge_bitmap: edges, ..CompileConfig::default() };
    let artifact = compile(&wasm, &config).expect("compiles");
    assert_eq!(artifact.edge_bitmap, edges);
    // Through the encoding, as a cache hit would bring it.
    Arc::new(Code::load(Artifact::decode(&artifact.encode()).expect("round trip")).expect("loads"))
}

/// The byte offsets of the module's `if`, `br_if` and `br_table` operators, in order.
fn branch_offsets() -> Vec<u32> {
    let wasm = wat::parse_str(WAT).unwrap();
    let mut offsets = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload.unwrap() {
            let mut ops = body.get_operators_reader().unwrap();
            while !ops.eof() {
                let (op, offset) = ops.read_with_offset().unwrap();
                use wasmparser::Operator::{BrIf, BrTable, If};
                if matches!(op, If { .. } | BrIf { .. } | BrTable { .. }) {
                    offsets.push(offset as u32);
                }
            }
        }
    }
    offsets
}

fn set_bytes(map: &[u8]) -> BTreeSet<usize> {
    assert_eq!(map.len(), EDGE_MAP_BYTES);
    assert!(map.iter().all(|b| *b <= 1), "only 0 or 1");
    (0..map.len()).filter(|&i| map[i] == 1).collect()
}

#[test]
fn each_branch_marks_the_outcome_it_took_and_nothing_else() {
    let [if_at, br_if_at, table_at, dispatch_at] = branch_offsets()[..] else { panic!("four branches") };
    let code = load(true);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).expect("instantiates");
    assert!(set_bytes(instance.edges_ran().unwrap()).is_empty(), "zeroed at instantiation");
    let mut expected = BTreeSet::new();
    let mut call = |name: &str, arg: i32, result: i32, outcomes: &[(u32, u32)]| {
        assert_eq!(instance.call(name, &[Val::I32(arg)]).unwrap(), Run::Returned(vec![Val::I32(result)]));
        expected.extend(outcomes.iter().map(|&(at, outcome)| edge_byte(at, outcome)));
        assert_eq!(set_bytes(instance.edges_ran().unwrap()), expected, "after {name}({arg})");
    };
    call("sign", -5, -1, &[(if_at, 1)]);
    call("sign", 0, 0, &[(if_at, 0), (br_if_at, 1)]);
    call("sign", 3, 1, &[(if_at, 0), (br_if_at, 0)]);
    call("pick", 1, 11, &[(table_at, 1)]);
    call("pick", 70, 13, &[(table_at, 3)]);
    call("pick", 3, 13, &[(table_at, 3)]);
    // The dispatch shape's br_table is Go's resume point: never marked.
    call("dispatch", 1, 21, &[]);
    call("dispatch", 0, 20, &[]);
    assert!(!expected.contains(&edge_byte(dispatch_at, 0)));
}

#[test]
fn the_guest_sees_nothing_and_without_the_option_there_is_no_map() {
    let mut marked = Instance::new(load(true), &Linker::<()>::new(), ()).unwrap();
    let mut plain = Instance::new(load(false), &Linker::<()>::new(), ()).unwrap();
    assert_eq!(plain.edges_ran(), None);
    for arg in [-2, 0, 9] {
        let a = marked.call("sign", &[Val::I32(arg)]).unwrap();
        assert_eq!(a, plain.call("sign", &[Val::I32(arg)]).unwrap());
    }
    assert_eq!(marked.global_get(0), plain.global_get(0));
    assert_eq!(marked.functions_ran().unwrap(), &[1, 0, 0], "the function bitmap still works beside it");
}

#[test]
fn the_option_is_in_the_cache_key_and_needs_the_function_bitmap() {
    let base = CompileConfig { function_bitmap: true, ..CompileConfig::default() };
    let on = CompileConfig { edge_bitmap: true, ..base };
    let pair = |c: &CompileConfig| c.key_material().into_iter().find(|(name, _)| *name == "edge_bitmap");
    assert_eq!(pair(&base), Some(("edge_bitmap", "off".to_string())));
    assert_eq!(pair(&on), Some(("edge_bitmap", "on".to_string())));
    let wasm = wat::parse_str(WAT).unwrap();
    assert_ne!(compile(&wasm, &base).unwrap().code, compile(&wasm, &on).unwrap().code);
    let alone = CompileConfig { function_bitmap: false, ..on };
    let err = compile(&wasm, &alone).unwrap_err().to_string();
    assert!(err.contains("an edge map without a function bitmap"), "{err}");
}
