//! `seedfall mcp`: serves the Model Context Protocol on stdin/stdout
//! (`seedfall::mcp`) until stdin ends. Exit 0 then, 2 if stdin or stdout
//! failed. Logs go to stderr; stdout carries protocol messages only.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct McpArgs {}

pub fn run(_args: McpArgs) -> ExitCode {
    eprintln!("seedfall mcp: serving MCP ({}) on stdio", seedfall::mcp::PROTOCOL_VERSIONS[0]);
    match seedfall::mcp::serve(std::io::stdin().lock(), std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seedfall mcp: {e}");
            ExitCode::from(2)
        }
    }
}
