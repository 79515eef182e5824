//! The simulated world that guests run in: WASI preview1 over virtual
//! resources (clock, seeded randomness, an in-memory file system with a
//! durability model and read-through host mounts, a simulated network), the
//! `seedfall` module of the Go SDK, `exec` (one program to completion) and
//! `world` (a cluster on one clock, with faults and verdicts), and `Guest`,
//! the facade that makes a compiled module into either. It never
//! touches the real clock or network, and never writes real files.

pub mod antithesis;
pub mod branch;
pub mod clock;
pub mod disk_latency;
pub mod exec;
pub mod fdtable;
pub mod file_ops;
pub mod flock;
pub mod fork;
pub mod fs;
pub mod goroutines;
pub mod gosym;
pub mod guest;
pub mod history;
pub mod hostcall;
#[cfg(test)]
mod hostcall_tests;
pub mod knob;
pub mod mmap;
pub mod net;
pub mod node;
pub mod node_id;
pub mod preempt;
pub mod random;
pub mod report;
pub mod sdk;
pub mod trace;
pub mod vtime;
pub mod wasi;
pub mod watchdog;
#[cfg(windows)]
mod watchdog_windows;
pub mod world;

pub use guest::{ExecNode, Guest, GuestError};
pub use world::Role;
