//! The JSON-RPC 2.0 layer of `seedfall mcp`: one message per line on
//! stdin (`lines`: at most 16 MiB, UTF-8), one per line on stdout.
//! Requests: `initialize` (the 2025-11-25 handshake, or an earlier revision
//! the client asks for), `server/discover` (the stateless 2026-07-28
//! revision: no handshake, each request names its revision in
//! `params._meta` and its result says `resultType`), `ping`, `tools/list`,
//! `tools/call`, and after a 2025-11-25 handshake the task requests
//! (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`: `tasks`).
//! Notifications need no answer and get none; `notifications/cancelled`
//! stops the call it names, which then answers nothing. A line that is not
//! JSON, not UTF-8 or too long gets a parse error (-32700), a message that
//! is not a request an invalid-request error (-32600), an unknown method
//! -32601, `tools/call` without a tool name or naming no tool of ours
//! -32602 (as the spec says); a tool that fails answers `isError: true`
//! with its message (`tools`). Each `tools/call` runs on its own thread, so
//! a long shrink does not hold up a `ping` or a `seedfall_status`; replies
//! and notifications are written whole under a lock. The server never
//! exits on a bad message: only at the end of stdin, after stopping every
//! call and sweep still running and giving them `SHUTDOWN` to report.

use super::error::McpError;
use super::handles::{self, Handles};
use super::lines::{Line, Lines, MAX_LINE};
use super::out::{Out, panic_text};
use super::paths::Paths;
use super::progress::Progress;
use super::tasks::Tasks;
use super::tools::{self, Ctx};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The handshake revisions this server speaks, newest first: a client
/// asking `initialize` for one of them gets it, any other the newest.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The stateless revision: no handshake; `server/discover` says what the
/// server offers and every request names its revision in `params._meta`.
/// Nothing here is per connection (a sweep's handle is a tool argument), so
/// it is the same server with its results stamped as that revision asks.
pub const STATELESS_VERSION: &str = "2026-07-28";

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const UNSUPPORTED_VERSION: i64 = -32022;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// How long the end of input waits for stopped calls and sweeps to report.
const SHUTDOWN: Duration = Duration::from_secs(4);

/// The handshake revision with tasks.
const TASKS_VERSION: &str = "2025-11-25";

/// What an agent is told at the handshake: the loop, and which tool does what.
const INSTRUCTIONS: &str = "seedfall runs a Go service's nodes and workload in a deterministic \
simulated world with injected faults (crashes, torn writes, partitions, …); a seed reproduces a run \
exactly. The loop: (1) seedfall_run {config, seeds} sweeps and returns the summary when done \
(lowest_failing_seed, lowest_failing_seeds, findings; per-seed detail paged with offset and limit, also \
through seedfall_status {handle}); with background true it returns a handle at once to poll. (2) seedfall_findings \
{config}: every finding with its status (new, ongoing, regressed, resolved, unseen). (3) \
seedfall_shrink {config, seed}: the lowest failing seed's fault schedule cut to the faults that \
matter, saved as a schedule file. (4) seedfall_replay {config, seed, faults, from_event, to_event}: the \
verdict and the trace, paged by line; seedfall_cause {config, seed, faults}: which moment made the \
failure likely and which functions ran in failing futures. (5) Fix the code. (6) seedfall_verify \
{config, faults}: replays the shrunk schedule over the full duration; verified true is proof the fix \
holds for it. Then run a fresh sweep for what else fails. seedfall_inspect {faults} prints a \
schedule readably. Paths are relative to the server's working directory; config defaults to \
./seedfall.json.";

fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The reply to a task request: its result, or the spec's -32602 for a task
/// or cursor that does not exist or cannot be cancelled.
fn answer(id: &Value, result: Result<Value, McpError>) -> Value {
    match result {
        Ok(result) => reply(id, result),
        Err(e) => error(id, INVALID_PARAMS, &e.to_string()),
    }
}

/// Serves MCP on `input` and `output` until `input` ends, the tools
/// reading only inside `paths`.
pub fn serve(input: impl BufRead, output: impl Write + Send + 'static, paths: Paths) -> io::Result<()> {
    let mut server = Server {
        out: Out::new(output),
        handles: Arc::default(),
        tasks: Arc::default(),
        paths: Arc::new(paths),
        calls: Arc::default(),
        threads: Vec::new(),
        tasks_on: false,
    };
    let mut lines = Lines::new(input, MAX_LINE);
    let read = loop {
        let message = match lines.next_line() {
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
            Ok(Some(Line::Text(line))) if line.trim().is_empty() => continue,
            Ok(Some(Line::Text(line))) => serde_json::from_str(&line).map_err(|e| format!("parse error: {e}")),
            Ok(Some(Line::TooLong(bytes))) => Err(format!(
                "parse error: a request line of {bytes} bytes is longer than the {} MiB allowed; it was skipped",
                MAX_LINE >> 20
            )),
            Ok(Some(Line::NotUtf8)) => Err("parse error: the request line is not UTF-8 text".to_string()),
        };
        match message {
            Ok(message) => server.dispatch(message),
            Err(e) => server.out.send(&error(&Value::Null, PARSE_ERROR, &e)),
        }
        server.threads.retain(|t| !t.is_finished());
    };
    server.shut_down();
    read
}

