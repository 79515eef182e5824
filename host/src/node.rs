//! A node's host-side state: everything its WASI calls read and change. For
//! `seedfall exec` there is one node that owns its clock. In the simulated
//! world (`world/`) the world copies its clock into the node before each
//! step and back after it (exactly one node runs at a time), and the node
//! reaches the shared network and reports to the world through `SimLink`.

use crate::clock::{self, VirtualClock};
use crate::fdtable::{FdKind, FdTable};
use crate::fs::Fs;
use crate::net::{EndpointId, Net};
use crate::node_id::NodeId;
use crate::preempt::Preemption;
use crate::random::{Purpose, RandomStream};
pub use crate::report::{PropertyKind, Report};
use crate::trace::Trace;
use crate::vtime::SimTime;
use seedfall_engine::Caller;
use std::cell::{RefCell, RefMut};
use std::io::Write;
use std::rc::Rc;

/// Where a guest's stdout or stderr goes.
pub enum Output {
    /// Straight to the host process's own stream.
    Inherit,
    /// Kept in memory (tests, and sweeps that hide node output), as a
    /// bounded tail: see `CAPTURE_TAIL_BYTES`.
    Capture(Vec<u8>),
    /// Straight to the host's stdout, and every write also to an observer
    /// (`seedfall exec --test-attrs` notes which tests ran).
    Tee(OutputObserver),
}

/// What `Output::Tee` hands every write to.
pub type OutputObserver = Box<dyn FnMut(&[u8])>;

/// The captured output kept between two takes (one scheduler step): past
/// twice this the oldest bytes go, down to this much, counted in
/// `Node::output_dropped`, so a node printing gigabytes without yielding
/// costs the host at most twice this.
pub const CAPTURE_TAIL_BYTES: usize = 4 << 20;

impl Output {
    /// Writes to the standard streams never fail: Go's runtime throws if they do.
    /// Returns how many earlier captured bytes were dropped to keep the tail bounded.
    pub fn write(&mut self, bytes: &[u8], stderr: bool) -> u64 {
        match self {
            Output::Inherit if stderr => {
                let _ = std::io::stderr().write_all(bytes);
                0
            }
            Output::Inherit => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(bytes).and_then(|_| out.flush());
                0
            }
            Output::Tee(observe) => {
                observe(bytes);
                Output::Inherit.write(bytes, stderr)
            }
            Output::Capture(buf) => {
                let skip = bytes.len().saturating_sub(CAPTURE_TAIL_BYTES);
                let (bytes, mut dropped) = (&bytes[skip..], skip as u64);
                // Trimmed only at twice the tail, so trimming is amortised.
                if buf.len() + bytes.len() > 2 * CAPTURE_TAIL_BYTES {
                    let excess = buf.len() + bytes.len() - CAPTURE_TAIL_BYTES;
                    let cut = excess.min(buf.len());
                    buf.drain(..cut);
                    dropped += cut as u64;
                }
                buf.extend_from_slice(bytes);
                dropped
            }
        }
    }

    pub fn captured(&self) -> &[u8] {
        match self {
            Output::Capture(buf) => buf,
            Output::Inherit | Output::Tee(_) => &[],
        }
    }

    /// Takes what was captured so far.
    pub fn take(&mut self) -> Vec<u8> {
        match self {
            Output::Capture(buf) => std::mem::take(buf),
            Output::Inherit | Output::Tee(_) => Vec::new(),
        }
    }
}

/// Parks the calling node until `timer` (None: until something it waits
/// on, `Node::waits`, wakes it). The engine carries the timer as its
/// suspend value, the absolute monotonic reading (`woken_at` reads it back).
pub fn park(c: &mut Caller<'_, Node>, timer: Option<SimTime>) {
    park_for(c, timer, "");
}

/// `park`, naming why the node waits when its timer alone does not say
/// (`preempted`, `fsync`): `Node::parked_for`, for the trace log only.
pub fn park_for(c: &mut Caller<'_, Node>, timer: Option<SimTime>, why: &'static str) {
    c.data_mut().parked_for = why;
    c.suspend(timer.map_or(NO_TIMER, clock::reading));
    c.data_mut().parked_for = "";
}

/// The timer a node parked with (`Run::Suspended`'s value). A reading that
/// saturated the clock is no timer: it could never fire.
pub fn woken_at(suspended: u64) -> Option<SimTime> {
    (suspended != NO_TIMER).then(|| clock::instant(suspended))
}

/// The suspend value of a node parked without a timer.
const NO_TIMER: u64 = u64::MAX;

/// What a parked node waits for besides its timer (`park`). The world
/// turns these into a wake-up time with the network model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// poll_oneoff FD_READ, or a blocking read or accept.
    Readable(u32),
    /// poll_oneoff FD_WRITE, or a blocking write.
    Writable(u32),
    /// `seedfall.dial`: until the connect is answered.
    Connect(EndpointId),
}

