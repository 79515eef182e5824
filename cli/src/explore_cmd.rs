//! `seedfall explore [-c CONFIG] [-seeds LIST] [-budget 2000|10m] [-j N]
//! [-edges] [-report FILE.html] [--json FILE] [--no-fork]`: runs the library's
//! `explore`, prints coverage over runs, why it stopped and the findings
//! (`-report`: the same as a page, `explore_report.rs`), saves each
//! finding's schedule as `.seedfall/explore/<finding id>.faults.json` beside
//! the config (`.seedfall/X.explore/` for a config `X.json`) with its replay
//! command, and writes the JSON. Exit codes as `run`: 0 nothing found, 1 a
//! finding, 2 an error, an interruption before a finding or no run at all.

use crate::run_cmd::setup_with;
use seedfall::cluster::LoadOptions;
use seedfall::duration::parse_duration;
use seedfall::explore::{Budget, ExploreOptions, explore};
use seedfall::explore_report;
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::seeds::parse_seeds;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ExploreArgs {
    /// The config (default ./seedfall.json).
    #[arg(short = 'c', long = "config")]
    config: Option<PathBuf>,
    /// The seeds it starts from: 7, 1-500, 1,5,9-12.
    #[arg(long, default_value = "1-100")]
    seeds: String,
    /// Completed runs (each future is one; the same budget gives the same
    /// findings for any -j), or wall time: 10m.
    #[arg(long, default_value = "2000")]
    budget: String,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Write the result as JSON (`-`: stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write FILE.html (coverage over runs, the findings) and FILE.json beside it.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Count branch edges as coverage too: compiles the nodes with an edge
    /// map (another cache entry; the runs are the same).
    #[arg(long)]
    edges: bool,
    /// Replay each future's prefix instead of forking it from its branch point.
    #[arg(long)]
    no_fork: bool,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall explore: {message}");
    ExitCode::from(2)
}

fn budget(text: &str) -> Result<Budget, String> {
    if let Ok(runs) = text.parse::<u64>() {
        return Ok(Budget::Runs(runs));
    }
    parse_duration(text).map(Budget::Time).map_err(|e| format!("-budget: {e} (or a number of runs)"))
}

pub fn run(args: ExploreArgs) -> ExitCode {
    seedfall::seeds::say_if_single(&args.seeds);
    let seeds = match parse_seeds(&args.seeds) {
        Ok(s) => s,
        Err(e) => return fail(format!("-seeds: {e}")),
    };
    let budget = match budget(&args.budget) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    if let Err(code) =
        crate::run_cmd::outputs_apart(args.config.as_deref(), args.json.as_deref(), args.report.as_deref())
    {
        return code;
    }
    // Coverage needs the function bitmap (and the edge map); the runs are the same with them.
    let load = LoadOptions { function_bitmap: true, edge_bitmap: args.edges };
    let (cluster, config_path) = match setup_with(args.config.as_deref(), load) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let mut options = ExploreOptions::new(seeds, budget, seedfall::sweep::workers(args.jobs));
    options.share_prefix = !args.no_fork;
    let interrupt = Interrupt::install();
    let found = match explore(&cluster, &options, &interrupt.stop) {
        Ok(found) => found,
        Err(e) => return fail(e),
    };
    let out = &mut json_doc::text_out(args.json.as_deref());
    let _ = writeln!(
        out,
        "explored {} runs in {} generations from {} starting seeds in {:.1}s; {}",
        found.runs,
        found.generations,
        options.seeds.len(),
        found.elapsed.as_secs_f64(),
        found.stopped
    );
    let curve: Vec<String> = found.curve.iter().map(|p| format!("{}@{}", p.features, p.runs)).collect();
    let _ = writeln!(out, "coverage (features@runs): {}", curve.join(" "));
    let folder = seedfall::config::state_file(&config_path, "explore");
    let mut findings = Vec::new();
    let _ = writeln!(out, "findings: {}", found.findings.len());
    for f in &found.findings {
        let file = folder.join(format!("{}.faults.json", f.id));
        let schedule = f.first.schedule.as_deref().unwrap_or_default();
        if let Err(e) = seedfall::safe_write::replace_or_say(&file, schedule.as_bytes()) {
            return fail(e);
        }
        let replay = seedfall::shell::replay(
            &config_path.display().to_string(),
            f.first.seed,
            Some(&file.display().to_string()),
        );
        let _ = writeln!(out, "  {}  {} runs, first at run {}: {}", f.id, f.runs, f.found_at_run, f.failure);
        let _ = writeln!(out, "             replay: {replay}");
        findings.push(json!({
            "id": f.id, "signature": f.signature, "failure": f.failure, "runs": f.runs,
            "found_at_run": f.found_at_run, "seed": f.first.seed, "branches": f.first.branches,
            "schedule": file, "replay": replay,
        }));
    }
    // Nothing found is a verdict only when the budget ran: an interrupted or
    // empty exploration proves nothing, so it must not exit 0 in CI.
    let interrupted = interrupt.stop.load(std::sync::atomic::Ordering::Relaxed);
    let code = match (found.findings.is_empty(), interrupted, found.runs == 0) {
        (false, _, _) => 1,
        (true, true, _) => 2,
        (true, false, true) => 2,
        (true, false, false) => 0,
    };
    if code == 2 {
        let why = if interrupted { "interrupted before any finding" } else { "no run fit the budget" };
        let _ = writeln!(out, "no verdict: {why} (exit 2)");
    }
    let doc = json!({
        "config": config_path, "seeds": args.seeds, "edges": args.edges, "runs": found.runs, "generations": found.generations,
        "stopped": found.stopped, "coverage": found.curve, "trace_digest": found.trace_digest,
        "findings": findings, "exit_code": code,
    });
    if let Some(page) = &args.report {
        let written = seedfall::safe_write::replace_or_say(page, explore_report::html(&doc).as_bytes())
            .and_then(|()| json_doc::write(&seedfall::sweep_report::json_path(page), &doc));
        if let Err(e) = written {
            return fail(e);
        }
        let _ = writeln!(out, "report: {}", page.display());
    }
    if let Some(target) = &args.json
        && let Err(e) = json_doc::write(target, &doc)
    {
        return fail(e);
    }
    ExitCode::from(code)
}
