//! The pass's [`Error`] and the conversion into it from `wasmparser` errors.
//!
//! Only the error type: deciding *when* to fail is left to the code that reads and rewrites the
//! module.

use std::fmt;

use crate::{HOOK_FIELD, HOOK_MODULE};

/// Why a module could not be instrumented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input is not a well-formed wasm binary (garbage, truncated, bad encoding). `offset` is
    /// the byte offset in the input where decoding failed.
    Malformed { offset: usize, message: String },
    /// Well-formed, but not something this pass handles (a component, for instance).
    Unsupported(String),
    /// The module already imports `seedfall.preempt`: it was instrumented before.
    AlreadyInstrumented,
    /// Adding the hook or the counter would overflow a 32-bit index space.
    IndexOverflow(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed { offset, message } => {
                write!(f, "malformed wasm at byte offset {offset:#x}: {message}")
            }
            Error::Unsupported(what) => write!(f, "cannot instrument: {what}"),
            Error::AlreadyInstrumented => {
                write!(f, "module already imports {HOOK_MODULE}.{HOOK_FIELD}: it is already instrumented")
            }
            Error::IndexOverflow(space) => {
                write!(f, "cannot instrument: the {space} index space would overflow")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        Error::Malformed { offset: e.offset() as usize, message: e.message().to_string() }
    }
}