/// A node's link to the simulated world (absent under `seedfall exec`).
pub struct SimLink {
    pub net: Rc<RefCell<Net>>,
    pub id: NodeId,
    pub incarnation: u32,
    /// The cap shrink puts on `sim.Budget` (None: the guest's default).
    pub budget_cap: Option<u64>,
    /// Reports since the world last drained them.
    pub reports: Vec<Report>,
    /// The run's history, shared by every node (`sim.Put`, `sim.Txn`, ...).
    pub history: Rc<RefCell<crate::history::History>>,
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
    /// Captured output bytes dropped to keep each stream's tail bounded,
    /// since the world last took them.
    pub output_dropped: u64,
    pub trace: Trace,
    /// `None` when the module is not instrumented for preemption.
    pub preempt: Option<Preemption>,
    /// `None` under `seedfall exec`.
    pub sim: Option<SimLink>,
    /// What the node waits for while parked (empty while it runs).
    pub waits: Vec<Wait>,
    /// Why a parked node waits on its timer, when `waits` and the timer do
    /// not say (`park_for`; empty otherwise). Observation only.
    pub parked_for: &'static str,
    /// Set by the preemption hook when it stops a goroutine that spins
    /// without stack-checked calls: a deterministic busy loop, not a
    /// real-time watchdog stop.
    pub busy_loop: Option<String>,
    /// A test hook that makes this node differ on purpose (never set by the CLI).
    pub perturb: Option<Perturb>,
    /// What the Antithesis SDK wrote to `/dev/antithesis` and has not ended a line yet.
    pub antithesis: crate::antithesis::Sink,
    /// compat_overlay's `syscall.Flock` locks, dropped with the incarnation.
    pub locks: crate::flock::Locks,
    /// compat_overlay's `syscall.Mmap` mappings, ended with the incarnation.
    pub mappings: crate::mmap::Mappings,
    /// How long each fsync waits (`disk_latency`; None: no wait).
    pub disk_latency: Option<crate::disk_latency::DiskLatency>,
    /// The goroutine switches seen at host calls (None: not a Go module).
    pub goroutines: Option<crate::goroutines::Goroutines>,
    /// Set by the world at a deadlock: the parked poll_oneoff fails when it
    /// resumes, so Go's netpoll throws and the runtime prints every
    /// goroutine's stack (docs/world.md, "Deadlocks").
    pub dump_goroutines: bool,
    /// The file operations as replay lines (None: no replay log is written).
    pub file_ops: Option<crate::file_ops::FileOps>,
    /// This incarnation accepted a connection: its boot is over (the
    /// world's `crash_loop` rule, `world/silent.rs`).
    pub accepted: bool,
}

/// A deliberate difference, for tests of the determinism checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Perturb {
    /// The `nth` call (from 1) of host function `call` returns errno `errno` instead.
    CallResult { call: String, nth: u64, errno: u16 },
    /// The `nth` read that returns data (from 1) has its first byte flipped;
    /// errno and lengths stay the same.
    ReadByte { nth: u64 },
}

impl Node {
    /// A node whose only preopen is the file system root, at fd 3.
    pub fn new(name: &str, seed: u64, args: Vec<String>, env: Vec<String>, mut fs: Fs) -> Node {
        let mut fds = FdTable::with_stdio();
        let root = fs.root();
        fs.retain(root);
        fds.insert(FdKind::Dir { ino: root, preopen: Some("/".to_string()) }, 0).expect("a new table has room");
        Node {
            name: name.to_string(),
            clock: VirtualClock::default(),
            random: RandomStream::new(seed, Purpose::RandomGet, name, 1),
            args,
            env,
            fs,
            fds,
            stdout: Output::Inherit,
            stderr: Output::Inherit,
            output_dropped: 0,
            trace: Trace::default(),
            preempt: None,
            sim: None,
            waits: Vec::new(),
            parked_for: "",
            busy_loop: None,
            perturb: None,
            antithesis: Default::default(),
            locks: Default::default(),
            mappings: Default::default(),
            disk_latency: None,
            goroutines: None,
            dump_goroutines: false,
            file_ops: None,
            accepted: false,
        }
    }

    /// Notes which goroutine is running (at a host call or hook of a Go node).
    pub fn observe_goroutine(caller: &mut seedfall_engine::Caller<'_, Node>) {
        if caller.data().goroutines.is_none() {
            return;
        }
        let g = caller.global_get(crate::preempt::goruntime::GLOBAL_G);
        let (memory, node) = caller.memory_and_data();
        if let Some(goroutines) = &mut node.goroutines {
            goroutines.observe(memory, g);
            node.trace.goroutine = Some(goroutines.current());
        }
    }

