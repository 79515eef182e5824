//! From a config to runnable programs: builds each Go package with the stock
//! `go build` for GOOS=wasip1 GOARCH=wasm (Go's build cache makes repeats
//! fast; a build error is shown as Go printed it), compiles each module
//! through the cache beside the config, and makes the per-seed `RunSpec`.
//! Packages used by several nodes (`count`) are built and loaded once.

use crate::catalog::Catalogued;
use crate::compiled;
use crate::config::{Config, Source};
use crate::setup_error::SetupError;
use seedfall_cache::Cache;
use seedfall_engine::{Code, CompileConfig};
use seedfall_host::vtime::SimDuration;
use seedfall_host::world::{Probes, RunResult, RunSpec, Verdict};
use seedfall_host::{Guest, Role, antithesis};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Node programs, ready to make any seed's `RunSpec`.
pub struct Cluster {
    pub config: Config,
    /// Services then the workload, each naming its program in `programs`.
    nodes: Vec<NodeEntry>,
    programs: Vec<Guest>,
    /// What loaded `programs`: stores what they compiled lazily when the
    /// cluster is dropped.
    _loader: compiled::Loader,
    /// One hash of the compiled programs' cache keys (wasm, instrumentation,
    /// compiler): equal on two machines only if they run the same code.
    pub programs_hash: String,
    /// Every property call in the packages' source (`catalog.rs`).
    pub catalog: Vec<Catalogued>,
    pub build_time: Duration,
    pub load_time: Duration,
    /// `seedfall mutate`: the durability promise every node's disk breaks.
    pub mutant: Option<seedfall_host::fs::Mutant>,
    /// The probes every run of `run` is watched by (`seedfall test` keeps
    /// the workload's output and goroutine shapes).
    pub probes: fn() -> Probes,
}

/// How `Cluster::prepare_with` compiles the programs. The default is what
/// `run`, `replay` and `shrink` use (`Cluster::prepare`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Compile with `CompileConfig::function_bitmap`, so each run's
    /// `probes::FunctionsRan` says which functions every node ran
    /// (`seedfall cause`, docs/function-bitmap.md). Separate cache entries,
    /// and so another `programs_hash`; traces are the same.
    pub function_bitmap: bool,
    /// Compile with `CompileConfig::edge_bitmap` as well (`explore -edges`,
    /// docs/edge-coverage.md): `NodeFunctions::edges` holds each node's
    /// branch outcomes. Needs `function_bitmap`.
    pub edge_bitmap: bool,
}

impl LoadOptions {
    /// The compiler configuration these options ask for.
    pub fn compile_config(&self) -> CompileConfig {
        CompileConfig {
            function_bitmap: self.function_bitmap,
            edge_bitmap: self.edge_bitmap,
            ..CompileConfig::default()
        }
    }
}

struct NodeEntry {
    name: String,
    args: Vec<String>,
    env: Vec<String>,
    role: Role,
    program: usize,
    mounts: Vec<(PathBuf, String)>,
}

impl Cluster {
    /// Builds and loads every program of `config`; `state_dir` holds the
    /// built modules (`.seedfall/build/`).
    pub fn prepare(config: Config, config_path: &Path, state_dir: &Path) -> Result<Cluster, SetupError> {
        Cluster::prepare_with(config, config_path, state_dir, LoadOptions::default())
    }

