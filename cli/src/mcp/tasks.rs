//! MCP tasks (revision 2025-11-25, where they are experimental): a
//! `tools/call` of `seedfall_run`, `seedfall_shrink` or `seedfall_cause`
//! carrying `params.task` is answered at once with a task while the call
//! runs on; `tasks/get` reads its status, `tasks/result` waits for the
//! call's `CallToolResult`, `tasks/list` pages the tasks, `tasks/cancel`
//! sets the call's stop flag and marks it `cancelled`. Statuses go
//! `working` → `completed`, `failed` (a tool error) or `cancelled`, never
//! back. Tasks live as long as the server (`ttl` null). It runs no tool:
//! `protocol` does, and hands the result here.

use super::error::McpError;
use crate::finding_history::rfc3339;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::SystemTime;

/// The `_meta` key tying a message to its task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// What `pollInterval` suggests, in milliseconds.
const POLL_INTERVAL_MS: u64 = 1000;

/// Tasks per `tasks/list` page.
const LIST_PAGE: usize = 50;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
}

struct Task {
    id: String,
    created: String,
    updated: String,
    status: Status,
    message: String,
    /// The call's result once it has ended (also after a cancel).
    result: Option<Value>,
    stop: Arc<AtomicBool>,
}

impl Task {
    fn json(&self) -> Value {
        json!({"taskId": self.id, "status": self.status.name(), "statusMessage": self.message,
               "createdAt": self.created, "lastUpdatedAt": self.updated, "ttl": null,
               "pollInterval": POLL_INTERVAL_MS})
    }
}

#[derive(Default)]
pub struct Tasks {
    /// In the order they were made.
    tasks: Mutex<Vec<Task>>,
    ended: Condvar,
}

fn now() -> String {
    rfc3339(SystemTime::now())
}

impl Tasks {
    /// A new `working` task for a call of `tool` that `stop` stops: its id
    /// and its `CreateTaskResult`.
    pub fn create(&self, tool: &str, stop: Arc<AtomicBool>) -> (String, Value) {
        let mut tasks = self.lock();
        let id = format!("task-{}", tasks.len() + 1);
        let task = Task {
            id: id.clone(),
            created: now(),
            updated: now(),
            status: Status::Working,
            message: format!("{tool} is running"),
            result: None,
            stop,
        };
        let created = json!({"task": task.json()});
        tasks.push(task);
        (id, created)
    }

    /// The call of task `id` ended with `result` (a `CallToolResult`).
    pub fn finish(&self, id: &str, result: Value) {
        let mut tasks = self.lock();
        if let Some(task) = tasks.iter_mut().find(|t| t.id == id) {
            if task.status == Status::Working {
                let failed = result["isError"] == true;
                task.status = if failed { Status::Failed } else { Status::Completed };
                task.message = if failed {
                    result["content"][0]["text"]
                        .as_str()
                        .unwrap_or("the tool failed")
                        .lines()
                        .next()
                        .unwrap_or("")
                        .into()
                } else {
                    "done: tasks/result has the result".into()
                };
                task.updated = now();
            }
            task.result = Some(result);
        }
        self.ended.notify_all();
    }

    /// `tasks/get`: the task.
    pub fn get(&self, id: &str) -> Result<Value, McpError> {
        self.with(id, |task| Ok(task.json()))
    }

    /// `tasks/result`: the call's result once it has ended (waiting until
    /// then), tied to its task in `_meta`.
    pub fn result(&self, id: &str) -> Result<Value, McpError> {
        let mut tasks = self.lock();
        loop {
            let Some(task) = tasks.iter().find(|t| t.id == id) else { return Err(unknown(id)) };
            if let Some(result) = &task.result {
                let mut result = result.clone();
                result["_meta"][RELATED_TASK] = json!({"taskId": id});
                return Ok(result);
            }
            tasks = self.ended.wait(tasks).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// `tasks/cancel`: stops the call and marks the task `cancelled`; an
    /// error for a task that has already ended.
    pub fn cancel(&self, id: &str) -> Result<Value, McpError> {
        self.with(id, |task| {
            if task.status != Status::Working {
                return Err(McpError::Task(format!(
                    "task {id} is already {}: there is nothing to cancel",
                    task.status.name()
                )));
            }
            task.stop.store(true, Ordering::Relaxed);
            task.status = Status::Cancelled;
            task.message = "cancelled by tasks/cancel".into();
            task.updated = now();
            Ok(task.json())
        })
    }

    /// `tasks/list`: a page of tasks from `cursor` (an offset as text).
    pub fn list(&self, cursor: Option<&str>) -> Result<Value, McpError> {
        let tasks = self.lock();
        let from = match cursor {
            None => 0,
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= tasks.len())
                .ok_or_else(|| McpError::Task(format!("no such cursor {c:?}")))?,
        };
        let page: Vec<Value> = tasks.iter().skip(from).take(LIST_PAGE).map(Task::json).collect();
        let mut listed = json!({"tasks": page});
        if from + LIST_PAGE < tasks.len() {
            listed["nextCursor"] = json!((from + LIST_PAGE).to_string());
        }
        Ok(listed)
    }

    /// Stops every call still running (the end of input).
    pub fn stop_all(&self) {
        for task in self.lock().iter().filter(|t| t.result.is_none()) {
            task.stop.store(true, Ordering::Relaxed);
        }
    }

    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Task) -> Result<T, McpError>) -> Result<T, McpError> {
        let mut tasks = self.lock();
        tasks.iter_mut().find(|t| t.id == id).map_or_else(|| Err(unknown(id)), f)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Task>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn unknown(id: &str) -> McpError {
    McpError::Task(format!("no task {id:?} (a tools/call with params.task makes one)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_goes_from_working_to_its_end_and_never_back() {
        let tasks = Tasks::default();
        let (id, created) = tasks.create("seedfall_run", Arc::default());
        assert_eq!(created["task"]["status"], "working");
        tasks.finish(&id, json!({"content": [{"type": "text", "text": "ok"}], "isError": false}));
        assert_eq!(tasks.get(&id).unwrap()["status"], "completed");
        assert_eq!(tasks.result(&id).unwrap()["_meta"][RELATED_TASK]["taskId"], json!(id));
        assert!(tasks.cancel(&id).unwrap_err().to_string().contains("already completed"));

        let stop = Arc::new(AtomicBool::new(false));
        let (second, _) = tasks.create("seedfall_cause", stop.clone());
        assert_eq!(tasks.cancel(&second).unwrap()["status"], "cancelled");
        assert!(stop.load(Ordering::Relaxed));
        tasks.finish(&second, json!({"content": [], "isError": true}));
        assert_eq!(tasks.get(&second).unwrap()["status"], "cancelled", "a cancelled task stays cancelled");
        assert!(tasks.get("task-9").is_err());
        assert_eq!(tasks.list(None).unwrap()["tasks"].as_array().unwrap().len(), 2);
        assert!(tasks.list(Some("x")).is_err());
    }
}
