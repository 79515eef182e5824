//! Property tests of what the engine and the instrumentation pass are given
//! (issue 19): valid random modules (wasm-smith, within the feature set the
//! engine supports) compile or are named unsupported, instrument, and run the
//! same instrumented as not; the same modules with bytes flipped, and their
//! compiled Artifacts with bytes flipped, are answered with an error or a
//! working result, never a panic; with the function bitmap they run the same
//! and mark every export they call. `PROPTEST_CASES` sets the number of cases.

mod common;

use arbitrary::Unstructured;
use proptest::prelude::*;
use seedfall_engine::*;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// Modules the engine is meant to take: Go's feature set (lime1) and small
/// enough to compile fast in a debug build.
fn smith_config() -> wasm_smith::Config {
    wasm_smith::Config {
        max_imports: 0,
        min_types: 1,
        min_funcs: 1,
        max_funcs: 8,
        max_instructions: 120,
        max_memories: 1,
        max_tables: 1,
        max_memory32_bytes: 16 << 20,
        max_table_elements: 1000,
        memory64_enabled: false,
        // The engine takes memory.copy and memory.fill (Go's), not the rest
        // of the proposal (memory.init, data.drop, table.copy).
        bulk_memory_enabled: false,
        reference_types_enabled: false,
        simd_enabled: false,
        relaxed_simd_enabled: false,
        threads_enabled: false,
        exceptions_enabled: false,
        gc_enabled: false,
        tail_call_enabled: false,
        custom_page_sizes_enabled: false,
        wide_arithmetic_enabled: false,
        export_everything: true,
        ..wasm_smith::Config::default()
    }
}

fn smith_module(seed: &[u8]) -> Vec<u8> {
    let mut input = Unstructured::new(seed);
    wasm_smith::Module::new(smith_config(), &mut input).expect("wasm-smith makes a module from any bytes").to_bytes()
}

/// What calling one export gave, in a form two engines' runs can be compared by.
#[derive(Debug, PartialEq)]
enum Outcome {
    Returned(Vec<Val>),
    Trapped(TrapKind),
    /// Stopped by the watchdog, the stack or the hook's budget: depends on
    /// speed and frame sizes, so it compares equal to anything.
    Inconclusive,
}

/// Calls every exported function with zero arguments, each under a 20 ms
/// watchdog; a start function that traps is an instantiation error, `None`.
fn run_exports(code: Arc<Code>, linker: &Linker<()>) -> Option<Vec<(String, Outcome)>> {
    run_exports_then(code, linker, &mut |_, _, _| {})
}

/// `run_exports`, calling `after(instance, function index, outcome)` after each call.
fn run_exports_then(
    code: Arc<Code>,
    linker: &Linker<()>,
    after: &mut dyn FnMut(&Instance<()>, u32, &Outcome),
) -> Option<Vec<(String, Outcome)>> {
    let names: Vec<String> = code.info().exports.iter().map(|e| e.name.clone()).collect();
    let (stop, stopped) = mpsc::channel::<()>();
    let interrupter = Interrupter::current();
    let watchdog = std::thread::spawn(move || {
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(Duration::from_millis(20)) {
            interrupter.interrupt();
        }
    });
    let outcomes = (|| {
        let mut instance = Instance::new(code, linker, ()).ok()?;
        let mut outcomes = Vec::new();
        for name in names {
            let Some(Extern::Func { ty, .. }) = instance.export::<()>(&name) else { continue };
            let index = instance.code().info().export(&name).expect("listed above").index;
            let args: Vec<Val> = ty.params.iter().map(|t| Val::from_slot(*t, 0)).collect();
            let outcome = match instance.call(&name, &args) {
                Ok(Run::Returned(values)) => Outcome::Returned(values),
                Ok(Run::Trapped(trap))
                    if matches!(trap.kind, TrapKind::Interrupted | TrapKind::StackOverflow | TrapKind::HostError) =>
                {
                    Outcome::Inconclusive
                }
                Ok(Run::Trapped(trap)) => Outcome::Trapped(trap.kind),
                Ok(other) => panic!("{name}: a module without imports cannot suspend: {other:?}"),
                Err(error) => panic!("{name}: calling an export is not an engine error: {error}"),
            };
            after(&instance, index, &outcome);
            outcomes.push((name, outcome));
        }
        Some(outcomes)
    })();
    drop(stop);
    watchdog.join().unwrap();
    outcomes
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    matches!(a, Outcome::Inconclusive) || matches!(b, Outcome::Inconclusive) || a == b
}

/// The hook an instrumented module imports, deciding nothing. It ends a
/// module's run after a million calls: an interrupt that lands while the
/// thread is in host code is ignored, so a loop that calls the hook all the
/// time takes the watchdog many tries, and this is quicker.
fn hook_linker() -> Linker<()> {
    let calls = std::cell::Cell::new(0u64);
    let mut linker = Linker::new();
    linker.func("seedfall", "preempt", &[], &[], move |_, _| {
        calls.set(calls.get() + 1);
        if calls.get() > 1_000_000 {
            return Err(HostError::Fail("the test's hook budget is spent".into()));
        }
        Ok(())
    });
    linker
}

