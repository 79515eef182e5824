//! Bad input never panics and always names the problem: garbage, truncated
//! modules, modules outside the feature set, corrupt Artifacts, bad links.

mod common;

use seedfall_engine::*;

fn compile_err(wasm: &[u8]) -> Error {
    compile(wasm, &CompileConfig::default()).expect_err("must be rejected")
}

#[test]
fn garbage_is_rejected_as_invalid() {
    let err = compile_err(b"this is not a wasm module at all");
    assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
    assert!(err.to_string().contains("invalid wasm module"), "{err}");
}

#[test]
fn an_empty_file_is_rejected() {
    let err = compile_err(b"");
    assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
}

#[test]
fn every_truncation_of_a_real_module_is_rejected_without_panic() {
    let wasm = wat::parse_str(
        r#"(module (memory 1) (func $f (export "f") (param i32) (result i32)
             local.get 0 i32.const 1 i32.add) (data (i32.const 0) "abc"))"#,
    )
    .unwrap();
    let mut rejected = 0;
    for len in 0..wasm.len() {
        // A cut exactly at a section boundary leaves a smaller valid module.
        match compile(&wasm[..len], &CompileConfig::default()) {
            Ok(_) => {}
            Err(Error::Invalid { .. }) => rejected += 1,
            Err(other) => panic!("truncated to {len}: {other:?}"),
        }
    }
    assert!(rejected > wasm.len() * 3 / 4, "only {rejected} of {} truncations rejected", wasm.len());
}

#[test]
fn a_feature_outside_lime1_is_named_with_its_function() {
    let wasm = wat::parse_str(
        r#"(module (func $uses_simd (export "f") (result i32)
             v128.const i64x2 1 2 i32x4.extract_lane 0))"#,
    )
    .unwrap();
    let err = compile_err(&wasm);
    let message = err.to_string();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    assert!(message.contains("SIMD"), "names the feature: {message}");
    assert!(message.contains("uses_simd"), "names the function: {message}");
}

