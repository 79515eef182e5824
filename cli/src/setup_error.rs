//! The setup layer's error: why a config's programs (or `seedfall test`'s
//! package) could not be made ready to run (exit 2). Every setup step
//! (`cluster`, `catalog`, `overlay`, `patches`, `compat_modules`,
//! `gotest::build`, `gotest::prepare`) returns it; it sits below them all so
//! none of them imports another for its error. Build errors carry Go's own
//! output.

use crate::compiled::LoadError;
use crate::config::ConfigError;
use crate::duration::DurationError;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a cluster could not be made. Build errors carry Go's own output.
#[derive(Debug)]
pub enum SetupError {
    /// The state directory could not be made absolute.
    Resolve {
        dir: PathBuf,
        error: std::io::Error,
    },
    NoPackage(PathBuf),
    /// A `pkg` that names a file (`./server/main.go`): Go packages are directories.
    PkgIsFile(PathBuf),
    CreateDir {
        dir: PathBuf,
        error: std::io::Error,
    },
    /// `go` could not be started.
    NoGo(std::io::Error),
    /// `go build` failed; `stderr` is what it printed.
    Build {
        dir: PathBuf,
        stderr: String,
    },
    Write {
        file: PathBuf,
        error: std::io::Error,
    },
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// A `patches` entry could not be applied (patches.rs).
    Patch {
        module: String,
        message: String,
    },
    Load(LoadError),
    /// The property catalog (cli/catalog) failed; what it printed.
    Catalog(String),
    /// The net overlay could not be written (`overlay.rs`).
    Overlay(String),
    /// An `optional_properties` message that no package of the config asserts.
    NotAProperty(String),
    /// `seedfall test -c CONFIG`: the config is wrong.
    Config(ConfigError),
    /// `seedfall test`: the build directory could not be made absolute.
    BuildDir(std::io::Error),
    /// `seedfall test`: `go list` or `go test -c` could not be started.
    GoNotRun(std::io::Error),
    /// `go list` failed; what it printed.
    GoList(String),
    /// `go test -c` failed; what it printed.
    TestBuild(String),
    /// The test flags' `-timeout` has no duration (None) or a bad one.
    Timeout(Option<DurationError>),
    /// Running the test binary with `-test.list` failed inside the world.
    ListRun(seedfall_engine::Error),
    /// The test binary's `-test.list` run failed: its first failure and output.
    ListFailed {
        failure: String,
        output: String,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SetupError::Resolve { dir, error } => write!(f, "cannot resolve {}: {error}", dir.display()),
            SetupError::NoPackage(dir) => write!(f, "package {}: no such directory", dir.display()),
            SetupError::PkgIsFile(file) => {
                let dir = file.parent().unwrap_or(Path::new("."));
                write!(
                    f,
                    "package {} is a file: `pkg` names a Go package's directory, whose .go files are built \
                     together as `go build DIR` does; name {} instead",
                    file.display(),
                    dir.display()
                )
            }
            SetupError::CreateDir { dir, error } => write!(f, "cannot create {}: {error}", dir.display()),
            SetupError::NoGo(error) => write!(f, "cannot run `go build` (is Go installed and on PATH?): {error}"),
            SetupError::Build { dir, stderr } => {
                let (target, go) = (crate::build_hint::TARGET, crate::build_hint::explain(stderr));
                write!(f, "go build {} failed ({target}):\n{go}", dir.display())
            }
            SetupError::Write { file, error } => write!(f, "cannot write {}: {error}", file.display()),
            SetupError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            SetupError::Patch { module, message } => write!(f, "patch of {module}: {message}"),
            SetupError::Load(error) => write!(f, "{error}"),
            SetupError::Catalog(stderr) => write!(f, "cataloguing the properties failed:\n{stderr}"),
            SetupError::Overlay(message) => f.write_str(message),
            SetupError::NotAProperty(message) => {
                write!(f, "optional_properties names {message:?}, which no package of this config asserts")
            }
            SetupError::Config(error) => write!(f, "{error}"),
            SetupError::BuildDir(error) => write!(f, "cannot resolve the build directory: {error}"),
            SetupError::GoNotRun(error) => write!(f, "cannot run go: {error}"),
            SetupError::GoList(stderr) => f.write_str(stderr),
            SetupError::TestBuild(stderr) => f.write_str(&crate::build_hint::explain(stderr)),
            SetupError::Timeout(None) => f.write_str("-timeout needs a duration"),
            SetupError::Timeout(Some(error)) => write!(f, "-timeout: {error}"),
            SetupError::ListRun(error) => write!(f, "listing the tests: {error}"),
            SetupError::ListFailed { failure, output } => write!(f, "listing the tests failed: {failure}\n{output}"),
        }
    }
}

impl std::error::Error for SetupError {}