    /// `prepare`, compiling as `options` say.
    pub fn prepare_with(
        config: Config,
        config_path: &Path,
        state_dir: &Path,
        options: LoadOptions,
    ) -> Result<Cluster, SetupError> {
        let sources: Vec<&Source> = config
            .nodes
            .iter()
            .map(|n| &n.source)
            .chain(std::iter::once(&config.workload.source))
            .chain(config.finally.as_ref().map(|f| &f.source))
            .collect();
        let mut index: BTreeMap<&Source, usize> = BTreeMap::new();
        let mut unique: Vec<&Source> = Vec::new();
        for source in &sources {
            if !index.contains_key(source) {
                index.insert(source, unique.len());
                unique.push(source);
            }
        }
        let build_started = Instant::now();
        crate::state_folder::ensure(state_dir);
        // Absolute: `go build` runs in each package's directory.
        let build_dir = std::path::absolute(state_dir.join("build"))
            .map_err(|error| SetupError::Resolve { dir: state_dir.to_path_buf(), error })?;
        let parts = crate::overlay::Parts { net: config.net_overlay, compat: config.compat_overlay };
        let overlay = crate::overlay::prepare(&build_dir, parts)?;
        let mut files = Vec::new();
        let mut patched = vec![false; config.patches.len()];
        // Each config's modules and modfiles have names of their own: configs
        // of one folder share build_dir, and a run of another config (with
        // other patches) must not rename its module over this one's between
        // this build and the load below.
        let config_stem = config_path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for (i, source) in unique.iter().enumerate() {
            files.push(match source {
                Source::Wasm(path) => path.clone(),
                Source::Pkg(dir) => {
                    go_build(dir, &build_dir, &config_stem, i, overlay.as_ref(), &config.patches, &mut patched)?
                }
            });
        }
        if let Some(unused) = patched.iter().position(|used| !used) {
            // A typo in a module path must not leave the control unpatched.
            let module = config.patches[unused].module.clone();
            return Err(SetupError::Patch { module, message: "no Go package of this config depends on it".into() });
        }
        let package_dirs: Vec<&Path> = unique
            .iter()
            .filter_map(|s| match s {
                Source::Pkg(dir) => Some(dir.as_path()),
                Source::Wasm(_) => None,
            })
            .collect();
        let (catalog, warnings) = crate::catalog::catalog(&package_dirs)?;
        for warning in warnings {
            eprintln!("seedfall: warning: {warning}");
        }
        // A typo must not leave a property required that the config meant to exempt.
        if let Some(unknown) = config.optional_properties.iter().find(|m| !catalog.iter().any(|p| &p.message == *m)) {
            return Err(SetupError::NotAProperty(unknown.clone()));
        }
        let build_time = build_started.elapsed();
        let load_started = Instant::now();
        let mut loader = compiled::Loader::open(&Cache::default_dir_for_config(config_path));
        let instrumentation = seedfall_instrument::Config { loops: config.preempt.loops, ..Default::default() };
        let compile_config = options.compile_config();
        let (mut programs, mut keys) = (Vec::new(), Vec::new());
        for file in &files {
            let (guest, key) =
                loader.load(file, Some(instrumentation), &compile_config, false).map_err(SetupError::Load)?;
            programs.push(guest);
            keys.push(key);
        }
        loader.record_set(&keys);
        let programs_hash = programs_hash(&keys);
        let load_time = load_started.elapsed();
        let env = |pairs: &[(String, String)]| {
            let mut env: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            // The Antithesis SDK's assertions then reach the world (host/src/antithesis.rs).
            if !pairs.iter().any(|(k, _)| k == antithesis::OUTPUT_ENV) {
                env.push(format!("{}={}", antithesis::OUTPUT_ENV, antithesis::OUTPUT_PATH));
            }
            env
        };
        let mut nodes: Vec<NodeEntry> = config
            .nodes
            .iter()
            .map(|n| NodeEntry {
                name: n.name.clone(),
                args: n.args.clone(),
                env: env(&n.env),
                role: Role::Service { supervise: n.supervise },
                program: index[&n.source],
                mounts: Vec::new(),
            })
            .collect();
        let w = &config.workload;
        nodes.push(NodeEntry {
            name: w.name.clone(),
            args: w.args.clone(),
            env: env(&w.env),
            role: Role::Workload,
            program: index[&w.source],
            mounts: Vec::new(),
        });
        if let Some(f) = &config.finally {
            nodes.push(NodeEntry {
                name: crate::config::FINALLY_NAME.into(),
                args: f.args.clone(),
                env: env(&[]),
                role: Role::Finally,
                program: index[&f.source],
                mounts: Vec::new(),
            });
        }
        Ok(Cluster {
            config,
            nodes,
            programs,
            programs_hash,
            catalog,
            build_time,
            load_time,
            mutant: None,
            probes: Probes::default,
            _loader: loader,
        })
    }

