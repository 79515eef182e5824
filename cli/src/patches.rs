//! `patches` (docs/patches.md): builds Go packages against a changed copy of
//! a module, so a negative control can run a library with its fix without the
//! library's source ever being committed, and compat_overlay can add the
//! wasip1 files a library lacks (`compat_modules.rs`). For each package that
//! depends on such a module, the module is copied from Go's module cache (at
//! the version the package's go.mod selects) into
//! `.seedfall/build/patched/<module>@<version>+<hash>`, the patch is applied
//! there with `patch -p1` and the files are added, and the package is built
//! with a `-modfile` that is its own go.mod plus a `replace` of the module by
//! the copy. Its go.mod and the module cache are never written.
//!
//! The copy's name holds a hash of the patch's bytes and the added files, so
//! two configs changing one module differently never share a copy, and a
//! changed patch makes a new copy, a new wasm and so a new compiled-code cache
//! key. It does not check what a patch changes, nor patch packages that do
//! not depend on the module.

use crate::config::PatchSpec;
use crate::setup_error::SetupError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a build adds to modules under compat_overlay (compat_modules.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compat {
    Off,
    /// For the package's binary.
    Build,
    /// For its test binary, whose tests may import more.
    Tests,
}

/// Where the package in `dir` builds from: a `-modfile` when any patch
/// applies to it or a module it imports needs files added (`compat`), else
/// its own go.mod (`None`). `stem` names the modfile. `used[i]` is set when
/// `patches[i]` applied.
pub fn modfile(
    patches: &[PatchSpec],
    compat: Compat,
    dir: &Path,
    build_dir: &Path,
    stem: &str,
    used: &mut [bool],
) -> Result<Option<PathBuf>, SetupError> {
    let mut added = match compat {
        Compat::Off => Vec::new(),
        Compat::Build => crate::compat_modules::needed(dir, false)?,
        Compat::Tests => crate::compat_modules::needed(dir, true)?,
    };
    let mut copies = Vec::new();
    for (patch, used) in patches.iter().zip(used.iter_mut()) {
        let Some(version) = selected_version(dir, &patch.module)? else { continue };
        let files = added.iter().position(|(m, ..)| *m == patch.module).map(|i| added.remove(i).2);
        let copy = module_copy(&patch.module, &version, Some(patch), &files.unwrap_or_default(), dir, build_dir)?;
        copies.push((patch.module.clone(), copy));
        *used = true;
    }
    for (module, version, files) in added {
        let copy = module_copy(&module, &version, None, &files, dir, build_dir)?;
        copies.push((module, copy));
    }
    if copies.is_empty() {
        return Ok(None);
    }
    let gomod = go(dir, &["env", "GOMOD"])?;
    let gomod = PathBuf::from(gomod.trim());
    // Relative to the module's root, where Go resolves a modfile's paths:
    // the replacement's path is written into the wasm's build info, and an
    // absolute one would differ between two checkouts of the same source.
    let root = canonical(gomod.parent().unwrap_or(Path::new("/")));
    let replaces: String = copies
        .iter()
        .map(|(module, copy)| format!("replace {module} => {}\n", go_relative(&root, &canonical(copy)).display()))
        .collect();
    let text = read(&gomod)?;
    let out = build_dir.join(format!("{stem}.go.mod"));
    // The `replace` of a module by a directory needs no go.sum line, but
    // the package's other modules do: Go reads the modfile's own .sum.
    let sum = read(&gomod.with_extension("sum")).unwrap_or_default();
    write(&out.with_extension("sum"), sum.as_bytes())?;
    write(&out, format!("{text}\n{replaces}").as_bytes())?;
    Ok(Some(out))
}

/// `path` with symbolic links and `..` resolved, so two paths to one place
/// compare equal component by component (as is, if it cannot be).
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `to` as Go's `replace` takes a directory: relative to `from` and
/// starting with `./` or `../`, or absolute when no relative path leads
/// there (another drive on Windows).
fn go_relative(from: &Path, to: &Path) -> PathBuf {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return to.iter().collect();
    }
    let up = from.len() - common;
    let mut path = if up == 0 { PathBuf::from(".") } else { (0..up).map(|_| "..").collect() };
    path.extend(&to[common..]);
    path
}

/// The version of `module` the package's module graph selects, or `None`
/// when the package does not depend on it.
fn selected_version(dir: &Path, module: &str) -> Result<Option<String>, SetupError> {
    let output = Command::new("go")
        .args(["list", "-m", "-f", "{{.Version}}", module])
        .current_dir(dir)
        .output()
        .map_err(SetupError::NoGo)?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Ok((output.status.success() && !version.is_empty()).then_some(version))
}

