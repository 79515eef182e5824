//! One node's place in the world across its incarnations: booting a fresh
//! instance over the surviving disk, crashing it (the disk model and the
//! network reset applied), and a clean exit (descriptors closed, page cache
//! kept). The scheduling decisions live in `mod.rs`; this file only does
//! what they decide.

use super::event::Who;
use super::fault::disk_error::{FSYNC_EIO, READ_CORRUPT, READ_EIO, WRITE_EIO, WRITE_ENOSPC, disk_stream};
use super::fault::{crash_io, lost_write, misdirected_write, preempt};
use super::{NodeProgram, Role};
use crate::clock::{self, EPOCH_UNIX_NS, VirtualClock};
use crate::disk_latency::DiskLatency;
use crate::fs::{CrashReport, DiskFaults, DiskStreams, Fs};
use crate::goroutines::Goroutines;
use crate::net::{Net, ip};
use crate::node::{Node, Output, Perturb, SimLink};
use crate::node_id::NodeId;
use crate::preempt::Preemption;
use crate::preempt::strategy::{PreemptConfig, Schedule};
use crate::random::{CrashKey, Purpose, RandomStream};
use crate::trace::{SharedLog, TraceHash};
use crate::vtime::{SimDuration, SimTime};
use crate::watchdog::Progress;
use seedfall_engine::{Instance, Linker};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub enum State {
    /// Running or parked; `timer` is the time it asked to be woken at
    /// (None: only by I/O), `started` whether `_start` was called.
    Up { timer: Option<SimTime>, started: bool },
    /// Crashed, exited under supervision, or not booted yet.
    Down { boot_at: SimTime },
    /// Exited for good (a service that exited 0).
    Stopped,
}

pub struct Slot<'a> {
    pub program: &'a NodeProgram,
    pub incarnation: u32,
    pub state: State,
    pub instance: Option<Instance<Node>>,
    /// The disk while the node is down (None before the first boot).
    pub disk: Option<Fs>,
    /// The end of the node's stderr, for the message of a panic.
    pub stderr_tail: Vec<u8>,
    /// The last `panic:` or `fatal error:` line that scrolled out of
    /// `stderr_tail` (Go's goroutine dump after "fatal error: out of memory"
    /// is longer than the tail).
    stderr_fatal: Option<String>,
    /// Disk faults already recorded in the run's schedule.
    pub disk_faults_seen: usize,
    /// Replay: exactly these disk faults, by operation number.
    pub replay_disk: Option<Vec<crate::fs::DiskFault>>,
    /// Replay: exactly these preemption points, in counted calls across incarnations.
    pub replay_preempt: Option<Vec<u64>>,
    /// Counted calls of the previous incarnations: a preemption point's
    /// number in a schedule is `counted_base` + the incarnation's own count.
    pub counted_base: u64,
    /// What this incarnation's wall clock adds to true time (skew and jumps).
    pub wall_offset_ns: i64,
    /// Paused until then (ZERO: never paused).
    pub paused_until: SimTime,
    /// Recorded preemption points (pct change points) across incarnations.
    pub points_fired: u64,
    /// Counted calls of the ended incarnations up to their very end, for
    /// the trace's last line only: `counted_base` stops at each one's last
    /// hook, which is what replays (an interrupted spin ends at a real-time
    /// moment, so its exact count must not number anything).
    pub counted_ran: u64,
    /// When the running (or last) incarnation booted.
    pub booted_at: SimTime,
    /// Its incarnations that ended by themselves while booting (`silent.rs`).
    pub boot_ends: super::silent::BootEnds,
}

