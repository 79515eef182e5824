//! `seedfall cause -c CONFIG -seed N [-faults FILE] [-futures 20]
//! [-moments 20] [-j N] [--json FILE] [--no-fork]`: runs `cause` (the
//! library's `cause` and `cause_stats`), prints the curve, the biggest jump
//! and the function table, saves the failing futures and writes the JSON.
//! Exit 0 when it explained the seed, 2 on any error (a passing seed too)
//! and when Ctrl-C stopped it: it then reports and saves the futures that
//! ran, and says it was interrupted.

use crate::replay_cmd::SeedArgs;
use crate::run_cmd::setup_with;
use seedfall::cause::{CauseOptions, cause_watched};
use seedfall::cause_stats::{self, FunctionScore};
use seedfall::cluster::LoadOptions;
use seedfall::interrupt::Interrupt;
use seedfall::schedule::Schedule;
use seedfall::watch::Watch;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CauseArgs {
    /// The failing run to explain (with -faults, its faults stay in every future).
    #[command(flatten)]
    run: SeedArgs,
    /// Alternate futures run from each moment.
    #[arg(long, default_value_t = 20)]
    futures: u32,
    /// Moments: just before and just after each fault (the last moments/2 of them), the rest evenly spaced.
    #[arg(long, default_value_t = 20)]
    moments: u32,
    /// Parallel lanes (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Write the curve, the jump, the functions and the failing futures as JSON (`-`: stdout, instead of the text).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Replay each future's prefix instead of forking it from the moment.
    #[arg(long)]
    no_fork: bool,
}

pub fn run(args: CauseArgs) -> ExitCode {
    let (outputs, inputs) = ([("--json", args.json.as_deref())], [("-faults", args.run.faults.as_deref())]);
    if let Err(code) = crate::run_cmd::apart(args.run.config.as_deref(), &outputs, &inputs) {
        return code;
    }
    // Compiled with the function bitmap: the function table needs it, and the runs are the same.
    let (cluster, config_path) =
        match setup_with(args.run.config.as_deref(), LoadOptions { function_bitmap: true, ..LoadOptions::default() }) {
            Ok(ready) => ready,
            Err(code) => return code,
        };
    let schedule = match args.run.faults.as_deref().map(Schedule::load).transpose() {
        Ok(schedule) => schedule,
        Err(e) => return fail(e),
    };
    let seed = match args.run.seed_for(schedule.as_ref()) {
        Ok(seed) => seed,
        Err(e) => return fail(e),
    };
    let options = CauseOptions {
        seed,
        schedule,
        futures: args.futures,
        moments: args.moments,
        jobs: seedfall::sweep::workers(args.jobs),
        share_prefix: !args.no_fork,
    };
    let interrupt = Interrupt::install();
    let found = match cause_watched(&cluster, &options, &Watch::new(interrupt.stop.clone())) {
        Ok(found) => found,
        Err(e) => return fail(e),
    };
    let points = cause_stats::curve(&found);
    let jump = cause_stats::biggest_jump(&found, &points);
    let functions = cause_stats::functions(&found, &|node, index| cluster.function_name(node, index as u32));
    let folder = cause_stats::folder(&config_path, found.seed, args.run.faults.as_deref());
    let saved = match cause_stats::save_failing(&found, &folder) {
        Ok(saved) => saved,
        Err(e) => return fail(e),
    };
    let doc = cause_stats::to_json(&found, &points, jump.as_ref(), &functions, &saved);
    if let Err(e) = cause_stats::save_result(&folder, &doc) {
        return fail(e);
    }
    let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n";
    // Part of the futures is no verdict to act on in CI.
    let code = ExitCode::from(if found.interrupted { 2 } else { 0 });
    match args.json.as_deref() {
        Some(path) if path.as_os_str() == "-" => {
            let _ = write!(std::io::stdout(), "{text}");
            return code;
        }
        Some(path) => {
            if let Err(e) = seedfall::safe_write::replace_or_say(path, text.as_bytes()) {
                return fail(e);
            }
        }
        None => {}
    }
    // Not `println!`: stdout may be a pipe its reader closed (`| head`).
    let out = &mut std::io::stdout();
    let futures: usize = points.iter().map(|p| p.futures as usize).sum();
    let how = if found.shared_prefix { "forked from each moment" } else { "each replaying its prefix" };
    let _ = writeln!(
        out,
        "seed {}: {futures} alternate futures from {} moments in {:.1}s ({how})",
        found.seed,
        points.len(),
        found.elapsed.as_secs_f64()
    );
    let _ = writeln!(out, "fails as: {}", seedfall::terminal::escape(&found.failure));
    let _ = write!(out, "{}", cause_stats::chart(&points));
    let _ = writeln!(out, "{}", cause_stats::jump_line(jump.as_ref()));
    print_functions(out, &functions);
    let _ = match saved.first() {
        None => writeln!(out, "no future failed the same way"),
        Some(first) => writeln!(
            out,
            "{} failing futures saved; replay one: {}",
            saved.len(),
            seedfall::shell::replay(
                &config_path.display().to_string(),
                found.seed,
                Some(&first.path.display().to_string())
            )
        ),
    };
    if found.interrupted {
        let _ = writeln!(out, "interrupted: the futures that ran are above (exit 2)");
    }
    code
}

fn print_functions(out: &mut dyn Write, functions: &[FunctionScore]) {
    if functions.is_empty() {
        return;
    }
    let _ = writeln!(out, "functions that ran more in failing futures:");
    let _ = writeln!(out, "  P(fail|ran)  P(ran|fail)  function");
    for f in functions {
        let _ =
            writeln!(out, "  {:>10.0}%  {:>10.0}%  {}", f.p_fail_given_ran * 100.0, f.p_ran_given_fail * 100.0, f.name);
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall cause: {message}");
    ExitCode::from(2)
}
