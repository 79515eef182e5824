//! `seedfall crashstates -c CONFIG --seed N --node NAME --at OP
//! [--max-states 10000] [-j N] [--json FILE]`: every disk state a crash of NAME in the
//! middle of its disk operation OP can leave, each checked by the workload
//! (`crashstates.rs`): a line for what is checked, one per state, then the
//! counts. Exit 0 when every state checked passes, 1 when one fails, 2 on
//! errors or Ctrl-C.

use crate::run_cmd::setup;
use seedfall::crashstates::{self, CrashPoint};
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::sweep;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CrashStatesArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The seed to replay.
    #[arg(long)]
    seed: u64,
    /// The service node that crashes.
    #[arg(long, value_name = "NAME")]
    node: String,
    /// Its disk-operation number the crash comes in (as `crash_io`'s `op`).
    #[arg(long, value_name = "OP")]
    at: u64,
    /// Check at most this many states (a seeded sample above it).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_states: u64,
    /// Worker threads (default: all cores); the result is the same for any count.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Write the states and their verdicts as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall crashstates: {message}");
    ExitCode::from(2)
}

pub fn run(args: CrashStatesArgs) -> ExitCode {
    let interrupt = Interrupt::install();
    let (cluster, _) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let point = CrashPoint { seed: args.seed, node: args.node, at: args.at, max_states: args.max_states };
    let states = match crashstates::enumerate(&cluster, point) {
        Ok(states) => states,
        Err(e) => return fail(e),
    };
    let mut out = json_doc::text_out(args.json.as_deref());
    let _ = writeln!(out, "{}", states.header());
    let mut checked = Vec::new();
    let on_state = |line: &str, doc| {
        let _ = writeln!(out, "{line}");
        checked.push(doc);
    };
    let failed = match states.check(sweep::workers(args.jobs), &interrupt.stop, on_state) {
        Ok(failed) => failed,
        Err(e) => return fail(e),
    };
    let _ = writeln!(out, "{}", states.summary(failed));
    if let Some(target) = &args.json {
        let mut doc = states.json_header();
        doc["failed"] = failed.into();
        doc["states"] = checked.into();
        if let Err(e) = json_doc::write(target, &doc) {
            return fail(e);
        }
    }
    ExitCode::from(if failed > 0 { 1 } else { 0 })
}
