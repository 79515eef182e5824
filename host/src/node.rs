//! A node's host-side state: everything its WASI calls read and change. For
//! `seedfall exec` there is one node that owns its clock; the simulated world
//! (later) shares one clock between nodes.

use crate::clock::VirtualClock;
use crate::fdtable::{FdKind, FdTable};
use crate::fs::Fs;
use crate::preempt::Preemption;
use crate::random::RandomStream;
use crate::trace::Trace;
use std::io::Write;

/// Where a guest's stdout or stderr goes.
pub enum Output {
    /// Straight to the host process's own stream.
    Inherit,
    /// Kept in memory (tests, and sweeps that hide node output).
    Capture(Vec<u8>),
}

impl Output {
    /// Writes to the standard streams never fail: Go's runtime throws if they do.
    pub fn write(&mut self, bytes: &[u8], stderr: bool) {
        match self {
            Output::Inherit if stderr => {
                let _ = std::io::stderr().write_all(bytes);
            }
            Output::Inherit => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(bytes).and_then(|_| out.flush());
            }
            Output::Capture(buf) => buf.extend_from_slice(bytes),
        }
    }

    pub fn captured(&self) -> &[u8] {
        match self {
            Output::Capture(buf) => buf,
            Output::Inherit => &[],
        }
    }
}

pub struct Node {
    pub name: String,
    pub clock: VirtualClock,
    pub random: RandomStream,
    pub args: Vec<String>,
    /// `KEY=VALUE` strings.
    pub env: Vec<String>,
    pub fs: Fs,
    pub fds: FdTable,
    pub stdout: Output,
    pub stderr: Output,
    pub trace: Trace,
    /// `None` when the module is not instrumented for preemption.
    pub preempt: Option<Preemption>,
}

impl Node {
    /// A node whose only preopen is the file system root, at fd 3.
    pub fn new(name: &str, seed: u64, args: Vec<String>, env: Vec<String>, mut fs: Fs) -> Node {
        let mut fds = FdTable::with_stdio();
        let root = fs.root();
        fs.retain(root);
        fds.insert(FdKind::Dir { ino: root, preopen: Some("/".to_string()) }, 0);
        Node {
            name: name.to_string(),
            clock: VirtualClock::default(),
            random: RandomStream::new(seed, "random_get", name, 1),
            args,
            env,
            fs,
            fds,
            stdout: Output::Inherit,
            stderr: Output::Inherit,
            trace: Trace::default(),
            preempt: None,
        }
    }
}
