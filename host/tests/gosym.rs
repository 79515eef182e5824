//! The pclntab reader on a real Go wasip1 binary (`tests/gosym/main.go`):
//! Go's names for wasm functions, whose name section mangles them, and the
//! file and line of a function's entry and of its calls.

use seedfall_engine::module::{ConstOp, parse};
use seedfall_host::gosym::{GoSymbols, pc};
use std::path::Path;
use std::process::Command;

/// The program built with -trimpath, and its memory image.
fn build() -> (seedfall_engine::module::ModuleInfo, Vec<u8>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gosym");
    let out = std::env::temp_dir().join(format!("seedfall-gosym-{}.wasm", std::process::id()));
    let status = Command::new("go")
        .args(["build", "-trimpath", "-o"])
        .arg(&out)
        .arg(".")
        .current_dir(&dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .expect("the `go` command is needed for this test");
    assert!(status.success());
    let wasm = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let info = parse(&wasm).unwrap().info;
    let mut memory = Vec::new();
    for segment in &info.data {
        let Some([ConstOp::I32(offset)]) = segment.offset.as_ref().map(|o| o.ops()) else { continue };
        let (start, bytes) = (*offset as u32 as usize, &segment.bytes[..]);
        if memory.len() < start + bytes.len() {
            memory.resize(start + bytes.len(), 0);
        }
        memory[start..start + bytes.len()].copy_from_slice(bytes);
    }
    (info, memory)
}

/// The defined index of the function the name section calls `name`.
fn defined(info: &seedfall_engine::module::ModuleInfo, name: &str) -> u32 {
    let index = info.func_names.iter().position(|n| n.as_deref() == Some(name)).expect(name) as u32;
    index - info.num_imported_funcs
}

#[test]
fn go_names_and_lines_of_wasm_functions() {
    let (info, memory) = build();
    let symbols = GoSymbols::from_memory(&memory).expect("a Go module has a pclntab");

    // The name section's `main.__Bank_.Transfer` is Go's `main.(*Bank).Transfer`.
    let transfer = defined(&info, "main.__Bank_.Transfer");
    assert_eq!(symbols.function_name(transfer), Some("main.(*Bank).Transfer"));
    assert_eq!(symbols.function_name(defined(&info, "fmt.__fmt_.fmtQ")), Some("fmt.(*fmt).fmtQ"));
    let entry = symbols.function_location(transfer).unwrap();
    assert_eq!(entry.file, "example.com/gosym/main.go");
    // A leaf without a stack check begins at its first statement (Go's tracebacks say the same).
    assert_eq!(entry.line, 10);
    assert_eq!(entry.to_string(), "main.(*Bank).Transfer, main.go:10");

    // Every Go function of the module has its name (the name section agrees where nothing is mangled).
    for (index, name) in info.func_names.iter().enumerate().skip(info.num_imported_funcs as usize) {
        let go = symbols.function_name(index as u32 - info.num_imported_funcs);
        if let Some(name) = name.as_deref().filter(|n| !n.contains('_') && n.contains('.')) {
            assert_eq!(go, Some(name));
        }
    }

    // main.main's resume points: its entry, the call of Transfer (line 16), its end; code
    // inlined from fmt.Printf keeps fmt's file and line under main.main's name.
    let main = defined(&info, "main.main");
    let places: Vec<(&str, u32)> = (0..64)
        .filter_map(|b| symbols.location(pc(main, b)))
        .map(|l| (l.file.rsplit('/').next().unwrap(), l.line))
        .collect();
    assert_eq!(places[0], ("main.go", 14));
    assert!(places.contains(&("main.go", 16)) && places.contains(&("main.go", 17)), "{places:?}");
    assert!(places.iter().all(|&(file, line)| file == "print.go" || (14..=17).contains(&line)), "{places:?}");
    assert!(places.iter().any(|&(file, _)| file == "print.go"), "{places:?}");

    // Not Go code, not a Go module.
    assert_eq!(symbols.function_name(u32::MAX - 0x1000), None);
    assert!(GoSymbols::from_memory(&[0u8; 4096]).is_none());
    assert!(GoSymbols::from_memory(&memory[..memory.len() / 64]).is_none());
}
