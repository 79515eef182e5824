//! Trap values: what the guest did wrong, and where.
//!
//! Compiled code marks every trapping instruction with a Cranelift `TrapCode`
//! carrying a `TrapKind`; the signal handler (or, in explicit mode, the trap
//! libcall) turns a fault back into a `Trap` naming the kind and the function.

use std::fmt;

#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrapKind {
    Unreachable = 1,
    MemoryOutOfBounds = 2,
    IntegerDivideByZero = 3,
    IntegerOverflow = 4,
    BadConversionToInteger = 5,
    TableOutOfBounds = 6,
    IndirectCallToNull = 7,
    BadSignature = 8,
    StackOverflow = 9,
    /// A host function failed or panicked: an internal error, not the guest's fault.
    HostError = 10,
    /// An element segment does not fit in the table during instantiation
    /// (distinct from `TableOutOfBounds`, which is `call_indirect`'s).
    TableAccessOutOfBounds = 11,
    /// The guest stopped making progress: stopped from outside by the
    /// real-time watchdog, or found spinning by the host.
    Interrupted = 12,
}

impl TrapKind {
    pub const ALL: [TrapKind; 12] = [
        TrapKind::Unreachable,
        TrapKind::MemoryOutOfBounds,
        TrapKind::IntegerDivideByZero,
        TrapKind::IntegerOverflow,
        TrapKind::BadConversionToInteger,
        TrapKind::TableOutOfBounds,
        TrapKind::IndirectCallToNull,
        TrapKind::BadSignature,
        TrapKind::StackOverflow,
        TrapKind::HostError,
        TrapKind::TableAccessOutOfBounds,
        TrapKind::Interrupted,
    ];

    pub fn from_u8(v: u8) -> Option<TrapKind> {
        Self::ALL.iter().copied().find(|k| *k as u8 == v)
    }

    /// The wording of the WebAssembly spec test suite.
    pub fn message(self) -> &'static str {
        match self {
            TrapKind::Unreachable => "unreachable",
            TrapKind::MemoryOutOfBounds => "out of bounds memory access",
            TrapKind::IntegerDivideByZero => "integer divide by zero",
            TrapKind::IntegerOverflow => "integer overflow",
            TrapKind::BadConversionToInteger => "invalid conversion to integer",
            TrapKind::TableOutOfBounds => "undefined element",
            TrapKind::IndirectCallToNull => "uninitialized element",
            TrapKind::BadSignature => "indirect call type mismatch",
            TrapKind::StackOverflow => "call stack exhausted",
            TrapKind::HostError => "host function error",
            TrapKind::TableAccessOutOfBounds => "out of bounds table access",
            TrapKind::Interrupted => "busy loop",
        }
    }
}

/// A guest fault. The instance that raised it is dead; others are unaffected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trap {
    pub kind: TrapKind,
    /// The wasm function the fault happened in, when known.
    pub func_index: Option<u32>,
    /// Its name from the `name` section (for Go binaries, the Go function name).
    pub func_name: Option<String>,
    /// Byte offset of the faulting instruction in the wasm file, when known.
    pub wasm_offset: Option<u32>,
    /// Extra detail (the host error's message).
    pub detail: Option<String>,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wasm trap: {}", self.kind.message())?;
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        match (&self.func_name, self.func_index) {
            (Some(name), Some(index)) => write!(f, " in {name} (function {index})")?,
            (None, Some(index)) => write!(f, " in function {index}")?,
            _ => {}
        }
        if let Some(offset) = self.wasm_offset {
            write!(f, " at wasm offset {offset:#x}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Trap {}
