//! Where `seedfall mcp`'s tools may read: the server's working directory,
//! and the folders it was started with (`--allow-path DIR`). A client picks
//! tool paths (`config`, `faults`), so a path is resolved (symbolic links
//! and `..` followed) and refused unless it lands inside one of them. The
//! message names the path as the client gave it and never what the file
//! holds. The paths inside a config (its packages) are the checkout's own
//! and not checked here.

use super::error::McpError;
use std::path::{Path, PathBuf};

pub struct Paths {
    /// Resolved, the working directory first.
    roots: Vec<PathBuf>,
}

impl Paths {
    /// The working directory and `allowed`, each resolved; an error names a
    /// folder that does not exist.
    pub fn new(allowed: &[PathBuf]) -> Result<Paths, McpError> {
        let cwd =
            std::env::current_dir().map_err(|e| McpError::Call(format!("cannot read the working directory: {e}")))?;
        let mut roots = Vec::new();
        for dir in std::iter::once(&cwd).chain(allowed) {
            let resolved =
                dir.canonicalize().map_err(|e| McpError::Call(format!("--allow-path {}: {e}", dir.display())))?;
            if !resolved.is_dir() {
                return Err(McpError::Call(format!("--allow-path {}: not a folder", dir.display())));
            }
            roots.push(resolved);
        }
        Ok(Paths { roots })
    }

    /// `path` if it names an existing file inside an allowed folder;
    /// `what` says what it is in the message ("config file", "schedule").
    pub fn file(&self, path: &Path, what: &str) -> Result<PathBuf, McpError> {
        let resolved = match path.canonicalize() {
            Ok(resolved) if resolved.is_file() => resolved,
            Ok(_) => return Err(McpError::Call(format!("{} is not a file (the {what} must be one)", path.display()))),
            Err(_) => return Err(McpError::Call(format!("no {what} at {}", path.display()))),
        };
        if !self.roots.iter().any(|root| resolved.starts_with(root)) {
            return Err(McpError::Call(format!(
                "{} is outside the folders this server may read ({}); start it with --allow-path DIR to allow another",
                path.display(),
                self.listed()
            )));
        }
        Ok(path.to_path_buf())
    }

    fn listed(&self) -> String {
        let mut listed = format!("its working directory {}", self.roots[0].display());
        for root in &self.roots[1..] {
            listed += &format!(", {}", root.display());
        }
        listed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_allowed_folders_are_refused() {
        let dir = std::env::temp_dir().join(format!("seedfall-mcp-paths-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("inside")).unwrap();
        std::fs::write(dir.join("inside/a.json"), "secret").unwrap();
        std::fs::write(dir.join("b.json"), "secret").unwrap();
        let only_inside = Paths { roots: vec![dir.join("inside").canonicalize().unwrap()] };
        assert!(only_inside.file(&dir.join("inside/a.json"), "schedule").is_ok());
        let refused = only_inside.file(&dir.join("inside/../b.json"), "schedule").unwrap_err().to_string();
        assert!(refused.contains("outside the folders") && refused.contains("--allow-path"), "{refused}");
        assert!(!refused.contains("secret"), "{refused}");
        let missing = only_inside.file(&dir.join("inside/nope.json"), "schedule").unwrap_err().to_string();
        assert!(missing.starts_with("no schedule at "), "{missing}");
        #[cfg(unix)]
        {
            let link = dir.join("inside/link.json");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(dir.join("b.json"), &link).unwrap();
            assert!(only_inside.file(&link, "schedule").unwrap_err().to_string().contains("outside"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
