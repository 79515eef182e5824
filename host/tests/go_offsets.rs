//! The preemption offsets table agrees with the `go_asm.h` that the local Go
//! toolchain generates for the wasip1 runtime, and the Go version is found in
//! a real binary.

use seedfall_host::preempt::goruntime::{self, GoOffsets};
use std::collections::BTreeMap;
use std::process::Command;

/// Go releases whose offsets are checked besides the local toolchain: cmd/go
/// downloads them through the module proxy (GOTOOLCHAIN), about 70 MB each.
const OTHER_TOOLCHAINS: &[&str] = &["go1.25.12", "go1.27.3"];

/// `go` with `toolchain` ("local" or a release like "go1.27.3"), for wasip1.
fn go(toolchain: &str, args: &[&str]) -> std::process::Output {
    Command::new("go")
        .args(args)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .env("GOTOOLCHAIN", toolchain)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("the `go` command is needed for this test")
}

/// `#define NAME VALUE` lines of the runtime's go_asm.h built by `toolchain`.
fn go_asm_defines(toolchain: &str) -> BTreeMap<String, u64> {
    let out = go(toolchain, &["build", "-a", "-work", "runtime"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let work = stderr.lines().find_map(|l| l.strip_prefix("WORK=")).expect("go build -work prints WORK=");
    let mut defines = BTreeMap::new();
    for entry in walk(std::path::Path::new(work)) {
        if entry.file_name().is_some_and(|n| n == "go_asm.h") {
            let text = std::fs::read_to_string(&entry).unwrap();
            if !text.contains("g_stackguard0") {
                continue;
            }
            for line in text.lines() {
                let parts: Vec<&str> = line.split_whitespace().collect();
                if let ["#define", name, value] = parts[..]
                    && let Ok(v) = value.parse()
                {
                    defines.insert(name.to_string(), v);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(work);
    defines
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn offsets_match_the_go_runtimes_we_support() {
    for toolchain in std::iter::once("local").chain(OTHER_TOOLCHAINS.iter().copied()) {
        let out = go(toolchain, &["env", "GOVERSION"]);
        assert!(out.status.success(), "{toolchain}: {}", String::from_utf8_lossy(&out.stderr));
        check_offsets(String::from_utf8(out.stdout).unwrap().trim(), &go_asm_defines(toolchain));
    }
}

fn check_offsets(version: &str, d: &BTreeMap<String, u64>) {
    let offsets = goruntime::offsets_for(version).expect("a supported Go version");
    assert!(!d.is_empty(), "found go_asm.h for {version}");
    let from_go = GoOffsets {
        g_stackguard0: d["g_stackguard0"] as u32,
        g_m: d["g_m"] as u32,
        g_atomicstatus: d["g_atomicstatus"] as u32,
        g_preempt: d["g_preempt"] as u32,
        m_g0: d["m_g0"] as u32,
        m_curg: d["m_curg"] as u32,
        g_goid: d["g_goid"] as u32,
    };
    assert_eq!(offsets, from_go, "{version}");
    assert_eq!(d["const_stackPreempt"], 0xFFFF_FFFF_FFFF_FADE);
}

#[test]
fn the_go_version_is_read_from_a_real_binary() {
    let dir = std::env::temp_dir().join(format!("seedfall-goversion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.go"), "package main\nfunc main() { println(\"hi\") }\n").unwrap();
    std::fs::write(dir.join("go.mod"), "module hi\ngo 1.26\n").unwrap();
    let wasm = dir.join("hi.wasm");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&wasm)
        .arg(".")
        .current_dir(&dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&wasm).unwrap();
    let info = seedfall_engine::module::parse(&bytes).unwrap().info;
    let version = String::from_utf8(Command::new("go").args(["env", "GOVERSION"]).output().unwrap().stdout).unwrap();
    assert_eq!(goruntime::go_version(&info).as_deref(), Some(version.trim()));
    let _ = std::fs::remove_dir_all(&dir);
}
