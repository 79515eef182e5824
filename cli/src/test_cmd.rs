//! `seedfall test [PKG…] [-run RE] [-seeds LIST] [-preempt S] [-j N] [-check]
//! [-c CONFIG] [-minimize] [-novelty] [-novelty-patience K] [-save-trace DIR]
//! [--json FILE] [-- TESTFLAGS]`: clap glue and printing over
//! `seedfall::gotest`. Packages are swept one after the other, each
//! reported; exit 2 if one could not be built or run at all, else 1 if any
//! test failed (a saved schedule that still fails counts), else 0.

use seedfall::gotest::build::{self, Package};
use seedfall::gotest::corpus;
use seedfall::gotest::novelty::Novelty;
use seedfall::gotest::sweep::{Finding, TestOutcome};
use seedfall::gotest::{self, Prepared, TestOptions, flags};
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::seeds::parse_seeds;
use seedfall::sweep::{SweepOptions, workers};
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::world::Verdict;
use seedfall_host::world::probes::WorkloadOutput;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct TestArgs {
    /// Packages, as `go test` takes them (default: the current directory's).
    packages: Vec<String>,
    /// Which tests (a Go regexp, as `go test -run`); each runs alone per seed.
    #[arg(long)]
    run: Option<String>,
    /// Seeds: 7, 1-500, 1,5,9-12 (default 1-100; with -novelty, at most 1-100000).
    #[arg(long)]
    seeds: Option<String>,
    /// Preemption strategy: random (default), pct, calls or none, with options as `exec --preempt`.
    #[arg(long, default_value = "random")]
    preempt: String,
    /// Worker threads (default: all cores).
    #[arg(short = 'j')]
    jobs: Option<usize>,
    /// Run every seed twice and compare the trace hashes.
    #[arg(long)]
    check: bool,
    /// A config whose services, faults, overlays and `memory` the tests run with.
    #[arg(short = 'c', long = "config")]
    config: Option<PathBuf>,
    /// Shrink each finding's lowest seed and save its schedule under testdata/seedfall/<Test>/.
    #[arg(long)]
    minimize: bool,
    /// Sweep each test until new schedule shapes stop appearing.
    #[arg(long)]
    novelty: bool,
    /// With -novelty: stop after this many seeds in a row without a new shape.
    #[arg(long, default_value_t = 100)]
    novelty_patience: u64,
    /// Write the event log of each finding's lowest seed into DIR (for `seedfall trace`).
    #[arg(long, value_name = "DIR")]
    save_trace: Option<PathBuf>,
    /// Write the result as JSON (`-`: stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Flags for the test binary, as `go test` takes them (-v, -short, -timeout 30s).
    #[arg(last = true)]
    test_flags: Vec<String>,
}

/// Lines of a failing test's output shown under its finding.
const OUTPUT_LINES: usize = 40;
/// Failing seeds listed per finding.
const SEEDS_LISTED: usize = 10;

fn options(args: &TestArgs) -> Result<TestOptions, String> {
    let default_seeds = if args.novelty { "1-100000" } else { "1-100" };
    let list = args.seeds.as_deref().unwrap_or(default_seeds);
    seedfall::seeds::say_if_single(list);
    let seeds = parse_seeds(list).map_err(|e| format!("-seeds: {e}"))?;
    let preempt = PreemptConfig::parse(&args.preempt).map_err(|e| format!("-preempt: {e}"))?;
    if args.novelty_patience == 0 {
        return Err("-novelty-patience: must be at least 1".into());
    }
    Ok(TestOptions {
        run: args.run.clone(),
        seeds,
        preempt,
        workers: workers(args.jobs),
        check: args.check,
        config: args.config.clone(),
        minimize: args.minimize,
        novelty_patience: args.novelty.then_some(args.novelty_patience),
        save_trace: args.save_trace.clone(),
        test_flags: flags::translate(&args.test_flags),
    })
}

