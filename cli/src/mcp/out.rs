//! Where `seedfall mcp` writes: whole JSON-RPC lines to stdout under a
//! lock, from any thread (replies, progress, task results), and the text of
//! a caught panic for the error a tool or sweep then reports. It sits below
//! the protocol, the tools, the sweeps and the progress notes, so those
//! never import one another to write.

use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where replies go: whole lines under a lock, from any thread.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub fn new(output: impl Write + Send + 'static) -> Out {
        Out(Arc::new(Mutex::new(Box::new(output))))
    }

    pub fn send(&self, message: &Value) {
        let line = serde_json::to_string(message).expect("JSON values serialize") + "\n";
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            eprintln!("seedfall mcp: cannot write a reply: {e}");
        }
    }
}

/// What a caught panic said.
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_string(),
    }
}