fn compiled(wasm: &[u8]) -> Result<Arc<Code>> {
    Ok(Arc::new(Code::load(compile(wasm, &CompileConfig::default())?)?))
}

proptest! {
    #[test]
    fn a_valid_module_compiles_instruments_and_runs_the_same_instrumented(
        seed in proptest::collection::vec(any::<u8>(), 64..2048),
        loops in any::<bool>(),
    ) {
        let wasm = smith_module(&seed);
        let raw = match compiled(&wasm) {
            Ok(code) => code,
            // Outside what the engine supports: named, not a crash.
            Err(Error::Unsupported { .. }) => return Ok(()),
            Err(other) => panic!("a valid module is compiled or unsupported: {other}"),
        };
        let config = seedfall_instrument::Config { loops, ..Default::default() };
        let instrumented = seedfall_instrument::instrument(&wasm, &config).expect("a valid module instruments");
        let code = compiled(&instrumented.wasm).expect("what instrumentation writes compiles");
        let (Some(before), Some(after)) = (run_exports(raw, &Linker::new()), run_exports(code, &hook_linker())) else {
            return Ok(());
        };
        prop_assert_eq!(before.len(), after.len());
        for ((name, a), (_, b)) in before.iter().zip(&after) {
            prop_assert!(same(a, b), "{}: {:?} uninstrumented, {:?} instrumented", name, a, b);
        }
    }

    #[test]
    fn the_bitmaps_mark_every_export_called_and_change_no_outcome(
        seed in proptest::collection::vec(any::<u8>(), 64..2048),
    ) {
        let wasm = smith_module(&seed);
        let Ok(raw) = compiled(&wasm) else { return Ok(()) };
        // The function bitmap and the edge map (docs/edge-coverage.md) together.
        let config = CompileConfig { function_bitmap: true, edge_bitmap: true, verify: true, ..CompileConfig::default() };
        let marked = Arc::new(Code::load(compile(&wasm, &config).expect("compiles with the bitmaps too")).unwrap());
        let imported = marked.info().num_imported_funcs;
        let mut check = |instance: &Instance<()>, index: u32, outcome: &Outcome| {
            let ran = instance.functions_ran().expect("compiled with the bitmap");
            assert_eq!(ran.len(), instance.code().num_defined_functions() as usize);
            assert!(ran.iter().all(|b| *b <= 1), "{ran:?}");
            let edges = instance.edges_ran().expect("compiled with the edge map");
            assert!(edges.iter().all(|b| *b <= 1));
            // Entered for sure when it returned or trapped by itself.
            if !matches!(outcome, Outcome::Inconclusive) && index >= imported {
                assert_eq!(ran[(index - imported) as usize], 1, "export of function {index}: {outcome:?}");
            }
        };
        let (Some(before), Some(after)) = (run_exports(raw, &Linker::new()), run_exports_then(marked, &Linker::new(), &mut check)) else {
            return Ok(());
        };
        prop_assert_eq!(before.len(), after.len());
        for ((name, a), (_, b)) in before.iter().zip(&after) {
            prop_assert!(same(a, b), "{}: {:?} without the bitmap, {:?} with it", name, a, b);
        }
    }

    #[test]
    fn a_module_with_bytes_flipped_is_compiled_or_rejected(
        seed in proptest::collection::vec(any::<u8>(), 64..1024),
        flips in proptest::collection::vec((any::<usize>(), 1u8..=255), 1..8),
    ) {
        let mut wasm = smith_module(&seed);
        for (at, mask) in flips {
            let at = at % wasm.len();
            wasm[at] ^= mask;
        }
        if let Ok(code) = compiled(&wasm) {
            run_exports(code, &Linker::new());
        }
        if let Ok(instrumented) = seedfall_instrument::instrument(&wasm, &Default::default()) {
            let _ = compiled(&instrumented.wasm);
        }
    }

    #[test]
    fn an_artifact_with_bytes_flipped_is_decoded_or_rejected(
        seed in proptest::collection::vec(any::<u8>(), 64..1024),
        flips in proptest::collection::vec((any::<usize>(), 1u8..=255), 1..8),
        cut in any::<Option<usize>>(),
    ) {
        let Ok(artifact) = compile(&smith_module(&seed), &CompileConfig::default()) else { return Ok(()) };
        let mut bytes = artifact.encode();
        for (at, mask) in flips {
            let at = at % bytes.len();
            bytes[at] ^= mask;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut % (bytes.len() + 1));
        }
        // Loading may succeed: code bytes carry no checksum here (the cache
        // entry's does). Nothing is run from a corrupted artifact.
        if let Ok(decoded) = Artifact::decode(&bytes) {
            let _ = Code::load(decoded);
        }
    }
}
