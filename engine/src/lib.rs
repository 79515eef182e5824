//! seedfall's ahead-of-time WebAssembly engine, built directly on Cranelift.
//!
//! Pipeline: `compile` (validate with wasmparser under LIME1, translate every
//! function to CLIF, compile in parallel) → `Artifact` (relocatable code plus
//! metadata, serializable) → `Code::load` (map, relocate, make executable) →
//! `Instance::new` (memory, table, globals, imports) → `Instance::call`, which
//! runs on a fiber and can be suspended by host functions and resumed.
//!
//! The engine knows nothing of WASI, seeds or faults: that is the host crate.

pub mod artifact;
pub mod compile;
pub mod error;
pub mod module;
pub mod runtime;
pub mod translate;

pub use artifact::Artifact;
pub use compile::{CompileConfig, IsaBaseline, compile};
pub use error::{Error, Result};
pub use module::{FuncType, ValType};
pub use runtime::code::Code;
pub use runtime::host::{Caller, Extern, HostError, Linker, Val};
pub use runtime::instance::{Instance, Run};
pub use runtime::interrupt::Interrupter;
pub use runtime::trap::{Trap, TrapKind};
pub use translate::TrapMode;
