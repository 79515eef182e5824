//! `seedfall trace view FILE [--node N] [--from I] [--to J]`, `trace diff
//! A B [--context N]` and `trace stats FILE`, each with `--json FILE|-`:
//! readers of `replay --save-trace` files (`trace_view.rs`,
//! `trace_diff.rs`, `trace_stats.rs` do the work; docs/trace-tools.md).
//! Exit 0 when the files could be read (a diff of traces that part is
//! still 0), 2 for a missing, empty or foreign file or an unwritable
//! `--json` target. It runs no simulation.

use seedfall::json_doc;
use seedfall::trace_view::{self, Filter, load};
use seedfall::{trace_diff, trace_stats};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(clap::Subcommand)]
enum TraceCommand {
    /// A trace file as a timeline: index, step, time, node#k, goroutine, event, what it parked on.
    View(ViewArgs),
    /// Which events two trace files share and where they part (kept, dropped, added).
    Diff(DiffArgs),
    /// Events and steps per node and goroutine, what nodes parked on, the biggest time jumps.
    Stats(StatsArgs),
}

#[derive(clap::Args)]
struct ViewArgs {
    /// A file `replay --save-trace` wrote.
    file: PathBuf,
    /// Only this node's events: `name#k`, a name (every incarnation), or `world`.
    #[arg(long, value_name = "N")]
    node: Option<String>,
    /// From event index I (0-based, as printed).
    #[arg(long, value_name = "I")]
    from: Option<usize>,
    /// Up to event index J, not including it.
    #[arg(long, value_name = "J")]
    to: Option<usize>,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The first trace file (an original run, say).
    a: PathBuf,
    /// The second (its shrunk run).
    b: PathBuf,
    /// Kept events shown around each change.
    #[arg(long, default_value_t = 3, value_name = "N")]
    context: usize,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
struct StatsArgs {
    /// A file `replay --save-trace` wrote.
    file: PathBuf,
    /// Write the result as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn run(args: TraceArgs) -> ExitCode {
    let (name, json, result) = match args.command {
        TraceCommand::View(args) => {
            let filter = Filter { node: args.node, from: args.from, to: args.to };
            ("view", args.json, load(&args.file).map(|entries| trace_view::view(&args.file, &entries, &filter)))
        }
        TraceCommand::Diff(args) => {
            let result = match (load(&args.a), load(&args.b)) {
                (Ok(a), Ok(b)) => Ok(trace_diff::diff(&args.a, &a, &args.b, &b, args.context)),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            ("diff", args.json, result)
        }
        TraceCommand::Stats(args) => {
            ("stats", args.json, load(&args.file).map(|entries| trace_stats::stats(&args.file, &entries)))
        }
    };
    let (text, doc) = match result {
        Ok(done) => done,
        Err(e) => return fail(name, e),
    };
    let mut out = json_doc::text_out(json.as_deref());
    // A reader gone (`trace view … | head`) is not an error.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    drop(out);
    if let Some(target) = &json
        && let Err(e) = json_doc::write(target, &doc)
    {
        return fail(name, e);
    }
    ExitCode::SUCCESS
}

fn fail(name: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall trace {name}: {message}");
    ExitCode::from(2)
}
