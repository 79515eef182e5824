//! The simulated world that guests run in. So far: one node's WASI preview1
//! over virtual resources (clock, seeded randomness, an in-memory file system
//! with read-through host mounts) and `exec`, which runs one program to
//! completion. It never touches the real clock or network, and never writes
//! real files. Scheduler, disk faults and network arrive with later issues.

pub mod clock;
pub mod exec;
pub mod fdtable;
pub mod fs;
pub mod net;
pub mod node;
pub mod preempt;
pub mod random;
pub mod trace;
pub mod wasi;
pub mod watchdog;
