//! `seedfall mcp` driven as an agent would: the Python `mcp` client runs the
//! whole loop on kvlog (a sweep, findings, shrink, inspect, replay, cause,
//! verify the fix: `mcp/session.py`), below 2 with the 2025-11-25 handshake
//! and 2.x with the stateless 2026-07-28 revision (`server/discover`); the
//! MCP inspector's command line lists the tools and calls one. Raw JSON-RPC
//! lines (`mcp/server.rs`) check what the client libraries cannot show:
//! error replies to malformed, hostile and oversized lines while the server
//! keeps serving; progress notifications; cancellation of a sweep and of a
//! cause; tasks; summaries that stay small; 20 concurrent sweeps of one
//! config; paths confined to the working directory; and the end of input
//! stopping a sweep. Each Python client is pip-installed once into a venv,
//! and the inspector npm-installed, under the target's tmp directory
//! (network needed the first time).

// Only `example` of the shared helpers is needed here.
#[allow(dead_code)]
mod example_finding;
#[path = "mcp/server.rs"]
mod server;

use example_finding::example;
use serde_json::{Value, json};
use server::{Server, structured, tool_error};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

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

#[test]
fn bad_requests_get_error_replies_and_the_server_keeps_serving() {
    let dir = kvlog_copy("mcp-kvlog-errors");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    let init = server.initialize();
    assert_eq!(init["protocolVersion"], "2025-11-25", "{init}");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    // A notification gets no reply: the next line read answers the ping.
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
    tool_error(
        &server.tool(10, "seedfall_replay", json!({"seed": "one"})),
        "seedfall_replay: \"seed\" must be a whole number (0, 1, 2, …), not \"one\"",
    );
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

    server.close();
    let status = server.child.wait().unwrap();
    assert!(status.success(), "the end of stdin ends the server cleanly: {status}");
}

#[test]
fn hostile_lines_get_parse_errors_and_the_server_goes_on() {
    let dir = kvlog_copy("mcp-kvlog-hostile");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    let parse_error = |reply: &Value| {
        assert_eq!((reply["error"]["code"].as_i64(), &reply["id"]), (Some(-32700), &Value::Null), "{reply}")
    };
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\xff\xfe}\n");
    let not_utf8 = server.next_reply();
    parse_error(&not_utf8);
    assert!(not_utf8["error"]["message"].as_str().unwrap().contains("not UTF-8"), "{not_utf8}");
    assert_eq!(server.request(2, "ping", json!({}))["result"], json!({}));

    // 64 MiB in one line: refused, and not held (the peak stays far below it).
    let mut line = br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":""#.to_vec();
    line.resize(64 << 20, b'x');
    line.extend_from_slice(b"\"}}\n");
    server.write(&line);
    let too_long = server.next_reply();
    parse_error(&too_long);
    assert!(too_long["error"]["message"].as_str().unwrap().contains("longer than the 16 MiB allowed"), "{too_long}");
    assert_eq!(server.request(4, "ping", json!({}))["result"], json!({}));
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap_or_default();
    if let Some(peak) = status.lines().find_map(|l| l.strip_prefix("VmHWM:")) {
        let kb: u64 = peak.trim().trim_end_matches("kB").trim().parse().unwrap();
        assert!(kb < 48 << 10, "peak memory {kb} kB after a 64 MiB line");
    }

    // Tool paths stay inside the working directory; errors never quote a file.
    let outside = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raftkv-strict.seed-1.faults.json");
    let faults = outside.display().to_string();
    tool_error(
        &server.tool(5, "seedfall_inspect", json!({"faults": faults})),
        "outside the folders this server may read",
    );
    let config = example("kvlog").join("seedfall.json").display().to_string();
    tool_error(&server.tool(6, "seedfall_run", json!({"config": config})), "--allow-path");
    std::fs::write(dir.join("secret.faults.json"), r#"{"faults": "SECRET-TOKEN-1234"}"#).unwrap();
    let quoted = server.tool(7, "seedfall_inspect", json!({"faults": "secret.faults.json"}));
    tool_error(&quoted, "secret.faults.json");
    assert!(!quoted.to_string().contains("SECRET-TOKEN"), "{quoted}");
    // At most 100,000 seeds a call, and `jobs` at most the cores.
    tool_error(&server.tool(8, "seedfall_run", json!({"seeds": "1-100001"})), "more than 100000 seeds");
    server.close();
    assert!(server.child.wait().unwrap().success());

    let mut allowed = Server::start(&dir, &cache_dir(), &["--allow-path", outside.parent().unwrap().to_str().unwrap()]);
    let inspected = allowed.tool(1, "seedfall_inspect", json!({"faults": faults}));
    assert_eq!(structured(&inspected)["lines"].as_array().unwrap().len(), 1, "{inspected}");
}

