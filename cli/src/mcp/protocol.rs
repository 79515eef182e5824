//! The JSON-RPC 2.0 layer of `seedfall mcp`: one message per line on
//! stdin, one per line on stdout. Requests: `initialize` (the 2025-11-25
//! handshake, or an earlier revision the client asks for), `server/discover`
//! (the stateless 2026-07-28 revision: no handshake, each request names its
//! revision in `params._meta` and its result says `resultType`), `ping`,
//! `tools/list`, `tools/call`; notifications (`notifications/initialized`,
//! `notifications/cancelled`, …) need no answer and get none. A line that is
//! not JSON gets a parse error (-32700), a message that is not a request an
//! invalid-request error (-32600), an unknown method -32601, `tools/call`
//! without a tool name or naming no tool of ours -32602 (as the spec says);
//! a tool that fails answers `isError: true`
//! with its message (`tools`). Each `tools/call` runs on its own thread, so
//! a long shrink does not hold up a `ping` or a `seedfall_status`; replies
//! are written whole under a lock. The server never exits on a bad message:
//! only at the end of stdin, after the calls in flight have answered.

use super::handles::Handles;
use super::tools;
use serde_json::{Value, json};
use std::io::{self, BufRead, Write};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

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

/// What an agent is told at the handshake: the loop, and which tool does what.
const INSTRUCTIONS: &str = "seedfall runs a Go service's nodes and workload in a deterministic \
simulated world with injected faults (crashes, torn writes, partitions, …); a seed reproduces a run \
exactly. The loop: (1) seedfall_run {config, seeds} starts a sweep and returns a handle; poll \
seedfall_status {handle} until state is done (lowest_failing_seed, findings). (2) seedfall_findings \
{config}: every finding with its status (new, ongoing, regressed, resolved, unseen). (3) \
seedfall_shrink {config, seed}: the lowest failing seed's fault schedule cut to the faults that \
matter, saved as a schedule file. (4) seedfall_replay {config, seed, faults, from_event, to_event}: the \
verdict and the trace, paged by line; seedfall_cause {config, seed, faults}: which moment made the \
failure likely and which functions ran in failing futures. (5) Fix the code. (6) seedfall_verify \
{config, faults}: replays the shrunk schedule over the full duration; verified true is proof the fix \
holds for it. Then run a fresh sweep for what else fails. seedfall_inspect {faults} prints a \
schedule readably. Paths are relative to the server's working directory; config defaults to \
./seedfall.json.";

/// Where replies go: whole lines under a lock, from any thread.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    fn send(&self, message: &Value) {
        let line = serde_json::to_string(message).expect("JSON values serialize") + "\n";
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            eprintln!("seedfall mcp: cannot write a reply: {e}");
        }
    }
}

fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Serves MCP on `input` and `output` until `input` ends.
pub fn serve(input: impl BufRead, output: impl Write + Send + 'static) -> io::Result<()> {
    let out = Out(Arc::new(Mutex::new(Box::new(output))));
    let handles = Arc::new(Handles::default());
    let mut calls = Vec::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(e) => {
                out.send(&error(&Value::Null, PARSE_ERROR, &format!("parse error: {e}")));
                continue;
            }
        };
        if let Some(call) = dispatch(message, &out, &handles) {
            calls.push(call);
        }
        calls.retain(|c: &std::thread::JoinHandle<()>| !c.is_finished());
    }
    for call in calls {
        let _ = call.join();
    }
    Ok(())
}

/// Answers one message; a `tools/call` answers from the thread returned.
fn dispatch(message: Value, out: &Out, handles: &Arc<Handles>) -> Option<std::thread::JoinHandle<()>> {
    let Some(object) = message.as_object() else {
        out.send(&error(&Value::Null, INVALID_REQUEST, "invalid request: a message is one JSON object"));
        return None;
    };
    let id = object.get("id").cloned();
    let valid_id = matches!(id, None | Some(Value::String(_)) | Some(Value::Number(_)));
    let method = object.get("method").and_then(Value::as_str);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !valid_id || (method.is_none() && id.is_none()) {
        let id = if valid_id { id.unwrap_or(Value::Null) } else { Value::Null };
        out.send(&error(&id, INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 request"));
        return None;
    }
    let Some(method) = method else {
        // A response: this server sends no requests, so none is awaited.
        if !object.contains_key("result") && !object.contains_key("error") {
            out.send(&error(&id.unwrap_or(Value::Null), INVALID_REQUEST, "invalid request: no method"));
        }
        return None;
    };
    // A notification (no id) is never answered, known or not.
    let id = id?;
    let params = object.get("params").cloned().unwrap_or(Value::Null);
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
            return None;
        }
    };
    let stamp = move |result: Value| if stateless { stamped(result) } else { result };
    match method {
        "initialize" => out.send(&reply(&id, initialize(&params))),
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
        "tools/call" => {
            let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_string) else {
                out.send(&error(&id, INVALID_PARAMS, "tools/call: params.name (the tool) is missing"));
                return None;
            };
            // The spec's protocol error for a tool that does not exist (a failing tool answers `isError`).
            if let Some(known) = tools::unknown(&name) {
                out.send(&error(&id, INVALID_PARAMS, &known));
                return None;
            }
            let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
            let (out, handles) = (out.clone(), handles.clone());
            let spawned = std::thread::Builder::new().name(format!("mcp {name}")).spawn(move || {
                // A panic in the library is this call's error, never a call left unanswered.
                let called = std::panic::catch_unwind(AssertUnwindSafe(|| tools::call(&name, &arguments, &handles)));
                let result = called
                    .unwrap_or_else(|panic| tools::error(&name, &format!("internal error: {}", panic_text(&panic))));
                out.send(&reply(&id, stamp(result)));
            });
            match spawned {
                Ok(call) => return Some(call),
                Err(e) => eprintln!("seedfall mcp: cannot start a thread for a tool call: {e}"),
            }
        }
        _ => out.send(&error(&id, METHOD_NOT_FOUND, &format!("method not found: {method}"))),
    }
    None
}

/// The handshake's answer: the revision, what this server offers, and the loop.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = PROTOCOL_VERSIONS.iter().find(|v| Some(**v) == asked).unwrap_or(&PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
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

/// What a caught panic said.
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_string(),
    }
}
