//! `seedfall mcp` driven as an agent would: the Python `mcp` client runs the
//! whole loop on kvlog (sweep through a handle, findings, shrink, inspect,
//! replay, cause, verify the fix: `mcp/session.py`), below 2 with the
//! 2025-11-25 handshake and 2.x with the stateless 2026-07-28 revision
//! (`server/discover`); the MCP inspector's command line lists the tools
//! and calls one; raw JSON-RPC lines check that a
//! malformed message, an unknown method, an unknown tool, bad arguments, a
//! bad config path and a missing handle each get an error reply while the
//! server keeps serving. Each Python client is pip-installed once into a
//! venv, and the inspector npm-installed, under the target's tmp directory
//! (network needed the first time).

// Only `example` of the shared helpers is needed here.
#[allow(dead_code)]
mod example_finding;

use example_finding::example;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

fn tmp() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).to_path_buf()
}

fn cache_dir() -> PathBuf {
    tmp().join("world-tests-cache")
}

/// kvlog's buggy and fixed configs, copied with absolute package paths into
/// a folder of their own (`name`, one per test), so this test's findings history and schedules
/// are its own (other tests sweep and shrink kvlog in place).
fn kvlog_copy(name: &str) -> PathBuf {
    let dir = tmp().join(name);
    let _ = std::fs::remove_dir_all(dir.join(".seedfall"));
    std::fs::create_dir_all(&dir).unwrap();
    let kvlog = example("kvlog").canonicalize().unwrap();
    for file in ["seedfall.json", "seedfall.fixed.json"] {
        let mut config: Value = serde_json::from_str(&std::fs::read_to_string(kvlog.join(file)).unwrap()).unwrap();
        let absolute = |node: &mut Value| {
            let pkg = node["pkg"].as_str().unwrap().to_string();
            node["pkg"] = json!(kvlog.join(pkg).display().to_string());
        };
        config["nodes"].as_array_mut().unwrap().iter_mut().for_each(absolute);
        absolute(&mut config["workload"]);
        std::fs::write(dir.join(file), serde_json::to_string_pretty(&config).unwrap()).unwrap();
    }
    dir
}

/// A venv under the target's tmp directory with the Python `mcp` package
/// `requirement`, made on first use.
fn python_with(venv: &str, requirement: &str) -> PathBuf {
    let venv = tmp().join(venv);
    let python = venv.join("bin/python");
    let has_mcp = |python: &Path| {
        Command::new(python).args(["-c", "import mcp.client.stdio"]).status().is_ok_and(|s| s.success())
    };
    if python.exists() && has_mcp(&python) {
        return python;
    }
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).status();
    assert!(made.is_ok_and(|s| s.success()), "python3 -m venv {} (python3 with venv is needed)", venv.display());
    let pip = Command::new(venv.join("bin/pip")).args(["install", "-q", requirement]).status();
    assert!(pip.is_ok_and(|s| s.success()), "pip install {requirement} into {}", venv.display());
    python
}

/// `mcp/session.py` with `python` against a fresh copy of kvlog in `dir`.
fn session(python: PathBuf, dir: &str) {
    let dir = kvlog_copy(dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/session.py");
    let started = Instant::now();
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_seedfall"))
        .arg(&dir)
        .env("SEEDFALL_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}session: {:.1}s", started.elapsed().as_secs_f64());
    assert!(out.status.success(), "session.py failed:\n{stdout}\n{stderr}");
    for tool in ["seedfall_findings", "seedfall_shrink", "seedfall_cause", "seedfall_verify"] {
        assert!(stdout.contains(&format!("\"step\": \"{tool}\"")), "{tool} ran: {stdout}");
    }
}

/// `mcp` below 2: `stdio_client`, `ClientSession`, the 2025-11-25 handshake.
#[test]
fn the_python_mcp_1_client_runs_the_whole_loop() {
    session(python_with("mcp-py1", "mcp>=1.28,<2"), "mcp-kvlog-py1");
}

/// `mcp` 2.x: `Client` probes `server/discover` and speaks 2026-07-28.
#[test]
fn the_python_mcp_2_client_runs_the_whole_loop_stateless() {
    session(python_with("mcp-py2", "mcp==2.3.0"), "mcp-kvlog-py2");
}

/// The MCP inspector's command line (what `npx @modelcontextprotocol/inspector
/// --cli` runs), npm-installed once under the target's tmp directory.
fn inspector() -> PathBuf {
    let dir = tmp().join("mcp-inspector");
    let cli = dir.join("node_modules/.bin/mcp-inspector");
    if !cli.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let npm = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
            .arg(&dir)
            .arg("@modelcontextprotocol/inspector@0.15.0")
            .status();
        assert!(
            npm.is_ok_and(|s| s.success()),
            "npm install @modelcontextprotocol/inspector (node and npm are needed)"
        );
    }
    cli
}