/// A `tools/call` answering on its thread.
struct Call {
    /// Stops the tool at a clean point.
    stop: Arc<AtomicBool>,
    /// The client cancelled it: no answer is sent.
    cancelled: Arc<AtomicBool>,
}

struct Server {
    out: Out,
    handles: Arc<Handles>,
    tasks: Arc<Tasks>,
    paths: Arc<Paths>,
    /// The calls answering, by request id (as JSON text).
    calls: Arc<Mutex<HashMap<String, Call>>>,
    /// Threads of calls and `tasks/result` requests.
    threads: Vec<JoinHandle<()>>,
    /// The handshake settled on the revision with tasks.
    tasks_on: bool,
}

impl Server {
    /// Answers one message; a `tools/call` answers from a thread of its own.
    fn dispatch(&mut self, message: Value) {
        let out = self.out.clone();
        let Some(object) = message.as_object() else {
            out.send(&error(&Value::Null, INVALID_REQUEST, "invalid request: a message is one JSON object"));
            return;
        };
        let id = object.get("id").cloned();
        let valid_id = matches!(id, None | Some(Value::String(_)) | Some(Value::Number(_)));
        let method = object.get("method").and_then(Value::as_str);
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
            || !valid_id
            || (method.is_none() && id.is_none())
        {
            let id = if valid_id { id.unwrap_or(Value::Null) } else { Value::Null };
            out.send(&error(&id, INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 request"));
            return;
        }
        let Some(method) = method else {
            // A response: this server sends no requests, so none is awaited.
            if !object.contains_key("result") && !object.contains_key("error") {
                out.send(&error(&id.unwrap_or(Value::Null), INVALID_REQUEST, "invalid request: no method"));
            }
            return;
        };
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        // A notification (no id) is never answered, known or not.
        let Some(id) = id else {
            if method == "notifications/cancelled" {
                self.cancel(&params);
            }
            return;
        };
        // A request of the stateless revision names it; a revision this server
        // does not speak is refused with the ones it does.
        let stateless = match params.pointer("/_meta").and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str) {
            None => false,
            Some(STATELESS_VERSION) => true,
            Some(v) if PROTOCOL_VERSIONS.contains(&v) => false,
            Some(v) => {
                let supported: Vec<&str> = PROTOCOL_VERSIONS.iter().copied().chain([STATELESS_VERSION]).collect();
                let mut refused = error(&id, UNSUPPORTED_VERSION, &format!("unsupported protocol version {v}"));
                refused["error"]["data"] = json!({"supported": supported, "requested": v});
                out.send(&refused);
                return;
            }
        };
        let task_id = || params.get("taskId").and_then(Value::as_str).unwrap_or("").to_string();
        match method {
            "initialize" => {
                let (result, tasks) = initialize(&params);
                self.tasks_on = tasks;
                out.send(&reply(&id, result));
            }
            "server/discover" => out.send(&reply(&id, stamped(discover()))),
            "ping" => out.send(&reply(&id, json!({}))),
            "tools/list" => {
                let mut listed = json!({"tools": tools::list()});
                if stateless {
                    // Cacheable in that revision: say not to cache (a new build may list other tools).
                    listed = stamped(json!({"tools": listed["tools"].take(), "ttlMs": 0, "cacheScope": "private"}));
                }
                out.send(&reply(&id, listed));
            }
            "tools/call" => self.call(id, &params, stateless),
            "tasks/get" => out.send(&answer(&id, self.tasks.get(&task_id()))),
            "tasks/list" => out.send(&answer(&id, self.tasks.list(params.get("cursor").and_then(Value::as_str)))),
            "tasks/cancel" => out.send(&answer(&id, self.tasks.cancel(&task_id()))),
            "tasks/result" => {
                // It waits for the task's end: not on the thread reading input.
                let (tasks, task_id) = (self.tasks.clone(), task_id());
                self.spawn("mcp tasks/result", move || out.send(&answer(&id, tasks.result(&task_id))));
            }
            _ => out.send(&error(&id, METHOD_NOT_FOUND, &format!("method not found: {method}"))),
        }
    }

    /// `tools/call`: answered when the tool ends, or at once with a task.
    fn call(&mut self, id: Value, params: &Value, stateless: bool) {
        let out = self.out.clone();
        let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_string) else {
            out.send(&error(&id, INVALID_PARAMS, "tools/call: params.name (the tool) is missing"));
            return;
        };
        // The spec's protocol error for a tool that does not exist (a failing tool answers `isError`).
        if let Some(known) = tools::unknown(&name) {
            out.send(&error(&id, INVALID_PARAMS, &known));
            return;
        }
        // Task metadata counts only where tasks were offered; elsewhere the call runs as usual.
        let as_task = self.tasks_on && !stateless && params.get("task").is_some_and(Value::is_object);
        if as_task && !tools::runs_as_task(&name) {
            let message = format!("{name} does not run as a task (only seedfall_run, seedfall_shrink, seedfall_cause)");
            out.send(&error(&id, METHOD_NOT_FOUND, &message));
            return;
        }
        let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
        let token = params.pointer("/_meta/progressToken");
        let stop = Arc::new(AtomicBool::new(false));
        let stamp = move |result: Value| if stateless { stamped(result) } else { result };
        if as_task {
            let (task, created) = self.tasks.create(&name, stop.clone());
            let ctx = self.ctx(stop, Progress::new(&out, token, Some(&task)));
            let tasks = self.tasks.clone();
            self.spawn(&format!("mcp {name} {task}"), move || tasks.finish(&task, run_tool(&name, &arguments, &ctx)));
            out.send(&reply(&id, created));
            return;
        }
        let key = id.to_string();
        let cancelled = Arc::new(AtomicBool::new(false));
        let call = Call { stop: stop.clone(), cancelled: cancelled.clone() };
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), call);
        let ctx = self.ctx(stop, Progress::new(&out, token, None));
        let calls = self.calls.clone();
        self.spawn(&format!("mcp {name}"), move || {
            let result = run_tool(&name, &arguments, &ctx);
            calls.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            // A cancelled request is not answered (the spec's rule).
            if !cancelled.load(Ordering::Relaxed) {
                out.send(&reply(&id, stamp(result)));
            }
        });
    }

    fn ctx(&self, stop: Arc<AtomicBool>, progress: Progress) -> Ctx {
        Ctx { handles: self.handles.clone(), paths: self.paths.clone(), stop, progress }
    }

    /// `notifications/cancelled`: stops the call `requestId` names, if it is still running.
    fn cancel(&self, params: &Value) {
        let Some(request) = params.get("requestId") else { return };
        if let Some(call) = self.calls.lock().unwrap_or_else(|e| e.into_inner()).get(&request.to_string()) {
            call.cancelled.store(true, Ordering::Relaxed);
            call.stop.store(true, Ordering::Relaxed);
            eprintln!("seedfall mcp: request {request} cancelled by the client");
        }
    }

    fn spawn(&mut self, name: &str, work: impl FnOnce() + Send + 'static) {
        match std::thread::Builder::new().name(name.to_string()).spawn(work) {
            Ok(thread) => self.threads.push(thread),
            Err(e) => eprintln!("seedfall mcp: cannot start a thread for {name}: {e}"),
        }
    }

    /// The end of input: every call, task and sweep still running stops at
    /// a clean point and reports (a sweep records what it ran, marked
    /// interrupted) within `SHUTDOWN`; what has not by then ends with the process.
    fn shut_down(self) {
        let deadline = Instant::now() + SHUTDOWN;
        for call in self.calls.lock().unwrap_or_else(|e| e.into_inner()).values() {
            call.stop.store(true, Ordering::Relaxed);
        }
        self.tasks.stop_all();
        self.handles.stop_all(deadline);
        handles::wait_for(self.threads, deadline);
    }
}

