//! `seedfall test [PKG…] [-run RE] [-seeds LIST] [-preempt S] [-j N] [-check]
//! [-c CONFIG] [-minimize] [-novelty] [-novelty-patience K] [-save-trace DIR]
//! [--json FILE] [-- TESTFLAGS]`: clap glue and printing over
//! `seedfall::gotest::run`, which sweeps the packages one after the other;
//! this prints each step as it is told. Exit 2 if a package could not be
//! built or run at all, else 1 if any test failed (a saved schedule that
//! still fails counts), else 0.

use seedfall::gotest::build;
use seedfall::gotest::novelty::Novelty;
use seedfall::gotest::run::{self, Event};
use seedfall::gotest::{TestOptions, flags};
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::seeds::parse_seeds;
use seedfall::sweep::workers;
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::world::Verdict;
use seedfall_host::world::probes::WorkloadOutput;
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
    let (code, doc) = run::packages(&options, packages, &interrupt.stop, &mut |event| print(out, event));
    if let Some(target) = &args.json
        && let Err(e) = json_doc::write(target, &doc)
    {
        eprintln!("seedfall test: {e}");
        return ExitCode::from(2);
    }
    ExitCode::from(code)
}

/// The lines of one step, as it happens.
fn print(out: &mut dyn Write, event: Event) {
    let _ = match event {
        Event::NoTestFiles(package) => writeln!(out, "?    {}\t[no test files]", package.arg),
        Event::SetupFailed(package, error) => writeln!(out, "{error}\nFAIL {} [setup failed]", package.arg),
        Event::SavedReplayed { shown, seed, result } => match result {
            Ok(run) if matches!(run.verdict, Verdict::Fail(_)) => {
                let _ = writeln!(out, "FAIL saved schedule {shown} still fails:");
                let _ = write!(out, "{}", seedfall::report::fail_block(seed, run));
                write!(out, "{}", indented_tail(&String::from_utf8_lossy(WorkloadOutput::of(&run.probes))))
            }
            Ok(_) => writeln!(out, "ok   saved schedule {shown} passes"),
            Err(e) => writeln!(out, "FAIL saved schedule {e}"),
        },
        Event::Swept(outcome) => swept(out, outcome),
        Event::Finding { finding, reproduce } => {
            let _ = write!(out, "{}", finding.fail_block);
            let listed: Vec<String> = finding.failing_seeds.iter().take(SEEDS_LISTED).map(u64::to_string).collect();
            let more = finding.failing_seeds.len().saturating_sub(SEEDS_LISTED);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            let _ = writeln!(out, "  failing seeds: {}{more}", listed.join(", "));
            let _ = writeln!(out, "  reproduce: {reproduce}");
            write!(out, "{}", indented_tail(&finding.output))
        }
        Event::Minimized(Ok((shrunk, shown))) => {
            let (before, after, runs) = (shrunk.before.faults.len(), shrunk.after.faults.len(), shrunk.runs);
            let _ =
                writeln!(out, "  minimized: {before} preemptions and faults to {after} in {runs} runs; saved {shown}");
            // Each kept point names the Go function it fired in, with its file:line.
            shrunk.after.faults.iter().try_for_each(|fault| writeln!(out, "    {}", fault.describe().trim_start()))
        }
        Event::Minimized(Err(e)) => writeln!(out, "  minimize: {e}"),
        Event::TraceFailed(e) => writeln!(out, "  save-trace: {e}"),
        Event::Traces(traces) => {
            let first = traces[0].display();
            writeln!(out, "  traces: {first} ({} of them, one per failing seed)", traces.len())
        }
        Event::MinimizedTrace(file) => writeln!(out, "  minimized trace: {}", file.display()),
        Event::TestDone(outcome) => match &outcome.novelty {
            Some(n) => {
                let stop = match n.stopped_at() {
                    Some(seed) => format!("stopped at seed {seed}: {} seeds without a new shape", n.patience),
                    None => "the seeds ran out before the shapes did".to_string(),
                };
                let _ = writeln!(out, "  novelty: {} shapes in {} seeds ({stop})", n.shapes(), n.seeds_read());
                writeln!(out, "  shapes found by seed: {}", shapes_by_seed(n))
            }
            None => Ok(()),
        },
        Event::Interrupted { test, seeds } => writeln!(out, "interrupted: {test} stopped after {seeds} seeds"),
        Event::PackageDone { package, tests: 0, .. } => writeln!(out, "ok   {}\t[no tests to run]", package.arg),
        Event::PackageDone { package, failed, .. } => {
            writeln!(out, "{} {}", if failed { "FAIL" } else { "ok  " }, package.arg)
        }
    };
}

/// A test's first lines: how its seeds went, then each divergence and internal error.
fn swept(out: &mut dyn Write, outcome: &seedfall::gotest::sweep::TestOutcome) -> std::io::Result<()> {
    let (test, runs) = (&outcome.test, outcome.seeds_run.len());
    let failing: usize = outcome.findings.iter().map(|f| f.failing_seeds.len()).sum();
    if outcome.failed() {
        writeln!(out, "FAIL {test}: {failing} of {runs} seeds failed")?;
    } else {
        writeln!(out, "ok   {test}: {runs} seeds")?;
    }
    for (seed, divergence) in &outcome.diverged {
        writeln!(out, "FAIL seed {seed} is not deterministic: {divergence}")?;
    }
    for (seed, error) in &outcome.errors {
        writeln!(out, "seed {seed}: internal error: {error}")?;
    }
    Ok(())
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
