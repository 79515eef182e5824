//! The MCP layer's error: why a tool call, a sweep behind a handle or a
//! task request failed. Its Display is the text the client gets
//! (`isError: true` with it for a tool, JSON-RPC -32602 for a task request)
//! and stderr logs. Errors of the layers below keep their own type inside;
//! messages about a file the client named leave out what the file holds
//! (`args::without_contents`). It runs nothing.

use crate::schedule_error::ScheduleError;
use crate::setup_error::SetupError;
use crate::write_error::WriteError;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum McpError {
    /// The call's arguments, or a path one names, are not what the tool takes.
    Call(String),
    /// A file the client named does not read as what it should be.
    File(String),
    /// A file could not be read.
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// A task request names no task or cursor, or a task that has ended.
    Task(String),
    /// The tool was stopped before it finished; what was lost.
    Stopped(String),
    /// A tool or sweep panicked; what the panic said.
    Internal(String),
    /// The sweep behind `handle` failed so.
    SweepFailed {
        handle: String,
        config: PathBuf,
        error: String,
    },
    Setup(SetupError),
    Schedule(ScheduleError),
    Write(WriteError),
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            McpError::Call(message) | McpError::File(message) | McpError::Task(message) => f.write_str(message),
            McpError::Stopped(message) => f.write_str(message),
            McpError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            McpError::Internal(panic) => write!(f, "internal error: {panic}"),
            McpError::SweepFailed { handle, config, error } => {
                write!(f, "{handle}: the sweep of {} failed: {error}", config.display())
            }
            McpError::Setup(error) => write!(f, "{error}"),
            McpError::Schedule(error) => write!(f, "{error}"),
            McpError::Write(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for McpError {}

impl From<SetupError> for McpError {
    fn from(error: SetupError) -> Self {
        McpError::Setup(error)
    }
}

impl From<ScheduleError> for McpError {
    fn from(error: ScheduleError) -> Self {
        McpError::Schedule(error)
    }
}

impl From<WriteError> for McpError {
    fn from(error: WriteError) -> Self {
        McpError::Write(error)
    }
}