    /// What this parked node waits on, short, for the trace log: each
    /// `Wait` (`read fd 5`, `accept fd 3`, `write fd 5`, `recv fd 6`,
    /// `connect`), then its timer (`timer until 1.2s`; `preempted until`,
    /// `fsync until` when `park_for` named why; `yield` when it is due
    /// now, as when a failed property or a crash stops the node), or
    /// `nothing` (no wait, no timer).
    pub fn parked_on(&self, timer: Option<SimTime>, now: SimTime) -> String {
        let mut parts: Vec<String> = self
            .waits
            .iter()
            .map(|w| match *w {
                Wait::Readable(fd) => match self.fds.get(fd).map(|e| &e.kind) {
                    Some(FdKind::Listener(_)) => format!("accept fd {fd}"),
                    Some(FdKind::Udp(_)) => format!("recv fd {fd}"),
                    _ => format!("read fd {fd}"),
                },
                Wait::Writable(fd) => format!("write fd {fd}"),
                Wait::Connect(_) => "connect".to_string(),
            })
            .collect();
        let why = if self.parked_for.is_empty() { "timer" } else { self.parked_for };
        match timer {
            Some(at) if at <= now && self.waits.is_empty() && self.parked_for.is_empty() => parts.push("yield".into()),
            Some(at) => parts.push(format!("{why} until {at}")),
            None if parts.is_empty() => parts.push("nothing".into()),
            None => {}
        }
        parts.join(", ")
    }

    /// Lets go of what a removed descriptor held: a file system reference,
    /// or its socket in the network.
    pub fn release(&mut self, kind: &FdKind) {
        match kind {
            FdKind::File { ino, .. } | FdKind::Dir { ino, .. } => self.fs.release(*ino),
            FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_) => self.close_socket(kind),
            FdKind::Stdin | FdKind::Stdout | FdKind::Stderr => {}
        }
    }

    /// The network of a node in the simulated world.
    pub fn net(&self) -> RefMut<'_, Net> {
        self.sim.as_ref().expect("socket descriptors exist only in the simulated world").net.borrow_mut()
    }

    /// Closes the network side of a removed socket descriptor.
    fn close_socket(&self, kind: &FdKind) {
        let now = self.clock.now();
        // A socket the network already forgot (its node crashed and came back
        // cannot hold it) answers EBADF; closing is then a no-op.
        let _ = match kind {
            FdKind::Socket(ep) => self.net().close(*ep, now),
            FdKind::Listener(l) => self.net().close_listener(*l, now),
            FdKind::Udp(s) => self.net().udp_close(*s, now),
            _ => Ok(()),
        };
    }

    /// The errno host call `call` returns, after the test hook.
    pub fn perturbed_errno(&mut self, call: &str, errno: u16) -> u16 {
        let Some(Perturb::CallResult { call: target, nth, errno: instead }) = &mut self.perturb else { return errno };
        if target != call {
            return errno;
        }
        *nth -= 1;
        if *nth > 0 {
            return errno;
        }
        let instead = *instead;
        self.perturb = None;
        instead
    }

    /// Read data about to be given to the guest, after the test hook.
    pub fn perturb_read(&mut self, data: &mut [u8]) {
        let Some(Perturb::ReadByte { nth }) = &mut self.perturb else { return };
        if data.is_empty() {
            return;
        }
        *nth -= 1;
        if *nth == 0 {
            data[0] ^= 0xff;
            self.perturb = None;
        }
    }

    /// Closes every descriptor, as the kernel does when a process exits.
    pub fn close_all(&mut self) {
        for kind in self.fds.drain() {
            self.release(&kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ListenerId;
    use crate::net::udp::UdpId;

    /// Every kind of block reason the trace log names.
    #[test]
    fn what_a_parked_node_waits_on_in_short() {
        let mut node = Node::new("n", 1, Vec::new(), Vec::new(), Fs::new(0));
        let listener = node.fds.insert(FdKind::Listener(ListenerId(0)), 0).unwrap();
        let udp = node.fds.insert(FdKind::Udp(UdpId(0)), 0).unwrap();
        let (now, later) = (SimTime::from_ns(1_000_000_000), SimTime::from_ns(2_000_000_000));
        node.waits = vec![Wait::Readable(listener), Wait::Readable(udp), Wait::Readable(99), Wait::Writable(7)];
        assert_eq!(
            node.parked_on(Some(later), now),
            format!("accept fd {listener}, recv fd {udp}, read fd 99, write fd 7, timer until 2s")
        );
        assert_eq!(node.parked_on(None, now), format!("accept fd {listener}, recv fd {udp}, read fd 99, write fd 7"));
        node.waits.clear();
        assert_eq!(node.parked_on(None, now), "nothing");
        assert_eq!(node.parked_on(Some(now), now), "yield", "a node stopped to be due at once");
        node.parked_for = "preempted";
        assert_eq!(node.parked_on(Some(SimTime::from_ns(1_010_000_000)), now), "preempted until 1.01s");
        node.parked_for = "fsync";
        assert_eq!(node.parked_on(Some(now), now), "fsync until 1s", "a zero wait is still a named one");
    }
}
