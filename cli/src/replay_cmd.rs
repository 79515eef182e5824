//! `seedfall replay -c CONFIG -seed N [-faults FILE]`: one seed with the full trace on
//! stdout: boots, faults, crashes, restarts, property failures and every
//! line the nodes print, prefixed by virtual time and node#incarnation; then
//! the verdict (the same FAIL block a sweep prints) and the trace hash.
//! With `-faults`, the faults come from the schedule instead of the seed (a
//! note names each one that did not apply: an unknown node, a disk operation
//! never reached, a time past the run's end), with
//! its duration and workload cap; a pass that only reached a duration shorter
//! than the config's is said not to be proof of anything (`verify` is).
//! With `linearizable` in the config it writes the history timeline
//! (`.seedfall/[X.]seed-N.history.html`, `timeline.rs`) and prints its path.
//! `--save-trace FILE` writes the run's per-event hash log; `--against FILE`
//! compares the run with such a log (from another machine, say) and names
//! the first event where they part (exit 1 if they do).
//! Exit codes as for `run`.

use crate::report::fail_block;
use crate::run_cmd::setup;
use crate::schedule::Schedule;
use seedfall_host::vtime::go_duration_ms;
use seedfall_host::world::divergence::{first_divergence, from_text, to_text};
use seedfall_host::world::{self, Verdict};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The config file (a directory means its seedfall.json).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The seed to replay.
    #[arg(long)]
    seed: u64,
    /// Replay exactly this fault schedule (a file `shrink` saved, or a bare array of faults).
    #[arg(long, value_name = "FILE")]
    faults: Option<PathBuf>,
    /// Write the per-event hash log of the run here.
    #[arg(long, value_name = "FILE")]
    save_trace: Option<PathBuf>,
    /// Compare the run with a log `--save-trace` wrote; name the first difference.
    #[arg(long, value_name = "FILE")]
    against: Option<PathBuf>,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall replay: {message}");
    ExitCode::from(2)
}

pub fn run(args: ReplayArgs) -> ExitCode {
    let (cluster, config_path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let mut spec = cluster.spec(args.seed);
    let full_duration = spec.duration;
    if let Some(file) = &args.faults {
        let schedule = match Schedule::load(file) {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        let names: Vec<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
        if let Some(problem) = crate::schedule_cmd::unknown_nodes(&schedule.faults, &names) {
            println!("note: {problem}: it cannot apply");
        }
        spec.schedule = Some(schedule.faults);
        spec.duration = schedule.duration.unwrap_or(spec.duration);
        spec.budget_cap = schedule.ops;
    }
    let against = match &args.against {
        Some(file) => match std::fs::read_to_string(file).map_err(|e| e.to_string()).and_then(|t| from_text(&t)) {
            Ok(log) => Some(log),
            Err(e) => return fail(format!("{}: {e}", file.display())),
        },
        None => None,
    };
    spec.hash_log = args.save_trace.is_some() || against.is_some();
    let mut stdout = std::io::stdout().lock();
    let result = match world::run(&spec, Some(&mut stdout)) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("seedfall: seed {}: {e}", args.seed);
            return ExitCode::from(2);
        }
    };
    let t = go_duration_ms(result.end.ns());
    let real = go_duration_ms(result.timings.total.as_nanos() as u64);
    let verdict = match &result.verdict {
        Verdict::Pass => format!("PASS seed {} at t={t} ({} scheduler steps, {real} real)\n", args.seed, result.steps),
        Verdict::Horizon => format!(
            "PASS seed {} hit the time horizon at t={t} ({} scheduler steps, {real} real)\n",
            args.seed, result.steps
        ),
        Verdict::Fail(_) => fail_block(args.seed, &result),
    };
    let _ = write!(stdout, "{verdict}");
    // A replayed schedule is only what ran: say which of its faults did not.
    if let Some(schedule) = &spec.schedule {
        let unapplied = crate::schedule_cmd::not_applied(schedule, &result.faults);
        let describe =
            |i: usize| format!("note: fault [{i}] was not applied in this run: {}", schedule[i].describe().trim());
        for line in crate::schedule_cmd::not_applied_lines(&unapplied, describe) {
            let _ = writeln!(stdout, "{line}");
        }
    }
    if result.verdict == Verdict::Horizon && spec.duration < full_duration {
        let _ = writeln!(
            stdout,
            "note: this run was cut short at {} (the config runs {full_duration}): a pass here is not proof of a fix; use `seedfall verify`",
            spec.duration,
        );
    }
    let _ = writeln!(stdout, "trace hash {}", result.trace_hash);
    if let Some(model) = spec.linearizable {
        let path = crate::config::history_path(&config_path, args.seed);
        let page = crate::timeline::render(args.seed, model.name(), &result.history, result.linearizability.as_ref());
        let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, page));
        if let Err(e) = written {
            return fail(format!("cannot write {}: {e}", path.display()));
        }
        let _ = writeln!(stdout, "history timeline: {}", path.display());
    }
    let log = result.hash_log.as_deref().unwrap_or_default();
    if let Some(file) = &args.save_trace {
        if let Err(e) = std::fs::write(file, to_text(log)) {
            return fail(format!("cannot write {}: {e}", file.display()));
        }
        let _ = writeln!(stdout, "trace log: {} events written to {}", log.len(), file.display());
    }
    let mut diverged = false;
    if let Some(expected) = &against {
        match first_divergence(expected, log) {
            Some(d) => {
                diverged = true;
                let _ = writeln!(stdout, "differs from {}: {d}", args.against.as_ref().expect("read above").display());
            }
            None => {
                let _ =
                    writeln!(stdout, "same {} events as {}", log.len(), args.against.as_ref().expect("read").display());
            }
        }
    }
    let t = &result.timings;
    let _ = writeln!(
        stdout,
        "real time: build {}, compile/load {}, boot {} ({} boots), guest and host calls {} ({} host calls), scheduler {}",
        go_duration_ms(cluster.build_time.as_nanos() as u64),
        go_duration_ms(cluster.load_time.as_nanos() as u64),
        go_duration_ms(t.boot.as_nanos() as u64),
        t.boots,
        go_duration_ms(t.guest.as_nanos() as u64),
        t.host_calls,
        go_duration_ms(t.total.saturating_sub(t.boot + t.guest).as_nanos() as u64),
    );
    ExitCode::from(if diverged || matches!(result.verdict, Verdict::Fail(_)) { 1 } else { 0 })
}
