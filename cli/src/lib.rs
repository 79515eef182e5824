//! The seedfall driver as a library: from a config to a prepared cluster
//! (`config`, `cluster`), and what is done with it: sweeps of seeds on
//! worker threads (`sweep`) tallied and summarised (`report`, `summary`),
//! `replay`, `shrink`, `verify`, schedule editing (`schedule_edit`),
//! `mutate`, `crashstates`, the merging of shard reports (`merge`) and the
//! readers of saved trace files (`trace_view`, `trace_diff`, `trace_stats`). The
//! `seedfall` binary (`main.rs` and the `*_cmd.rs` files) is clap glue over
//! it: arguments in, these calls, exit codes out; anything else that drives
//! seedfall (the MCP server `mcp`, `seedfall test`) calls the same functions. No
//! simulation logic lives here (that is `seedfall-host`).

#![forbid(unsafe_code)]

pub mod argv;
mod build_hint;
mod catalog;
pub mod cause;
pub mod cause_stats;
pub mod cluster;
mod compat_modules;
pub mod compiled;
pub mod config;
pub mod coverage;
pub mod crashstates;
pub mod duration;
pub mod explore;
pub mod explore_report;
pub mod fault_phrase;
pub mod finding_history;
pub mod findings;
pub mod go_exec;
pub mod gotest;
mod input;
pub mod interrupt;
pub mod json_doc;
pub mod mcp;
pub mod merge;
pub mod mix;
pub mod mutate;
mod overlay;
mod patches;
pub mod prefix;
pub mod progress;
pub mod reach;
pub mod replay;
pub mod report;
pub mod safe_write;
pub mod schedule;
pub mod schedule_edit;
pub mod schedule_error;
pub mod seeds;
pub mod setup_error;
pub mod shard;
pub mod shell;
pub mod shrink;
mod state_folder;
pub mod summary;
pub mod sweep;
pub mod sweep_report;
pub mod terminal;
#[cfg(test)]
mod test_runs;
mod timeline;
pub mod trace_diff;
pub mod trace_stats;
pub mod trace_view;
pub mod verify;
pub mod watch;
pub mod write_error;
