//! The pass on a real Go program (GOOS=wasip1, built with the machine's `go`): the output
//! validates, names stay right, and Python `wasmtime` runs it with the same output.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::*;
use seedfall_instrument::{Config, Error, instrument};

const HELLO: &str = r#"package main

import (
	"fmt"
	"os"
)

//go:noinline
func step(x int) int {
	var buf [16]int
	buf[x%16] = x
	return buf[x%16]*3 + 1
}

// Frameless: Go gives it no stack check, the pass gives it the entry check.
//go:noinline
func mix(x int) int { return x*7 + 1 }

func main() {
	x := 0
	for i := 0; i < 1000; i++ {
		x = mix(step(x)) % 1000003
	}
	fmt.Println("hello from go", x, len(os.Args))
}
"#;

/// Built once for all the tests of this file: they run in parallel, and one
/// build directory removed by one test under another's feet fails it.
fn build_hello() -> Vec<u8> {
    static WASM: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    WASM.get_or_init(build_hello_once).clone()
}

fn build_hello_once() -> Vec<u8> {
    let dir = tmp("gohello");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.go"), HELLO).unwrap();
    std::fs::write(dir.join("go.mod"), "module hello\n\ngo 1.21\n").unwrap();
    let out = dir.join("hello.wasm");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&out)
        .arg(".")
        .current_dir(&dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .env("GOTOOLCHAIN", "local")
        .status()
        .unwrap_or_else(|e| panic!("this test needs the `go` toolchain on PATH: {e}"));
    assert!(status.success(), "go build failed: {status}");
    let wasm = std::fs::read(&out).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    wasm
}

/// Runs a wasip1 command module's `_start` under Python wasmtime with stdout captured. The hook
/// counts its calls and, when the module exports "counter", re-arms it to argv[3].
const RUN_WASI: &str = r#"
import sys, json, wasmtime as w
path, stdout_path, rearm = sys.argv[1], sys.argv[2], int(sys.argv[3])
engine = w.Engine()
store = w.Store(engine)
module = w.Module.from_file(engine, path)
linker = w.Linker(engine)
linker.define_wasi()
wasi = w.WasiConfig()
wasi.argv = ["hello"]
wasi.stdout_file = stdout_path
store.set_wasi(wasi)
hook = [0]
def preempt(caller):
    hook[0] += 1
    counter = caller.get("counter")
    if counter is not None:
        counter.set_value(caller, w.Val.i64(rearm))
linker.define_func("seedfall", "preempt", w.FuncType([], []), preempt, access_caller=True)
inst = linker.instantiate(store, module)
code = 0
try:
    inst.exports(store)["_start"](store)
except w.ExitTrap as e:
    code = e.code
print(json.dumps({"code": code, "hook": hook[0]}))
"#;

fn run_wasi(wasm: &[u8], name: &str, rearm: i64) -> (String, String) {
    let path: PathBuf = tmp(name);
    let stdout = tmp(&format!("{name}.stdout"));
    std::fs::write(&path, wasm).unwrap();
    let report = python(RUN_WASI, &[path.to_str().unwrap(), stdout.to_str().unwrap(), &rearm.to_string()]);
    let printed = std::fs::read_to_string(&stdout).unwrap();
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(&stdout).ok();
    (printed, report)
}

