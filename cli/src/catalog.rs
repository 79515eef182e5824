//! The static property catalog: the messages of every property call in a
//! config's Go packages (sim.Assert/Always/Sometimes/Reachable/Unreachable
//! and the Antithesis SDK's assert.*), found from the source by a small Go
//! program (cli/catalog, embedded here, built for the host with the stock
//! `go build` into the user cache directory and reused while its source is
//! unchanged). A sweep then knows the properties no seed reached: an
//! `Always` or `Reachable` never reached, or a `Sometimes` never true, fails
//! it. What it does not do: run the properties or judge them (the world and
//! `report.rs` do), or run anything from beside the config: a checkout is
//! hostile input, and a program committed where the tool used to be built
//! (`.seedfall/build/catalog-*`) must never run (docs/security.md).

use crate::setup_error::SetupError;
use seedfall_host::node::PropertyKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

const SOURCE: &str = include_str!("../catalog/main.go");
const GO_MOD: &str = include_str!("../catalog/go.mod");

/// Builds started by this process, so concurrent ones (MCP) get their own folders.
static BUILDS: AtomicU64 = AtomicU64::new(0);

/// One property call found in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogued {
    pub kind: PropertyKind,
    pub message: String,
    /// `file:line` of the call.
    pub site: String,
}

#[derive(Deserialize)]
struct Line {
    kind: Option<String>,
    message: Option<String>,
    file: Option<String>,
    line: Option<u64>,
    warning: Option<String>,
}

/// The properties in the packages `dirs` (and the packages of their module
/// they import), and the warnings to print (messages that are not literals).
pub fn catalog(dirs: &[&Path]) -> Result<(Vec<Catalogued>, Vec<String>), SetupError> {
    if dirs.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let tool = build_tool()?;
    let output = Command::new(&tool).args(dirs).output().map_err(SetupError::NoGo)?;
    let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
    if !output.status.success() {
        return Err(SetupError::Catalog(stderr));
    }
    let (mut found, mut warnings) = (Vec::new(), Vec::new());
    for text in String::from_utf8_lossy(&output.stdout).lines() {
        let line: Line = serde_json::from_str(text).map_err(|e| SetupError::Catalog(format!("{text:?}: {e}")))?;
        if let Some(warning) = line.warning {
            warnings.push(warning);
            continue;
        }
        let kind = line.kind.as_deref().and_then(PropertyKind::from_name);
        let (Some(kind), Some(message)) = (kind, line.message) else {
            return Err(SetupError::Catalog(format!("unexpected line {text:?}")));
        };
        let site = format!("{}:{}", line.file.unwrap_or_default(), line.line.unwrap_or(0));
        found.push(Catalogued { kind, message, site });
    }
    Ok((found, warnings))
}

/// The catalog program for this host, built once per version of its source
/// into `<user cache dir>/tools/catalog-<hash>/catalog`. Not under
/// `SEEDFALL_CACHE_DIR`, which CI may point into the checkout: the user cache
/// directory is this user's, so what is found there was built there.
fn build_tool() -> Result<PathBuf, SetupError> {
    let hash = blake3::hash(format!("{GO_MOD}\0{SOURCE}").as_bytes()).to_hex();
    let tools = seedfall_cache::user_dir()
        .ok_or_else(|| {
            SetupError::Catalog(
                "no user cache directory to build the property-catalog tool in: set HOME or XDG_CACHE_HOME".into(),
            )
        })?
        .join(seedfall_cache::TOOLS_DIR);
    let dir = tools.join(format!("catalog-{}", &hash[..16]));
    let tool = dir.join("catalog");
    if tool.is_file() {
        return Ok(tool);
    }
    seedfall_cache::create_private_dir(&tools).map_err(|error| SetupError::CreateDir { dir: tools.clone(), error })?;
    // Built in a folder of this call's own, renamed into place whole: a
    // concurrent build never reads a half-written source or runs half a tool.
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let n = BUILDS.fetch_add(1, Ordering::Relaxed);
    let work = tools.join(format!(".build-{}-{n}-{nanos}", std::process::id()));
    let built = build_in(&work).and_then(|()| match std::fs::rename(&work, &dir) {
        // Another process put it there first: theirs is as good.
        Err(_) if tool.is_file() => Ok(()),
        renamed => renamed.map_err(|error| SetupError::Write { file: dir.clone(), error }),
    });
    let _ = std::fs::remove_dir_all(&work);
    built.map(|()| tool)
}

/// Writes the catalog's source into the new folder `work` and builds it there.
fn build_in(work: &Path) -> Result<(), SetupError> {
    seedfall_cache::create_private_dir(work)
        .map_err(|error| SetupError::CreateDir { dir: work.to_path_buf(), error })?;
    for (name, text) in [("go.mod", GO_MOD), ("main.go", SOURCE)] {
        let file = work.join(name);
        std::fs::write(&file, text).map_err(|error| SetupError::Write { file, error })?;
    }
    let output = Command::new("go")
        .args(["build", "-o", "catalog", "."])
        .current_dir(work)
        // For this machine, whatever the user's environment targets, and
        // outside any go.work of the directories above.
        .env_remove("GOOS")
        .env_remove("GOARCH")
        .env("GOWORK", "off")
        .output()
        .map_err(SetupError::NoGo)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
        return Err(SetupError::Build { dir: work.to_path_buf(), stderr });
    }
    Ok(())
}
