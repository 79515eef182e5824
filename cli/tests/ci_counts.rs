//! ci/counts.sh, the structure limits .ci/run enforces, on a made-up tree:
//! clean, it passes; with an import circle, a `Result<_, String>` in library
//! code or a positional host-call read, it fails and names what is over.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci-counts").join(name);
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

fn counts(root: &Path) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/counts.py");
    let out = Command::new("python3").arg(script).args(["--check", "--root"]).arg(root).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

const CLEAN: &[(&str, &str)] = &[
    ("host/src/lib.rs", "pub mod a;\npub mod b;\n"),
    ("host/src/a.rs", "pub struct A;\n"),
    ("host/src/b.rs", "use crate::a::A;\npub fn b(_: A) -> Result<(), std::io::Error> { Ok(()) }\n"),
];

#[test]
fn a_clean_tree_passes() {
    let (code, out) = counts(&tree("clean", CLEAN));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("import_circles 0") && out.contains("result_string.host 0"), "{out}");
}

#[test]
fn a_circle_a_string_error_and_a_positional_read_each_fail() {
    let mut circle = CLEAN.to_vec();
    circle[1] = ("host/src/a.rs", "use super::b::b;\npub struct A;\n");
    let (code, out) = counts(&tree("circle", &circle));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("circle: host/src/a.rs host/src/b.rs") && out.contains("import_circles (1 > 0)"), "{out}");

    let mut string_error = CLEAN.to_vec();
    string_error[1] = ("host/src/a.rs", "pub struct A;\npub fn f() -> Result<u32, String> { Ok(1) }\n");
    let (code, out) = counts(&tree("string-error", &string_error));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("result_string.host (1 > 0)"), "{out}");

    let mut positional = CLEAN.to_vec();
    positional[1] = ("host/src/a.rs", "pub struct A;\npub fn f(v: &[u64]) -> u64 { v[0] }\n");
    let (code, out) = counts(&tree("positional", &positional));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("positional_reads.host (1 > 0)"), "{out}");
}

#[test]
fn test_code_is_not_counted() {
    let mut with_tests = CLEAN.to_vec();
    with_tests[1] =
        ("host/src/a.rs", "pub struct A;\n#[cfg(test)]\nmod tests {\n    fn f() -> Result<(), String> { Ok(()) }\n}\n");
    let (code, out) = counts(&tree("test-code", &with_tests));
    assert_eq!(code, 0, "{out}");
}