/// The copy of `module` at `version` with `patch` applied and `files`
/// added, made once.
fn module_copy(
    module: &str,
    version: &str,
    patch: Option<&PatchSpec>,
    files: &crate::compat_modules::Added,
    dir: &Path,
    build_dir: &Path,
) -> Result<PathBuf, SetupError> {
    let failed = |message: String| SetupError::Patch { module: module.to_string(), message };
    let mut hasher = blake3::Hasher::new();
    if let Some(patch) = patch {
        let bytes = std::fs::read(&patch.file)
            .map_err(|error| failed(format!("cannot read {}: {error}", patch.file.display())))?;
        hasher.update(&bytes);
    }
    for (name, text) in files {
        hasher.update(name.as_bytes()).update(&[0]).update(text.as_bytes()).update(&[0]);
    }
    let hash = hasher.finalize().to_hex();
    let copy = build_dir.join("patched").join(format!("{module}@{version}+{}", &hash[..12]));
    if copy.is_dir() {
        return Ok(copy);
    }
    let at = format!("{module}@{version}");
    let source = go(dir, &["mod", "download", "-json", &at])?;
    let source: serde_json::Value =
        serde_json::from_str(&source).map_err(|e| failed(format!("go mod download: {e}")))?;
    let Some(source) = source.get("Dir").and_then(|d| d.as_str()) else {
        return Err(failed(format!("go mod download {at}: no Dir")));
    };
    // Made beside and renamed into place, so a failed patch or write leaves
    // no copy that a later run would take for a good one.
    let partial = crate::safe_write::partial_path(&copy);
    let _ = std::fs::remove_dir_all(&partial);
    copy_tree(Path::new(source), &partial)?;
    // A module from before Go modules has no go.mod (Go makes one up in its
    // cache); a `replace` by a directory needs one.
    if !partial.join("go.mod").exists() {
        write(&partial.join("go.mod"), format!("module {module}\n").as_bytes())?;
    }
    for (name, text) in files {
        write(&partial.join(name), text.as_bytes())?;
    }
    if let Some(patch) = patch {
        apply(module, patch, &at, &partial)?;
    }
    match std::fs::rename(&partial, &copy) {
        Ok(()) => Ok(copy),
        // Another run made the same copy first.
        Err(_) if copy.is_dir() => {
            let _ = std::fs::remove_dir_all(&partial);
            Ok(copy)
        }
        Err(error) => Err(SetupError::Write { file: copy, error }),
    }
}

/// Applies `patch` to the copy at `partial` (of module@version `at`); a
/// patch that does not apply removes the copy.
fn apply(module: &str, patch: &PatchSpec, at: &str, partial: &Path) -> Result<(), SetupError> {
    let failed = |message: String| SetupError::Patch { module: module.to_string(), message };
    let output = Command::new("patch")
        .args(["-p1", "--batch", "--forward", "--silent", "-d"])
        .arg(partial)
        .arg("-i")
        .arg(&patch.file)
        .output()
        .map_err(|error| failed(format!("cannot run `patch`: {error}")))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(partial);
        let said = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
        return Err(failed(format!("{} does not apply to {at}:\n{}", patch.file.display(), said.trim_end())));
    }
    Ok(())
}

/// Copies a module directory; the module cache's files are read-only, the
/// copy's are writable so `patch` can change them.
fn copy_tree(from: &Path, to: &Path) -> Result<(), SetupError> {
    std::fs::create_dir_all(to).map_err(|error| SetupError::CreateDir { dir: to.to_path_buf(), error })?;
    let entries = std::fs::read_dir(from).map_err(|error| SetupError::Read { file: from.to_path_buf(), error })?;
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            write(&dst, &std::fs::read(&src).map_err(|error| SetupError::Read { file: src.clone(), error })?)?;
        }
    }
    Ok(())
}

/// What `go ARGS` printed in `dir`, or its stderr as a build error.
fn go(dir: &Path, args: &[&str]) -> Result<String, SetupError> {
    let output = Command::new("go").args(args).current_dir(dir).output().map_err(SetupError::NoGo)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
        return Err(SetupError::Build { dir: dir.to_path_buf(), stderr: format!("go {}: {stderr}", args.join(" ")) });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn read(file: &Path) -> Result<String, SetupError> {
    std::fs::read_to_string(file).map_err(|error| SetupError::Read { file: file.to_path_buf(), error })
}

fn write(file: &Path, bytes: &[u8]) -> Result<(), SetupError> {
    crate::safe_write::replace(file, bytes).map_err(|error| SetupError::Write { file: file.to_path_buf(), error })
}

#[cfg(test)]
mod tests {
    use super::go_relative;
    use std::path::Path;

    #[test]
    fn a_replacement_is_named_relative_to_the_module_root() {
        let copy = Path::new("/src/repo/examples/.seedfall/build/patched/m@v1");
        assert_eq!(go_relative(Path::new("/src/repo/examples"), copy), Path::new("./.seedfall/build/patched/m@v1"));
        assert_eq!(
            go_relative(Path::new("/src/repo/examples/wals"), copy),
            Path::new("../.seedfall/build/patched/m@v1")
        );
        assert_eq!(
            go_relative(Path::new("/elsewhere/mod"), copy),
            Path::new("../../src/repo/examples/.seedfall/build/patched/m@v1")
        );
    }
}
