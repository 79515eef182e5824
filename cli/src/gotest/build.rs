//! `seedfall test`'s packages: the directories `PKG…` name (`go list`, for
//! GOOS=wasip1 GOARCH=wasm) and each one's test binary, built once with the
//! stock `go test -c` and the config's overlays. A package that does not
//! build is reported with Go's own error. It does not run anything.

use crate::overlay::{self, Prepared};
use crate::patches::Compat;
use crate::setup_error::SetupError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One package `PKG…` named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub dir: PathBuf,
    pub import_path: String,
    /// How a reproduce line names it: `./rel` under the current directory,
    /// else its import path.
    pub arg: String,
    /// It has `_test.go` files.
    pub has_tests: bool,
}

fn wasip1(mut go: Command) -> Command {
    go.env("GOOS", "wasip1").env("GOARCH", "wasm");
    go
}

/// The packages `patterns` name (`.` when empty), as `go list` sees them.
pub fn list(patterns: &[String], cwd: &Path) -> Result<Vec<Package>, SetupError> {
    let mut go = wasip1(Command::new("go"));
    go.args(["list", "-f", "{{.Dir}}\t{{.ImportPath}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"]);
    if patterns.is_empty() {
        go.arg(".");
    }
    let output = go.args(patterns).current_dir(cwd).output().map_err(SetupError::GoNotRun)?;
    if !output.status.success() {
        return Err(SetupError::GoList(String::from_utf8_lossy(&output.stderr).trim_end().to_string()));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text.lines().filter_map(|line| package(line, cwd)).collect())
}

fn package(line: &str, cwd: &Path) -> Option<Package> {
    let mut parts = line.split('\t');
    let dir = PathBuf::from(parts.next()?);
    let import_path = parts.next()?.to_string();
    let tests: usize = parts.map(|n| n.parse::<usize>().unwrap_or(0)).sum();
    let arg = match dir.strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => format!("./{}", rel.display()),
        Err(_) => import_path.clone(),
    };
    Some(Package { dir, import_path, arg, has_tests: tests > 0 })
}

/// Builds `package`'s test binary at `out` (`go test -c`); the error is
/// what Go printed.
pub fn build(package: &Package, out: &Path, overlay: Option<&Prepared>) -> Result<(), SetupError> {
    let dir = out.parent().unwrap_or(Path::new("."));
    crate::safe_write::create_dirs(dir).map_err(|error| SetupError::CreateDir { dir: dir.to_path_buf(), error })?;
    // Built beside and renamed into place: a concurrent run never loads half a binary.
    let partial = crate::safe_write::partial_path(out);
    // compat_overlay's files for modules (compat_modules.rs) come through a modfile.
    let compat = if overlay.is_some_and(|o| o.compat) { Compat::Tests } else { Compat::Off };
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let modfile = crate::patches::modfile(&[], compat, &package.dir, dir, &stem, &mut [])?;
    let output = wasip1(overlay::go_command(overlay, &["test", "-c"]))
        .args(modfile.map(|m| format!("-modfile={}", m.display())))
        .arg("-o")
        .arg(&partial)
        .arg(".")
        .current_dir(&package.dir)
        .output()
        .map_err(SetupError::GoNotRun)?;
    if !output.status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(SetupError::TestBuild(String::from_utf8_lossy(&output.stderr).trim_end().to_string()));
    }
    crate::safe_write::finish(&partial, out).map_err(|error| SetupError::Write { file: out.to_path_buf(), error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_named_relative_to_the_current_directory() {
        let cwd = Path::new("/w/mod");
        let p = package("/w/mod/race\texample.com/mod/race\t1\t0", cwd).unwrap();
        assert_eq!((p.arg.as_str(), p.has_tests), ("./race", true));
        let here = package("/w/mod\texample.com/mod\t0\t0", cwd).unwrap();
        assert_eq!((here.arg.as_str(), here.has_tests), (".", false));
        let elsewhere = package("/other/x\texample.com/x\t0\t2", cwd).unwrap();
        assert_eq!((elsewhere.arg.as_str(), elsewhere.has_tests), ("example.com/x", true));
    }
}
