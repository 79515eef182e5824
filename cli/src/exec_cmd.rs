//! `seedfall exec [--seed N] [--dir HOST[:GUEST]]... [--env K=V]... FILE [ARGS...]`:
//! compile FILE, run it as one node in the deterministic world, and exit with
//! its exit code. Shaped to be the `-exec` of `GOOS=wasip1 go test`: the test
//! binary has no .wasm suffix, and with no `--dir` the current directory is
//! mounted at its own path with PWD set to it.

use seedfall_engine::{compile, Code, CompileConfig};
use seedfall_host::exec::{self, Exit};
use seedfall_host::fs::Fs;
use seedfall_host::node::Node;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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
    /// Arguments for the guest, passed untouched.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

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
    let wasm = match std::fs::read(&args.file) {
        Ok(bytes) => bytes,
        Err(e) => return fail(format!("cannot read {}: {e}", args.file.display())),
    };
    let artifact = match compile(&wasm, &CompileConfig::default()) {
        Ok(a) => a,
        Err(e) => return fail(format!("{}: {e}", args.file.display())),
    };
    let code = match Code::load(artifact) {
        Ok(code) => Arc::new(code),
        Err(e) => return fail(e),
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
    let node = Node::new("main", args.seed, argv, env, fs);
    match exec::run(code, node) {
        Ok((Exit::Code(code), _)) => ExitCode::from(code as u8),
        Ok((Exit::Trapped(trap), _)) => fail(trap),
        Err(e) => fail(e),
    }
}