/// The summary of a finished sweep of kvlog seeds 1-500 (about half fail)
/// and its status: text and structured content together under 16 KB, the
/// per-seed detail paged; progress notifications on the way.
#[test]
fn a_finished_run_answers_a_small_summary_with_progress_and_pages() {
    let dir = kvlog_copy("mcp-kvlog-summary");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    server.initialize();
    let params = json!({"name": "seedfall_run", "arguments": {"config": "seedfall.json", "seeds": "1-500", "jobs": 10000},
                        "_meta": {"progressToken": "sweep"}});
    let started = Instant::now();
    let run = server.request(1, "tools/call", params);
    eprintln!("1-500: {:.1}s", started.elapsed().as_secs_f64());
    let size = |reply: &Value| {
        reply["result"]["content"][0]["text"].as_str().unwrap().len()
            + reply["result"]["structuredContent"].to_string().len()
    };
    eprintln!("finished run answer: {} bytes", size(&run));
    let summary = structured(&run);
    assert_eq!(
        (&summary["state"], &summary["seeds"], &summary["handle"]),
        (&json!("done"), &json!(500), &json!("run-1"))
    );
    let failed = summary["failed"].as_u64().unwrap();
    assert!(failed > 200, "kvlog fails about half its seeds: {failed}");
    assert!(size(&run) < 16 << 10, "the finished run's answer is {} bytes", size(&run));
    assert_eq!(summary["lowest_failing_seeds"].as_array().unwrap().len(), 10);
    assert_eq!(summary["failures"], json!([]));
    assert_eq!(summary["page"]["totals"]["failures"], failed);
    assert_eq!(summary["page"]["totals"]["trace_hashes"], 500);
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(summary["workers"], cores, "jobs is clamped to the cores");
    assert!(summary["notes"][0].as_str().unwrap().contains("jobs 10000 is more than"), "{summary}");

    let progress: Vec<&Value> =
        server.notifications.iter().filter(|n| n["method"] == "notifications/progress").map(|n| &n["params"]).collect();
    assert!(progress.len() >= 2, "progress notifications: {progress:?}");
    assert!(progress.iter().all(|p| p["progressToken"] == "sweep"), "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0]["progress"].as_u64() < w[1]["progress"].as_u64()), "{progress:?}");
    assert!(progress.iter().any(|p| p["total"] == 500 && p["message"].as_str().unwrap().starts_with("run-1: ")));

    let status = server.tool(2, "seedfall_status", json!({"handle": "run-1"}));
    eprintln!("status answer: {} bytes", size(&status));
    assert!(size(&status) < 16 << 10, "the status answer is {} bytes", size(&status));
    assert_eq!(structured(&status)["lowest_failing_seed"], summary["lowest_failing_seed"]);
    let page = server.tool(3, "seedfall_status", json!({"handle": "run-1", "offset": 20, "limit": 20}));
    let page = structured(&page);
    let seeds: Vec<u64> = page["failures"].as_array().unwrap().iter().map(|f| f["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 20, "{page}");
    assert!(seeds.windows(2).all(|w| w[0] < w[1]) && seeds[0] > summary["lowest_failing_seeds"][9].as_u64().unwrap());
    assert_eq!(page["page"]["next_offset"], 40);
}

/// A request that sweeps 1-10000, cancelled by the client, stops within 2 s
/// (its sweep reports, marked interrupted) and is not answered.
#[test]
fn a_cancelled_run_stops_within_two_seconds() {
    let dir = kvlog_copy("mcp-kvlog-cancel-run");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    server.initialize();
    let params = json!({"name": "seedfall_run", "arguments": {"seeds": "1-10000"}, "_meta": {"progressToken": 7}});
    server.ask(1, "tools/call", params);
    // Sweeping: a progress notification counts seeds done.
    while !server.notifications.iter().any(|n| n["params"]["progress"].as_u64() > Some(0)) {
        let message = server.read();
        assert!(message.get("id").is_none(), "an answer before the cancel: {message}");
        server.notifications.push(message);
    }
    server.notify("notifications/cancelled", json!({"requestId": 1, "reason": "test"}));
    let cancelled = Instant::now();
    let mut id = 2;
    let status = loop {
        let status = server.tool(id, "seedfall_status", json!({"handle": "run-1"}));
        if structured(&status)["state"] == "done" {
            break status;
        }
        assert!(cancelled.elapsed() < Duration::from_secs(2), "still running 2 s after the cancel: {status}");
        std::thread::sleep(Duration::from_millis(50));
        id += 1;
    };
    assert!(cancelled.elapsed() < Duration::from_secs(2), "stopped {:?} after the cancel", cancelled.elapsed());
    let done = structured(&status);
    assert_eq!(done["interrupted"], true, "{done}");
    assert!(done["seeds"].as_u64().unwrap() < 10_000, "{done}");
    assert_eq!(server.request(99, "ping", json!({}))["result"], json!({}));
    server.close();
    assert!(server.child.wait().unwrap().success());
    assert!(server.replies_to(1).is_empty(), "a cancelled request gets no answer");
}

/// `seedfall_cause`, cancelled by the client while its futures run, stops.
#[test]
fn a_cancelled_cause_stops() {
    let dir = kvlog_copy("mcp-kvlog-cancel-cause");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    server.initialize();
    let arguments = json!({"seed": 1, "futures": 50, "moments": 20, "jobs": 1});
    server.ask(
        1,
        "tools/call",
        json!({"name": "seedfall_cause", "arguments": arguments, "_meta": {"progressToken": "c"}}),
    );
    while !server.notifications.iter().any(|n| n["params"]["progress"].as_u64() > Some(0)) {
        let message = server.read();
        assert!(message.get("id").is_none(), "an answer before the cancel: {message}");
        server.notifications.push(message);
    }
    let progress = server.notifications.last().unwrap()["params"].clone();
    assert!(progress["total"].as_u64() > Some(500), "futures of the moments: {progress}");
    server.notify("notifications/cancelled", json!({"requestId": 1}));
    let stopped = server.stderr_line("stopped before every future ran", Duration::from_secs(10));
    assert!(stopped.is_some(), "the cause did not stop");
    server.close();
    assert!(server.child.wait().unwrap().success());
    assert!(server.replies_to(1).is_empty(), "a cancelled request gets no answer");
}

/// The 2025-11-25 tasks: a sweep as a task (get, result, list), a cause
/// task cancelled, and the errors the spec asks for.
#[test]
fn a_task_runs_a_sweep_and_a_cancelled_task_stops() {
    let dir = kvlog_copy("mcp-kvlog-tasks");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    let init = server.initialize();
    assert_eq!(init["capabilities"]["tasks"]["requests"]["tools"]["call"], json!({}), "{init}");
    let listed = server.request(1, "tools/list", json!({}));
    let support = |name: &str| {
        let tool = listed["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
        tool["execution"]["taskSupport"].clone()
    };
    assert_eq!(
        (support("seedfall_run"), support("seedfall_cause"), support("seedfall_status")),
        (json!("optional"), json!("optional"), Value::Null)
    );

    let params = json!({"name": "seedfall_run", "arguments": {"seeds": "1-20"}, "task": {"ttl": 60000}});
    let created = server.request(2, "tools/call", params);
    let task = created["result"]["task"].clone();
    assert_eq!(task["status"], "working", "{created}");
    let id = task["taskId"].as_str().unwrap().to_string();
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'), "{task}");
    let result = server.request(3, "tasks/result", json!({"taskId": id}));
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], json!(id), "{result}");
    let swept = structured(&result);
    assert_eq!((&swept["state"], &swept["seeds"]), (&json!("done"), &json!(20)), "{swept}");
    assert_eq!(server.request(4, "tasks/get", json!({"taskId": id}))["result"]["status"], "completed");
    let tasks = server.request(5, "tasks/list", json!({}));
    assert_eq!(tasks["result"]["tasks"][0]["taskId"], json!(id), "{tasks}");
    assert_eq!(server.request(6, "tasks/cancel", json!({"taskId": id}))["error"]["code"], -32602, "already completed");
    assert_eq!(server.request(7, "tasks/get", json!({"taskId": "task-99"}))["error"]["code"], -32602);
    let forbidden = json!({"name": "seedfall_status", "arguments": {"handle": "run-1"}, "task": {}});
    assert_eq!(server.request(8, "tools/call", forbidden)["error"]["code"], -32601, "status does not run as a task");

    let params = json!({"name": "seedfall_cause", "arguments": {"seed": 1, "futures": 50, "moments": 20, "jobs": 1}, "task": {}});
    let cause = server.request(9, "tools/call", params)["result"]["task"]["taskId"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(500));
    let cancelled = server.request(10, "tasks/cancel", json!({"taskId": cause}));
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let started = Instant::now();
    let ended = server.request(11, "tasks/result", json!({"taskId": cause}));
    assert!(started.elapsed() < Duration::from_secs(10), "the cancelled cause ran on for {:?}", started.elapsed());
    assert_eq!(ended["result"]["isError"], true, "{ended}");
    assert_eq!(server.request(12, "tasks/get", json!({"taskId": cause}))["result"]["status"], "cancelled");
}

/// 20 sweeps of one config at once (each builds it): all finish.
#[test]
fn twenty_concurrent_sweeps_of_one_config_all_finish() {
    let dir = kvlog_copy("mcp-kvlog-concurrent");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    server.initialize();
    for id in 1..=20 {
        server.ask(
            id,
            "tools/call",
            json!({"name": "seedfall_run", "arguments": {"seeds": id.to_string(), "jobs": 1}}),
        );
    }
    for id in 1..=20 {
        let reply = server.reply_to(id);
        assert_eq!(structured(&reply)["state"], "done", "sweep {id}: {reply}");
    }
}

/// The end of input stops a sweep running in the background: it reports
/// (recorded in the findings history, marked interrupted) and the server
/// exits within 5 s.
#[test]
fn the_end_of_input_stops_a_running_sweep_within_five_seconds() {
    let dir = kvlog_copy("mcp-kvlog-eof");
    let mut server = Server::start(&dir, &cache_dir(), &[]);
    server.initialize();
    let started = server.tool(1, "seedfall_run", json!({"seeds": "1-10000", "background": true}));
    assert_eq!(structured(&started)["handle"], "run-1", "{started}");
    let mut id = 2;
    while structured(&server.tool(id, "seedfall_status", json!({"handle": "run-1"})))["progress"]["seeds_done"] == 0 {
        std::thread::sleep(Duration::from_millis(100));
        id += 1;
    }
    server.close();
    let closed = Instant::now();
    let status = server.child.wait().unwrap();
    assert!(closed.elapsed() < Duration::from_secs(5), "exited {:?} after the end of input", closed.elapsed());
    assert!(status.success(), "{status}");
    assert!(
        server.stderr_line("run-1: stopped after", Duration::from_secs(1)).is_some_and(|l| l.contains("interrupted"))
    );
    assert!(dir.join(".seedfall/findings.json").is_file(), "the interrupted sweep's findings are recorded");
}
