//! `seedfall exec [--seed N] [--dir HOST[:GUEST]]... [--env K=V]... FILE [ARGS...]`:
//! compile FILE, run it as one node in the deterministic world, and exit with
//! its exit code. Shaped to be the `-exec` of `GOOS=wasip1 go test`: the test
//! binary has no .wasm suffix, and with no `--dir` the current directory is
//! mounted with PWD set to it, at its import path (`gotest::guest_dir`) rather
//! than its host path, and the program is named by its file name alone: the
//! same wasm runs the same from any checkout, user, HOME or TMPDIR.

use seedfall::compiled::{self, LoadError};
use seedfall::duration::parse_duration;
use seedfall::go_exec::{self, TestsRun};
use seedfall::gotest::guest_dir;
use seedfall_cache::Cache;
use seedfall_engine::{CompileConfig, PinnedGlobal};
use seedfall_host::exec::{self, Exit};
use seedfall_host::node::Output;
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::{ExecNode, GuestError};
use std::cell::RefCell;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

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
    /// Instrument without the preemption entry checks of frameless functions (docs/preemption.md):
    /// a goroutine looping over frameless calls is then never preempted. For measuring their cost
    /// (bench/entry_checks.sh); not for tests.
    #[arg(long, hide_short_help = true)]
    no_entry_checks: bool,
    /// Which global compiled code keeps in a register: none (the default), last (the call
    /// counter) or first (Go's stack pointer) (docs/pinned-global.md). For measuring what the
    /// register saves (bench/guest.sh); not for tests.
    #[arg(long, hide_short_help = true, default_value = "none", value_parser = ["none", "first", "last"])]
    pinned_global: String,
    /// Compile with the per-function "ran" bitmap `seedfall cause` uses (docs/function-bitmap.md);
    /// with --timings, say how many functions ran. For measuring its cost; not for tests.
    #[arg(long, hide_short_help = true)]
    function_bitmap: bool,
    /// Compile with the function bitmap and the edge map `explore -edges` uses
    /// (docs/edge-coverage.md); with --timings, say how many edge bytes were set. For measuring
    /// its cost; not for tests.
    #[arg(long, hide_short_help = true)]
    edge_bitmap: bool,
    /// Compile without the native intrinsics of known Go functions (docs/intrinsics.md): the
    /// guest computes the same, more slowly. For measuring what they save and for their
    /// differential tests; not for tests of a program.
    #[arg(long, hide_short_help = true)]
    no_intrinsics: bool,
    /// CPU time (of its thread) a guest may run without any host call (or, while it ignores preemption
    /// requests, without honouring one) before it is stopped as a busy loop; at least 100ms.
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
    /// After the program exits, print an `=== ATTR` line per top-level test it ran
    /// (seed, trace hash, replay command) for `go test -json` (what the `go-exec`
    /// wrapper passes; docs/go-test.md).
    #[arg(long)]
    test_attrs: bool,
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

/// What the guest sees of where it runs: the mounts (host dir, guest dir),
/// its working directory and its argv[0].
#[derive(Debug, PartialEq, Eq)]
struct Placement {
    mounts: Vec<(PathBuf, String)>,
    pwd: String,
    program: String,
}

/// With no `--dir`, the current directory at its import path and the file
/// by its name alone: a host path would move the run with the checkout, and
/// `go test` runs `$WORK/b001/pkg.test`, a fresh temporary directory every
/// time. With `--dir`, the paths are the user's: as given, PWD the host's.
fn placement(dirs: &[String], cwd: &Path, file: &Path) -> Placement {
    if dirs.is_empty() {
        let guest = guest_dir::of_dir(cwd);
        return Placement { mounts: vec![(cwd.to_path_buf(), guest.clone())], pwd: guest, program: file_name(file) };
    }
    let mounts = dirs
        .iter()
        .map(|d| match d.split_once(':') {
            Some((host, guest)) => (PathBuf::from(host), guest.to_string()),
            None => (PathBuf::from(d), d.clone()),
        })
        .collect();
    Placement { mounts, pwd: cwd.display().to_string(), program: file.display().to_string() }
}

fn file_name(file: &Path) -> String {
    file.file_name().unwrap_or(file.as_os_str()).to_string_lossy().into_owned()
}

/// The `go-exec` wrapper runs binaries the user's `go test` built: one that
/// holds its checkout's path gets a warning (once: one line per binary run).
fn warn_if_untrimmed(file: &Path) {
    let Ok(wasm) = std::fs::read(file) else { return };
    if let Some(warning) = go_exec::untrimmed_warning(&file_name(file), &wasm) {
        eprintln!("{warning}");
    }
}

/// An `--env` value without `=`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NotKeyValue(String);

impl fmt::Display for NotKeyValue {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "--env {:?} is not KEY=VALUE", self.0)
    }
}