pub fn run(args: TestArgs) -> ExitCode {
    let out = &mut json_doc::text_out(args.json.as_deref());
    let options = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("seedfall test: {e}");
            return ExitCode::from(2);
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let packages = match build::list(&args.packages, &cwd) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let interrupt = Interrupt::install();
    let mut code = 0u8;
    let mut docs = Vec::new();
    for package in packages {
        let (package_code, doc) = test_package(&options, package, &interrupt, out);
        code = code.max(package_code);
        docs.push(doc);
        if interrupt.stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    if let Some(target) = &args.json
        && let Err(e) = json_doc::write(target, &json!({"packages": docs, "exit_code": code}))
    {
        eprintln!("seedfall test: {e}");
        return ExitCode::from(2);
    }
    ExitCode::from(code)
}

/// Sweeps one package; its exit code and JSON.
fn test_package(options: &TestOptions, package: Package, interrupt: &Interrupt, out: &mut dyn Write) -> (u8, Value) {
    let name = package.arg.clone();
    let mut doc = json!({"package": name, "import_path": package.import_path, "dir": package.dir});
    if !package.has_tests {
        let _ = writeln!(out, "?    {name}\t[no test files]");
        doc["tests"] = json!([]);
        return (0, doc);
    }
    let mut prepared = match gotest::prepare(options, package) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(out, "{e}\nFAIL {name} [setup failed]");
            doc["error"] = json!(e.to_string());
            return (2, doc);
        }
    };
    let mut failed = false;
    let corpus = replay_corpus(&mut prepared, options, out, &mut failed);
    doc["corpus"] = Value::Array(corpus);
    let sweep_options = SweepOptions { workers: options.workers, check: options.check };
    let mut tests = Vec::new();
    for test in prepared.tests.clone() {
        prepared.select(&test, &options.test_flags);
        let outcome = gotest::sweep::sweep(
            &prepared,
            &test,
            &options.seeds,
            &sweep_options,
            options.novelty_patience,
            &interrupt.stop,
        );
        failed |= outcome.failed();
        tests.push(report_test(&mut prepared, options, &outcome, out));
        if outcome.interrupted {
            let _ = writeln!(out, "interrupted: {test} stopped after {} seeds", outcome.seeds_run.len());
            break;
        }
    }
    if prepared.tests.is_empty() {
        let _ = writeln!(out, "ok   {name}\t[no tests to run]");
    } else {
        let _ = writeln!(out, "{} {name}", if failed { "FAIL" } else { "ok  " });
    }
    doc["tests"] = Value::Array(tests);
    (u8::from(failed), doc)
}

/// Replays the saved schedules of the tests `-run` picked; each one that
/// still fails is a failure.
fn replay_corpus(prepared: &mut Prepared, options: &TestOptions, out: &mut dyn Write, failed: &mut bool) -> Vec<Value> {
    let mut docs = Vec::new();
    let listed = prepared.tests.clone();
    for saved in corpus::saved(&prepared.package.dir).into_iter().filter(|s| listed.contains(&s.test)) {
        let shown = saved.file.strip_prefix(&prepared.package.dir).unwrap_or(&saved.file).display().to_string();
        let verdict = match corpus::replay(prepared, &saved, &options.test_flags) {
            Ok(run) if matches!(run.verdict, Verdict::Fail(_)) => {
                *failed = true;
                let _ = writeln!(out, "FAIL saved schedule {shown} still fails:");
                let _ = write!(out, "{}", seedfall::report::fail_block(saved.seed, &run));
                let _ = write!(out, "{}", indented_tail(&String::from_utf8_lossy(WorkloadOutput::of(&run.probes))));
                "fail"
            }
            Ok(_) => {
                let _ = writeln!(out, "ok   saved schedule {shown} passes");
                "pass"
            }
            Err(e) => {
                *failed = true;
                let _ = writeln!(out, "FAIL saved schedule {e}");
                "error"
            }
        };
        docs.push(json!({"test": saved.test, "seed": saved.seed, "file": saved.file, "verdict": verdict}));
    }
    docs
}

/// Prints one test's outcome (minimizing and saving traces as asked); its JSON.
fn report_test(prepared: &mut Prepared, options: &TestOptions, outcome: &TestOutcome, out: &mut dyn Write) -> Value {
    let test = &outcome.test;
    let runs = outcome.seeds_run.len();
    let failing: usize = outcome.findings.iter().map(|f| f.failing_seeds.len()).sum();
    if outcome.failed() {
        let _ = writeln!(out, "FAIL {test}: {failing} of {runs} seeds failed");
    } else {
        let _ = writeln!(out, "ok   {test}: {runs} seeds");
    }
    for (seed, divergence) in &outcome.diverged {
        let _ = writeln!(out, "FAIL seed {seed} is not deterministic: {divergence}");
    }
    for (seed, error) in &outcome.errors {
        let _ = writeln!(out, "seed {seed}: internal error: {error}");
    }
    let findings: Vec<Value> =
        outcome.findings.iter().map(|f| report_finding(prepared, options, test, f, out)).collect();
    let novelty = outcome.novelty.as_ref().map(|n| {
        let stop = match n.stopped_at() {
            Some(seed) => format!("stopped at seed {seed}: {} seeds without a new shape", n.patience),
            None => "the seeds ran out before the shapes did".to_string(),
        };
        let _ = writeln!(out, "  novelty: {} shapes in {} seeds ({stop})", n.shapes(), n.seeds_read());
        let _ = writeln!(out, "  shapes found by seed: {}", shapes_by_seed(n));
        json!({"shapes": n.shapes(), "seeds": n.seeds_read(), "stopped_at": n.stopped_at(),
               "patience": n.patience, "curve": n.curve})
    });
    json!({
        "test": test,
        "seeds": runs,
        "failed": failing,
        "findings": findings,
        "diverged": outcome.diverged.iter().map(|(s, d)| json!({"seed": s, "divergence": d})).collect::<Vec<_>>(),
        "errors": outcome.errors.iter().map(|(s, e)| json!({"seed": s, "error": e})).collect::<Vec<_>>(),
        "trace_digest": outcome.trace_digest,
        "novelty": novelty,
    })
}

