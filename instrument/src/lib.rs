//! Instrumentation pass: wasm → wasm with call (and optionally loop) counters.
//!
//! [`instrument`] adds to a core wasm module
//!
//! * one mutable `i64` global, the *counter*, appended after every existing global (so the indices
//!   Go's runtime hard-codes, 0 = SP and 2 = g, do not move), initialised to 0;
//! * one imported function `(import "seedfall" "preempt" (func))`, placed **last among the function
//!   imports**: imported function indices below it stay put, and every defined function moves up by
//!   one (calls, `ref.func`, exports, the start function, element segments and the `name` section
//!   are renumbered);
//! * at the start of every defined function (before anything else, so before Go's `br_table` resume
//!   dispatch) and, with [`Config::loops`], as the first instructions inside every `loop`:
//!
//!   ```wat
//!   global.get $counter  i64.const 1  i64.sub  global.set $counter
//!   global.get $counter  i64.const 0  i64.le_s
//!   if  call $seedfall.preempt  end
//!   ```
//!
//! The hook has no parameters or results. The host decides what to do and re-arms the counter by
//! writing the global. Because the counter starts at 0, the first function entry calls the hook, so
//! a host can arm the first quantum there. See `docs/instrumentation.md`.
//!
//! The pass is linear: function bodies are decoded operator by operator with `wasmparser`, but only
//! the operators that change (`call`, `return_call`, `ref.func` to a defined function, and `loop`
//! heads) are re-encoded; every other byte range is copied verbatim. It does not validate: a
//! well-formed but invalid module gives an equally invalid output (function index `i` maps to `i` or
//! `i + 1`, and the inserted code is stack-neutral), which the engine's validation rejects.

#![forbid(unsafe_code)]

mod body;
mod classify;
mod encoding;
mod entry;
mod error;
mod input;
mod names;
mod output;
mod plan;
mod shift;

pub use error::Error;

use plan::Plan;

/// Module name of the hook import.
pub const HOOK_MODULE: &str = "seedfall";
/// Field name of the hook import.
pub const HOOK_FIELD: &str = "preempt";
/// Name given to the hook in the `name` section's function names (when the module has them).
pub const HOOK_DEBUG_NAME: &str = "seedfall.preempt";
/// Name given to the counter in the `name` section's global names (when the module has them).
pub const COUNTER_DEBUG_NAME: &str = "seedfall.counter";
/// Version of the pass's output format. Part of [`config_bytes`]: bump it whenever the emitted code
/// changes, so cached compiled code of the old output is not reused.
pub const PASS_VERSION: u32 = 2;

/// What to instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Also count at the head of every `loop` (first instructions inside the loop).
    pub loops: bool,
    /// In Go modules, give functions without Go's own stack check a preemption entry check (the
    /// safe rule is in docs/preemption.md). On by default; off only to measure its cost.
    pub entry_checks: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config { loops: false, entry_checks: true }
    }
}

/// The result of [`instrument`].
#[derive(Clone, Debug)]
pub struct Instrumented {
    /// The instrumented module.
    pub wasm: Vec<u8>,
    /// Index of the counter global (mutable `i64`, initially 0) in the global index space.
    pub counter_global: u32,
    /// `(module, field)` of the hook import: `("seedfall", "preempt")`, type `[] -> []`.
    pub hook_import: (&'static str, &'static str),
    /// Index of the hook in the function index space (= number of function imports of the input).
    pub hook_function: u32,
    /// Number of function entries instrumented (= defined functions).
    pub entry_sites: u32,
    /// Number of loop heads instrumented (0 unless [`Config::loops`]).
    pub loop_sites: u32,
    /// Number of functions that got the preemption entry check (0 unless [`Config::entry_checks`]
    /// and the module is a Go program).
    pub check_sites: u32,
}

/// Stable bytes describing the pass and its configuration, for the compiled-code cache key.
/// Changes whenever the output for the same input would change ([`PASS_VERSION`], the config).
pub fn config_bytes(config: &Config) -> Vec<u8> {
    format!(
        "seedfall-instrument/v{PASS_VERSION};hook={HOOK_MODULE}.{HOOK_FIELD};loops={};entry_checks={}",
        u8::from(config.loops),
        u8::from(config.entry_checks)
    )
    .into_bytes()
}

/// Instruments `wasm` (a core module). See the crate docs for what is added.
pub fn instrument(wasm: &[u8], config: &Config) -> Result<Instrumented, Error> {
    let input = input::parse(wasm)?;
    let plan = Plan::new(&input)?;
    // The code section first: the name section (wherever it is) needs its loop positions.
    let morestack = if config.entry_checks { go_morestack(&input) } else { None };
    let code = body::rewrite_code(wasm, &input, &plan, config.loops, morestack)?;
    let out = output::write(wasm, &input, &plan, &code, config.loops)?;
    Ok(Instrumented {
        wasm: out,
        counter_global: plan.counter_global,
        hook_import: (HOOK_MODULE, HOOK_FIELD),
        hook_function: plan.shift.hook,
        entry_sites: code.entry_sites,
        loop_sites: code.loop_sites,
        check_sites: code.checked.len() as u32,
    })
}

/// Go's `runtime.morestack` and `runtime.morestack_noctxt`, if the module is a Go program (it names
/// both as defined functions of Go's type); `None` otherwise, and then no entry checks are added.
fn go_morestack(input: &input::Input<'_>) -> Option<entry::Morestack> {
    let defined_go = |f: u32| f.checked_sub(input.func_imports).is_some_and(|d| input.has_go_type(d));
    let morestack = input.func_named("runtime.morestack").filter(|&f| defined_go(f))?;
    let noctxt = input.func_named("runtime.morestack_noctxt").filter(|&f| defined_go(f))?;
    Some(entry::Morestack { morestack, noctxt })
}
