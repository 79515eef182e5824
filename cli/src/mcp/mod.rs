//! `seedfall mcp`: a Model Context Protocol server on stdio, so a coding
//! agent drives the same loop a person does (run, findings, shrink, cause,
//! fix, verify) through tools whose structured results are the `--json`
//! documents of docs/json.md. Newline-delimited JSON-RPC 2.0 on
//! stdin/stdout (`protocol`), the tools and their schemas (`tools`), and the
//! sweeps running in the background behind a handle (`handles`). Nothing
//! but protocol messages goes to stdout; logs go to stderr. No simulation
//! logic here: every tool calls the library (`sweep`, `replay`, `shrink`,
//! `cause`, `verify`, `json_doc`). docs/agents.md shows a session.

mod handles;
mod protocol;
mod tools;

pub use protocol::{PROTOCOL_VERSIONS, STATELESS_VERSION, serve};