/// `mcp-inspector --cli seedfall mcp ARGS`: its JSON answer.
fn inspect_with(args: &[&str]) -> Value {
    let out = Command::new(inspector())
        .args(["--cli", env!("CARGO_BIN_EXE_seedfall"), "mcp"])
        .args(args)
        .env("SEEDFALL_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "inspector {args:?}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn the_mcp_inspector_lists_the_tools_and_calls_one() {
    let listed = inspect_with(&["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 8, "{listed}");
    assert!(names.contains(&"seedfall_run") && names.contains(&"seedfall_inspect"), "{names:?}");
    let schedule = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raftkv-strict.seed-1.faults.json");
    let faults = format!("faults={}", schedule.display());
    let called = inspect_with(&["--method", "tools/call", "--tool-name", "seedfall_inspect", "--tool-arg", &faults]);
    assert_eq!(called["isError"], false, "{called}");
    let lines = called["structuredContent"]["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{called}");
    assert!(lines[0].as_str().unwrap().contains("crash"), "{called}");
}

/// `seedfall mcp` on pipes, spoken to a line at a time.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_seedfall"))
            .arg("mcp")
            .current_dir(dir)
            .env("SEEDFALL_CACHE_DIR", cache_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server { child, stdin, stdout }
    }

    fn send(&mut self, line: &str) -> Value {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        self.stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: a reply that is not JSON: {reply:?}"))
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let reply = self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    fn tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.request(id, "tools/call", json!({"name": name, "arguments": arguments}))
    }
}

/// A tool error: `isError` with a message containing `says`.
fn tool_error(reply: &Value, says: &str) {
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(says), "{says:?} in {text:?}");
}

#[test]
fn bad_requests_get_error_replies_and_the_server_keeps_serving() {
    let dir = kvlog_copy("mcp-kvlog-errors");
    let mut server = Server::start(&dir);
    let init = server.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
    // A notification gets no reply: the next line read answers the ping.
    writeln!(server.stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    assert_eq!(server.request(2, "ping", json!({}))["result"], json!({}));

    let parse = server.send("{this is not json");
    assert_eq!((parse["error"]["code"].as_i64(), &parse["id"]), (Some(-32700), &Value::Null), "{parse}");
    let invalid = server.send(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#);
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let unknown_method = server.request(4, "tools/frobnicate", json!({}));
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");
    let no_name = server.request(5, "tools/call", json!({"arguments": {}}));
    assert_eq!(no_name["error"]["code"], -32602, "{no_name}");

    let unknown_tool = server.tool(6, "seedfall_frobnicate", json!({}));
    assert_eq!(
        unknown_tool["error"]["code"], -32602,
        "the spec's error for a tool that does not exist: {unknown_tool}"
    );
    assert!(unknown_tool["error"]["message"].as_str().unwrap().contains("unknown tool"), "{unknown_tool}");
    tool_error(
        &server.tool(7, "seedfall_run", json!({"config": "no/such/config.json", "seeds": "1-3"})),
        "no config file",
    );
    tool_error(&server.tool(8, "seedfall_status", json!({"handle": "run-999"})), "no sweep has handle");
    tool_error(&server.tool(9, "seedfall_status", json!({})), "\"handle\" is required");
    tool_error(&server.tool(10, "seedfall_replay", json!({"seed": "one"})), "must be a integer");
    tool_error(&server.tool(11, "seedfall_replay", json!({"seed": 1, "colour": "red"})), "unknown argument");
    tool_error(&server.tool(12, "seedfall_inspect", json!({"faults": "no-such.faults.json"})), "no-such.faults.json");
    tool_error(&server.tool(13, "seedfall_run", json!({"seeds": "9-1"})), "seeds");

    // Still serving: the tools are listed, with schemas and annotations.
    let listed = server.request(14, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 8, "{listed}");
    let findings = tools.iter().find(|t| t["name"] == "seedfall_findings").unwrap();
    assert_eq!(findings["annotations"]["readOnlyHint"], true);
    assert_eq!(findings["outputSchema"]["type"], "object");
    let empty = server.tool(15, "seedfall_findings", json!({"config": "seedfall.json"}));
    assert_eq!(empty["result"]["structuredContent"]["findings"], json!([]), "{empty}");

    // The stateless revision: discover, a request naming its revision, one naming a revision unknown here.
    let discovered = server.request(
        16,
        "server/discover",
        json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
    );
    let versions = discovered["result"]["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")), "{discovered}");
    assert_eq!(discovered["result"]["resultType"], "complete", "{discovered}");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let stateless = server.request(
        17,
        "tools/call",
        json!({"name": "seedfall_status",
        "arguments": {"handle": "run-1"}, "_meta": meta}),
    );
    assert_eq!(
        (&stateless["result"]["resultType"], &stateless["result"]["isError"]),
        (&json!("complete"), &json!(true))
    );
    let future =
        server.request(18, "tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}));
    assert_eq!(future["error"]["code"], -32022, "{future}");
    assert!(future["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2026-07-28")), "{future}");

    drop(server.stdin);
    let status = server.child.wait().unwrap();
    assert!(status.success(), "the end of stdin ends the server cleanly: {status}");
}
