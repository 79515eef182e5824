//! The engine's error type: everything that can go wrong before guest code runs
//! (decoding, validation, unsupported features, compilation, loading, linking).
//! Guest faults at run time are `Trap`s, not errors; see `runtime::trap`.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The bytes are not a well-formed, valid wasm module.
    Invalid { message: String, offset: usize, function: Option<String> },
    /// The module is valid wasm but uses something outside the engine's feature set.
    Unsupported { feature: String, function: Option<String> },
    /// Cranelift rejected a function (an engine bug; names the function).
    Compile { function: String, message: String },
    /// An Artifact could not be decoded (truncated, wrong version, corrupt).
    Artifact(String),
    /// Instantiation failed: a missing import, a type mismatch, an out-of-range segment.
    Link(String),
    /// The start function trapped, or a segment did not fit, during instantiation.
    Trap(crate::runtime::trap::Trap),
    /// The operating system refused a mapping or protection change.
    Os(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_fn = |function: &Option<String>| match function {
            Some(name) => format!(" in function {name}"),
            None => String::new(),
        };
        match self {
            Error::Invalid { message, offset, function } => {
                write!(f, "invalid wasm module: {message} (at byte offset {offset:#x}{})", in_fn(function))
            }
            Error::Unsupported { feature, function } => {
                write!(f, "unsupported wasm feature: {feature}{}", in_fn(function))
            }
            Error::Compile { function, message } => write!(f, "compiling function {function}: {message}"),
            Error::Artifact(m) => write!(f, "bad artifact: {m}"),
            Error::Link(m) => write!(f, "instantiation failed: {m}"),
            Error::Trap(t) => write!(f, "instantiation trapped: {t}"),
            Error::Os(m) => write!(f, "operating system error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The text of a caught panic's payload, for turning a panic into an error.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
