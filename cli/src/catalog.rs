//! The static property catalog: the messages of every property call in a
//! config's Go packages (sim.Assert/Always/Sometimes/Reachable/Unreachable
//! and the Antithesis SDK's assert.*), found from the source by a small Go
//! program (cli/catalog, embedded here, built for the host with the stock
//! `go build` into `.seedfall/build/` and reused while its source is
//! unchanged). A sweep then knows the properties no seed reached: an
//! `Always` or `Reachable` never reached, or a `Sometimes` never true, fails
//! it. What it does not do: run the properties or judge them (the world and
//! `report.rs` do).

use crate::cluster::SetupError;
use seedfall_host::node::PropertyKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = include_str!("../catalog/main.go");
const GO_MOD: &str = include_str!("../catalog/go.mod");

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
pub fn catalog(dirs: &[&Path], build_dir: &Path) -> Result<(Vec<Catalogued>, Vec<String>), SetupError> {
    if dirs.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let tool = build_tool(build_dir)?;
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

/// The catalog program for this host, built once per version of its source.
fn build_tool(build_dir: &Path) -> Result<PathBuf, SetupError> {
    let hash = blake3::hash(format!("{GO_MOD}\0{SOURCE}").as_bytes()).to_hex();
    let dir = build_dir.join(format!("catalog-{}", &hash[..16]));
    let tool = dir.join("catalog");
    if tool.is_file() {
        return Ok(tool);
    }
    // Each source replaced whole, so a concurrent build never reads half of one.
    let write = |name: &str, text: &str| {
        let (file, partial) = (dir.join(name), crate::safe_write::partial_path(&dir.join(name)));
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, &file))
            .map_err(|error| SetupError::Write { file, error })
    };
    std::fs::create_dir_all(&dir).map_err(|error| SetupError::CreateDir { dir: dir.clone(), error })?;
    write("go.mod", GO_MOD)?;
    write("main.go", SOURCE)?;
    // Built beside and renamed, so concurrent runs never execute half a file.
    let partial = crate::safe_write::partial_path(&tool);
    let output = Command::new("go")
        .args(["build", "-o"])
        .arg(&partial)
        .arg(".")
        .current_dir(&dir)
        // For this machine, whatever the user's environment targets.
        .env_remove("GOOS")
        .env_remove("GOARCH")
        .output()
        .map_err(SetupError::NoGo)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
        return Err(SetupError::Build { dir, stderr });
    }
    std::fs::rename(&partial, &tool).map_err(|error| SetupError::Write { file: tool.clone(), error })?;
    Ok(tool)
}
