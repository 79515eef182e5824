//! `replay`: one seed with the full trace: boots, faults, crashes, restarts,
//! property failures and every line the nodes print, prefixed by virtual
//! time and node#incarnation; then the verdict (the same FAIL block a sweep
//! prints) and the trace hash. With a schedule, the faults come from it
//! instead of the seed (a note names each one that did not apply: an
//! unknown node, a disk operation never reached, a time past the run's
//! end), with its duration and workload cap; a pass that only reached a
//! duration shorter than the config's is said not to be proof of anything
//! (`verify` is). With `linearizable` in the config it writes the history
//! timeline (`.seedfall/[X.]seed-N.history.html`, `timeline.rs`) and prints
//! its path. It can save the run's per-event hash log, or compare the run
//! with such a log (from another machine, say) and name the first event
//! where they part. Everything goes to the writer it is given; it does not
//! read the schedule file (`schedule.rs`).

use crate::cluster::Cluster;
use crate::report::{fail_block, timing_line};
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use crate::verify::{not_applied, not_applied_lines, unknown_nodes};
use seedfall_host::vtime::go_duration_ms;
use seedfall_host::world::divergence::{first_divergence, from_text, to_text};
use seedfall_host::world::{self, Verdict};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to replay and what to do with its trace.
pub struct ReplayOptions {
    pub seed: u64,
    /// Replay exactly these faults (with the schedule's duration and cap).
    pub schedule: Option<Schedule>,
    /// Write the per-event hash log here.
    pub save_trace: Option<PathBuf>,
    /// Compare the run with the log in this file.
    pub against: Option<PathBuf>,
}

/// What a replay found.
pub struct Replayed {
    /// 1 when the run failed or differs from the log it was compared with.
    pub code: u8,
    /// The `--json` document (docs/json.md).
    pub doc: serde_json::Value,
}

/// Replays `options.seed` of `cluster` (its config at `config_path`),
/// writing the trace and what it found to `out`.
pub fn replay(
    cluster: &Cluster,
    config_path: &Path,
    options: ReplayOptions,
    out: &mut dyn Write,
) -> Result<Replayed, ScheduleError> {
    let seed = options.seed;
    let mut spec = cluster.spec(seed);
    let full_duration = spec.duration;
    // Moved, not copied: a schedule may hold a million faults.
    if let Some(schedule) = options.schedule {
        let names: Vec<&str> = spec.programs.iter().map(|p| p.name.as_str()).collect();
        if let Some(problem) = unknown_nodes(&schedule.faults, &names) {
            let _ = writeln!(out, "note: {problem}: it cannot apply");
        }
        spec.schedule = Some(schedule.faults);
        spec.branches = schedule.branches;
        spec.duration = schedule.duration.unwrap_or(spec.duration);
        spec.budget_cap = schedule.ops;
    }
    let against = match &options.against {
        Some(file) => match crate::input::read_text(file, crate::input::TRACE_MAX_BYTES)
            .map_err(|e| e.to_string())
            .and_then(|t| from_text(&t).map_err(|e| e.to_string()))
        {
            Ok(log) => Some((file, log)),
            Err(message) => return Err(ScheduleError::Against { file: file.clone(), message }),
        },
        None => None,
    };
    spec.hash_log = options.save_trace.is_some() || against.is_some();
    let result = world::run_probed(&spec, Some(&mut *out), world::probes::all())
        .map_err(|e| ScheduleError::Seed { seed, error: Box::new(ScheduleError::World(e)) })?;
    let t = go_duration_ms(result.end.ns());
    let real = go_duration_ms(result.timings.total.as_nanos() as u64);
    let verdict = match &result.verdict {
        Verdict::Pass => format!("PASS seed {seed} at t={t} ({} scheduler steps, {real} real)\n", result.steps),
        Verdict::Horizon => {
            format!("PASS seed {seed} hit the time horizon at t={t} ({} scheduler steps, {real} real)\n", result.steps)
        }
        Verdict::Fail(_) => fail_block(seed, &result),
    };
    let _ = write!(out, "{verdict}");
    // A replayed schedule is only what ran: say which of its faults did not.
    let mut unapplied = Vec::new();
    if let Some(schedule) = &spec.schedule {
        unapplied = not_applied(schedule, &result.faults);
        let describe =
            |i: usize| format!("note: fault [{i}] was not applied in this run: {}", schedule[i].describe().trim());
        for line in not_applied_lines(&unapplied, describe) {
            let _ = writeln!(out, "{line}");
        }
    }
    if result.verdict == Verdict::Horizon && spec.duration < full_duration {
        let _ = writeln!(
            out,
            "note: this run was cut short at {} (the config runs {full_duration}): a pass here is not proof of a fix; use `seedfall verify`",
            spec.duration,
        );
    }
    for line in result.probes.summaries() {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "trace hash {}", result.trace_hash);
    let mut timeline = None;
    if let Some(model) = spec.linearizable {
        let path = crate::config::history_path(config_path, seed);
        let page = crate::timeline::render(seed, model.name(), &result.history, result.linearizability.as_ref());
        crate::safe_write::replace_or_say(&path, page.as_bytes())?;
        let _ = writeln!(out, "history timeline: {}", path.display());
        timeline = Some(path.display().to_string());
    }
    let log = result.hash_log.as_deref().unwrap_or_default();
    if let Some(file) = &options.save_trace {
        crate::safe_write::replace_or_say(file, to_text(log).as_bytes())?;
        let _ = writeln!(out, "trace log: {} events written to {}", log.len(), file.display());
    }
    let mut diverged = None;
    if let Some((file, expected)) = &against {
        match first_divergence(expected, log) {
            Some(d) => {
                let _ = writeln!(out, "differs from {}: {d}", file.display());
                diverged = Some(d.to_string());
            }
            None => {
                let _ = writeln!(out, "same {} events as {}", log.len(), file.display());
            }
        }
    }
    let _ = writeln!(
        out,
        "{}",
        timing_line(cluster.build_time, cluster.load_time, cluster.lazy_compiles(), &result.timings)
    );
    let code = if diverged.is_some() || matches!(result.verdict, Verdict::Fail(_)) { 1 } else { 0 };
    let mut doc = crate::json_doc::run(seed, &result);
    doc["not_applied"] = serde_json::json!(unapplied);
    doc["cut_short"] = serde_json::json!(result.verdict == Verdict::Horizon && spec.duration < full_duration);
    doc["history_timeline"] = serde_json::json!(timeline);
    doc["differs"] = serde_json::json!(diverged);
    Ok(Replayed { code, doc })
}