    /// How `run` fails, if it does: its first failure's signature with the
    /// node named by its group (a `count` node's base name, `n2` as `n`).
    /// Shrink's "fails the same way", `cause`'s, and what findings group by.
    pub fn signature(&self, run: &RunResult) -> Option<String> {
        let Verdict::Fail(failures) = &run.verdict else { return None };
        failures.first().map(|first| self.config.signature(first))
    }

    /// Functions the programs compiled lazily since they were loaded, and
    /// the real time that took; None when every program was compiled whole.
    pub fn lazy_compiles(&self) -> Option<(u32, Duration)> {
        let all: Vec<_> = self.programs.iter().filter_map(|p| p.code().lazy_compiles()).collect();
        (!all.is_empty()).then(|| all.iter().fold((0, Duration::ZERO), |(n, t), (count, time)| (n + count, t + *time)))
    }

    /// The code node `name` runs (services, the workload, `finally`), to
    /// name the functions of its `probes::FunctionsRan` entry
    /// (`NodeFunctions::ran_names`).
    pub fn node_code(&self, name: &str) -> Option<&Arc<Code>> {
        let node = self.nodes.iter().find(|n| n.name == name)?;
        Some(self.programs[node.program].code())
    }

    /// The name of defined function `index` of node `name`'s code as Go
    /// writes it (`fmt.(*fmt).fmtQ`, from the module's pclntab), else the
    /// `name` section's (which mangles `(*T)` into `__T_`).
    pub fn function_name(&self, name: &str, index: u32) -> Option<String> {
        let node = self.nodes.iter().find(|n| n.name == name)?;
        let program = &self.programs[node.program];
        let go = program.go_symbols().and_then(|s| s.function_name(index));
        go.or_else(|| program.code().function_name(index)).map(str::to_string)
    }

    /// `seedfall test`: the workload (a test binary) runs with `args` and
    /// env `env`, and sees `mounts` (host directory, guest path) read-through.
    pub fn set_workload(&mut self, args: Vec<String>, env: Vec<String>, mounts: Vec<(PathBuf, String)>) {
        let workload = self.nodes.iter_mut().find(|n| n.role == Role::Workload).expect("every cluster has a workload");
        workload.args = args;
        workload.env.retain(|e| e.starts_with(antithesis::OUTPUT_ENV));
        workload.env.extend(env);
        workload.mounts = mounts;
    }

    /// The run of one seed, its faults drawn from the seed (callers set
    /// `schedule`, `budget_cap` or `duration_ns` to replay or shrink).
    pub fn spec(&self, seed: u64) -> RunSpec {
        let span = |d: Duration| SimDuration::from_ns(d.as_nanos() as u64);
        let programs = self
            .nodes
            .iter()
            .map(|n| {
                let mut program = self.programs[n.program].node_program(&n.name, n.args.clone(), n.env.clone(), n.role);
                program.mounts = n.mounts.clone();
                program
            })
            .collect();
        let mut spec = RunSpec::new(seed, programs, span(self.config.duration));
        spec.liveness = self.config.liveness.map(span);
        spec.watchdog = self.config.watchdog;
        spec.memory_bytes = self.config.memory;
        spec.preempt = self.config.preempt.clone();
        spec.faults = self.config.faults.clone();
        spec.mutant = self.mutant;
        spec.linearizable = self.config.linearizable;
        spec.isolation = self.config.isolation;
        spec.net_overlay = self.config.net_overlay;
        spec
    }

