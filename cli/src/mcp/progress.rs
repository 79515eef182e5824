//! Progress of a long tool call (a sweep, a shrink, `cause`) for a client
//! that asked for it with `_meta.progressToken`: `notifications/progress`
//! with the runs done, the runs in all when known, and a line saying where
//! the call is, at most every `EVERY` and only when the count moved (the
//! spec wants it to grow with each one). A call of a task says so in
//! `_meta`. Without a token it only waits. It does not stop anything: the
//! call's stop flag does (`tools::Ctx`).

use super::out::Out;
use super::tasks::RELATED_TASK;
use crate::watch::Watch;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(250);
const POLL: Duration = Duration::from_millis(20);

/// Where a call's progress goes.
#[derive(Clone)]
pub struct Progress {
    to: Option<(Out, Value, Option<String>)>,
}

impl Progress {
    /// To `out` when the request carried `token`; `task` is the call's task, if any.
    pub fn new(out: &Out, token: Option<&Value>, task: Option<&str>) -> Progress {
        let token = token.filter(|t| t.is_string() || t.is_i64() || t.is_u64());
        Progress { to: token.map(|t| (out.clone(), t.clone(), task.map(str::to_string))) }
    }

    /// Waits until `finished()`, telling the client how `watch` moves.
    pub fn follow(&self, watch: &Watch, finished: impl Fn() -> bool) {
        let mut sent: Option<(u64, Instant)> = None;
        while !finished() {
            if let Some((out, token, task)) = &self.to {
                let (done, total, note) = watch.read();
                let due = sent.is_none_or(|(last, at)| done > last && at.elapsed() >= EVERY);
                if due {
                    let mut params =
                        json!({"progressToken": token, "progress": done, "message": line(&note, done, total)});
                    if let Some(total) = total {
                        params["total"] = json!(total);
                    }
                    if let Some(task) = task {
                        params["_meta"] = json!({RELATED_TASK: {"taskId": task}});
                    }
                    out.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}));
                    sent = Some((done, Instant::now()));
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Runs `work` on a thread of its own and follows `watch` until it ends.
    pub fn watched<T: Send>(&self, watch: &Watch, work: impl FnOnce() -> T + Send) -> T {
        std::thread::scope(|scope| {
            let worker = scope.spawn(work);
            self.follow(watch, || worker.is_finished());
            worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

fn line(note: &str, done: u64, total: Option<u64>) -> String {
    match total {
        Some(total) => format!("{note} ({done} of {total})"),
        None => note.to_string(),
    }
}
