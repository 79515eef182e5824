//! Every file seedfall writes: histories and their locks, schedules, reports,
//! `cause` output, explore's schedules, build outputs. A checkout is hostile
//! input, so a write never goes through a symbolic link and never truncates a
//! file seedfall did not create: a file is written new beside its target
//! (create-new, so nothing existing is opened) and renamed over it, and a
//! target that is a link, a FIFO, a device or a directory is refused with an
//! error saying so. Inside a `.seedfall/` folder the folders are checked too
//! (`.seedfall` itself a link to elsewhere is refused); outside it (a
//! `-report` path the user named) only the file is. `-` for stdout is the
//! callers' business. docs/security.md says why.
//!
//! It does not guard against a process racing seedfall on the same folder:
//! the hostile party here is what a checkout holds, not a concurrent writer.

use std::fs::{File, OpenOptions};
use std::io::{Error, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::write_error::WriteError;

/// Replaces `path` with `bytes` (made beside and renamed: a reader never sees
/// half a file, and a link at `path` is refused rather than followed).
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    check_target(path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dirs(dir)?;
    }
    let partial = partial_path(path);
    // No fsync: the rename keeps readers from half a file, and a module
    // copy (patches.rs) writes hundreds of files this way.
    let written = new_file(&partial).and_then(|mut file| file.write_all(bytes));
    let renamed = written.and_then(|()| std::fs::rename(&partial, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    renamed
}

/// `replace`, with the error as a message naming `path`.
pub fn replace_or_say(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace(path, bytes).map_err(|error| WriteError::File { file: path.to_path_buf(), error })
}

/// Creates `dir` and its missing parents; inside `.seedfall/`, a folder that
/// is a link is refused.
pub fn create_dirs(dir: &Path) -> Result<(), Error> {
    for inside in seedfall_folders(dir) {
        match std::fs::symlink_metadata(&inside) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(link_error(&inside)),
            Ok(meta) if !meta.is_dir() => {
                return Err(Error::new(ErrorKind::InvalidInput, format!("{} is not a folder", inside.display())));
            }
            _ => {}
        }
    }
    std::fs::create_dir_all(dir)
}

/// Opens the lock file `path` (made if missing) without truncating it or
/// following a link: a lock file carries no data, so an existing one is used
/// as it is; a link or a non-regular file is refused.
pub fn open_lock(path: &Path) -> Result<File, Error> {
    check_target(path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dirs(dir)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    no_follow(&mut options);
    let file = options.open(path).map_err(|e| if is_loop(&e) { link_error(path) } else { e })?;
    if !file.metadata()?.is_file() {
        return Err(not_regular(path));
    }
    Ok(file)
}

/// A fresh name beside `path` for a tool (`go build -o`) to write before it
/// is renamed over `path` with `finish`: unique per process and per call, so
/// concurrent builds in one process never share one, and nothing is there.
pub fn partial_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let partial = path.with_file_name(format!("{name}.{}.{n}.partial", std::process::id()));
    // Left by a killed run with the same process id, or planted: removing a
    // link removes the link, never its target.
    let _ = std::fs::remove_file(&partial);
    partial
}

/// Renames `partial` (from `partial_path`, written by a tool) over `path`,
/// refusing a link or non-regular file at `path`.
pub fn finish(partial: &Path, path: &Path) -> Result<(), Error> {
    let renamed = check_target(path).and_then(|()| std::fs::rename(partial, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(partial);
    }
    renamed
}

/// An error when two of `outputs` (each with what names it: `-report`,
/// `--json`) are one file, or one of them is one of `inputs` (the config):
/// `-report seedfall.html` would write its JSON over `seedfall.json`.
pub fn outputs_apart(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), WriteError> {
    for (i, (name, output)) in outputs.iter().enumerate() {
        let clash = inputs.iter().chain(&outputs[..i]).find(|(_, other)| same_file(output, other));
        if let Some((other_name, other)) = clash {
            return Err(WriteError::Clash {
                name: name.to_string(),
                output: output.to_path_buf(),
                other_name: other_name.to_string(),
                other: other.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one file, existing or not (links and `..`
/// resolved as far as the folders exist).
fn same_file(a: &Path, b: &Path) -> bool {
    let resolved = |p: &Path| {
        p.canonicalize().unwrap_or_else(|_| {
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let parent = parent.canonicalize().unwrap_or_else(|_| parent.to_path_buf());
            p.file_name().map_or(parent.clone(), |name| parent.join(name))
        })
    };
    resolved(a) == resolved(b)
}

/// An error unless `path` is missing or a regular file (not a link to one).
pub fn check_target(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(link_error(path)),
        Ok(meta) if !meta.is_file() => Err(not_regular(path)),
        _ => Ok(()),
    }
}

fn new_file(path: &Path) -> Result<File, Error> {
    let mut options = OpenOptions::new();
    // create_new: fails on anything already there, a link included.
    options.write(true).create_new(true);
    no_follow(&mut options);
    options.open(path)
}

#[cfg(unix)]
fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO planted at the path cannot block the open (it is
    // refused right after); regular files ignore it.
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
}

#[cfg(not(unix))]
fn no_follow(_: &mut OpenOptions) {}

#[cfg(unix)]
fn is_loop(e: &Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(not(unix))]
fn is_loop(_: &Error) -> bool {
    false
}

/// The folders of `dir` from its `.seedfall` component down (none when it
/// has no such component).
fn seedfall_folders(dir: &Path) -> Vec<PathBuf> {
    let ancestors: Vec<&Path> = dir.ancestors().collect();
    let Some(at) = ancestors.iter().position(|a| a.file_name().is_some_and(|n| n == ".seedfall")) else {
        return Vec::new();
    };
    ancestors[..=at].iter().rev().map(|a| a.to_path_buf()).collect()
}

fn link_error(path: &Path) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link: seedfall does not write through links (remove it and run again)",
            path.display()
        ),
    )
}

fn not_regular(path: &Path) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{} is not a regular file (a folder, FIFO, socket or device): seedfall does not write it",
            path.display()
        ),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("seedfall-safe-write-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_link_is_refused_and_its_target_keeps_its_bytes() {
        let dir = dir("link");
        let target = dir.join("precious");
        std::fs::write(&target, "keep me").unwrap();
        let state = dir.join(".seedfall");
        std::fs::create_dir_all(&state).unwrap();
        symlink(&target, state.join("cause.json")).unwrap();
        symlink(&target, state.join("findings.json.lock")).unwrap();
        let err = replace(&state.join("cause.json"), b"overwritten").unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        let err = open_lock(&state.join("findings.json.lock")).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(&state).unwrap().count(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_linked_seedfall_folder_is_refused_and_a_plain_file_is_replaced() {
        let dir = dir("folder");
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let project = dir.join("project");
        std::fs::create_dir_all(&project).unwrap();
        symlink(&elsewhere, project.join(".seedfall")).unwrap();
        let err = replace(&project.join(".seedfall/explore/1.faults.json"), b"{}").unwrap_err();
        assert!(err.to_string().contains(".seedfall is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        let plain = dir.join("out/r.json");
        replace(&plain, b"one").unwrap();
        replace(&plain, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.join("out")).unwrap().count(), 1);
        let lock = open_lock(&dir.join("out/r.lock")).unwrap();
        drop(lock);
        std::fs::write(dir.join("out/r.lock"), "kept").unwrap();
        drop(open_lock(&dir.join("out/r.lock")).unwrap());
        assert_eq!(std::fs::read_to_string(dir.join("out/r.lock")).unwrap(), "kept");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_output_naming_an_input_or_another_output_is_refused() {
        let dir = dir("apart");
        let config = dir.join("seedfall.json");
        std::fs::write(&config, "{}").unwrap();
        let page = dir.join("seedfall.html");
        let err = outputs_apart(&[("-report's JSON", &page.with_extension("json"))], &[("the config", &config)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("which is the config"), "{err}");
        let dotted = dir.join("sub/../r.json");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let err = outputs_apart(&[("--json", &dir.join("r.json")), ("-report's JSON", &dotted)], &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("-report's JSON would write"), "{err}");
        assert!(
            outputs_apart(&[("--json", &dir.join("a.json")), ("-report's JSON", &page)], &[("the config", &config)])
                .is_ok()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fifo_at_the_lock_or_target_is_refused_without_blocking() {
        let dir = dir("fifo");
        let fifo = dir.join("x.lock");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            assert!(open_lock(&fifo).unwrap_err().to_string().contains("not a regular file"));
            assert!(replace(&fifo, b"x").unwrap_err().to_string().contains("not a regular file"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
