//! `seedfall test`'s orchestration, one package after another: prepare it
//! (`prepare`), replay its saved schedules (`corpus`), sweep each test
//! (`sweep`), and for each finding minimize and save traces as the options
//! ask. Each step is told to the caller as an `Event` when it happens, so
//! a terminal shows progress as it comes; the result document
//! (docs/json.md) is built here, so any driver (the `seedfall test`
//! command, an MCP tool) returns the same one. It prints nothing and picks
//! no exit code beyond the document's (2 setup, 1 a failure, else 0).

use super::build::Package;
use super::corpus::{self, Saved};
use super::sweep::{Finding, TestOutcome};
use super::{Prepared, TestOptions};
use crate::schedule_error::ScheduleError;
use crate::setup_error::SetupError;
use crate::shrink::Shrunk;
use crate::sweep::SweepOptions;
use seedfall_host::world::{RunResult, Verdict};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A step of `seedfall test`, as it happens.
pub enum Event<'a> {
    /// The package has no `_test.go` files; nothing ran.
    NoTestFiles(&'a Package),
    /// The package could not be built or its tests listed.
    SetupFailed(&'a Package, &'a SetupError),
    /// A saved schedule (`shown` relative to the package) was replayed.
    SavedReplayed { shown: &'a str, seed: u64, result: &'a Result<RunResult, ScheduleError> },
    /// A test's seeds ran; its findings follow, then `TestDone`.
    Swept(&'a TestOutcome),
    /// A finding of the test just swept, and the line that reproduces it.
    Finding { finding: &'a Finding, reproduce: &'a str },
    /// `-minimize` of that finding: the shrink and where it was saved (relative to the package).
    Minimized(&'a Result<(Shrunk, String), ScheduleError>),
    /// `-save-trace`: one trace could not be written.
    TraceFailed(&'a ScheduleError),
    /// `-save-trace`: the traces written, one per failing seed.
    Traces(&'a [PathBuf]),
    /// `-save-trace`: the minimized schedule's trace.
    MinimizedTrace(&'a Path),
    /// The test's findings are told; its `-novelty` curve, if any, is in `outcome`.
    TestDone(&'a TestOutcome),
    /// Ctrl-C stopped the test after `seeds` seeds.
    Interrupted { test: &'a str, seeds: usize },
    /// The package is done: `tests` is how many tests it ran.
    PackageDone { package: &'a Package, tests: usize, failed: bool },
}

/// Every package's sweep in turn until `stop` is set: the exit code and the
/// `--json` document (`{"packages": […], "exit_code": N}`).
pub fn packages(
    options: &TestOptions,
    packages: Vec<Package>,
    stop: &AtomicBool,
    on: &mut dyn FnMut(Event),
) -> (u8, Value) {
    let mut code = 0u8;
    let mut docs = Vec::new();
    for package in packages {
        let (package_code, doc) = package_sweep(options, package, stop, on);
        code = code.max(package_code);
        docs.push(doc);
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    (code, json!({"packages": docs, "exit_code": code}))
}

/// Sweeps one package; its exit code and JSON.
fn package_sweep(options: &TestOptions, package: Package, stop: &AtomicBool, on: &mut dyn FnMut(Event)) -> (u8, Value) {
    let mut doc = json!({"package": package.arg, "import_path": package.import_path, "dir": package.dir});
    if !package.has_tests {
        on(Event::NoTestFiles(&package));
        doc["tests"] = json!([]);
        return (0, doc);
    }
    let mut prepared = match super::prepare(options, package.clone()) {
        Ok(p) => p,
        Err(e) => {
            on(Event::SetupFailed(&package, &e));
            doc["error"] = json!(e.to_string());
            return (2, doc);
        }
    };
    let mut failed = false;
    let corpus = replay_corpus(&mut prepared, options, on, &mut failed);
    doc["corpus"] = Value::Array(corpus);
    let sweep_options = SweepOptions { workers: options.workers, check: options.check };
    let mut tests = Vec::new();
    for test in prepared.tests.clone() {
        prepared.select(&test, &options.test_flags);
        let outcome =
            super::sweep::sweep(&prepared, &test, &options.seeds, &sweep_options, options.novelty_patience, stop);
        failed |= outcome.failed();
        tests.push(test_doc(&mut prepared, options, &outcome, on));
        if outcome.interrupted {
            on(Event::Interrupted { test: &test, seeds: outcome.seeds_run.len() });
            break;
        }
    }
    on(Event::PackageDone { package: &prepared.package, tests: prepared.tests.len(), failed });
    doc["tests"] = Value::Array(tests);
    (u8::from(failed), doc)
}

/// Replays the saved schedules of the tests `-run` picked; each one that
/// still fails (or cannot run) is a failure.
fn replay_corpus(
    prepared: &mut Prepared,
    options: &TestOptions,
    on: &mut dyn FnMut(Event),
    failed: &mut bool,
) -> Vec<Value> {
    let mut docs = Vec::new();
    let listed = prepared.tests.clone();
    for saved in corpus::saved(&prepared.package.dir).into_iter().filter(|s| listed.contains(&s.test)) {
        let shown = relative(&prepared.package, &saved.file);
        let result = corpus::replay(prepared, &saved, &options.test_flags);
        let verdict = match &result {
            Ok(run) if matches!(run.verdict, Verdict::Fail(_)) => "fail",
            Ok(_) => "pass",
            Err(_) => "error",
        };
        *failed |= verdict != "pass";
        on(Event::SavedReplayed { shown: &shown, seed: saved.seed, result: &result });
        docs.push(json!({"test": saved.test, "seed": saved.seed, "file": saved.file, "verdict": verdict}));
    }
    docs
}

/// Tells one test's outcome (minimizing and saving traces as asked); its JSON.
fn test_doc(prepared: &mut Prepared, options: &TestOptions, outcome: &TestOutcome, on: &mut dyn FnMut(Event)) -> Value {
    let test = &outcome.test;
    on(Event::Swept(outcome));
    let findings: Vec<Value> = outcome.findings.iter().map(|f| finding_doc(prepared, options, test, f, on)).collect();
    on(Event::TestDone(outcome));
    let failing: usize = outcome.findings.iter().map(|f| f.failing_seeds.len()).sum();
    let novelty = outcome.novelty.as_ref().map(|n| {
        json!({"shapes": n.shapes(), "seeds": n.seeds_read(), "stopped_at": n.stopped_at(),
               "patience": n.patience, "curve": n.curve})
    });
    json!({
        "test": test,
        "seeds": outcome.seeds_run.len(),
        "failed": failing,
        "findings": findings,
        "diverged": outcome.diverged.iter().map(|(s, d)| json!({"seed": s, "divergence": d})).collect::<Vec<_>>(),
        "errors": outcome.errors.iter().map(|(s, e)| json!({"seed": s, "error": e})).collect::<Vec<_>>(),
        "trace_digest": outcome.trace_digest,
        "novelty": novelty,
    })
}

fn finding_doc(
    prepared: &mut Prepared,
    options: &TestOptions,
    test: &str,
    finding: &Finding,
    on: &mut dyn FnMut(Event),
) -> Value {
    let seed = finding.lowest_seed();
    let reproduce = super::reproduce_line(&prepared.package, test, seed, &options.test_flags);
    on(Event::Finding { finding, reproduce: &reproduce });
    let mut doc = json!({
        "signature": finding.signature,
        "count": finding.failing_seeds.len(),
        "failing_seeds": finding.failing_seeds,
        "lowest_seed": seed,
        "reproduce": reproduce,
        "output": finding.output,
        "schedule": null,
        "traces": [],
        "minimized_trace": null,
    });
    let mut minimized = None;
    if options.minimize {
        let result = corpus::minimize(prepared, test, seed, options.workers);
        let told = result.map(|(shrunk, file)| {
            let shown = relative(&prepared.package, &file);
            doc["schedule"] = json!(file);
            minimized = Some(Saved { test: test.to_string(), seed, file });
            (shrunk, shown)
        });
        on(Event::Minimized(&told));
    }
    if let Some(dir) = &options.save_trace {
        let stem = format!("{}.{test}", prepared.package.import_path.replace(['/', '.'], "_"));
        let mut traces = Vec::new();
        for &failing in &finding.failing_seeds {
            let file = dir.join(format!("{stem}.seed-{failing}.trace"));
            match super::save_trace(prepared.cluster.spec(failing), &file) {
                Ok(()) => traces.push(file),
                Err(e) => on(Event::TraceFailed(&e)),
            }
        }
        if !traces.is_empty() {
            on(Event::Traces(&traces));
        }
        doc["traces"] = json!(traces);
        // Beside it, the minimized run: `seedfall trace diff` shows what minimizing kept.
        if let Some(saved) = &minimized {
            let file = dir.join(format!("{stem}.seed-{seed}.minimized.trace"));
            match corpus::spec(prepared, saved).and_then(|spec| super::save_trace(spec, &file)) {
                Ok(()) => {
                    on(Event::MinimizedTrace(&file));
                    doc["minimized_trace"] = json!(file);
                }
                Err(e) => on(Event::TraceFailed(&e)),
            }
        }
    }
    doc
}

/// `file` as the package's output names it: relative to the package's directory.
fn relative(package: &Package, file: &Path) -> String {
    file.strip_prefix(&package.dir).unwrap_or(file).display().to_string()
}
