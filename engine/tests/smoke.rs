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