#[test]
fn reference_types_are_rejected_as_unsupported() {
    let wasm = wat::parse_str(r#"(module (func $f (param externref)))"#).unwrap();
    let err = compile_err(&wasm);
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
}

#[test]
fn corrupt_artifacts_are_errors() {
    let wasm = wat::parse_str(r#"(module (func (export "f") (result i32) i32.const 7))"#).unwrap();
    let bytes = compile(&wasm, &CompileConfig::default()).unwrap().encode();
    for len in [0, 4, 8, 12, bytes.len() / 2, bytes.len() - 1] {
        let err = Artifact::decode(&bytes[..len]).expect_err("truncated artifact");
        assert!(matches!(err, Error::Artifact(_)), "{len}: {err:?}");
    }
    let mut wrong_version = bytes.clone();
    wrong_version[8] ^= 0xff;
    assert!(Artifact::decode(&wrong_version).unwrap_err().to_string().contains("format version"));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(Artifact::decode(&trailing).is_err());
    // Any single flipped byte either decodes to something loadable or is an error: never a panic.
    for i in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[i] ^= 0x5a;
        let _ = Artifact::decode(&flipped);
    }
}

/// Code compiled for one machine never runs on another: an artifact names its
/// target triple, and loading it elsewhere is refused naming both.
#[test]
fn an_artifact_for_another_target_is_refused() {
    let wasm = wat::parse_str(r#"(module (func (export "f") (result i32) i32.const 7))"#).unwrap();
    let mut artifact = compile(&wasm, &CompileConfig::default()).unwrap();
    assert_eq!(artifact.target, seedfall_engine::compile::target_triple());
    let elsewhere = if cfg!(target_arch = "aarch64") { "x86_64-unknown-linux-gnu" } else { "aarch64-apple-darwin" };
    artifact.target = elsewhere.to_string();
    let decoded = Artifact::decode(&artifact.encode()).unwrap();
    let err = Code::load(decoded).expect_err("another target's code");
    assert!(err.to_string().contains(elsewhere) && err.to_string().contains("this machine is"), "{err}");
}

#[test]
fn missing_and_mistyped_imports_name_the_import() {
    let code = common::load_wat(r#"(module (import "env" "tick" (func (param i32))))"#, TrapMode::Signals);
    let err = Instance::new(code.clone(), &Linker::<()>::new(), ()).err().expect("missing import");
    assert!(err.to_string().contains("env.tick") && err.to_string().contains("unknown import"), "{err}");
    let mut linker = Linker::<()>::new();
    linker.func("env", "tick", &[ValType::I64], &[], |_, _| Ok(()));
    let err = Instance::new(code, &linker, ()).err().expect("mistyped import");
    assert!(err.to_string().contains("incompatible import type"), "{err}");
}

#[test]
fn calling_what_is_not_there_is_an_error() {
    let code = common::load_wat(r#"(module (func (export "f") (param i32)))"#, TrapMode::Signals);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    assert!(instance.call("nope", &[]).is_err());
    assert!(instance.call("f", &[Val::I64(1)]).is_err(), "wrong argument type");
    assert!(instance.resume(0).is_err(), "nothing suspended");
}

/// Issue 19: a table of 2^32-1 or 3·10^8 entries used to be allocated in full
/// at instantiation (7 GB and more: the host aborted). Now it is named at
/// compile time, and a table made any other way (a decoded Artifact, an
/// embedder) fails at `Table::new` before allocating.
#[test]
fn issue_19_a_huge_table_is_an_error_not_an_allocation_abort() {
    let started = std::time::Instant::now();
    for entries in [u32::MAX as u64, 300_000_000] {
        let wasm = wat::parse_str(format!("(module (table {entries} funcref))")).unwrap();
        let err = compile_err(&wasm);
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
        assert!(err.to_string().contains(&format!("a table of {entries} entries")), "{err}");
        let err = seedfall_engine::runtime::table::Table::new(entries, None).err().expect("too large");
        assert!(err.to_string().contains("exceeds the limit"), "{err}");
    }
    // The limit itself is allowed (96 MiB, freed at once).
    let table = seedfall_engine::runtime::table::Table::new(seedfall_engine::runtime::table::MAX_ENTRIES, None);
    assert_eq!(table.map(|t| t.len() as u64).ok(), Some(seedfall_engine::runtime::table::MAX_ENTRIES));
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

/// Issue 19: the embedder's memory cap (`Linker::set_memory_cap_bytes`, the
/// host's per-node `memory`): `memory.grow` past it returns -1 whatever the
/// module declares, and a minimum above it is an instantiation error.
#[test]
fn issue_19_memory_grow_fails_past_the_linkers_cap() {
    let code = common::load_wat(
        r#"(module (memory (export "memory") 1 65536)
             (func (export "grow") (param i32) (result i32) local.get 0 memory.grow))"#,
        TrapMode::Signals,
    );
    let mut linker = Linker::<()>::new();
    linker.set_memory_cap_bytes(4 * 65536);
    let mut instance = Instance::new(code.clone(), &linker, ()).unwrap();
    assert_eq!(instance.call("grow", &[Val::I32(3)]).unwrap(), Run::Returned(vec![Val::I32(1)]));
    assert_eq!(instance.call("grow", &[Val::I32(1)]).unwrap(), Run::Returned(vec![Val::I32(-1)]), "past the cap");
    assert_eq!(instance.call("grow", &[Val::I32(0)]).unwrap(), Run::Returned(vec![Val::I32(4)]));
    // Without a cap the same module grows as declared.
    let mut uncapped = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    assert_eq!(uncapped.call("grow", &[Val::I32(8)]).unwrap(), Run::Returned(vec![Val::I32(1)]));

    // A huge declared minimum (4 GiB) under a smaller cap is named, not mapped.
    let big = common::load_wat(r#"(module (memory 65536))"#, TrapMode::Signals);
    let mut linker = Linker::<()>::new();
    linker.set_memory_cap_bytes(2 << 30);
    let err = Instance::new(big, &linker, ()).err().expect("minimum above the cap");
    assert!(err.to_string().contains("exceeds the memory cap of 2147483648 bytes"), "{err}");
}
