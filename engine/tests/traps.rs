//! Every trap kind, raised one after another in one process and in both trap
//! modes, each reported with the function it happened in; a panicking host
//! function becomes a trap; other instances keep running after a trap.

mod common;

use seedfall_engine::*;

const TRAPPING: &str = r#"(module
  (type $void (func))
  (type $int (func (result i32)))
  (import "host" "explode" (func $explode))
  (memory 1)
  (table 3 funcref)
  (elem (i32.const 0) $ok $wrong_type)
  (func $ok)
  (func $wrong_type (result i32) i32.const 1)
  (func $hit_unreachable (export "unreachable") unreachable)
  (func $read_past_memory (export "out_of_bounds") (result i32) (i32.load (i32.const 65534)))
  (func $store_far_away (export "out_of_bounds_offset") (i32.store offset=0xffff0000 (i32.const 0x10000) (i32.const 1)))
  (func $divide_by_zero (export "divide_by_zero") (result i32) (i32.div_u (i32.const 1) (i32.const 0)))
  (func $remainder_by_zero (export "remainder_by_zero") (result i64) (i64.rem_s (i64.const 1) (i64.const 0)))
  (func $divide_overflow (export "overflow") (result i32) (i32.div_s (i32.const 0x80000000) (i32.const -1)))
  (func $convert_nan (export "invalid_conversion") (result i32) (i32.trunc_f32_s (f32.const nan)))
  (func $convert_huge (export "conversion_overflow") (result i64) (i64.trunc_f64_u (f64.const 1e30)))
  (func $call_past_table (export "table_out_of_bounds") (call_indirect (type $void) (i32.const 7)))
  (func $call_null (export "null_entry") (call_indirect (type $void) (i32.const 2)))
  (func $call_wrong_type (export "bad_signature") (call_indirect (type $void) (i32.const 1)))
  (func $recurse_forever (export "stack_exhaustion") (call $recurse_forever))
  (func $big_frames (export "stack_exhaustion_big_frames") (param i64) (local f64 f64 f64 f64 f64 f64 f64 f64)
    (call $big_frames (i64.add (local.get 0) (i64.const 1))))
  (func $call_host (export "host_panic") (call $explode))
  (func (export "fine") (result i32) (call_indirect (type $void) (i32.const 0)) (i32.const 42)))"#;

fn linker() -> Linker<()> {
    let mut linker = Linker::new();
    linker.func("host", "explode", &[], &[], |_, _| panic!("deliberate host bug"));
    linker
}

fn expect_trap(instance: &mut Instance<()>, export: &str, args: &[Val], kind: TrapKind, function: &str) -> Trap {
    match instance.call(export, args).expect("call") {
        Run::Trapped(trap) => {
            assert_eq!(trap.kind, kind, "{export}: {trap}");
            assert_eq!(trap.func_name.as_deref(), Some(function), "{export}: {trap}");
            trap
        }
        other => panic!("{export}: expected a trap, got {other:?}"),
    }
}

