//! The config file, `seedfall.json` (DESIGN.md §1; reference: docs/config.md).
//!
//! The text is parsed by serde_json into an ordered JSON value (`json.rs`) and
//! then walked by hand against a small schema (`read.rs`), rather than derived
//! with `#[serde(deny_unknown_fields)]`: the error messages are the product,
//! and walking makes each class explicit:
//! - an unknown field names its path and the nearest known field
//!   ("unknown field `faults.crash_per_secc`; did you mean `crash_per_sec`?");
//! - a field DESIGN.md lists that this build does not implement yet is an
//!   error ("`faults.clock_skew` is not supported yet"), never ignored;
//! - a wrong type names the field, the expected type and what was found;
//! - values are checked: probabilities in [0, 1], rates >= 0, durations > 0,
//!   ranges min <= max, node names usable as host names and unique after
//!   `count` expansion, exactly one of `pkg`/`wasm`.
//!
//! Every error is one line; `load` prefixes it with the config file's path.
//! Paths in the config are relative to the config file's directory and come
//! out absolute (lexically cleaned, like Go's `filepath.Clean`; nothing is
//! looked up on disk). Nothing here iterates a hash map: objects keep document
//! order, so the same file always gives the same `Config` and the same error.
//!
//! Also here: where a config's run state lives (`.seedfall/` beside it) and
//! how fault schedules are named there.

#[cfg(test)]
mod design_tests;
mod json;
mod locate;
#[cfg(test)]
mod proptests;
mod read;
mod suggest;
#[cfg(test)]
mod tests;

use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::world::{Failure, FaultConfig};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

pub use locate::{for_schedule, open, real_dir};

/// The config file used when `-c` is not given.
pub const DEFAULT_FILE: &str = "seedfall.json";
/// `duration` when the config does not say: the virtual-time horizon of a run.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);
/// `watchdog` when the config does not say: real time a guest may run without yielding.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(10);

/// A parsed, checked config.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The directory the config's paths are relative to (absolute).
    pub base_dir: PathBuf,
    /// The nodes, in config order, `count` expanded (`n` with count 3 is `n1`, `n2`, `n3`).
    pub nodes: Vec<NodeSpec>,
    pub workload: WorkloadSpec,
    /// Virtual time after which a run ends as `horizon`.
    pub duration: Duration,
    /// Real time a guest may run without a host call before the watchdog fires.
    pub watchdog: Duration,
    /// Each node's linear-memory cap in bytes (`memory`).
    pub memory: u64,
    pub preempt: PreemptConfig,
    /// The `faults` knobs (`seedfall_host::knob`): what each fault kind and model runs with.
    pub faults: FaultConfig,
    /// The liveness window after `duration` (`liveness.within`).
    pub liveness: Option<Duration>,
    /// The check run after the workload on the healed cluster, as node `finally`.
    pub finally: Option<FinallySpec>,
    /// The model the `sim.Put`/`Get`/`Invoke` history must be linearizable under (`linearizable`).
    pub linearizable: Option<seedfall_check::Model>,
    /// The level the `sim.Txn` history must satisfy (`isolation`).
    pub isolation: Option<seedfall_check::txn::Isolation>,
    /// Build every Go package with the net overlay (`net_overlay`, docs/net-overlay.md).
    pub net_overlay: bool,
    /// Build every Go package with the compat overlay (`compat_overlay`, docs/flock.md).
    pub compat_overlay: bool,
    /// Go modules built from a patched copy (`patches`, docs/patches.md).
    pub patches: Vec<PatchSpec>,
    /// Properties (by message) this config does not ask to be reached or
    /// true in some seed (`optional_properties`, docs/property-catalog.md).
    pub optional_properties: Vec<String>,
    /// What this config declares normal, so the summary does not warn of it (`expect`).
    pub expect: Expect,
}

/// `expect`: outcomes a config means, which a sweep's summary would otherwise warn of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expect {
    /// The workload runs until `duration` by design (`expect.horizon`): no horizon warning.
    pub horizon: bool,
}

/// `patches[]`: `file` (a unified diff, `patch -p1` from the module's root)
/// applied to a copy of `module` for every package that depends on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchSpec {
    pub module: String,
    pub file: PathBuf,
}

/// `finally`: a Go package run after the workload exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinallySpec {
    pub source: Source,
    pub args: Vec<String>,
}

/// The node name the finally check runs as.
pub const FINALLY_NAME: &str = "finally";

/// `liveness.within` when `liveness` is given without it.
pub const DEFAULT_LIVENESS_WITHIN: Duration = Duration::from_secs(30);

/// Where a program comes from. Both paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// A Go package directory, built with `GOOS=wasip1 GOARCH=wasm go build`.
    Pkg(PathBuf),
    /// A prebuilt wasip1 module.
    Wasm(PathBuf),
}

/// One node (after `count` expansion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    /// Unique among nodes and the workload; a valid host name.
    pub name: String,
    /// The name the config gave: `n` for `n1`, `n2`, `n3` of a `count` (findings group them).
    pub group: String,
    pub source: Source,
    pub args: Vec<String>,
    /// Environment variables in the order the config writes them.
    pub env: Vec<(String, String)>,
    /// Restart the node, like systemd would, when it exits with an error.
    pub supervise: bool,
}