#[test]
fn go_hello_world() {
    let wasm = build_hello();
    validate_lime1(&wasm);
    let names = function_names(&wasm);
    let nfi = func_imports(&wasm);
    let main_main = *names.iter().find(|(_, n)| *n == "main.main").unwrap().0;

    let (original_out, original_report) = run_wasi(&wasm, "hello-orig.wasm", 0);
    assert!(original_out.starts_with("hello from go "), "{original_out:?}");
    assert!(original_report.contains("\"code\": 0"), "{original_report}");

    let mut events_by_config = [0u64; 2];
    for loops in [false, true] {
        let out = instrument(&wasm, &Config { loops, ..Config::default() }).unwrap();
        validate_lime1(&out.wasm);
        assert_eq!(out.counter_global, 8, "Go has 8 globals; the counter comes after them");
        assert_eq!(out.hook_function, nfi);
        assert!(out.entry_sites > 1000);
        assert_eq!(out.loop_sites > 0, loops);

        // Names: every function keeps its name at its shifted index.
        let new_names = function_names(&out.wasm);
        assert_eq!(new_names.len(), names.len() + 1);
        assert_eq!(new_names[&nfi], "seedfall.preempt");
        assert_eq!(new_names[&(main_main + 1)], "main.main");
        for (&i, n) in &names {
            assert_eq!(&new_names[&(if i < nfi { i } else { i + 1 })], n);
        }

        // Go's build info and other data segments and custom sections are untouched.
        let data = |w: &[u8]| -> Vec<Vec<u8>> {
            wasmparser::Parser::new(0)
                .parse_all(w)
                .filter_map(|p| match p.unwrap() {
                    wasmparser::Payload::DataSection(r) => {
                        Some(r.into_iter().map(|d| d.unwrap().data.to_vec()).collect::<Vec<_>>())
                    }
                    _ => None,
                })
                .flatten()
                .collect()
        };
        assert!(data(&out.wasm) == data(&wasm), "data segments changed");
        let customs = |w: &[u8]| -> Vec<(String, Vec<u8>)> {
            wasmparser::Parser::new(0)
                .parse_all(w)
                .filter_map(|p| match p.unwrap() {
                    wasmparser::Payload::CustomSection(c) if c.name() != "name" => {
                        Some((c.name().to_string(), c.data().to_vec()))
                    }
                    _ => None,
                })
                .collect()
        };
        assert_eq!(customs(&out.wasm), customs(&wasm));
        assert!(customs(&wasm).iter().any(|(n, _)| n == "go:buildid"));

        // Runs unchanged under wasmtime; the hook re-arms the (test-exported) counter. With
        // re-arm 1 the hook runs at every counted event, so it counts them all (E). With re-arm
        // 100 it runs at events 1, 101, 201, ... Go seeds its hashes from random_get, so E varies
        // by a few events between runs: allow a little slack.
        let exported = export_global(&out.wasm, out.counter_global, "counter");
        let mut hooks = [0u64; 2];
        for (k, rearm) in [1i64, 100].into_iter().enumerate() {
            let (printed, report) = run_wasi(&exported, &format!("hello-{loops}-{rearm}.wasm"), rearm);
            assert_eq!(printed, original_out, "loops={loops}");
            assert!(report.contains("\"code\": 0"), "{report}");
            hooks[k] = report.split("\"hook\": ").nth(1).unwrap().trim_end().trim_end_matches('}').parse().unwrap();
        }
        let [events, every_100] = hooks;
        eprintln!("go hello loops={loops}: {events} counted events, {every_100} hook calls with re-arm 100");
        assert!(events > 1000, "main calls step 1000 times: {events}");
        let expected = 1 + (events - 1) / 100;
        // The two counts come from two runs, and wasmtime seeds Go's hash
        // functions with real randomness, so the event count differs a little
        // between them: allow 5%.
        assert!(
            every_100.abs_diff(expected) <= expected / 20 + 2,
            "loops={loops}: {every_100} hook calls with re-arm 100, expected about {expected}"
        );
        events_by_config[usize::from(loops)] = events;
    }
    assert!(events_by_config[1] > events_by_config[0] + 1000, "loop heads are counted too: {events_by_config:?}");

    // A truncated Go binary is an error naming the offset, not a panic.
    for cut in [9, wasm.len() / 3, wasm.len() / 2, wasm.len() - 1] {
        let err = instrument(&wasm[..cut], &Config::default()).unwrap_err();
        assert!(matches!(err, Error::Malformed { .. }), "cut at {cut}: {err:?}");
    }
}

/// The operators of every defined function, by name (input indices as the module has them).
fn bodies_by_name(wasm: &[u8]) -> std::collections::BTreeMap<String, (u32, Vec<String>)> {
    let names = function_names(wasm);
    let nfi = func_imports(wasm);
    let mut out = std::collections::BTreeMap::new();
    let mut defined = 0u32;
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload.unwrap() {
            let mut ops = Vec::new();
            let mut reader = body.get_operators_reader().unwrap();
            while !reader.eof() {
                ops.push(format!("{:?}", reader.read().unwrap()));
            }
            if let Some(name) = names.get(&(nfi + defined)) {
                out.insert(name.to_string(), (defined, ops));
            }
            defined += 1;
        }
    }
    out
}

#[test]
fn entry_checks_go_only_where_the_safe_rule_allows() {
    let wasm = build_hello();
    let original = bodies_by_name(&wasm);
    let out = instrument(&wasm, &Config::default()).unwrap();
    validate_lime1(&out.wasm);
    let bodies = bodies_by_name(&out.wasm);
    let checked = |ops: &[String]| ops.iter().any(|o| o == "I32Const { value: -1314 }");
    let morestack_noctxt = bodies["runtime.morestack_noctxt"].0 + func_imports(&out.wasm);

    // Go's own prologue pushes PC_F << 16 with PC_F = 0x1000 + defined index: the check relies on it.
    let (step, step_ops) = &original["main.step"];
    assert!(step_ops.contains(&format!("I64Const {{ value: {} }}", (0x1000u64 + *step as u64) << 16)), "{step_ops:?}");

    // The frameless leaf gets the check, calling morestack_noctxt with its own entry as the PC.
    let (mix, mix_ops) = &bodies["main.mix"];
    assert!(checked(mix_ops), "{mix_ops:?}");
    assert!(mix_ops.contains(&format!("I64Const {{ value: {} }}", (0x1000u64 + *mix as u64) << 16)));
    assert!(mix_ops.contains(&format!("Call {{ function_index: {morestack_noctxt} }}")));
    // Framed functions keep Go's check only; the runtime's closure never gets one.
    assert!(!checked(&bodies["main.step"].1));
    for (name, (_, ops)) in &bodies {
        if ["runtime.", "runtime_", "internal_", "reflect."].iter().any(|p| name.starts_with(p)) {
            assert!(!checked(ops), "{name} must not be checked");
        }
    }
    assert!(out.check_sites > 10, "{}", out.check_sites);
    assert_eq!(bodies.values().filter(|(_, ops)| checked(ops)).count() as u32, out.check_sites);

    let off = instrument(&wasm, &Config { entry_checks: false, ..Config::default() }).unwrap();
    assert_eq!(off.check_sites, 0);
    assert!(!checked(&bodies_by_name(&off.wasm)["main.mix"].1));
}
