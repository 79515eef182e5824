//! Prints the operators of the functions whose name contains PATTERN, for reading what the Go
//! compiler (or the pass) emitted: `cargo run -p seedfall-instrument --example dump -- FILE PATTERN`.
//! A debugging aid only: no WAT syntax, one `Operator` per line in wasmparser's Debug form.

use std::collections::BTreeMap;

use wasmparser::{KnownCustom, Name, Parser, Payload, TypeRef};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, pattern) = match &args[..] {
        [_, file, pattern] => (file, pattern),
        _ => {
            eprintln!("usage: dump FILE PATTERN");
            std::process::exit(2);
        }
    };
    let wasm = std::fs::read(file).expect("read FILE");
    let mut imports = 0u32;
    let mut names = BTreeMap::new();
    let mut bodies = Vec::new();
    for payload in Parser::new(0).parse_all(&wasm) {
        match payload.expect("well-formed wasm") {
            Payload::ImportSection(r) => {
                for i in r.into_imports() {
                    if matches!(i.expect("import").ty, TypeRef::Func(_)) {
                        imports += 1;
                    }
                }
            }
            Payload::CodeSectionEntry(body) => bodies.push(body),
            Payload::CustomSection(c) => {
                if let KnownCustom::Name(n) = c.as_known() {
                    for sub in n {
                        if let Ok(Name::Function(map)) = sub {
                            for naming in map.into_iter().flatten() {
                                names.insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for (i, body) in bodies.iter().enumerate() {
        let index = imports + i as u32;
        let name = names.get(&index).map_or("?", String::as_str);
        if !name.contains(pattern.as_str()) {
            continue;
        }
        println!("func {index} (defined {i}) {name}");
        let mut ops = body.get_operators_reader().expect("body");
        while !ops.eof() {
            println!("  {:?}", ops.read().expect("operator"));
        }
    }
}
