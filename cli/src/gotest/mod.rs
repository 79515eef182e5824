//! `seedfall test`: a Go package's own tests in the deterministic world.
//! Each package's test binary is built once (`build.rs`), listed
//! (`-test.list`), and each test runs alone (`-test.run=^Name$`) once per
//! seed with the preemption strategy, so a seed's run of a test does not
//! depend on which other tests `-run` chose and `seedfall test PKG -run
//! TestX -seeds N` reproduces it. Saved schedules under
//! `testdata/seedfall/<Test>/` replay first (`corpus.rs`); failing seeds are
//! grouped into findings (`sweep.rs`); `-novelty` sweeps until new schedule
//! shapes stop appearing (`novelty.rs`); `run.rs` drives all of it for a
//! list of packages and builds the result document. Printing belongs to
//! `test_cmd.rs`.

pub mod build;
pub mod corpus;
pub mod flags;
pub mod guest_dir;
pub mod novelty;
pub mod run;
pub mod sweep;

use crate::cluster::Cluster;
use crate::config::{self, Config, Source, WorkloadSpec};
use crate::schedule_error::ScheduleError;
use crate::setup_error::SetupError;
use build::Package;
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::world::probes::{GoroutineShapes, WorkloadOutput};
use seedfall_host::world::{self, Probes, Verdict};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The workload's name in every run of a test binary.
pub const NODE: &str = "test";

/// What `seedfall test` was asked.
#[derive(Debug, Clone)]
pub struct TestOptions {
    /// `-run`: which tests (a Go regexp, as `go test -run`).
    pub run: Option<String>,
    pub seeds: Vec<u64>,
    pub preempt: PreemptConfig,
    pub workers: usize,
    pub check: bool,
    /// `-c CONFIG`: its services, faults, overlays and `memory`.
    pub config: Option<PathBuf>,
    pub minimize: bool,
    /// `-novelty -novelty-patience K`: stop a test after K seeds without a new shape.
    pub novelty_patience: Option<u64>,
    /// `-save-trace DIR`: the event log of each finding's lowest seed.
    pub save_trace: Option<PathBuf>,
    /// After `--`, as the binary takes them (`flags::translate`).
    pub test_flags: Vec<String>,
}

/// A package ready to run: its binary loaded as the workload of a cluster.
pub struct Prepared {
    pub package: Package,
    pub cluster: Cluster,
    pub config_path: PathBuf,
    pub tests: Vec<String>,
}

/// The config a package runs under: `-c CONFIG`, or none (both overlays on,
/// no services, no faults); and its path, which places `.seedfall/`.
fn base_config(options: &TestOptions, package: &Package) -> Result<(Config, PathBuf), SetupError> {
    match &options.config {
        Some(file) => {
            let (path, config) = config::open(Some(file)).map_err(SetupError::Config)?;
            Ok((config, path))
        }
        None => {
            let text = r#"{"nodes": [], "workload": {"wasm": "unused"}, "net_overlay": true, "compat_overlay": true}"#;
            let config = config::parse(text, &package.dir).map_err(SetupError::Config)?;
            Ok((config, package.dir.join("seedfall-test.json")))
        }
    }
}