#[test]
fn every_trap_kind_is_reported_with_its_function_in_both_modes() {
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let code = common::load_wat(TRAPPING, mode);
        let mut instance = Instance::new(code.clone(), &linker(), ()).expect("instantiate");
        let mut bystander = Instance::new(code, &linker(), ()).expect("instantiate");
        let cases: &[(&str, TrapKind, &str)] = &[
            ("unreachable", TrapKind::Unreachable, "hit_unreachable"),
            ("out_of_bounds", TrapKind::MemoryOutOfBounds, "read_past_memory"),
            ("out_of_bounds_offset", TrapKind::MemoryOutOfBounds, "store_far_away"),
            ("divide_by_zero", TrapKind::IntegerDivideByZero, "divide_by_zero"),
            ("remainder_by_zero", TrapKind::IntegerDivideByZero, "remainder_by_zero"),
            ("overflow", TrapKind::IntegerOverflow, "divide_overflow"),
            ("invalid_conversion", TrapKind::BadConversionToInteger, "convert_nan"),
            ("conversion_overflow", TrapKind::IntegerOverflow, "convert_huge"),
            ("table_out_of_bounds", TrapKind::TableOutOfBounds, "call_past_table"),
            ("null_entry", TrapKind::IndirectCallToNull, "call_null"),
            ("bad_signature", TrapKind::BadSignature, "call_wrong_type"),
            ("stack_exhaustion", TrapKind::StackOverflow, "recurse_forever"),
            ("stack_exhaustion_big_frames", TrapKind::StackOverflow, "big_frames"),
        ];
        for (export, kind, function) in cases {
            let args: &[Val] = if *export == "stack_exhaustion_big_frames" { &[Val::I64(0)] } else { &[] };
            let trap = expect_trap(&mut instance, export, args, *kind, function);
            assert!(trap.to_string().contains(function), "the message names the function: {trap}");
            // The trapped instance and its neighbour both keep working.
            assert_eq!(instance.call("fine", &[]).unwrap(), Run::Returned(vec![Val::I32(42)]), "{mode:?}");
            assert_eq!(bystander.call("fine", &[]).unwrap(), Run::Returned(vec![Val::I32(42)]), "{mode:?}");
        }
    }
}

#[test]
fn a_panicking_host_function_traps_its_instance_as_an_internal_error() {
    let code = common::load_wat(TRAPPING, TrapMode::Signals);
    let mut instance = Instance::new(code, &linker(), ()).unwrap();
    match instance.call("host_panic", &[]).unwrap() {
        Run::Trapped(trap) => {
            assert_eq!(trap.kind, TrapKind::HostError);
            assert!(trap.to_string().contains("deliberate host bug"), "{trap}");
        }
        other => panic!("expected a trap, got {other:?}"),
    }
    assert_eq!(instance.call("fine", &[]).unwrap(), Run::Returned(vec![Val::I32(42)]));
}

#[test]
fn a_busy_loop_without_calls_is_stopped_from_another_thread() {
    let code = common::load_wat(r#"(module (func $spin_forever (export "spin") (loop br 0)))"#, TrapMode::Signals);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    let interrupter = Interrupter::current();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        interrupter.interrupt();
    });
    match instance.call("spin", &[]).unwrap() {
        Run::Trapped(trap) => {
            assert_eq!(trap.kind, TrapKind::Interrupted);
            assert_eq!(trap.func_name.as_deref(), Some("spin_forever"));
        }
        other => panic!("expected an interrupt, got {other:?}"),
    }
    watchdog.join().unwrap();
    // An interrupt that arrives while no guest code runs is ignored.
    Interrupter::current().interrupt();
}

/// The byte offset of the first `i32.load` in `wasm`'s code.
fn first_i32_load(wasm: &[u8]) -> u32 {
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload.expect("parses") {
            let mut ops = body.get_operators_reader().expect("operators");
            while !ops.eof() {
                let (op, offset) = ops.read_with_offset().expect("operator");
                if matches!(op, wasmparser::Operator::I32Load { .. }) {
                    return offset as u32;
                }
            }
        }
    }
    panic!("no i32.load in the module")
}

#[test]
fn a_fault_at_a_trap_site_names_its_wasm_instruction_and_a_stack_overflow_no_instruction() {
    let load = first_i32_load(&wat::parse_str(TRAPPING).expect("valid wat"));
    let code = common::load_wat(TRAPPING, TrapMode::Signals);
    let mut instance = Instance::new(code, &linker(), ()).expect("instantiate");
    let trap = expect_trap(&mut instance, "out_of_bounds", &[], TrapKind::MemoryOutOfBounds, "read_past_memory");
    assert_eq!(trap.wasm_offset, Some(load), "{trap}");
    assert!(trap.to_string().ends_with(&format!("at wasm offset {load:#x}")), "{trap}");
    // The guard page is hit by a push or a probe, which belongs to no wasm instruction.
    let trap = expect_trap(&mut instance, "stack_exhaustion", &[], TrapKind::StackOverflow, "recurse_forever");
    assert_eq!(trap.wasm_offset, None, "{trap}");
}