/// What every boot of every node of a run shares.
pub struct BootContext<'a> {
    pub seed: u64,
    pub linker: &'a Linker<Node>,
    pub net: &'a Rc<RefCell<Net>>,
    pub history: &'a Rc<RefCell<crate::history::History>>,
    pub progress: &'a Progress,
    pub preempt: &'a PreemptConfig,
    pub disk: crate::fs::DiskConfig,
    /// Each service's fsync wait range (`disk_latency`).
    pub disk_latency: (SimDuration, SimDuration),
    /// Each node's disk budget (`Fs::set_disk_bytes`).
    pub disk_bytes: u64,
    /// Open while faults may act (the disk model draws only then).
    pub gate: &'a Rc<Cell<bool>>,
    pub budget_cap: Option<u64>,
    pub hash_log: Option<&'a SharedLog>,
    /// The test hook, for (node name, incarnation).
    pub perturb: Option<&'a (String, u32, Perturb)>,
    /// `/etc/hosts` for a new disk (net_overlay), else None.
    pub hosts: Option<String>,
    /// Keep each node's file operations for the replay log.
    pub file_ops: bool,
}

const STDERR_TAIL_BYTES: usize = 4096;

impl<'a> Slot<'a> {
    pub fn new(program: &'a NodeProgram) -> Slot<'a> {
        Slot {
            program,
            incarnation: 0,
            // The finally check boots only when the workload is done.
            state: if program.role == Role::Finally { State::Stopped } else { State::Down { boot_at: SimTime::ZERO } },
            instance: None,
            disk: None,
            disk_faults_seen: 0,
            stderr_tail: Vec::new(),
            stderr_fatal: None,
            replay_disk: None,
            replay_preempt: None,
            counted_base: 0,
            wall_offset_ns: 0,
            paused_until: SimTime::ZERO,
            points_fired: 0,
            counted_ran: 0,
            booted_at: SimTime::ZERO,
            boot_ends: Default::default(),
        }
    }

    pub fn name(&self) -> &str {
        &self.program.name
    }

    /// The current incarnation of node `id` (this slot's), as events name it.
    pub fn who(&self, id: NodeId) -> Who {
        Who { id, name: self.program.name.clone(), incarnation: self.incarnation }
    }

    /// A fresh instance of node `id` (this slot's) over the surviving disk,
    /// as the next incarnation. The workload's disk has no durability
    /// model: it is never crashed.
    pub fn boot(&mut self, id: NodeId, ctx: &BootContext, clock: &VirtualClock) -> Result<(), seedfall_engine::Error> {
        self.incarnation += 1;
        let p = self.program;
        let fs = match self.disk.take() {
            Some(fs) => fs,
            None => {
                let mut fs = Fs::new(EPOCH_UNIX_NS);
                fs.set_disk_bytes(ctx.disk_bytes);
                if let Some(hosts) = &ctx.hosts {
                    fs.install_etc("hosts", hosts, EPOCH_UNIX_NS).expect("a new file system has room for /etc");
                    fs.install_etc("nsswitch.conf", ip::NSSWITCH_CONF, EPOCH_UNIX_NS)
                        .expect("a new file system has room for /etc");
                }
                for (host, guest) in &p.mounts {
                    // Checked before the run (`seedfall test`): failing here means the directory went away.
                    if let Err(message) = fs.mount_host(host, guest) {
                        return Err(seedfall_engine::Error::Link(format!("node {}: {message}", p.name)));
                    }
                }
                if p.is_service() {
                    let faults = match &self.replay_disk {
                        Some(faults) => DiskFaults::replay(ctx.disk, faults),
                        None => DiskFaults::random(
                            ctx.disk,
                            DiskStreams {
                                crash_on_io: crash_io::disk_stream(ctx.seed, &p.name),
                                fsync_eio: disk_stream(ctx.seed, &FSYNC_EIO, &p.name),
                                write_eio: disk_stream(ctx.seed, &WRITE_EIO, &p.name),
                                write_enospc: disk_stream(ctx.seed, &WRITE_ENOSPC, &p.name),
                                read_eio: disk_stream(ctx.seed, &READ_EIO, &p.name),
                                read_corrupt: disk_stream(ctx.seed, &READ_CORRUPT, &p.name),
                                lost_write: lost_write::disk_stream(ctx.seed, &p.name),
                                misdirected_write: misdirected_write::disk_stream(ctx.seed, &p.name),
                            },
                        ),
                    };
                    fs.start_disk_model(faults.gated(ctx.gate.clone()));
                }
                fs
            }
        };
        let mut argv = vec![p.name.clone()];
        argv.extend(p.args.iter().cloned());
        let mut node = Node::new(&p.name, ctx.seed, argv, p.env.clone(), fs);
        node.random = RandomStream::new(ctx.seed, Purpose::RandomGet, &p.name, self.incarnation);
        node.disk_latency =
            DiskLatency::new(ctx.seed, &p.name, self.incarnation, ctx.disk_latency).filter(|_| p.is_service());
        node.clock = clock.clone();
        node.stdout = Output::Capture(Vec::new());
        node.stderr = Output::Capture(Vec::new());
        node.trace.progress = ctx.progress.clone();
        node.trace.log = ctx.hash_log.cloned();
        node.goroutines = p.go_offsets.map(Goroutines::new);
        node.file_ops = ctx.file_ops.then(|| crate::file_ops::FileOps::new(&node.fds));
        node.trace.goroutine = node.goroutines.as_ref().map(Goroutines::current);
        node.perturb = ctx
            .perturb
            .filter(|(name, k, _)| *name == p.name && *k == self.incarnation)
            .map(|(_, _, perturb)| perturb.clone());
        let base = self.counted_base;
        node.preempt = p.counter_global.map(|counter| {
            let records = ctx.preempt.records_points();
            // A schedule's points replace the seed's only under pct, as the reference says.
            let schedule = match self.replay_preempt.as_ref().filter(|_| records) {
                Some(points) => Schedule::fixed(points.iter().filter(|&&op| op > base).map(|op| op - base).collect()),
                None => Schedule::new(&ctx.preempt.strategy, preempt::stream(ctx.seed, &p.name, self.incarnation)),
            };
            Preemption::new(counter, p.go_offsets, schedule, ctx.preempt.loops, records)
        });
        node.sim = Some(SimLink {
            net: ctx.net.clone(),
            id,
            incarnation: self.incarnation,
            budget_cap: if p.role == Role::Workload { ctx.budget_cap } else { None },
            reports: Vec::new(),
            history: ctx.history.clone(),
        });
        self.instance = Some(Instance::new(p.code.clone(), ctx.linker, node)?);
        self.state = State::Up { timer: Some(clock.now()), started: false };
        self.booted_at = clock.now();
        self.stderr_tail.clear();
        self.stderr_fatal = None;
        self.wall_offset_ns = 0;
        self.paused_until = SimTime::ZERO;
        Ok(())
    }

    /// The running incarnation's node.
    pub fn node(&self) -> &Node {
        self.instance.as_ref().expect("an up node has an instance").data()
    }

    pub fn node_mut(&mut self) -> &mut Node {
        self.instance.as_mut().expect("an up node has an instance").data_mut()
    }

    /// The node's disk, up or down (None: it never booted).
    pub fn fs_mut(&mut self) -> Option<&mut Fs> {
        match self.instance.as_mut() {
            Some(instance) => Some(&mut instance.data_mut().fs),
            None => self.disk.as_mut(),
        }
    }

    /// Takes the node's output since the last call, keeping the stderr tail.
    /// Also says how many bytes were dropped to keep the captured tails bounded.
    /// The file operations since last time, as replay lines (none when not logging).
    pub fn take_file_ops(&mut self) -> Vec<(SimTime, String)> {
        self.node_mut().file_ops.as_mut().map(crate::file_ops::FileOps::take).unwrap_or_default()
    }

    pub fn take_output(&mut self) -> (Vec<u8>, Vec<u8>, u64) {
        let node = self.node_mut();
        let (out, err) = (node.stdout.take(), node.stderr.take());
        let dropped = std::mem::take(&mut node.output_dropped);
        self.stderr_tail.extend_from_slice(&err);
        let excess = self.stderr_tail.len().saturating_sub(STDERR_TAIL_BYTES);
        if excess > 0
            && let Some(line) = fatal_line(&self.stderr_tail)
        {
            self.stderr_fatal = Some(line);
        }
        self.stderr_tail.drain(..excess);
        (out, err, dropped)
    }

    /// Whether the incarnation ending now was still booting (`silent::during_boot`).
    pub fn during_boot(&self, now: SimTime) -> bool {
        super::silent::during_boot(self.booted_at, now, self.node().accepted)
    }

    /// The last `panic:` or `fatal error:` line the process wrote, if any.
    pub fn go_panic(&self) -> Option<String> {
        fatal_line(&self.stderr_tail).or_else(|| self.stderr_fatal.clone())
    }

    /// Why the process says it exited: the last `panic:` or `fatal error:`
    /// line of stderr (a Go stack trace follows it), else the last line it
    /// wrote there, if any.
    pub fn last_words(&self) -> Option<String> {
        if let Some(line) = self.go_panic() {
            return Some(line);
        }
        let text = String::from_utf8_lossy(&self.stderr_tail);
        text.lines().rev().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
    }

    /// Ends the incarnation and returns its trace hash: its host calls, what
    /// the host wrote into its memory, and its final memory (crashed or not;
    /// only the pages that differ from the module's image are hashed).
    /// The caller must have stopped the watchdog from reading its counter
    /// (`Progress::unwatch_counter`).
    pub fn retire(&mut self) -> TraceHash {
        let mut instance = self.instance.take().expect("an up node has an instance");
        write_back_mapped(&mut instance);
        instance.abandon();
        let hash = crate::exec::trace_hash(&instance);
        // The disk outlives the process; the page cache too, unless crashed.
        self.disk = Some(std::mem::replace(&mut instance.data_mut().fs, Fs::new(EPOCH_UNIX_NS)));
        hash
    }

    /// The process exited: its descriptors close (FINs go out), the page
    /// cache stays.
    pub fn exit(&mut self) -> TraceHash {
        self.node_mut().close_all();
        self.retire()
    }

    /// The machine of node `id` (this slot's) crashed: connections reset,
    /// only the durable disk survives (torn as the disk model says, or
    /// keeping `given` prefixes of its files' pending writes); `op` is the
    /// disk operation it came in.
    pub fn crash(
        &mut self,
        id: NodeId,
        seed: u64,
        now: SimTime,
        op: Option<u64>,
        net: &mut Net,
        given: Option<&[crate::fs::Prefix]>,
    ) -> (TraceHash, CrashReport) {
        let hash = self.retire();
        net.crash(id, now);
        let disk = self.disk.as_mut().expect("retired above");
        // Reordered writeback draws from a stream keyed by the crash itself,
        // so removing other faults leaves it as it was.
        let mut torn = if disk.reorders_writes() {
            let key = op.map_or(CrashKey::Time(clock::reading(now)), CrashKey::DiskOp);
            RandomStream::new(seed, Purpose::Crash(key), &self.program.name, 0)
        } else {
            RandomStream::new(seed, Purpose::TornWrites, &self.program.name, self.incarnation)
        };
        let report = match given {
            Some(prefixes) => disk.crash_into(prefixes),
            None => disk.crash(&mut torn),
        };
        (hash, report)
    }
}

/// The end of an incarnation: what its shared writable mappings changed is
/// in the page cache, as a dying process's dirty mapped pages are, and the
/// mappings let go of their files (`crate::mmap`). A change the disk budget
/// cannot hold is lost, as a kernel's failed writeback loses it.
fn write_back_mapped(instance: &mut Instance<Node>) {
    let memory = instance.memory().cloned();
    let node = instance.data_mut();
    if node.mappings.is_empty() {
        return;
    }
    let now = node.clock.realtime_now();
    let bytes = memory.as_deref().map_or(&[][..], |m| m.bytes());
    let _ = node.mappings.write_back(&mut node.fs, bytes, None, now);
    node.mappings.release_all(&mut node.fs);
}

/// The last `panic:` or `fatal error:` line of `stderr`, trimmed.
fn fatal_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().rev().map(str::trim).find(|l| l.starts_with("panic: ") || l.starts_with("fatal error: "));
    line.map(str::to_string)
}
