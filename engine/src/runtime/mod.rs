//! Running compiled code: loading (`code`), memories, tables, the vmctx,
//! instances, fibers, traps and the signal handler, and the host-function API.

pub mod code;
pub(crate) mod fiber;
pub mod host;
pub(crate) mod image;
pub mod instance;
pub mod interrupt;
pub(crate) mod libcalls;
pub mod memory;
pub(crate) mod perf_map;
pub(crate) mod registry;
pub(crate) mod reservation;
pub(crate) mod signal_context;
pub(crate) mod signals;
pub mod table;
pub mod trap;
pub mod vmctx;