fn report_finding(
    prepared: &mut Prepared,
    options: &TestOptions,
    test: &str,
    finding: &Finding,
    out: &mut dyn Write,
) -> Value {
    let seed = finding.lowest_seed();
    let reproduce = gotest::reproduce_line(&prepared.package, test, seed, &options.test_flags);
    let _ = write!(out, "{}", finding.fail_block);
    let listed: Vec<String> = finding.failing_seeds.iter().take(SEEDS_LISTED).map(u64::to_string).collect();
    let more = finding.failing_seeds.len().saturating_sub(SEEDS_LISTED);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    let _ = writeln!(out, "  failing seeds: {}{more}", listed.join(", "));
    let _ = writeln!(out, "  reproduce: {reproduce}");
    let _ = write!(out, "{}", indented_tail(&finding.output));
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
        match corpus::minimize(prepared, test, seed, options.workers) {
            Ok((shrunk, file)) => {
                let shown = file.strip_prefix(&prepared.package.dir).unwrap_or(&file).display().to_string();
                let (before, after, runs) = (shrunk.before.faults.len(), shrunk.after.faults.len(), shrunk.runs);
                let _ = writeln!(
                    out,
                    "  minimized: {before} preemptions and faults to {after} in {runs} runs; saved {shown}"
                );
                // Each kept point names the Go function it fired in, with its file:line.
                for fault in &shrunk.after.faults {
                    let _ = writeln!(out, "    {}", fault.describe().trim_start());
                }
                doc["schedule"] = json!(file);
                minimized = Some(corpus::Saved { test: test.to_string(), seed, file });
            }
            Err(e) => {
                let _ = writeln!(out, "  minimize: {e}");
            }
        }
    }
    if let Some(dir) = &options.save_trace {
        let stem = format!("{}.{test}", prepared.package.import_path.replace(['/', '.'], "_"));
        let mut traces = Vec::new();
        for &failing in &finding.failing_seeds {
            let file = dir.join(format!("{stem}.seed-{failing}.trace"));
            match gotest::save_trace(prepared.cluster.spec(failing), &file) {
                Ok(()) => traces.push(file),
                Err(e) => {
                    let _ = writeln!(out, "  save-trace: {e}");
                }
            }
        }
        if let Some(first) = traces.first() {
            let _ = writeln!(out, "  traces: {} ({} of them, one per failing seed)", first.display(), traces.len());
        }
        doc["traces"] = json!(traces);
        let stem = format!("{stem}.seed-{seed}");
        // Beside it, the minimized run: `seedfall trace diff` shows what minimizing kept.
        if let Some(saved) = &minimized {
            let file = dir.join(format!("{stem}.minimized.trace"));
            match corpus::spec(prepared, saved).and_then(|spec| gotest::save_trace(spec, &file)) {
                Ok(()) => {
                    let _ = writeln!(out, "  minimized trace: {}", file.display());
                    doc["minimized_trace"] = json!(file);
                }
                Err(e) => {
                    let _ = writeln!(out, "  save-trace: {e}");
                }
            }
        }
    }
    doc
}

/// `shapes@seeds` at 1, 2, 5, 10, 20, 50, … seeds read and at the end.
fn shapes_by_seed(n: &Novelty) -> String {
    let read = n.seeds_read();
    let mut marks: Vec<u64> =
        (0..20u32).flat_map(|e| [1, 2, 5].map(|m| m * 10u64.pow(e))).take_while(|m| *m < read).collect();
    marks.push(read);
    marks.iter().map(|m| format!("{}@{m}", n.shapes_by(*m))).collect::<Vec<_>>().join(" ")
}

/// The last `OUTPUT_LINES` lines of `output`, indented under their finding.
fn indented_tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let skip = lines.len().saturating_sub(OUTPUT_LINES);
    let mut text = String::new();
    if skip > 0 {
        text.push_str(&format!("    ... ({skip} lines before)\n"));
    }
    for line in &lines[skip..] {
        text.push_str(&format!("    {}\n", seedfall::terminal::escape(line)));
    }
    text
}
