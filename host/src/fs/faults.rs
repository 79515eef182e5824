//! The disk fault policy of one node: which mutating disk operation crashes
//! the node in its middle (`crash_on_io`), which sync fails with EIO
//! (`fsync_eio`), which write fails with EIO or ENOSPC (`write_eio`,
//! `write_enospc`), which read fails or returns a flipped bit (`read_eio`,
//! `read_corrupt`) and which successful sync of a file leaves one page old or
//! writes it to another page (`lost_write`, `misdirected_write`), drawn from
//! seeded streams or replayed from a list; and the
//! log of every fault injected, keyed by the node's disk-operation number (a
//! read's by its disk-read number) so a run can be replayed and its fault
//! schedule shrunk. What each fault does
//! to the disk is the contract at the top of `durability.rs`; this file only
//! decides *when* and *how much*.
//!
//! Each fault kind draws from its own stream (DESIGN.md §5), and a stream is
//! only drawn from when its probability is above zero, so switching one
//! fault on or off never shifts the numbers another one sees.

use crate::random::RandomStream;
#[cfg(test)]
use crate::random::{Draw, Purpose};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// The disk options of a config's `faults` (DESIGN.md §1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiskConfig {
    /// Probability, per mutating disk operation, that the node crashes in
    /// the middle of it.
    pub crash_on_io: f64,
    /// A crash keeps a seeded in-order prefix of each file's pending
    /// writes, possibly ending inside a write, instead of none of them.
    pub torn_writes: bool,
    /// `torn_sector`: a torn write keeps whole sectors of this many bytes
    /// of its file (a power of two; 0, the default's, and 1 tear anywhere).
    pub torn_sector: u64,
    /// Probability, per sync of a file with pending writes, that the sync
    /// fails with EIO and the pending writes never reach the disk.
    pub fsync_eio: f64,
    /// A create, link, unlink or rename survives a crash only once its
    /// directory has been synced.
    pub strict_dirs: bool,
    /// Probability, per write, that it fails with EIO and writes nothing.
    pub write_eio: f64,
    /// Probability, per write, that it fails with ENOSPC and writes nothing.
    pub write_enospc: f64,
    /// Probability, per read of a regular file, that it fails with EIO.
    pub read_eio: f64,
    /// Probability, per read of a regular file, that one bit of what it
    /// returns is flipped (the page cache keeps the right bytes).
    pub read_corrupt: f64,
    /// Probability, per successful sync of a file, that one page it should
    /// have made durable keeps its old durable bytes (the page cache keeps
    /// the new ones).
    pub lost_write: f64,
    /// Probability, per successful sync of a file, that one page it should
    /// have made durable is written to another page of the file instead.
    pub misdirected_write: f64,
    /// A crash keeps the pending writes' pieces `fs_model` allows, in any
    /// order it allows (rule 16), instead of an in-order prefix.
    pub reorder_writes: bool,
    pub fs_model: super::FsModel,
    /// Probability, per crash, that one bit of what it writes to disk is flipped.
    pub corrupt_on_crash: f64,
    /// `seedfall mutate`: a durability promise this disk silently breaks.
    pub mutant: Option<Mutant>,
}

/// A simulated OS that breaks one durability promise without saying so
/// (`seedfall mutate`): a workload that notices kills it, one that does
/// not has a blind spot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutant {
    /// fsync and fdatasync of a file succeed and make nothing durable.
    FsyncNoop,
    /// fsync of a directory succeeds and makes none of its entries durable.
    DirFsyncNoop,
    /// O_SYNC, O_DSYNC and O_RSYNC are ignored: writes through them are
    /// only in the page cache.
    SyncFlagsIgnored,
    /// A crash in the middle of a rename leaves its target name missing.
    RenameLosesTarget,
}

impl Mutant {
    pub const ALL: [Mutant; 4] =
        [Mutant::FsyncNoop, Mutant::DirFsyncNoop, Mutant::SyncFlagsIgnored, Mutant::RenameLosesTarget];

    /// Its name in `--json` documents.
    pub fn name(self) -> &'static str {
        match self {
            Mutant::FsyncNoop => "fsync_noop",
            Mutant::DirFsyncNoop => "dir_fsync_noop",
            Mutant::SyncFlagsIgnored => "sync_flags_ignored",
            Mutant::RenameLosesTarget => "rename_loses_target",
        }
    }

    /// What it breaks, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Mutant::FsyncNoop => "fsync does nothing",
            Mutant::DirFsyncNoop => "directory fsync does nothing",
            Mutant::SyncFlagsIgnored => "O_SYNC/O_DSYNC are ignored",
            Mutant::RenameLosesTarget => "a crash during a rename leaves the target name missing",
        }
    }
}

