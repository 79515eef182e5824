//! Where the pass puts what it adds: the hook's function index and type, the counter's global
//! index, and the function index shift that follows from them.
//!
//! It only decides; `body`, `names` and `output` apply the decisions.

use crate::error::Error;
use crate::input::Input;
use crate::shift::Shift;

/// The index-space decisions, made once from the input before anything is written.
pub(crate) struct Plan {
    /// The function index mapping. `shift.hook` is the hook's function index: the hook goes last
    /// among the function imports, so imported indices stay put and only defined ones move.
    pub(crate) shift: Shift,
    /// Index of the counter global: after every imported and defined global, so the indices Go's
    /// runtime hard-codes do not move.
    pub(crate) counter_global: u32,
    /// Type index of the hook's `[] -> []` type.
    pub(crate) hook_type: u32,
    /// The input has no reusable `[] -> []` type: append one to the type section (or add one).
    pub(crate) append_type: bool,
}

impl Plan {
    pub(crate) fn new(input: &Input<'_>) -> Result<Plan, Error> {
        // Function index space: imports + hook + defined functions must fit; checked per index by
        // `Shift::func`, as indices are rewritten.
        let shift = Shift { hook: input.func_imports };
        let counter_global = input
            .global_imports
            .checked_add(input.defined_globals)
            .filter(|&n| n < u32::MAX)
            .ok_or(Error::IndexOverflow("global"))?;
        let (hook_type, append_type) = match input.empty_func_type {
            Some(t) => (t, false),
            None if input.types < u32::MAX => (input.types, true),
            None => return Err(Error::IndexOverflow("type")),
        };
        Ok(Plan { shift, counter_global, hook_type, append_type })
    }
}
