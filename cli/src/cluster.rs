//! From a config to runnable programs: builds each Go package with the stock
//! `go build` for GOOS=wasip1 GOARCH=wasm (Go's build cache makes repeats
//! fast; a build error is shown as Go printed it), compiles each module
//! through the cache beside the config, and makes the per-seed `RunSpec`.
//! Packages used by several nodes (`count`) are built and loaded once.

use crate::compiled;
use crate::config::{Config, Source};
use seedfall_cache::Cache;
use seedfall_engine::Code;
use seedfall_host::net::NetConfig;
use seedfall_host::preempt::goruntime::{self, GoOffsets};
use seedfall_host::world::vtime::SimDuration;
use seedfall_host::world::{FaultConfig, NodeProgram, RunSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A program of the cluster, loaded.
struct Loaded {
    code: Arc<Code>,
    counter_global: Option<u32>,
    go_offsets: Option<GoOffsets>,
}

/// Node programs, ready to make any seed's `RunSpec`.
pub struct Cluster {
    pub config: Config,
    /// (name, args, env, supervise, workload, program index), services then workload.
    nodes: Vec<NodeEntry>,
    programs: Vec<Loaded>,
    pub build_time: Duration,
    pub load_time: Duration,
}

struct NodeEntry {
    name: String,
    args: Vec<String>,
    env: Vec<String>,
    supervise: bool,
    workload: bool,
    program: usize,
}

/// Why a cluster could not be made. Build errors carry Go's own output.
pub struct SetupError(pub String);

impl Cluster {
    /// Builds and loads every program of `config`; `state_dir` holds the
    /// built modules (`.seedfall/build/`).
    pub fn prepare(config: Config, config_path: &Path, state_dir: &Path) -> Result<Cluster, SetupError> {
        let sources: Vec<&Source> =
            config.nodes.iter().map(|n| &n.source).chain(std::iter::once(&config.workload.source)).collect();
        let mut index: BTreeMap<&Source, usize> = BTreeMap::new();
        let mut unique: Vec<&Source> = Vec::new();
        for source in &sources {
            if !index.contains_key(source) {
                index.insert(source, unique.len());
                unique.push(source);
            }
        }
        let build_started = Instant::now();
        // Absolute: `go build` runs in each package's directory.
        let build_dir = std::path::absolute(state_dir.join("build"))
            .map_err(|e| SetupError(format!("cannot resolve {}: {e}", state_dir.display())))?;
        let mut files = Vec::new();
        for (i, source) in unique.iter().enumerate() {
            files.push(match source {
                Source::Wasm(path) => path.clone(),
                Source::Pkg(dir) => go_build(dir, &build_dir, i)?,
            });
        }
        let build_time = build_started.elapsed();
        let load_started = Instant::now();
        let cache = Cache::open(&Cache::default_dir_for_config(config_path));
        let instrumentation = seedfall_instrument::Config { loops: config.preempt.loops };
        let mut programs = Vec::new();
        for file in &files {
            let loaded = compiled::load(&cache, file, Some(instrumentation), false).map_err(SetupError)?;
            let go_offsets = match goruntime::go_version(loaded.code.info()) {
                Some(version) => {
                    Some(goruntime::offsets_for(&version).map_err(|e| SetupError(format!("{}: {e}", file.display())))?)
                }
                None => None,
            };
            programs.push(Loaded { code: loaded.code, counter_global: loaded.counter_global, go_offsets });
        }
        let load_time = load_started.elapsed();
        let env = |pairs: &[(String, String)]| pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        let mut nodes: Vec<NodeEntry> = config
            .nodes
            .iter()
            .map(|n| NodeEntry {
                name: n.name.clone(),
                args: n.args.clone(),
                env: env(&n.env),
                supervise: n.supervise,
                workload: false,
                program: index[&n.source],
            })
            .collect();
        let w = &config.workload;
        nodes.push(NodeEntry {
            name: w.name.clone(),
            args: w.args.clone(),
            env: env(&w.env),
            supervise: false,
            workload: true,
            program: index[&w.source],
        });
        Ok(Cluster { config, nodes, programs, build_time, load_time })
    }

    /// The run of one seed, its faults drawn from the seed (callers set
    /// `schedule`, `budget_cap` or `duration_ns` to replay or shrink).
    pub fn spec(&self, seed: u64) -> RunSpec {
        let f = &self.config.faults;
        let span = |d: Duration| SimDuration::from_ns(d.as_nanos() as u64);
        RunSpec {
            seed,
            programs: self
                .nodes
                .iter()
                .map(|n| {
                    let p = &self.programs[n.program];
                    NodeProgram {
                        name: n.name.clone(),
                        code: p.code.clone(),
                        counter_global: p.counter_global,
                        go_offsets: p.go_offsets,
                        args: n.args.clone(),
                        env: n.env.clone(),
                        supervise: n.supervise,
                        workload: n.workload,
                    }
                })
                .collect(),
            duration: span(self.config.duration),
            watchdog: self.config.watchdog,
            preempt: self.config.preempt.clone(),
            faults: FaultConfig {
                crash_per_sec: f.crash_per_sec,
                crash_downtime: (span(f.crash_downtime.min), span(f.crash_downtime.max)),
                partition_per_sec: f.partition_per_sec,
                partition_length: (span(f.partition_length.min), span(f.partition_length.max)),
                disk: seedfall_host::fs::DiskConfig {
                    crash_on_io: f.crash_on_io,
                    torn_writes: f.torn_writes,
                    fsync_eio: f.fsync_eio,
                    strict_dirs: f.strict_dirs,
                },
                swarm: false,
            },
            net: NetConfig::default(),
            budget_cap: None,
            schedule: None,
            hash_log: false,
            perturb: None,
        }
    }
}

/// `GOOS=wasip1 GOARCH=wasm go build -o OUT .` in `dir`.
fn go_build(dir: &Path, build_dir: &Path, index: usize) -> Result<PathBuf, SetupError> {
    if !dir.is_dir() {
        return Err(SetupError(format!("package {}: no such directory", dir.display())));
    }
    std::fs::create_dir_all(build_dir)
        .map_err(|e| SetupError(format!("cannot create {}: {e}", build_dir.display())))?;
    let stem = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "main".into());
    let out = build_dir.join(format!("{index}-{stem}.wasm"));
    // Built beside and renamed into place, so runs of other configs in the
    // same folder never read a half-written module.
    let partial = build_dir.join(format!("{index}-{stem}.wasm.{}.partial", std::process::id()));
    let output = Command::new("go")
        .args(["build", "-o"])
        .arg(&partial)
        .arg(".")
        .current_dir(dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .output()
        .map_err(|e| SetupError(format!("cannot run `go build` (is Go installed and on PATH?): {e}")))?;
    if !output.status.success() {
        return Err(SetupError(format!(
            "go build {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    std::fs::rename(&partial, &out).map_err(|e| SetupError(format!("cannot write {}: {e}", out.display())))?;
    Ok(out)
}
