//! `seedfall mcp [--allow-path DIR]…`: serves the Model Context Protocol on
//! stdin/stdout (`seedfall::mcp`) until stdin ends. Tools read files only in
//! the working directory and the folders `--allow-path` names. Exit 0 at
//! the end of stdin, 2 if a folder is wrong or stdin or stdout failed.
//! Logs go to stderr; stdout carries protocol messages only.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct McpArgs {
    /// A folder the tools may read besides the working directory (repeatable).
    #[arg(long = "allow-path", value_name = "DIR")]
    allow_path: Vec<PathBuf>,
}

pub fn run(args: McpArgs) -> ExitCode {
    let paths = match seedfall::mcp::Paths::new(&args.allow_path) {
        Ok(paths) => paths,
        Err(e) => {
            eprintln!("seedfall mcp: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("seedfall mcp: serving MCP ({}) on stdio", seedfall::mcp::PROTOCOL_VERSIONS[0]);
    match seedfall::mcp::serve(std::io::stdin().lock(), std::io::stdout(), paths) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seedfall mcp: {e}");
            ExitCode::from(2)
        }
    }
}