    /// Runs `spec` (one of this cluster's) watched by `probes`.
    pub fn run(&self, spec: &RunSpec) -> Result<RunResult, seedfall_engine::Error> {
        seedfall_host::world::run_probed(spec, None, (self.probes)())
    }
}

fn programs_hash(keys: &[seedfall_cache::Key]) -> String {
    let mut hasher = blake3::Hasher::new();
    for key in keys {
        hasher.update(&key.0);
    }
    hasher.finalize().to_hex().to_string()
}

/// `GOOS=wasip1 GOARCH=wasm go build [-overlay=JSON] [-modfile=M] -o OUT .`
/// in `dir`: the overlay when the config asks for one (overlay.rs), a
/// `-modfile` when `patches` apply to it (patches.rs; `patched[i]` is set
/// when patch `i` did).
fn go_build(
    dir: &Path,
    build_dir: &Path,
    config_stem: &str,
    index: usize,
    overlay: Option<&crate::overlay::Prepared>,
    patches: &[crate::config::PatchSpec],
    patched: &mut [bool],
) -> Result<PathBuf, SetupError> {
    if dir.is_file() {
        return Err(SetupError::PkgIsFile(dir.to_path_buf()));
    }
    if !dir.is_dir() {
        return Err(SetupError::NoPackage(dir.to_path_buf()));
    }
    crate::safe_write::create_dirs(build_dir)
        .map_err(|error| SetupError::CreateDir { dir: build_dir.to_path_buf(), error })?;
    let stem = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "main".into());
    let name = format!("{config_stem}.{index}-{stem}");
    let out = build_dir.join(format!("{name}.wasm"));
    // Built beside and renamed into place, so concurrent runs of the same
    // config never read a half-written module.
    let partial = crate::safe_write::partial_path(&out);
    let compat =
        if overlay.is_some_and(|o| o.compat) { crate::patches::Compat::Build } else { crate::patches::Compat::Off };
    let modfile = crate::patches::modfile(patches, compat, dir, build_dir, &name, patched)?;
    let output = crate::overlay::go_command(overlay, &["build"])
        .args(modfile.map(|m| format!("-modfile={}", m.display())))
        .arg("-o")
        .arg(&partial)
        .arg(".")
        .current_dir(dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .output()
        .map_err(SetupError::NoGo)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
        return Err(SetupError::Build { dir: dir.to_path_buf(), stderr });
    }
    crate::safe_write::finish(&partial, &out).map_err(|error| SetupError::Write { file: out.clone(), error })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::LoadError;

    #[test]
    fn load_options_default_to_the_plain_compile_config() {
        assert_eq!(LoadOptions::default().compile_config(), CompileConfig::default());
        let cause = LoadOptions { function_bitmap: true, ..LoadOptions::default() };
        assert_eq!(cause.compile_config(), CompileConfig { function_bitmap: true, ..CompileConfig::default() });
        let edges = LoadOptions { function_bitmap: true, edge_bitmap: true };
        assert_eq!(
            edges.compile_config(),
            CompileConfig { function_bitmap: true, edge_bitmap: true, ..CompileConfig::default() }
        );
    }

    #[test]
    fn setup_errors_read_as_before() {
        let dir = PathBuf::from("/p/server");
        assert_eq!(SetupError::NoPackage(dir.clone()).to_string(), "package /p/server: no such directory");
        assert_eq!(
            SetupError::PkgIsFile(dir.join("main.go")).to_string(),
            "package /p/server/main.go is a file: `pkg` names a Go package's directory, whose .go files are \
             built together as `go build DIR` does; name /p/server instead"
        );
        let build = SetupError::Build { dir, stderr: "main.go:1: syntax error".into() };
        assert_eq!(build.to_string(), "go build /p/server failed (GOOS=wasip1 GOARCH=wasm):\nmain.go:1: syntax error");
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let load = SetupError::Load(LoadError::Read { file: "/p/x.wasm".into(), error: missing });
        assert!(load.to_string().starts_with("cannot read /p/x.wasm: "), "{load}");
    }
}