/// The streams a drawn policy takes its faults from, one per kind.
pub struct DiskStreams {
    pub crash_on_io: RandomStream,
    pub fsync_eio: RandomStream,
    pub write_eio: RandomStream,
    pub write_enospc: RandomStream,
    pub read_eio: RandomStream,
    pub read_corrupt: RandomStream,
    pub lost_write: RandomStream,
    pub misdirected_write: RandomStream,
}

/// The mutating disk operations, each counted once (`Fs::disk_ops`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiskOp {
    /// `write_at` of at least one byte to a regular file.
    Write,
    /// `set_size`, and open with O_TRUNC of an existing file.
    Truncate,
    /// A new inode: open with O_CREAT of a missing file, mkdir, symlink.
    Create,
    Link,
    /// unlink and rmdir.
    Unlink,
    Rename,
    /// fd_sync and fd_datasync of a file or a directory.
    Sync,
    /// A read of at least one byte of a regular file: not mutating, numbered
    /// by its own counter (`Fs::disk_reads`).
    Read,
}

impl DiskOp {
    pub fn name(self) -> &'static str {
        match self {
            DiskOp::Write => "write",
            DiskOp::Truncate => "truncate",
            DiskOp::Create => "create",
            DiskOp::Link => "link",
            DiskOp::Unlink => "unlink",
            DiskOp::Rename => "rename",
            DiskOp::Sync => "sync",
            DiskOp::Read => "read",
        }
    }
}

/// How much of a sequence of operations took effect: the first `ops` in
/// full, then the first `bytes` bytes of the next one (always a write;
/// `bytes` is 0 when nothing of it did). A single write is a sequence of
/// one; any other single operation is atomic (`ops` 0 or 1, `bytes` 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Prefix {
    pub ops: usize,
    pub bytes: usize,
}

impl Prefix {
    /// The nearest prefix that exists in a sequence whose operations have
    /// these sizes (a write's length in bytes; 0 for an atomic operation):
    /// replayed or hand-written faults may not fit the run they are applied
    /// to, and are bent to fit rather than refused.
    pub fn fit(self, sizes: &[usize]) -> Prefix {
        let Some(&len) = sizes.get(self.ops) else {
            return Prefix { ops: sizes.len(), bytes: 0 };
        };
        match self.bytes {
            0 => self,
            bytes if bytes < len => self,
            // All of a write is the whole operation.
            _ if len > 0 => Prefix { ops: self.ops + 1, bytes: 0 },
            // An atomic operation cannot be half done.
            _ => Prefix { ops: self.ops, bytes: 0 },
        }
    }

    /// A seeded prefix: `ops` uniform in `0..=n`, then, if that leaves a
    /// write of more than one byte next, `bytes` uniform below its length
    /// (0 included: the write is then not started).
    pub fn draw(sizes: &[usize], random: &mut RandomStream) -> Prefix {
        let ops = random.below(sizes.len() as u64 + 1) as usize;
        let bytes = match sizes.get(ops) {
            Some(&len) if len > 1 => random.below(len as u64) as usize,
            _ => 0,
        };
        let prefix = Prefix { ops, bytes };
        debug_assert_eq!(prefix.fit(sizes), prefix);
        prefix
    }

