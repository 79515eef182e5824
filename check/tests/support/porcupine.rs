//! Test support, not part of the crate: finds Porcupine v1.3.1's test data in the Go module cache and parses
//! its two log formats into seedfall histories, with the meaning Porcupine's own tests give them
//! (`porcupine_test.go`: `parseJepsenLog`, `parseKvLog`). Each line of a log is one event; its line number is
//! its time, so only the order of events matters, as in Porcupine's `CheckEvents`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use seedfall_check::{Op, Output};

const MODULE: &str = "github.com/anishathalye/porcupine@v1.3.1";

/// The module's directory, downloading it through the Go module proxy if the cache lacks it.
pub fn module_dir() -> PathBuf {
    let out = Command::new("go").args(["env", "GOMODCACHE"]).output().expect("run `go env GOMODCACHE`");
    assert!(out.status.success(), "go env GOMODCACHE failed");
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join(MODULE);
    if !dir.join("test_data").is_dir() {
        // Outside any module, `go mod download path@version` only fills the cache.
        let status = Command::new("go")
            .args(["mod", "download", MODULE])
            .current_dir(std::env::temp_dir())
            .status()
            .expect("run `go mod download`");
        assert!(status.success(), "go mod download {MODULE} failed");
    }
    dir
}

/// The files of `test_data/<sub>`, sorted by name.
pub fn files(sub: &str, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(module_dir().join("test_data").join(sub))
        .expect("read porcupine test_data")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

/// Pending invocations by process: the index of their `Op` in the history.
type Pending = BTreeMap<u32, usize>;

fn complete(history: &mut [Op], pending: &mut Pending, process: u32, at: u64, output: Option<Output>) {
    let i = pending.remove(&process).unwrap_or_else(|| panic!("line {at}: process {process} completes nothing"));
    history[i].complete_ns = Some(at);
    history[i].output = output;
}

fn invoke(history: &mut Vec<Op>, pending: &mut Pending, process: u32, at: u64, key: Option<&str>, input: String) {
    pending.insert(process, history.len());
    history.push(Op {
        client: process,
        key: key.map(str::to_owned),
        input,
        output: None,
        invoke_ns: at,
        complete_ns: None,
    });
}

/// A Jepsen etcd log (`test_data/jepsen/etcd_NNN.log`) as a `cas-register` history. `:info` operations
/// (timed out) stay indeterminate, as Porcupine returns them at the end with an unknown output; a `:fail`ed
/// cas returned `fail`; a read that failed with `:timed-out` is indeterminate too, which the checker drops
/// (it constrains nothing, as Porcupine's comment says).
pub fn etcd_log(path: &std::path::Path) -> Vec<Op> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut history = Vec::new();
    let mut pending = Pending::new();
    for (at, line) in text.lines().enumerate() {
        let at = at as u64;
        let Some(event) = line.strip_prefix("INFO  jepsen.util - ") else { continue };
        // Tabs in most files, spaces in some (Porcupine's regular expressions take any white space).
        let fields: Vec<&str> = event.split_whitespace().collect();
        let [process, kind, f, ref value @ ..] = fields[..] else { panic!("line {at}: {line:?}") };
        let value = &value.join(" ");
        let process: u32 = process.trim().parse().unwrap();
        match (kind, f) {
            (":invoke", ":read") => invoke(&mut history, &mut pending, process, at, None, "read".into()),
            (":invoke", ":write") => invoke(&mut history, &mut pending, process, at, None, format!("write {value}")),
            (":invoke", ":cas") => {
                invoke(&mut history, &mut pending, process, at, None, format!("cas {}", value.trim_matches(['[', ']'])))
            }
            (":ok", ":read") => {
                let output = if value == "nil" { Output::Missing } else { Output::Value(value.into()) };
                complete(&mut history, &mut pending, process, at, Some(output));
            }
            (":ok", ":write") => complete(&mut history, &mut pending, process, at, None),
            (":ok", ":cas") => complete(&mut history, &mut pending, process, at, Some(Output::Value("ok".into()))),
            (":fail", ":cas") => complete(&mut history, &mut pending, process, at, Some(Output::Value("fail".into()))),
            // Left indeterminate; an indeterminate read is one the checker drops.
            (":info", _) | (":fail", ":read") => {
                pending.remove(&process);
            }
            _ => panic!("{}: line {at}: unexpected event {event:?}", path.display()),
        }
    }
    history
}

/// Porcupine's kv log (`test_data/kv/*.txt`) as a `kv` history. Porcupine's model starts every key at `""`
/// where seedfall's starts it missing; no put or append in these files writes `""`, so a get of `""` is a get
/// of a missing key.
pub fn kv_log(path: &std::path::Path) -> Vec<Op> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut history = Vec::new();
    let mut pending = Pending::new();
    for (at, line) in text.lines().enumerate() {
        let at = at as u64;
        let field = |name: &str| {
            let start =
                line.find(&format!(":{name} ")).unwrap_or_else(|| panic!("line {at}: no :{name}")) + name.len() + 2;
            let rest = &line[start..];
            match rest.strip_prefix('"') {
                Some(quoted) => quoted[..quoted.find('"').unwrap()].to_owned(),
                None => rest[..rest.find([',', '}']).unwrap()].to_owned(),
            }
        };
        let process: u32 = field("process").parse().unwrap();
        let (kind, f, key, value) = (field("type"), field("f"), field("key"), field("value"));
        assert!(f == ":get" || !value.is_empty(), "line {at}: a write of \"\"");
        match (kind.as_str(), f.as_str()) {
            (":invoke", ":get") => invoke(&mut history, &mut pending, process, at, Some(&key), "get".into()),
            (":invoke", ":put") => invoke(&mut history, &mut pending, process, at, Some(&key), format!("put {value}")),
            (":invoke", ":append") => {
                invoke(&mut history, &mut pending, process, at, Some(&key), format!("append {value}"))
            }
            (":ok", ":get") => {
                let output = if value.is_empty() { Output::Missing } else { Output::Value(value) };
                complete(&mut history, &mut pending, process, at, Some(output));
            }
            (":ok", _) => complete(&mut history, &mut pending, process, at, None),
            _ => panic!("{}: line {at}: unexpected event {line:?}", path.display()),
        }
    }
    history
}
