//! The output layer's error: a result file, page, schedule or trace that
//! could not be written, or two outputs that would be one file. Its Display
//! is the line users see. It writes nothing itself (`safe_write`, `json_doc`).

use std::fmt;
use std::path::PathBuf;

/// Why an output was not written.
#[derive(Debug)]
pub enum WriteError {
    /// Writing (or renaming into place) `file` failed.
    File { file: PathBuf, error: std::io::Error },
    /// `file` was written but could not be made executable.
    Executable { file: PathBuf, error: std::io::Error },
    /// `-` (stdout) could not be written.
    Stdout(std::io::Error),
    /// Output `name` would write `output`, which is also `other_name` (`other`).
    Clash { name: String, output: PathBuf, other_name: String, other: PathBuf },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            WriteError::File { file, error } => write!(f, "cannot write {}: {error}", file.display()),
            WriteError::Executable { file, error } => write!(f, "cannot make {} executable: {error}", file.display()),
            WriteError::Stdout(error) => write!(f, "stdout: {error}"),
            WriteError::Clash { name, output, other_name, other } => write!(
                f,
                "{name} would write {}, which is {other_name} ({}): seedfall does not write over its inputs \
                 or one output over another; choose another name",
                output.display(),
                other.display()
            ),
        }
    }
}

impl std::error::Error for WriteError {}
