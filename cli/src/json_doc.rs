//! The `--json` documents of the commands that print one result (`replay`,
//! `shrink`, `verify`, `inspect`; `cause` has its own in `cause_stats`),
//! built from the library's results so an MCP tool returns the same
//! fields, and where they go: a file, or stdout for `-` (the command's text
//! then goes to stderr, so stdout is JSON alone). docs/json.md lists every
//! field. It runs nothing.

use crate::fault_phrase;
use crate::schedule::Schedule;
use crate::shrink::Shrunk;
use crate::verify::Verification;
use crate::write_error::WriteError;
use seedfall_host::world::{Failure, RunResult, Verdict};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Whether `target` means stdout.
pub fn to_stdout(target: Option<&Path>) -> bool {
    target.is_some_and(|t| t.as_os_str() == "-")
}

/// Where a command's text goes: stderr when its JSON takes stdout; guests'
/// control characters escaped on the way (`terminal`).
pub fn text_out(target: Option<&Path>) -> Box<dyn Write> {
    use crate::terminal::Escaped;
    if to_stdout(target) { Box::new(Escaped(std::io::stderr())) } else { Box::new(Escaped(std::io::stdout())) }
}

/// Writes `doc` to `target` (`-`: stdout), pretty, with a final newline.
pub fn write(target: &Path, doc: &Value) -> Result<(), WriteError> {
    let text = serde_json::to_string_pretty(doc).expect("JSON values serialize") + "\n";
    if target.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(WriteError::Stdout);
    }
    crate::safe_write::replace_or_say(target, text.as_bytes())
}

pub fn failure(f: &Failure) -> Value {
    json!({
        "class": f.class.name(),
        "node": f.node,
        "incarnation": f.incarnation,
        "property": f.property.map(|p| p.name()),
        "message": f.message,
        "signature": f.signature(),
    })
}

/// One run: how it ended, where, and the faults it took (schedule objects).
pub fn run(seed: u64, run: &RunResult) -> Value {
    let (verdict, failures) = match &run.verdict {
        Verdict::Pass => ("pass", Vec::new()),
        Verdict::Horizon => ("horizon", Vec::new()),
        Verdict::Fail(failures) => ("fail", failures.iter().map(failure).collect()),
    };
    json!({
        "seed": seed,
        "verdict": verdict,
        "failures": failures,
        "at": run.end.to_string(),
        "steps": run.steps,
        "real_ms": run.timings.total.as_millis() as u64,
        "trace_hash": run.trace_hash.to_string(),
        "faults": run.faults.iter().map(|f| f.to_json()).collect::<Vec<_>>(),
    })
}

/// `shrink`'s result; `saved` is where its schedule went.
pub fn shrunk(shrunk: &Shrunk, failure_of_seed: &Failure, saved: &Path) -> Value {
    let size = |c: &crate::shrink::Candidate| json!({"faults": c.faults.len(), "duration": c.duration.to_string(), "ops": c.ops.or(shrunk.default_ops)});
    // The reference's names: the failure's one-line reason and the minimal
    // schedule's faults as `shrink` prints them.
    let mut failed = failure(failure_of_seed);
    failed["reason"] = json!(failure_of_seed.to_string());
    failed["faults_before_failure"] = json!(fault_phrase::lines(&shrunk.after.faults));
    json!({
        "seed": shrunk.seed,
        "minimal_faults": shrunk.after.faults.len(),
        "failure": failed,
        "before": size(&shrunk.before),
        "after": size(&shrunk.after),
        "runs": shrunk.runs,
        "elapsed_ms": shrunk.elapsed.as_millis() as u64,
        "stopped_early": shrunk.stopped_early,
        "interrupted": shrunk.interrupted,
        "faults": shrunk.after.faults.iter().map(|f| f.to_json()).collect::<Vec<_>>(),
        "schedule": saved.display().to_string(),
    })
}

/// `verify`'s result: `verified` exactly when the exit code is 0.
pub fn verification(v: &Verification) -> Value {
    json!({
        "seed": v.seed,
        "faults": v.faults,
        "duration": v.full.to_string(),
        "verified": v.exit_code() == 0,
        "exit_code": v.exit_code(),
        "not_applied": v.unapplied,
        "run": run(v.seed, &v.run),
    })
}

/// `inspect`'s result: the schedule, each fault with its readable line.
pub fn schedule(schedule: &Schedule) -> Value {
    let mut doc: Value = serde_json::from_str(&schedule.to_json()).expect("a schedule's own JSON parses");
    let lines: Vec<Value> = schedule.faults.iter().map(|f| Value::String(f.describe().trim().to_string())).collect();
    doc["lines"] = Value::Array(lines);
    doc
}