/// The workload: the program that drives the system and checks invariants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadSpec {
    /// Unique among nodes; a valid host name. Default `workload`.
    pub name: String,
    pub source: Source,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// What kind of mistake a `ConfigError` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file could not be read.
    Read,
    /// Not JSON (serde_json's message, with line and column).
    Syntax,
    /// A field name no version of the config knows.
    UnknownField,
    /// A field DESIGN.md lists that this build does not implement yet.
    Unsupported,
    /// A value of the wrong JSON type.
    WrongType,
    /// A required field is absent.
    Missing,
    /// A value of the right type that is not allowed (range, duration, name, `pkg` and `wasm` both).
    Invalid,
    /// A node name used twice, or a JSON field given twice in one object.
    Duplicate,
}

/// One config mistake, displayed as one line.
impl Config {
    /// Each node's name with the name findings group it by (a `count`
    /// node's base name, else its own).
    pub fn node_groups(&self) -> Vec<(String, String)> {
        self.nodes.iter().map(|n| (n.name.clone(), n.group.clone())).collect()
    }

    /// `failure`'s signature with its node named by its group (`n2` of a
    /// `count` node as `n`): shrink's and `cause`'s "fails the same way",
    /// and what findings group by.
    pub fn signature(&self, failure: &Failure) -> String {
        let group = self.nodes.iter().find(|n| n.name == failure.node).map_or(&failure.node, |n| &n.group);
        Failure { node: group.clone(), ..failure.clone() }.signature()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file, when the error came from `load`.
    pub file: Option<PathBuf>,
    pub kind: ErrorKind,
    /// Where in the config, as a path (`faults.crash_per_secc`, `nodes[2].name`);
    /// empty when the error is about the whole file.
    pub field: String,
    /// The message, without the file prefix.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(kind: ErrorKind, field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { file: None, kind, field: field.into(), message: message.into() }
    }

    fn in_file(mut self, file: &Path) -> ConfigError {
        self.file = Some(file.to_path_buf());
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Reads and checks the config at `path`. Relative paths inside it are
/// resolved against its directory. Errors display as `FILE: message`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = crate::input::read_text(path, crate::input::TEXT_MAX_BYTES).map_err(|e| {
        let message = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "cannot read: the file is not UTF-8 text".to_string(),
            _ => format!("cannot read: {e}"),
        };
        ConfigError::new(ErrorKind::Read, "", message).in_file(path)
    })?;
    let base_dir = path.parent().unwrap_or(Path::new(""));
    parse(&text, base_dir).map_err(|e| e.in_file(path))
}

/// Parses and checks config text; relative paths in it are resolved against
/// `base_dir` (itself made absolute against the current directory if needed).
pub fn parse(text: &str, base_dir: &Path) -> Result<Config, ConfigError> {
    let base_dir = absolute(base_dir)
        .map_err(|e| ConfigError::new(ErrorKind::Read, "", format!("cannot resolve {}: {e}", base_dir.display())))?;
    read::config(text, &base_dir)
}

/// The config file for `-c`: the given path (a directory means its
/// `seedfall.json`), or `./seedfall.json` when none is given.
pub fn config_path(arg: Option<&Path>) -> PathBuf {
    match arg {
        Some(path) if path.is_dir() => path.join(DEFAULT_FILE),
        Some(path) => path.to_path_buf(),
        None => Path::new(".").join(DEFAULT_FILE),
    }
}

/// The run-state directory of a config: `.seedfall/` beside it.
pub fn state_dir(config_path: &Path) -> PathBuf {
    config_path.parent().unwrap_or(Path::new("")).join(".seedfall")
}

/// A run-state file of a config: `.seedfall/NAME` beside `seedfall.json`, or
/// `.seedfall/X.NAME` for a config named `X.json`, so variants in one folder
/// do not collide.
pub fn state_file(config_path: &Path, name: &str) -> PathBuf {
    state_dir(config_path).join(format!("{}{name}", variant_prefix(config_path)))
}

/// Where seed `seed`'s fault schedule is saved: `.seedfall/[X.]seed-N.faults.json`.
pub fn schedule_path(config_path: &Path, seed: u64) -> PathBuf {
    state_file(config_path, &format!("seed-{seed}.faults.json"))
}

/// Where `replay` writes seed `seed`'s history timeline: `.seedfall/[X.]seed-N.history.html`.
pub fn history_path(config_path: &Path, seed: u64) -> PathBuf {
    state_file(config_path, &format!("seed-{seed}.history.html"))
}

/// `""` for `seedfall.json`, `"X."` for `X.json` (or for a file `X` not ending in `.json`).
fn variant_prefix(config_path: &Path) -> String {
    let name = config_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name == DEFAULT_FILE || name.is_empty() {
        return String::new();
    }
    let stem = name.strip_suffix(".json").filter(|s| !s.is_empty()).unwrap_or(&name);
    format!("{stem}.")
}

/// `path` made absolute against the current directory and lexically cleaned.
fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let path = if path.as_os_str().is_empty() { Path::new(".") } else { path };
    Ok(clean(&std::path::absolute(path)?))
}

/// Removes `.` components and folds `dir/..`, without looking at the disk
/// (like Go's `filepath.Clean`).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}