/// Runs tool `name` on `ctx`: its `CallToolResult`. A panic in the library
/// is this call's error, never a call left unanswered.
fn run_tool(name: &str, arguments: &Value, ctx: &Ctx) -> Value {
    let called = std::panic::catch_unwind(AssertUnwindSafe(|| tools::call(name, arguments, ctx)));
    called.unwrap_or_else(|panic| tools::error(name, &format!("internal error: {}", panic_text(&panic))))
}

/// The handshake's answer (the revision, what this server offers, and the
/// loop), and whether it offered tasks (only the revision that has them).
fn initialize(params: &Value) -> (Value, bool) {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = PROTOCOL_VERSIONS.iter().find(|v| Some(**v) == asked).unwrap_or(&PROTOCOL_VERSIONS[0]);
    let mut capabilities = json!({"tools": {"listChanged": false}});
    let tasks = *version == TASKS_VERSION;
    if tasks {
        capabilities["tasks"] = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
    }
    let result = json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    });
    (result, tasks)
}

/// `server/discover`'s answer (the stateless revision): the revisions, what
/// this server offers, and the loop.
fn discover() -> Value {
    let supported: Vec<&str> = PROTOCOL_VERSIONS.iter().rev().copied().chain([STATELESS_VERSION]).collect();
    json!({
        "supportedVersions": supported,
        "capabilities": {"tools": {"listChanged": false}},
        "instructions": INSTRUCTIONS,
        "ttlMs": 0,
        "cacheScope": "private",
    })
}

/// A result as the stateless revision has it: `resultType` and the server's
/// name in `_meta`.
fn stamped(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"][SERVER_INFO_KEY] = server_info();
    result
}

fn server_info() -> Value {
    json!({"name": "seedfall", "title": "seedfall", "version": env!("CARGO_PKG_VERSION")})
}
