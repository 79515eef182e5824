//! Running compiled code: loading (`code`), memories, tables, the vmctx,
//! instances, fibers, traps and the signal handler, and the host-function API.

pub mod code;
pub(crate) mod fault;
pub(crate) mod fiber;
pub mod fork_locks;
pub mod host;
pub(crate) mod image;
pub mod instance;
pub mod interrupt;
#[cfg(windows)]
mod interrupt_windows;
#[cfg(target_os = "linux")]
pub mod lazy;
pub(crate) mod libcalls;
pub mod memory;
#[cfg(unix)]
mod memory_unix;
#[cfg(windows)]
mod memory_windows;
pub(crate) mod perf_map;
pub(crate) mod registry;
pub(crate) mod reservation;
#[cfg(unix)]
pub(crate) mod signal_context;
#[cfg(unix)]
pub(crate) mod signals;
pub mod table;
pub mod trap;
pub(crate) mod trap_site;
#[cfg(windows)]
pub(crate) mod traps_windows;
pub mod vmctx;