    /// Whether this prefix covers a sequence of `n` operations entirely.
    pub fn is_all(self, n: usize) -> bool {
        self.ops >= n
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskFaultKind {
    /// `crash_on_io`: the node crashes in the middle of the operation, of
    /// which `applied` took effect: for a write, a prefix of its bytes
    /// reached the page cache; for a sync of a file, a prefix of its
    /// pending writes reached the disk; for a sync of a directory, its
    /// entries did (`ops` 1) or not; any other operation happened in full
    /// (`ops` 1) or not at all.
    Crash { applied: Prefix },
    /// `fsync_eio`: the sync failed with EIO and dropped the pending writes.
    SyncEio,
    /// `write_eio`: the write failed with EIO and wrote nothing.
    WriteEio,
    /// `write_enospc`: the write failed with ENOSPC and wrote nothing.
    WriteEnospc,
    /// `read_eio`: the read failed with EIO.
    ReadEio,
    /// `read_corrupt`: the read returned its bytes with bit `bit` (counted
    /// from the first byte's lowest bit, modulo the bits read) flipped.
    ReadCorrupt { bit: u64 },
    /// `lost_write`: the sync succeeded but page `page` of the file (its
    /// number, offset / 4096) kept its old durable bytes (rule 19).
    LostWrite { page: u64 },
    /// `misdirected_write`: the sync succeeded but page `page`'s new bytes
    /// went to page `to` of the same file; `page` kept its old durable
    /// bytes (rule 20).
    MisdirectedWrite { page: u64, to: u64 },
}

/// One injected fault: the disk operation it hit, by number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskFault {
    /// The node's disk-operation number (`Fs::disk_ops` once it ran).
    pub op: u64,
    /// What that operation was. For people reading a trace: replay only
    /// looks at `op` and `kind`.
    pub on: DiskOp,
    pub kind: DiskFaultKind,
}

impl fmt::Display for DiskFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (op, on) = (self.op, self.on.name());
        match self.kind {
            DiskFaultKind::SyncEio => write!(f, "disk op {op} ({on}): EIO, pending writes dropped"),
            DiskFaultKind::WriteEio => write!(f, "disk op {op} ({on}): EIO, nothing written"),
            DiskFaultKind::WriteEnospc => write!(f, "disk op {op} ({on}): ENOSPC, nothing written"),
            DiskFaultKind::ReadEio => write!(f, "disk read {op}: EIO"),
            DiskFaultKind::ReadCorrupt { bit } => write!(f, "disk read {op}: bit {bit} flipped"),
            DiskFaultKind::LostWrite { page } => {
                write!(f, "disk op {op} ({on}): page {page} lost, the sync reported success")
            }
            DiskFaultKind::MisdirectedWrite { page, to } => {
                write!(f, "disk op {op} ({on}): page {page} written to page {to}, the sync reported success")
            }
            DiskFaultKind::Crash { applied } => {
                write!(f, "disk op {op} ({on}): crash, applied {} ops + {} bytes", applied.ops, applied.bytes)
            }
        }
    }
}

/// Where faults come from.
enum Source {
    /// Drawn: one stream per fault kind (boxed: they are large).
    Random(Box<DiskStreams>),
    /// Exactly these, by operation number (`key`).
    Replay(BTreeMap<(bool, u64), DiskFaultKind>),
}

/// Reads and mutating operations are numbered apart: a fault's replay key.
fn key(on: DiskOp, n: u64) -> (bool, u64) {
    (on == DiskOp::Read, n)
}

/// The per-operation fault policy an `Fs` holds (`Fs::start_disk_model`):
/// the config, the source of faults, the operation counter and the log.
pub struct DiskFaults {
    config: DiskConfig,
    source: Source,
    /// Disk operations counted so far; the last one's number.
    ops: u64,
    /// Disk reads counted so far.
    reads: u64,
    log: Vec<DiskFault>,
    /// When set, faults are injected only while it is open (the world's
    /// phases: not before `sim.SetupComplete`, not in a quiet window).
    gate: Option<Rc<Cell<bool>>>,
}

impl DiskFaults {
    /// The model without faults: syncs never fail, nothing crashes in the
    /// middle of an operation, no torn writes, no strict directories.
    pub fn none() -> DiskFaults {
        DiskFaults::replay(DiskConfig::default(), &[])
    }

    /// Faults drawn with `config`'s probabilities, each kind from its own
    /// stream.
    pub fn random(config: DiskConfig, streams: DiskStreams) -> DiskFaults {
        DiskFaults::with(config, Source::Random(Box::new(streams)))
    }

    /// `random` with streams of `node` under `seed`, for tests (the world
    /// takes its streams from the fault kinds, `world::fault`).
    #[cfg(test)]
    pub fn seeded(config: DiskConfig, seed: u64, node: &str) -> DiskFaults {
        // The streams these tests were written against.
        let stream = |kind| RandomStream::new(seed, Purpose::Fault(kind, Draw::DiskOps), node, 0);
        DiskFaults::random(
            config,
            DiskStreams {
                crash_on_io: stream("crash_on_io"),
                fsync_eio: stream("fsync_eio"),
                write_eio: stream("write_eio"),
                write_enospc: stream("write_enospc"),
                read_eio: stream("read_eio"),
                read_corrupt: stream("read_corrupt"),
                lost_write: stream("lost_write"),
                misdirected_write: stream("misdirected_write"),
            },
        )
    }

