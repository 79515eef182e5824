//! A node's part in a cluster: what the world does with it (faults, crashes,
//! restarts, when the run ends). It says nothing about how the node's code
//! was loaded (`guest.rs`).

/// A node's part in a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A service; `supervise` restarts it, like systemd, when it exits with an error.
    Service { supervise: bool },
    /// The program that drives the system; the run ends when it exits.
    Workload,
    /// The check run after the workload exits, on the healed cluster
    /// (config `finally`): never faulted, its own disk.
    Finally,
}
