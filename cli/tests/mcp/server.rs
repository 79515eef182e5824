//! `seedfall mcp` on pipes for cli/tests/mcp.rs, spoken to in raw JSON-RPC
//! lines: requests and their replies (notifications that arrive meanwhile
//! are kept), bytes that are not JSON at all, and its stderr lines as they
//! come.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

pub struct Server {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Notifications read while waiting for replies.
    pub notifications: Vec<Value>,
    /// Replies read while waiting for another.
    replies: Vec<Value>,
    stderr: Receiver<String>,
}

impl Server {
    /// `seedfall mcp ARGS` in `dir`, compiled code cached in `cache`.
    pub fn start(dir: &Path, cache: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_seedfall"))
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .env("SEEDFALL_CACHE_DIR", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, stderr) = channel();
        let err = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, stdout, notifications: Vec::new(), replies: Vec::new(), stderr }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next message the server writes.
    pub fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: a message that is not JSON: {line:?}"))
    }

    /// The next reply (not a notification) the server writes.
    pub fn next_reply(&mut self) -> Value {
        if !self.replies.is_empty() {
            return self.replies.remove(0);
        }
        loop {
            let message = self.read();
            if message.get("id").is_some() {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// The reply to request `id`, keeping other replies for later.
    pub fn reply_to(&mut self, id: u64) -> Value {
        if let Some(at) = self.replies.iter().position(|r| r["id"] == id) {
            return self.replies.remove(at);
        }
        loop {
            let message = self.read();
            match message.get("id") {
                Some(got) if *got == id => return message,
                Some(_) => self.replies.push(message),
                None => self.notifications.push(message),
            }
        }
    }

    /// Sends a line and returns the next reply.
    pub fn send(&mut self, line: &str) -> Value {
        self.write(format!("{line}\n").as_bytes());
        self.next_reply()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        self.write(format!("{line}\n").as_bytes());
    }

    /// Sends request `id` without waiting for its reply.
    pub fn ask(&mut self, id: u64, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.write(format!("{line}\n").as_bytes());
    }

    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.ask(id, method, params);
        self.reply_to(id)
    }

    pub fn tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.request(id, "tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// The 2025-11-25 handshake: its result.
    pub fn initialize(&mut self) -> Value {
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "0"}});
        let init = self.request(0, "initialize", params);
        self.notify("notifications/initialized", json!({}));
        init["result"].clone()
    }

    /// The first stderr line containing `says`, waiting at most `within`.
    pub fn stderr_line(&self, says: &str, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(says) => return Some(line),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
        None
    }

    /// Every reply to `id` still unread, once the server has exited.
    pub fn replies_to(&mut self, id: u64) -> Vec<Value> {
        let mut line = String::new();
        while self.stdout.read_line(&mut line).is_ok_and(|n| n > 0) {
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                self.replies.push(message);
            }
            line.clear();
        }
        self.replies.iter().filter(|r| r["id"] == id).cloned().collect()
    }

    /// Closes stdin: the end of input.
    pub fn close(&mut self) {
        self.stdin.take();
    }
}

/// A tool error: `isError` with a message containing `says`.
pub fn tool_error(reply: &Value, says: &str) {
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(says), "{says:?} in {text:?}");
}

/// A tool's answer: its `structuredContent`, after checking it is no error.
pub fn structured(reply: &Value) -> &Value {
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    &reply["result"]["structuredContent"]
}
