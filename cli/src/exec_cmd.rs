//! `seedfall exec [--seed N] [--dir HOST[:GUEST]]... [--env K=V]... FILE [ARGS...]`:
//! compile FILE, run it as one node in the deterministic world, and exit with
//! its exit code. Shaped to be the `-exec` of `GOOS=wasip1 go test`: the test
//! binary has no .wasm suffix, and with no `--dir` the current directory is
//! mounted at its own path with PWD set to it.

use crate::compiled;
use crate::duration::parse_duration;
use seedfall_cache::Cache;
use seedfall_host::exec::{self, Exit};
use seedfall_host::fs::Fs;
use seedfall_host::node::Node;
use seedfall_host::preempt::Preemption;
use seedfall_host::preempt::goruntime;
use seedfall_host::preempt::strategy::{PreemptConfig, Schedule};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ExecArgs {
    /// Seed for every random choice the world makes (randomness, scheduling).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Mount a host directory read-through (writes stay in memory), at GUEST or its own path.
    #[arg(long = "dir", value_name = "HOST[:GUEST]")]
    dirs: Vec<String>,
    /// Set an environment variable in the guest.
    #[arg(long = "env", value_name = "K=V")]
    envs: Vec<String>,
    /// The wasip1 program (any file name; `go test -c` output has no .wasm suffix).
    file: PathBuf,
    /// Preemption: STRATEGY[,key=value...] with STRATEGY none|random|pct|calls and keys
    /// depth, steps (pct), every (calls), loops=true|false. Example: pct,depth=2,steps=400000.
    #[arg(long, default_value = "none", value_name = "SPEC")]
    preempt: String,
    /// Run the module without the preemption instrumentation (no call or loop counters, no
    /// preemption at all: a spinning goroutine can hang the run). For measuring the counters'
    /// cost (bench/guest.sh); not for tests.
    #[arg(long, hide_short_help = true, conflicts_with = "preempt")]
    no_preempt: bool,
    /// Real time a guest may run without any host call before it is stopped as a busy loop.
    #[arg(long, default_value = "10s", value_name = "DURATION")]
    watchdog: String,
    /// Cache directory for compiled code (default: $SEEDFALL_CACHE_DIR, else the user cache directory).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Print where the time of compiling or loading the program went.
    #[arg(long)]
    timings: bool,
    /// At exit, print the run's trace hash (host calls, scheduling, final memory) to stderr.
    #[arg(long)]
    trace_hash: bool,
    /// Arguments for the guest, passed untouched.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// The one node of an `exec` run.
const NODE: &str = "main";

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall exec: {message}");
    ExitCode::from(2)
}

/// (host dir, guest dir) pairs; with none given, the current directory at its own path.
fn mounts(dirs: &[String], cwd: &Path) -> Vec<(PathBuf, String)> {
    if dirs.is_empty() {
        return vec![(cwd.to_path_buf(), cwd.display().to_string())];
    }
    dirs.iter()
        .map(|d| match d.split_once(':') {
            Some((host, guest)) => (PathBuf::from(host), guest.to_string()),
            None => (PathBuf::from(d), d.clone()),
        })
        .collect()
}

/// The guest environment: PWD (so relative paths work like the host's), then
/// `--env` values. GOMAXPROCS is dropped: Go on wasm cannot run more than one P.
fn environment(envs: &[String], cwd: &Path) -> Result<Vec<String>, String> {
    let mut env = vec![format!("PWD={}", cwd.display())];
    for e in envs {
        let Some((key, _)) = e.split_once('=') else { return Err(format!("--env {e:?} is not KEY=VALUE")) };
        if key == "GOMAXPROCS" {
            continue;
        }
        env.retain(|existing| existing.split_once('=').map(|(k, _)| k) != Some(key));
        env.push(e.clone());
    }
    Ok(env)
}

pub fn run(args: ExecArgs) -> ExitCode {
    let preempt = match PreemptConfig::parse(&args.preempt) {
        Ok(p) => p,
        Err(e) => return fail(format!("--preempt: {e}")),
    };
    let watchdog = match parse_duration(&args.watchdog) {
        Ok(d) => d,
        Err(e) => return fail(format!("--watchdog: {e}")),
    };
    let cache = Cache::open(&args.cache_dir.clone().unwrap_or_else(Cache::default_dir_for_exec));
    let instrumentation = (!args.no_preempt).then_some(seedfall_instrument::Config { loops: preempt.loops });
    let compiled = match compiled::load(&cache, &args.file, instrumentation, args.timings) {
        Ok(compiled) => compiled,
        Err(e) => return fail(e),
    };
    let offsets = match goruntime::go_version(compiled.code.info()) {
        Some(version) => match goruntime::offsets_for(&version) {
            Ok(offsets) => Some(offsets),
            Err(e) => return fail(e),
        },
        None => None,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let env = match environment(&args.envs, &cwd) {
        Ok(env) => env,
        Err(e) => return fail(e),
    };
    let mut fs = Fs::new(seedfall_host::clock::EPOCH_UNIX_NS);
    for (host, guest) in mounts(&args.dirs, &cwd) {
        if let Err(e) = fs.mount_host(&host, &guest) {
            return fail(format!("--dir {}: {e}", host.display()));
        }
    }
    let mut argv = vec![args.file.display().to_string()];
    argv.extend(args.args);
    let mut node = Node::new(NODE, args.seed, argv, env, fs);
    let schedule = Schedule::new(&preempt.strategy, seedfall_host::world::fault::preempt::stream(args.seed, NODE, 1));
    node.preempt = compiled.counter_global.map(|counter| Preemption::new(counter, offsets, schedule, preempt.loops));
    let (exit, instance) = match exec::run(compiled.code, node, watchdog) {
        Ok(done) => done,
        Err(e) => return fail(e),
    };
    if args.trace_hash {
        eprintln!("seedfall: trace hash {} ({} events)", exec::trace_hash(&instance), instance.data().trace.events());
    }
    if let Some(preempt) = &instance.data().preempt {
        let preemptions: Vec<u64> = preempt.fired.iter().map(|(counted, _)| *counted).collect();
        if !preemptions.is_empty() && args.timings {
            eprintln!("seedfall: {} strategy preemptions at counted calls {preemptions:?}", preemptions.len());
        }
    }
    match exit {
        Exit::Code(code) => ExitCode::from(code as u8),
        Exit::Trapped(trap) => fail(format!("node {NODE}: {trap}")),
    }
}
