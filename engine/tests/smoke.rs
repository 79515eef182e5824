//! Small hand-written modules through the whole pipeline, in both trap modes.

use seedfall_engine::*;
use std::sync::Arc;

fn load(wat: &str, mode: TrapMode) -> Arc<Code> {
    let wasm = wat::parse_str(wat).expect("valid wat");
    let config = CompileConfig { trap_mode: mode, verify: true, ..CompileConfig::default() };
    let artifact = compile(&wasm, &config).expect("compiles");
    let artifact = Artifact::decode(&artifact.encode()).expect("round trip");
    Arc::new(Code::load(artifact).expect("loads"))
}

#[test]
fn arithmetic_and_control() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let code = load(
            r#"(module
              (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
              (func $fac (export "fac") (param i64) (result i64)
                local.get 0 i64.eqz
                if (result i64) i64.const 1
                else local.get 0 local.get 0 i64.const 1 i64.sub call $fac i64.mul end)
              (func (export "div") (param i32 i32) (result i32) local.get 0 local.get 1 i32.div_s))"#,
            mode,
        );
        let mut instance = Instance::new(code, &Linker::<()>::new(), ()).expect("instantiates");
        assert_eq!(instance.call("add", &[Val::I32(2), Val::I32(40)]).unwrap(), Run::Returned(vec![Val::I32(42)]));
        assert_eq!(instance.call("fac", &[Val::I64(10)]).unwrap(), Run::Returned(vec![Val::I64(3628800)]));
        match instance.call("div", &[Val::I32(1), Val::I32(0)]).unwrap() {
            Run::Trapped(trap) => assert_eq!(trap.kind, TrapKind::IntegerDivideByZero, "{mode:?}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(instance.call("add", &[Val::I32(1), Val::I32(1)]).unwrap(), Run::Returned(vec![Val::I32(2)]));
    }
}

#[test]
fn code_mapped_in_place_from_a_file_runs_like_copied_code() {
    let wasm = wat::parse_str(
        r#"(module
          (func $inc (param i32) (result i32) local.get 0 i32.const 1 i32.add)
          (func (export "twice") (param i32) (result i32) local.get 0 call $inc call $inc))"#,
    )
    .unwrap();
    let artifact = compile(&wasm, &CompileConfig::default()).unwrap();
    // A file with an 88-byte header before the Artifact, like a cache entry.
    let prefix = vec![7u8; 88];
    let encoded = artifact.encode_at(prefix.len());
    let path = std::env::temp_dir().join(format!("seedfall-mapped-{}.bin", std::process::id()));
    std::fs::write(&path, [prefix.as_slice(), &encoded].concat()).unwrap();
    let (meta, code_range) = Artifact::decode_split(&encoded).unwrap();
    assert_eq!((prefix.len() + code_range.start) % seedfall_engine::artifact::CODE_ALIGNMENT, 0);
    let file = std::fs::File::open(&path).unwrap();
    let offset = (prefix.len() + code_range.start) as u64;
    let code = &encoded[code_range.clone()];
    // SAFETY: the file was just written with this Artifact, `code` is its bytes
    // at `offset`, and the file is not modified.
    let mapped = unsafe { Code::load_file(meta, &file, offset, code) }.unwrap();
    let copied = Code::load(artifact).unwrap();
    assert_eq!(mapped.code_bytes(), copied.code_bytes(), "compiled code is linked position-independently");
    for code in [mapped, copied] {
        let mut instance = Instance::new(std::sync::Arc::new(code), &Linker::<()>::new(), ()).unwrap();
        assert_eq!(instance.call("twice", &[Val::I32(40)]).unwrap(), Run::Returned(vec![Val::I32(42)]));
    }
    let _ = std::fs::remove_file(&path);
}
