//! The function index shift: inserting the hook as the last function import moves every defined
//! function up by one. Also the `Reencode` impl that applies the shift to the sections re-encoded
//! with `wasm-encoder` (table, global, export, element, and the `name` subsections that `names`
//! does not handle itself), and the mapping of that re-encoding's errors into the pass's [`Error`].
//!
//! It only maps indices; finding them in function bodies is `body`'s job, in the `name` section
//! `names`'s.

use std::fmt;

use wasm_encoder::reencode::{self, Reencode};

use crate::error::Error;

/// The function index mapping: function imports stay, everything from the hook's index moves up.
#[derive(Clone, Copy)]
pub(crate) struct Shift {
    /// Index of the hook (= number of function imports of the input).
    pub(crate) hook: u32,
}

/// Marker error: a function index overflowed when shifted.
#[derive(Debug)]
pub(crate) struct Overflow;

impl fmt::Display for Overflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("function index overflow")
    }
}

impl Shift {
    #[inline]
    pub(crate) fn func(self, f: u32) -> Result<u32, Error> {
        if f < self.hook { Ok(f) } else { f.checked_add(1).ok_or(Error::IndexOverflow("function")) }
    }
}

impl Reencode for Shift {
    type Error = Overflow;
    fn function_index(&mut self, f: u32) -> Result<u32, reencode::Error<Overflow>> {
        self.func(f).map_err(|_| reencode::Error::UserError(Overflow))
    }
}

/// Maps an error from the sections re-encoded with `Shift`. A plain function, not a `From` impl,
/// so the crate-private `Overflow` stays out of the public API.
pub(crate) fn reencode_error(e: reencode::Error<Overflow>) -> Error {
    match e {
        reencode::Error::ParseError(e) => e.into(),
        reencode::Error::UserError(Overflow) => Error::IndexOverflow("function"),
        other => Error::Unsupported(other.to_string()),
    }
}
