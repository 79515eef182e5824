//! Making `.seedfall/` beside a config: when seedfall creates the folder it
//! also writes `.seedfall/.gitignore`, so the compiled-code cache and Go's
//! build outputs (tens of megabytes) stay out of git while the findings
//! history and saved schedules, which are worth committing, stay in.
//! A folder seedfall did not create is left as it is, and an existing
//! `.gitignore` (or a symlink in its place) is never replaced: the file is
//! created new or not at all. Not here: the files seedfall keeps inside.

use std::io::Write;
use std::path::Path;

/// What `.seedfall/.gitignore` says.
pub const GITIGNORE: &str = "\
# Written by seedfall when it created this folder; seedfall never rewrites it.
# Out of git: compiled code, Go build outputs, locks and files being written.
# In git: the findings history (findings.json) and saved fault schedules
# (seed-N.faults.json, explore/, cause/), so colleagues and CI share them.
cache/
build/
*.lock
*.partial
";

/// Creates `dir` (the config's `.seedfall/`) with its `.gitignore` if it
/// does not exist. Failing to is no error here: whatever writes into the
/// folder next reports why it cannot.
pub fn ensure(dir: &Path) {
    if std::fs::create_dir(dir).is_ok() {
        let _ = write_gitignore(dir);
    }
}

/// Writes `dir/.gitignore` unless something (a file, a symlink) is there.
fn write_gitignore(dir: &Path) -> std::io::Result<()> {
    // `create_new` is O_CREAT|O_EXCL: it fails on any existing name,
    // dangling symlinks included, and so never writes through one.
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(dir.join(".gitignore"))?;
    file.write_all(GITIGNORE.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("seedfall-state-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_new_state_folder_ignores_caches_and_keeps_history_and_schedules() {
        let dir = scratch("new");
        let state = dir.join(".seedfall");
        ensure(&state);
        let text = std::fs::read_to_string(state.join(".gitignore")).unwrap();
        assert_eq!(text, GITIGNORE);
        let ignored: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(ignored, ["cache/", "build/", "*.lock", "*.partial"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_existing_folder_or_gitignore_is_left_alone() {
        let dir = scratch("existing");
        let state = dir.join(".seedfall");
        std::fs::create_dir(&state).unwrap();
        ensure(&state);
        assert!(!state.join(".gitignore").exists(), "seedfall did not create this folder");
        std::fs::write(state.join(".gitignore"), "mine\n").unwrap();
        assert!(write_gitignore(&state).is_err());
        assert_eq!(std::fs::read_to_string(state.join(".gitignore")).unwrap(), "mine\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_gitignore_symlink_is_never_written_through() {
        let dir = scratch("symlink");
        let state = dir.join(".seedfall");
        std::fs::create_dir(&state).unwrap();
        let target = dir.join("victim");
        std::fs::write(&target, "keep\n").unwrap();
        std::os::unix::fs::symlink(&target, state.join(".gitignore")).unwrap();
        assert!(write_gitignore(&state).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
        let dangling = dir.join("nowhere");
        std::fs::remove_file(state.join(".gitignore")).unwrap();
        std::os::unix::fs::symlink(&dangling, state.join(".gitignore")).unwrap();
        assert!(write_gitignore(&state).is_err());
        assert!(!dangling.exists(), "a dangling symlink is not followed to create its target");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