    /// Exactly `faults` (a log from an earlier run, or a shrunk schedule),
    /// by operation number; `config`'s probabilities are ignored, its
    /// switches (`torn_writes`, `strict_dirs`) apply. A fault that does not
    /// fit its operation is bent to fit (`Prefix::fit`; EIO at anything
    /// but a sync is ignored), and the log records what actually happened.
    pub fn replay(config: DiskConfig, faults: &[DiskFault]) -> DiskFaults {
        let faults = faults.iter().map(|fault| (key(fault.on, fault.op), fault.kind)).collect();
        DiskFaults::with(config, Source::Replay(faults))
    }

    fn with(config: DiskConfig, source: Source) -> DiskFaults {
        DiskFaults { config, source, ops: 0, reads: 0, log: Vec::new(), gate: None }
    }

    /// Injects faults only while `gate` is open.
    pub fn gated(mut self, gate: Rc<Cell<bool>>) -> DiskFaults {
        self.gate = Some(gate);
        self
    }

    fn closed(&self) -> bool {
        self.gate.as_ref().is_some_and(|g| !g.get())
    }

    pub fn config(&self) -> DiskConfig {
        self.config
    }

    /// Draws with `config`'s probabilities from now on (a replay ignores
    /// them, as it always does).
    pub fn set_config(&mut self, config: DiskConfig) {
        self.config = config;
    }

    /// The number of the last disk operation counted.
    pub fn ops(&self) -> u64 {
        self.ops
    }

    /// The number of the last disk read counted.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// Every fault injected so far, in order.
    pub fn log(&self) -> &[DiskFault] {
        &self.log
    }

    /// Counts one operation; returns its number.
    pub(super) fn count(&mut self) -> u64 {
        self.ops += 1;
        self.ops
    }

    /// Whether operation `op` crashes the node, and if so what part of it
    /// (a sequence of operations of these `sizes`, see `Prefix::fit`)
    /// takes effect. A crash is logged.
    pub(super) fn crash_in(&mut self, op: u64, on: DiskOp, sizes: &[usize]) -> Option<DiskFault> {
        if self.closed() {
            return None;
        }
        let applied = match &mut self.source {
            Source::Random(streams) => {
                if !streams.crash_on_io.chance(self.config.crash_on_io) {
                    return None;
                }
                Prefix::draw(sizes, &mut streams.crash_on_io)
            }
            Source::Replay(faults) => match faults.get(&key(on, op)) {
                Some(DiskFaultKind::Crash { applied }) => applied.fit(sizes),
                _ => return None,
            },
        };
        Some(self.logged(op, on, DiskFaultKind::Crash { applied }))
    }

    /// Whether sync operation `op` fails with EIO. A drawn EIO needs
    /// pending writes to lose; a replayed one is injected regardless.
    pub(super) fn sync_eio(&mut self, op: u64, has_pending: bool) -> Option<DiskFault> {
        if self.closed() {
            return None;
        }
        let fails = match &mut self.source {
            Source::Random(streams) => has_pending && streams.fsync_eio.chance(self.config.fsync_eio),
            Source::Replay(faults) => faults.get(&key(DiskOp::Sync, op)) == Some(&DiskFaultKind::SyncEio),
        };
        fails.then(|| self.logged(op, DiskOp::Sync, DiskFaultKind::SyncEio))
    }

    /// Whether write operation `op` fails (EIO drawn first, then ENOSPC,
    /// each from its own stream), writing nothing.
    pub(super) fn write_error(&mut self, op: u64) -> Option<DiskFault> {
        if self.closed() {
            return None;
        }
        let kind = match &mut self.source {
            Source::Random(streams) => {
                let eio = streams.write_eio.chance(self.config.write_eio);
                let enospc = streams.write_enospc.chance(self.config.write_enospc);
                match (eio, enospc) {
                    (true, _) => DiskFaultKind::WriteEio,
                    (false, true) => DiskFaultKind::WriteEnospc,
                    _ => return None,
                }
            }
            Source::Replay(faults) => match faults.get(&key(DiskOp::Write, op)) {
                Some(kind @ (DiskFaultKind::WriteEio | DiskFaultKind::WriteEnospc)) => *kind,
                _ => return None,
            },
        };
        Some(self.logged(op, DiskOp::Write, kind))
    }

