//! Helpers shared by the instrumentation tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use wasm_encoder::reencode::{Reencode, utils};
use wasmparser::{KnownCustom, Name, Parser, Payload, Validator, WasmFeatures};

pub fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("seedfall-instrument-{}-{name}", std::process::id()))
}

/// Validates with `WasmFeatures::LIME1` (the engine's feature set), panicking with the error.
pub fn validate_lime1(wasm: &[u8]) {
    Validator::new_with_features(WasmFeatures::LIME1)
        .validate_all(wasm)
        .unwrap_or_else(|e| panic!("output does not validate under LIME1: {e}"));
}

pub fn validate_default(wasm: &[u8]) {
    Validator::new().validate_all(wasm).unwrap_or_else(|e| panic!("output does not validate: {e}"));
}

/// The `name` section's function names.
pub fn function_names(wasm: &[u8]) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for_each_name(wasm, |name| {
        if let Name::Function(map) = name {
            for n in map {
                let n = n.unwrap();
                out.insert(n.index, n.name.to_string());
            }
        }
    });
    out
}

/// The `name` section's local names, per function.
pub fn local_names(wasm: &[u8]) -> BTreeMap<u32, BTreeMap<u32, String>> {
    indirect_names(wasm, false)
}

/// The `name` section's label names, per function.
pub fn label_names(wasm: &[u8]) -> BTreeMap<u32, BTreeMap<u32, String>> {
    indirect_names(wasm, true)
}

fn indirect_names(wasm: &[u8], labels: bool) -> BTreeMap<u32, BTreeMap<u32, String>> {
    let mut out = BTreeMap::new();
    for_each_name(wasm, |name| {
        let map = match (name, labels) {
            (Name::Local(map), false) | (Name::Label(map), true) => map,
            _ => return,
        };
        for f in map {
            let f = f.unwrap();
            let mut inner = BTreeMap::new();
            for n in f.names {
                let n = n.unwrap();
                inner.insert(n.index, n.name.to_string());
            }
            out.insert(f.index, inner);
        }
    });
    out
}

fn for_each_name(wasm: &[u8], mut f: impl FnMut(Name<'_>)) {
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::CustomSection(c) = payload.unwrap()
            && let KnownCustom::Name(reader) = c.as_known()
        {
            for sub in reader {
                f(sub.unwrap());
            }
        }
    }
}

/// Number of function imports.
pub fn func_imports(wasm: &[u8]) -> u32 {
    let mut n = 0;
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::ImportSection(r) = payload.unwrap() {
            for i in r.into_imports() {
                if matches!(i.unwrap().ty, wasmparser::TypeRef::Func(_)) {
                    n += 1;
                }
            }
        }
    }
    n
}

/// A copy of `wasm` that also exports global `global` as `name` (the instrumented module keeps the
/// counter private; tests export it so a hook written in Python can re-arm it).
pub fn export_global(wasm: &[u8], global: u32, name: &str) -> Vec<u8> {
    struct AddExport<'a> {
        global: u32,
        name: &'a str,
    }
    impl Reencode for AddExport<'_> {
        type Error = std::convert::Infallible;
        fn parse_export_section(
            &mut self,
            exports: &mut wasm_encoder::ExportSection,
            section: wasmparser::ExportSectionReader<'_>,
        ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
            utils::parse_export_section(self, exports, section)?;
            exports.export(self.name, wasm_encoder::ExportKind::Global, self.global);
            Ok(())
        }
    }
    let mut module = wasm_encoder::Module::new();
    AddExport { global, name }.parse_core_module(&mut module, Parser::new(0), wasm).unwrap();
    module.finish()
}

/// Runs `python3 -c script args...` and returns stdout. Fails (does not skip) when python3 or its
/// `wasmtime` package is missing.
pub fn python(script: &str, args: &[&str]) -> String {
    let probe = Command::new("python3")
        .args(["-c", "import wasmtime"])
        .output()
        .unwrap_or_else(|e| panic!("these tests need python3 with the wasmtime package: {e}"));
    assert!(
        probe.status.success(),
        "these tests need the Python `wasmtime` package (pip install wasmtime): {}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let out = Command::new("python3").arg("-c").arg(script).args(args).output().expect("run python3");
    assert!(
        out.status.success(),
        "python3 failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