/// The guest environment: PWD (so relative paths work like the host's), then
/// `--env` values; nothing of seedfall's own (HOME, USER, TMPDIR...).
/// GOMAXPROCS is dropped: Go on wasm cannot run more than one P.
fn environment(envs: &[String], pwd: &str) -> Result<Vec<String>, NotKeyValue> {
    let mut env = vec![format!("PWD={pwd}")];
    for e in envs {
        let Some((key, _)) = e.split_once('=') else { return Err(NotKeyValue(e.clone())) };
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
    if let Err(e) = seedfall_host::watchdog::check_limit(watchdog) {
        return fail(format!("--watchdog {e}"));
    }
    let mut loader = compiled::Loader::open(&args.cache_dir.clone().unwrap_or_else(Cache::default_dir_for_exec));
    let instrumentation = (!args.no_preempt)
        .then_some(seedfall_instrument::Config { loops: preempt.loops, entry_checks: !args.no_entry_checks });
    let pinned_global = match args.pinned_global.as_str() {
        "first" => PinnedGlobal::First,
        "last" => PinnedGlobal::Last,
        _ => PinnedGlobal::None,
    };
    let compile_config = CompileConfig {
        pinned_global,
        function_bitmap: args.function_bitmap || args.edge_bitmap,
        edge_bitmap: args.edge_bitmap,
        intrinsics: !args.no_intrinsics,
        ..CompileConfig::default()
    };
    let guest = match loader.load(&args.file, instrumentation, &compile_config, args.timings) {
        Ok((guest, key)) => {
            loader.record_set(&[key]);
            guest
        }
        // Said without the file name, as the only file is the one on the command line.
        Err(LoadError::Guest { error, .. }) => return fail(error),
        Err(e) => return fail(e),
    };
    if args.test_attrs {
        warn_if_untrimmed(&args.file);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let Placement { mounts, pwd, program } = placement(&args.dirs, &cwd, &args.file);
    let env = match environment(&args.envs, &pwd) {
        Ok(env) => env,
        Err(e) => return fail(e),
    };
    let mut argv = vec![program];
    argv.extend(args.args.iter().cloned());
    let node = match guest.exec_node(ExecNode { name: NODE.into(), seed: args.seed, argv, env, mounts, preempt }) {
        Ok(node) => node,
        Err(GuestError::Mount { host, message }) => return fail(format!("--dir {}: {message}", host.display())),
        Err(e) => return fail(e),
    };
    let mut node = node;
    let tests_run = Rc::new(RefCell::new(TestsRun::default()));
    if args.test_attrs {
        let seen = tests_run.clone();
        node.stdout = Output::Tee(Box::new(move |bytes| seen.borrow_mut().observe(bytes)));
    }
    let (exit, instance) = match exec::run(guest.code().clone(), node, watchdog) {
        Ok(done) => done,
        Err(e) => return fail(e),
    };
    if args.test_attrs {
        let hash = exec::trace_hash(&instance).to_string();
        let replay = go_exec::replay_command(args.seed, &args.preempt, &args.args);
        let attrs =
            [("seedfall.seed", args.seed.to_string()), ("seedfall.trace_hash", hash), ("seedfall.replay", replay)];
        let lines = tests_run.borrow().attr_lines(&attrs);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(lines.as_bytes()).and_then(|()| out.flush());
    }
    if args.trace_hash {
        eprintln!("seedfall: trace hash {} ({} events)", exec::trace_hash(&instance), instance.data().trace.events());
    }
    if let Some((count, time)) = guest.code().lazy_compiles().filter(|_| args.timings) {
        eprintln!("seedfall: {count} functions compiled lazily in {time:.3?}");
    }
    if let Some(ran) = instance.functions_ran().filter(|_| args.timings) {
        let count = ran.iter().filter(|b| **b != 0).count();
        eprintln!("seedfall: {count} of {} functions ran", ran.len());
    }
    if let Some(edges) = instance.edges_ran().filter(|_| args.timings) {
        let count = edges.iter().filter(|b| **b != 0).count();
        eprintln!("seedfall: {count} of {} edge bytes set", edges.len());
    }
    if let Some(preempt) = &instance.data().preempt {
        let preemptions: Vec<u64> = preempt.fired.iter().map(|f| f.counted).collect();
        if !preemptions.is_empty() && args.timings {
            eprintln!("seedfall: {} strategy preemptions at counted calls {preemptions:?}", preemptions.len());
        }
    }
    match exit {
        Exit::Code(code) => ExitCode::from(code as u8),
        Exit::Trapped(trap) => fail(format!("node {NODE}: {trap}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guest_environment() {
        let envs = ["A=1", "GOMAXPROCS=4", "PWD=/elsewhere", "A=2"].map(String::from);
        assert_eq!(environment(&envs, "/w").unwrap(), ["PWD=/elsewhere", "A=2"]);
        assert_eq!(environment(&[], "/go/src/example.com/m").unwrap(), ["PWD=/go/src/example.com/m"]);
        let e = environment(&["NOEQUALS".to_string()], "/w").unwrap_err();
        assert_eq!(
            (e.to_string(), e),
            ("--env \"NOEQUALS\" is not KEY=VALUE".to_string(), NotKeyValue("NOEQUALS".into()))
        );
    }

    #[test]
    fn without_dir_the_guest_sees_no_host_path() {
        let cwd = std::env::temp_dir().join(format!("seedfall-placement-{}", std::process::id()));
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(cwd.join("go.mod"), "module example.com/m\n").unwrap();
        let go_test = placement(&[], &cwd, Path::new("/tmp/go-build3059507970/b001/bank.test"));
        let guest = "/go/src/example.com/m".to_string();
        assert_eq!(
            go_test,
            Placement { mounts: vec![(cwd.clone(), guest.clone())], pwd: guest, program: "bank.test".into() }
        );
        std::fs::remove_dir_all(&cwd).unwrap();
        let dirs = ["/data:/d".to_string(), "/x".to_string()];
        let chosen = placement(&dirs, Path::new("/w"), Path::new("/tmp/prog.wasm"));
        let mounts = vec![(PathBuf::from("/data"), "/d".to_string()), (PathBuf::from("/x"), "/x".to_string())];
        assert_eq!(chosen, Placement { mounts, pwd: "/w".into(), program: "/tmp/prog.wasm".into() });
    }
}