    /// Whether successful sync operation `op` loses or misdirects one of
    /// `pages` (the page numbers its pending writes touch, sorted, all below
    /// `len_pages`, the file's durable length in pages after it), rules 19
    /// and 20. Both are drawn, each from its own stream, and a lost write
    /// wins; nothing is drawn when there is no page to lose. A replayed
    /// page that the sync did not touch is bent to one it did (`fit_page`);
    /// a replayed target is kept as recorded.
    pub(super) fn misplace(&mut self, op: u64, pages: &[u64], len_pages: u64) -> Option<DiskFault> {
        if self.closed() || pages.is_empty() {
            return None;
        }
        let kind = match &mut self.source {
            Source::Random(streams) => {
                let lost = streams.lost_write.chance(self.config.lost_write);
                let misdirected = streams.misdirected_write.chance(self.config.misdirected_write);
                let pick = |random: &mut RandomStream| pages[random.below(pages.len() as u64) as usize];
                match (lost, misdirected) {
                    (true, _) => DiskFaultKind::LostWrite { page: pick(&mut streams.lost_write) },
                    (false, true) => {
                        let page = pick(&mut streams.misdirected_write);
                        let to = other_page(page, len_pages, &mut streams.misdirected_write);
                        DiskFaultKind::MisdirectedWrite { page, to }
                    }
                    _ => return None,
                }
            }
            Source::Replay(faults) => match faults.get(&key(DiskOp::Sync, op)) {
                Some(DiskFaultKind::LostWrite { page }) => DiskFaultKind::LostWrite { page: fit_page(*page, pages) },
                Some(DiskFaultKind::MisdirectedWrite { page, to }) => {
                    DiskFaultKind::MisdirectedWrite { page: fit_page(*page, pages), to: *to }
                }
                _ => return None,
            },
        };
        Some(self.logged(op, DiskOp::Sync, kind))
    }

    /// Counts a read of `len` > 0 bytes and says whether it fails or is
    /// corrupted (EIO drawn first, each from its own stream).
    pub(super) fn read_fault(&mut self, len: usize) -> Option<DiskFault> {
        self.reads += 1;
        let read = self.reads;
        if self.closed() {
            return None;
        }
        let kind = match &mut self.source {
            Source::Random(streams) => {
                let eio = streams.read_eio.chance(self.config.read_eio);
                let corrupt = streams.read_corrupt.chance(self.config.read_corrupt);
                match (eio, corrupt) {
                    (true, _) => DiskFaultKind::ReadEio,
                    (false, true) => DiskFaultKind::ReadCorrupt { bit: streams.read_corrupt.below(len as u64 * 8) },
                    _ => return None,
                }
            }
            Source::Replay(faults) => match faults.get(&key(DiskOp::Read, read)) {
                Some(kind @ (DiskFaultKind::ReadEio | DiskFaultKind::ReadCorrupt { .. })) => *kind,
                _ => return None,
            },
        };
        Some(self.logged(read, DiskOp::Read, kind))
    }

    fn logged(&mut self, op: u64, on: DiskOp, kind: DiskFaultKind) -> DiskFault {
        debug_assert!(
            self.log
                .iter()
                .rev()
                .find(|f| (f.on == DiskOp::Read) == (on == DiskOp::Read))
                .is_none_or(|last| last.op < op),
            "one fault per operation, in order"
        );
        let fault = DiskFault { op, on, kind };
        self.log.push(fault);
        fault
    }
}

/// A seeded page of a file of `len_pages` pages other than `page`; a file
/// of one page has none, so the bytes go to the page after its end, where
/// the file never reads them.
fn other_page(page: u64, len_pages: u64, random: &mut RandomStream) -> u64 {
    if len_pages < 2 {
        return page + 1;
    }
    let other = random.below(len_pages - 1);
    if other >= page { other + 1 } else { other }
}

