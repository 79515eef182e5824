//! `seedfall mcp`: a Model Context Protocol server on stdio, so a coding
//! agent drives the same loop a person does (run, findings, shrink, cause,
//! fix, verify) through tools whose structured results are the `--json`
//! documents of docs/json.md. Newline-delimited JSON-RPC 2.0 on
//! stdin/stdout (`lines` reads them within bounds, `protocol` answers),
//! the tools and their schemas (`tools`) with their arguments (`args`,
//! `paths`), the sweeps behind a handle (`handles`) and their summaries
//! paged by seed (`page`), MCP tasks (`tasks`) and progress notifications
//! (`progress`). Nothing but protocol messages goes to stdout; logs go to
//! stderr. No simulation logic here: every tool calls the library
//! (`sweep`, `replay`, `shrink`, `cause`, `verify`, `json_doc`).
//! docs/agents.md shows a session and the limits.

mod args;
mod error;
mod handles;
mod lines;
mod out;
mod page;
mod paths;
mod progress;
mod protocol;
mod tasks;
mod tools;

pub use error::McpError;
pub use paths::Paths;
pub use protocol::{PROTOCOL_VERSIONS, STATELESS_VERSION, serve};