/// Builds and loads `package`'s test binary and lists the tests `-run` picks.
pub fn prepare(options: &TestOptions, package: Package) -> Result<Prepared, SetupError> {
    let (mut config, config_path) = base_config(options, &package)?;
    let state_dir = config::state_dir(&config_path);
    crate::state_folder::ensure(&state_dir);
    let build_dir = std::path::absolute(state_dir.join("build")).map_err(SetupError::BuildDir)?;
    let parts = crate::overlay::Parts { net: config.net_overlay, compat: config.compat_overlay };
    let overlay = crate::overlay::prepare(&build_dir, parts)?;
    let binary = build_dir.join(format!("test.{}.wasm", package.import_path.replace(['/', '.'], "_")));
    build::build(&package, &binary, overlay.as_ref())?;
    config.workload = WorkloadSpec { name: NODE.into(), source: Source::Wasm(binary), args: vec![], env: vec![] };
    config.preempt = options.preempt.clone();
    // The binary's own timeout ends a test that sleeps or deadlocks, with every goroutine's stack.
    let timeout = flags::timeout(&options.test_flags)?;
    config.duration = config.duration.max(timeout + Duration::from_secs(60));
    config.liveness = None;
    let mut cluster = Cluster::prepare(config, &config_path, &state_dir)?;
    cluster.probes = || Probes::default().with(WorkloadOutput::default()).with(GoroutineShapes::default());
    let mut prepared = Prepared { package, cluster, config_path, tests: vec![] };
    prepared.set_args(flags::for_listing(options.run.as_deref()));
    prepared.tests = list_tests(&prepared.cluster)?;
    Ok(prepared)
}

/// Runs the binary once with `-test.list` (no preemption, no faults).
fn list_tests(cluster: &Cluster) -> Result<Vec<String>, SetupError> {
    let mut spec = cluster.spec(1);
    spec.preempt = PreemptConfig::default();
    spec.faults = Default::default();
    let run = cluster.run(&spec).map_err(SetupError::ListRun)?;
    let output = String::from_utf8_lossy(WorkloadOutput::of(&run.probes)).into_owned();
    match &run.verdict {
        Verdict::Pass | Verdict::Horizon => Ok(flags::listed(&output)),
        Verdict::Fail(failures) => Err(SetupError::ListFailed {
            failure: failures.first().map(|f| f.to_string()).unwrap_or_default(),
            output: output.trim_end().to_string(),
        }),
    }
}

impl Prepared {
    /// Sets the workload's arguments to run exactly `test`.
    pub fn select(&mut self, test: &str, test_flags: &[String]) {
        self.set_args(flags::for_test(test, test_flags));
    }

    /// The binary runs with `args` in the package directory, as `go test`
    /// runs it: mounted read-through, and PWD set to it; at its import path
    /// (`guest_dir`), not its host path, so a seed's run is the same in any
    /// checkout. Nothing else of the host's environment reaches it.
    fn set_args(&mut self, args: Vec<String>) {
        let guest = guest_dir::of_import_path(&self.package.import_path);
        let env = vec![format!("PWD={guest}")];
        self.cluster.set_workload(args, env, vec![(self.package.dir.clone(), guest)]);
    }
}

/// Where `-minimize` saves `test`'s schedule for `seed`, and the corpus is read from.
pub fn corpus_dir(package_dir: &Path) -> PathBuf {
    package_dir.join("testdata").join("seedfall")
}

/// The line that reproduces `test` at `seed` (shell-quoted).
pub fn reproduce_line(package: &Package, test: &str, seed: u64, test_flags: &[String]) -> String {
    let seed = seed.to_string();
    let mut words = vec!["seedfall", "test", &package.arg, "-run", test, "-seeds", &seed];
    if !test_flags.is_empty() {
        words.push("--");
        words.extend(test_flags.iter().map(String::as_str));
    }
    crate::shell::command(&words)
}

/// `-save-trace`: runs `spec` (a seed of the selected test, or the replay
/// of its minimized schedule) with every event logged and writes the log
/// (`replay --save-trace`'s format) to `file`.
pub fn save_trace(mut spec: seedfall_host::world::RunSpec, file: &Path) -> Result<(), ScheduleError> {
    spec.hash_log = true;
    let run = world::run(&spec, None)
        .map_err(|e| ScheduleError::Seed { seed: spec.seed, error: Box::new(ScheduleError::World(e)) })?;
    let text = seedfall_host::world::divergence::to_text(run.hash_log.as_deref().unwrap_or_default());
    Ok(crate::safe_write::replace_or_say(file, text.as_bytes())?)
}