/// `page` if the sync touched it (`pages`, sorted and not empty), else the
/// touched page it picks modulo their number: a replayed or hand-written
/// fault that does not fit its sync is bent to fit.
fn fit_page(page: u64, pages: &[u64]) -> u64 {
    match pages.binary_search(&page) {
        Ok(_) => page,
        Err(_) => pages[(page % pages.len() as u64) as usize],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(seed: u64) -> RandomStream {
        RandomStream::new(seed, Purpose::Fault("test", Draw::DiskOps), "n", 1)
    }

    #[test]
    fn fit_bends_prefixes_to_fit() {
        let sizes = [4, 0, 3];
        let p = |ops, bytes| Prefix { ops, bytes };
        assert_eq!(p(0, 2).fit(&sizes), p(0, 2));
        assert_eq!(p(0, 4).fit(&sizes), p(1, 0), "all of a write is the whole write");
        assert_eq!(p(1, 5).fit(&sizes), p(1, 0), "a truncation is atomic");
        assert_eq!(p(9, 9).fit(&sizes), p(3, 0));
        assert_eq!(p(0, 1).fit(&[]), p(0, 0));
    }

    #[test]
    fn draws_are_seeded_and_in_range() {
        let sizes = [5, 0, 7];
        let draws = |seed| (0..50).map(|_| Prefix::draw(&sizes, &mut stream(seed))).collect::<Vec<_>>();
        assert_eq!(draws(3), draws(3));
        let mut random = stream(4);
        let all: Vec<Prefix> = (0..500).map(|_| Prefix::draw(&sizes, &mut random)).collect();
        assert!(all.iter().all(|p| p.fit(&sizes) == *p));
        assert!(all.iter().any(|p| p.ops == 3), "everything kept");
        assert!(all.iter().any(|p| p.ops == 0 && p.bytes == 0), "nothing kept");
        assert!(all.iter().any(|p| p.ops == 2 && p.bytes > 0), "ends inside a write");
        assert!(!all.iter().any(|p| p.ops == 1 && p.bytes > 0), "never inside a truncation");
    }

    #[test]
    fn chance_follows_the_probability_and_zero_draws_nothing() {
        let mut random = stream(5);
        let hits = (0..10_000).filter(|_| random.chance(0.25)).count();
        assert!((2_200..2_800).contains(&hits), "{hits}");
        let (mut a, mut b) = (stream(6), stream(6));
        assert!(!a.chance(0.0));
        assert_eq!(a.next_u64(), b.next_u64(), "p = 0 consumed nothing");
        assert!(a.chance(1.0));
    }

    #[test]
    fn misplaced_pages_are_seeded_in_range_and_held_off_by_the_gate() {
        let config = DiskConfig { misdirected_write: 1.0, ..DiskConfig::default() };
        let gate = Rc::new(Cell::new(false));
        let mut faults = DiskFaults::seeded(config, 2, "n").gated(gate.clone());
        assert_eq!(faults.misplace(1, &[3, 4], 8), None, "closed: nothing drawn");
        gate.set(true);
        assert_eq!(faults.misplace(2, &[], 8), None, "no page written, nothing to misplace");
        for op in 3..200 {
            let Some(DiskFault { kind: DiskFaultKind::MisdirectedWrite { page, to }, .. }) =
                faults.misplace(op, &[3, 4], 8)
            else {
                panic!("probability 1")
            };
            assert!([3, 4].contains(&page) && to < 8 && to != page, "{page} -> {to}");
        }
        let mut again = DiskFaults::seeded(config, 2, "n");
        assert_eq!(again.misplace(3, &[3, 4], 8), Some(faults.log()[0]), "the gate drew nothing");
        assert_eq!(other_page(0, 1, &mut stream(1)), 1, "one page: past the end");
        assert_eq!((fit_page(4, &[2, 4]), fit_page(7, &[2, 4])), (4, 4), "kept if written, else bent");
    }

    #[test]
    fn replay_injects_listed_faults_only() {
        let crash = DiskFaultKind::Crash { applied: Prefix { ops: 0, bytes: 9 } };
        let listed = [
            DiskFault { op: 2, on: DiskOp::Write, kind: crash },
            DiskFault { op: 3, on: DiskOp::Sync, kind: DiskFaultKind::SyncEio },
        ];
        let mut faults = DiskFaults::replay(DiskConfig::default(), &listed);
        let op = faults.count();
        assert_eq!(faults.crash_in(op, DiskOp::Write, &[4]), None);
        let op = faults.count();
        let fault = faults.crash_in(op, DiskOp::Write, &[4]).unwrap();
        assert_eq!(fault.kind, DiskFaultKind::Crash { applied: Prefix { ops: 1, bytes: 0 } }, "clamped");
        let op = faults.count();
        assert_eq!(faults.crash_in(op, DiskOp::Sync, &[]), None);
        assert!(faults.sync_eio(op, false).is_some(), "replayed EIO needs no pending writes");
        assert_eq!(faults.log().iter().map(|f| f.op).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(faults.log()[1].to_string(), "disk op 3 (sync): EIO, pending writes dropped");
    }
}
