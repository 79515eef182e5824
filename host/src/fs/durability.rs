//! The disk durability model of one node's file system. This header is the
//! contract; `durability_tests.rs` has one test per numbered rule, each
//! proving the rule fired.
//!
//! # State
//!
//! The `Fs` tree is the page cache: what the guest reads and writes. Once
//! `Fs::start_disk_model` is called, every inode also has a disk record:
//! what durable storage holds for it (a file's bytes, a directory's entries,
//! a symlink's target) and, for a file, its *pending writes*: the writes and
//! truncations made since its last sync, in order. A crash throws the page
//! cache away and rebuilds the tree from the disk records. Without
//! `start_disk_model` there is no disk: every change is final at once and a
//! sync does nothing (what `seedfall exec` wants).
//!
//! # Rules
//!
//! 1. **Page cache.** Writes and truncations change the page cache and are
//!    visible at once, through every name and descriptor; each is also
//!    appended to the file's pending writes.
//! 2. **Sync.** A successful `Fs::sync` of a file (fd_sync and fd_datasync
//!    alike: the model does not tell data from metadata) applies its pending
//!    writes to its durable bytes, in order: the data and the size are then
//!    durable. A sync of a directory makes its current entries durable
//!    (rule 6). A write through a descriptor with O_SYNC, O_DSYNC or
//!    O_RSYNC (WASI fdflags) is followed by a sync of its file before it
//!    returns (`wasi/fd.rs`): durable when it returns, or failed as the
//!    sync failed.
//! 3. **Crash.** `Fs::crash` keeps only what is durable. The new tree holds
//!    exactly the inodes reachable from `/` through durable directory
//!    entries, each with its durable contents and a link count of its
//!    durable names; pending writes are lost (but see rule 4) and no
//!    descriptor survives. A file whose name never became durable (created
//!    and never synced) disappears; a name whose removal never became
//!    durable comes back. Inode numbers of survivors are kept and new ones
//!    continue the count, so a stale number is never reused.
//! 4. **Torn writes** (`torn_writes`). A crash keeps, of each surviving
//!    file's pending writes, a seeded in-order prefix: the first k in full,
//!    k uniform in 0..=n, then, if the next is a write of L > 1 bytes, its
//!    first b bytes, b uniform in 0..L (the crash tore it). Truncations are
//!    atomic. Without `torn_writes`, k = 0 and b = 0. The draws come from the
//!    stream passed to `Fs::crash`, file by file in inode order. With
//!    `torn_sector` S, the torn write keeps only whole S-byte sectors of the
//!    file: its kept end, at file offset o + b, is rounded down to a multiple
//!    of S, and if that is not past its start o none of it is kept. A disk
//!    that writes sectors atomically cannot leave half of one, and software
//!    such as etcd's WAL relies on that. The rounding reuses the draw (the
//!    same draws for every S, so S = 1 is the byte-granular default), and
//!    holds for every tear: rule 16's pieces, and rule 5's crash in the
//!    middle of a sync or of a write (whose part in the page cache the
//!    guest never reads, so it only matters as what may reach the disk).
//! 5. **Crash on I/O** (`crash_on_io`). Each mutating disk operation gets
//!    the node's next disk-operation number (`Fs::disk_ops`, from 1, kept
//!    across crashes): a write of at least one byte to a regular file, a
//!    truncation (set_size, O_TRUNC of an existing file), a create (open
//!    O_CREAT of a missing file, mkdir, symlink), link, unlink and rmdir,
//!    rename, and a sync of a file or directory. Reads, stats, lookups,
//!    set_times, writes to devices and operations that fail their checks
//!    count nothing (a write the disk budget cuts short counts with its
//!    shortened length; one that fits nothing fails its checks, `space.rs`). With probability `crash_on_io` the node crashes in the
//!    middle of the operation, which takes effect in part: a write reaches
//!    the page cache as a seeded prefix of its bytes (none and all
//!    included; whole sectors of the file with `torn_sector`); a sync of a file makes a seeded prefix of its pending
//!    writes durable (rule 4's draw) but does not complete (no name becomes
//!    durable); a sync of a directory persists its entries or not; any other
//!    operation happens in full or not at all. The operation then returns
//!    EIO, so does every later mutating operation, and
//!    `Fs::crash_requested` says so: the caller must crash the node before
//!    the guest runs again.
//! 6. **Directories** (`strict_dirs`). With `strict_dirs`, a create, link,
//!    unlink, rmdir or rename survives a crash only once its directory (for
//!    a rename, each of both) has been synced after it; syncing a file
//!    never makes its name durable. Without `strict_dirs` (ext4 with
//!    data=ordered, roughly) these are durable at once, with one exception:
//!    a regular file created by open becomes durable with its first
//!    successful sync (or a sync of its directory), and until then a crash
//!    drops it. A rename or link of such a file makes it durable at once,
//!    with whatever of its data is durable, perhaps nothing: write, rename
//!    over the old file without a sync, crash, and the file is empty.
//! 7. **EIO on sync** (`fsync_eio`). With probability `fsync_eio`, a sync
//!    of a file with pending writes fails with EIO. Its pending writes are
//!    dropped from durable storage but stay in the page cache, readable
//!    (Linux since 4.13: the error is reported once and the pages are
//!    marked clean), so a later successful sync does not make them durable
//!    and a crash loses them. A failed sync makes no name durable either.
//!    Directory syncs never fail.
//! 8. **Host files.** Host-mounted (read-through) files and directories are
//!    durable from the start, as they are on the host; once changed they
//!    follow the rules like any other. `/tmp` is an ordinary disk
//!    directory, not a tmpfs: what is durable there survives a crash.
//! 9. **Start.** Everything in the tree when the model starts (`/`, `/tmp`,
//!    `/dev`, mounts, whatever setup wrote) is durable. `mount_host` after
//!    the start is setup too: it makes the whole tree durable again.
//! 10. **Writeback.** When a file's pending writes exceed `WRITEBACK_BYTES`,
//!     the oldest are made durable until half are left, as the kernel
//!     writes dirty pages back past its threshold: the memory held for
//!     pending writes stays bounded. It depends on byte counts only, never
//!     on time.
//! 11. **Log and replay.** Every injected fault is logged with its
//!     operation number and what took effect (`Fs::disk_faults`);
//!     `DiskFaults::replay` injects exactly a logged list, so the same
//!     operations meet the same faults. Torn writes at a crash are not
//!     per-operation faults: they replay from the crash's stream.
//! 12. **Failed writes** (`write_eio`, `write_enospc`). With these
//!     probabilities a write to a regular file fails with EIO or ENOSPC
//!     (EIO drawn first, each from its own stream) and changes nothing:
//!     not the page cache, not the size, not the pending writes. It still
//!     counts as a disk operation (its number is how it replays), and a
//!     crash drawn for the same operation wins.
//! 13. **Failed and corrupted reads** (`read_eio`, `read_corrupt`). Every
//!     read of at least one byte of a regular file gets the node's next
//!     disk-read number (`Fs::disk_reads`, its own count, kept across
//!     crashes). With probability `read_eio` it fails with EIO; else with
//!     probability `read_corrupt` it returns its bytes with one seeded bit
//!     flipped. The page cache and the disk keep the right bytes: the next
//!     read of the same bytes is correct (a bad transfer, not a bad sector).
//!
//! 16. **Reordered writeback** (`reorder_writes`, `fs_model`). Instead of
//!     rule 4's in-order prefix, a crash keeps the pieces of each file's
//!     pending writes that writeback may have reached in any order
//!     (`reorder.rs`): under `ext4_ordered` the appends (bytes past the
//!     durable size) and truncations as one in-order prefix and every 4 KiB
//!     page of overwrites on its own; under `page_independent` every page
//!     on its own, truncations still in order. A surviving page keeps an
//!     in-order prefix of its pieces; with `torn_writes` the last piece kept
//!     (in a page or the ordered stream) may be partial. Kept pieces apply
//!     in the order they were written. The draws come from a stream keyed
//!     by the node and the crash itself (its disk operation for a crash in
//!     the middle of one, else its virtual time), so removing other faults
//!     does not change them. Under `dir_reorder` file data is cut as under
//!     `page_independent`, and each name of a directory whose durable entry
//!     differs from the page cache's survives on its own (so half a rename
//!     can: the file under both names, or under neither).
//!
//! 17. **Corruption at a crash** (`corrupt_on_crash`). With this
//!     probability per crash (drawn before the crash's other draws), one
//!     seeded bit of the bytes the crash writes to disk (the pending writes
//!     rule 4 or 16 keeps) is flipped; a crash that writes none flips none.
//!     It replays with the crash's own stream, like torn writes.
//!
//! 18. **Bitrot** (`bitrot_per_sec`, `world::fault::bitrot`). `Fs::rot`
//!     flips one bit of the durable bytes of a regular file and leaves the
//!     page cache alone: the node reads the rotten bit only after a crash
//!     rebuilds its cache from the disk. A later write of that byte and a
//!     sync heal it, as rewriting a bad sector does.
//!
//! 19. **Lost writes** (`lost_write`). With this probability per successful
//!     sync of a file whose pending writes touch a page still inside the
//!     file after them, one seeded page of those (4 KiB, by page number)
//!     keeps its old durable bytes, and the sync still succeeds. The page
//!     cache keeps the new bytes, so reads see them until a crash rebuilds
//!     the cache from the disk; the page's other writes of the same sync
//!     and every other page are durable as rule 2 says. A later sync that
//!     writes the page again makes it durable (`misplace.rs`).
//! 20. **Misdirected writes** (`misdirected_write`). Drawn after rule 19
//!     (which wins), with this probability per such sync, from its own
//!     stream: one seeded page of them keeps its old durable bytes, as in
//!     rule 19, and its new bytes overwrite a seeded other page of the same
//!     file, inside its durable length; a file of one page has none, and
//!     the bytes land past its end, where no read of the file reaches. The
//!     page cache again keeps the right bytes of both pages. Both rules log
//!     the page (and the target) with the sync's operation number; replayed,
//!     a page the sync did not write is bent to one it did.
//!
//! # How the host drives it
//!
//! ```text
//! fs.start_disk_model(DiskFaults::random(config, streams))  // one stream per kind; after mounts, before boot
//! ... after every host call: if fs.crash_requested().is_some() { crash the node now }
//! ... at a planned crash or a requested one:
//! let report = fs.crash(&mut RandomStream::new(seed, Purpose::TornWrites, node, incarnation));
//! ... boot the next incarnation over the same `fs`; log `fs.disk_faults()` for replay
//! ```
//!
//! # Warts
//!
//! - Memory: the durable bytes of a file share its pages with the page
//!   cache (`pages.rs`, copy on write), so a file costs twice only where the
//!   two differ, plus its pending writes (at most about `WRITEBACK_BYTES`).
//!   A sync costs the bytes written since the last one. Only the page cache
//!   counts against the disk budget (`space.rs`).
//! - Timestamps are not torn or reordered: a crash restores the times an
//!   inode had at its last sync, its creation or the start of the model.
//! - Tearing is byte-granular unless `torn_sector` says otherwise, harsher
//!   than real sectors; a torn extending write extends the file only as far
//!   as its kept bytes.
//! - With `strict_dirs` a rename across directories with only one of them
//!   synced leaves two names or none. A directory that ends up with two
//!   durable names (or in a cycle) keeps the first reached, in name order
//!   from `/`.

use super::crash_states::{self, Choice, CrashChoices};
use super::faults::{DiskConfig, DiskFault, DiskFaultKind, DiskFaults, DiskOp, Mutant, Prefix};
use super::inode::{Device, Dir, FileData, Inode, Inodes, Node};
use super::misplace;
use super::pages::Pages;
use super::pending::Pending;
use super::reorder::{self, FsModel};
use super::{Errno, FileType, Fs, Ino, ROOT};
use crate::random::RandomStream;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Rule 10's threshold, per file. Small under test so the rule can be shown.
const WRITEBACK_BYTES: usize = if cfg!(test) { 1 << 10 } else { 64 << 20 };

/// The disk of a node: one record per inode, the fault policy, and the
/// crash in progress.
pub(super) struct Durability {
    faults: DiskFaults,
    records: BTreeMap<Ino, Record>,
    /// Without `strict_dirs`: regular files created by open whose name waits
    /// for a sync (rule 6), with that name as (directory, name).
    unsynced: BTreeMap<Ino, (Ino, String)>,
    /// The fault crashing the node, from the operation it hit until
    /// `Fs::crash`.
    crashing: Option<DiskFault>,
}

/// What the disk holds for one inode. It lives while the page cache has the
/// inode or a durable entry names it.
struct Record {
    disk: OnDisk,
    /// Durable entries naming this inode.
    links: u32,
    atim: u64,
    mtim: u64,
    ctim: u64,
}

enum OnDisk {
    Dir {
        entries: BTreeMap<String, Ino>,
        /// A host directory not read yet, as in the page cache.
        host: Option<PathBuf>,
    },
    File(FileDisk),
    Symlink(String),
    Device(Device),
}

struct FileDisk {
    /// The durable bytes (a host file's stay on the host until needed).
    data: FileData,
    /// Writes and truncations since the last sync, oldest first.
    pending: Vec<Pending>,
    /// The bytes held by `pending`'s writes.
    pending_bytes: usize,
}

/// What a crash did to the disk, for the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashReport {
    /// The fault that crashed the node in the middle of an operation, if it
    /// was one (rather than a crash planned by the host).
    pub during: Option<DiskFault>,
    /// Paths the page cache had and the disk has not: never made durable.
    pub vanished: Vec<String>,
    /// Paths the disk has and the page cache had not: removals never made
    /// durable.
    pub restored: Vec<String>,
    /// Each surviving file that had pending writes, in inode order.
    pub files: Vec<FileCrash>,
    /// Rule 17 (`corrupt_on_crash`): the file, byte offset and bit flipped.
    pub corrupted: Option<(String, u64, u8)>,
    /// Every choice the crash made, in order (`CrashSpace`).
    pub choices: Vec<Choice>,
}

/// The pending writes of one file at a crash, and the prefix kept (rule 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCrash {
    pub path: String,
    pub pending: usize,
    /// The pending operations' sizes (`Prefix` sizes), for `CrashSpace`.
    pub sizes: Vec<usize>,
    pub kept: Prefix,
    /// Under `reorder_writes` (rule 16, then `kept` is unused): the pieces
    /// kept, of how many.
    pub reordered: Option<(usize, usize)>,
}

/// Makes pending operation `op` durable in `data`.
fn apply(op: &Pending, data: &mut FileData) -> Result<(), Errno> {
    match op {
        Pending::SetSize(0) => *data = FileData::Mem(Pages::default()),
        // Sizes were checked against the cap when the page cache took them.
        Pending::SetSize(size) => durable_pages(data)?.set_len(*size),
        Pending::Write { offset, bytes } => durable_pages(data)?.write(*offset, bytes),
    }
    Ok(())
}

/// The (offset, length) of the bytes `prefix` of `ops` writes.
fn written_by(ops: &[Pending], prefix: Prefix) -> impl Iterator<Item = (u64, u64)> + '_ {
    let prefix = prefix.fit(&ops.iter().map(Pending::size).collect::<Vec<_>>());
    let partial = ops.get(prefix.ops).filter(|_| prefix.bytes > 0).map(|op| (op, prefix.bytes));
    let whole = ops[..prefix.ops].iter().map(|op| (op, op.size()));
    whole.chain(partial).filter_map(|(op, len)| match op {
        Pending::Write { offset, .. } if len > 0 => Some((*offset, len as u64)),
        _ => None,
    })
}

/// Rule 17: one seeded bit of the bytes the crash `written` flips, in the
/// new page cache `map`; None when it wrote none.
fn flip_one_bit(
    map: &mut BTreeMap<Ino, Inode>,
    written: &[(Ino, u64, u64)],
    paths: &BTreeMap<Ino, String>,
    random: &mut RandomStream,
) -> Option<(String, u64, u8)> {
    let total: u64 = written.iter().map(|(_, _, len)| len).sum();
    if total == 0 {
        return None;
    }
    let mut nth = random.below(total);
    let bit = random.below(8) as u8;
    let &(ino, at, _) = written.iter().find(|(_, _, len)| {
        let here = nth < *len;
        if !here {
            nth -= len;
        }
        here
    })?;
    let offset = at + nth;
    let Some(Inode { node: Node::File(FileData::Mem(pages)), .. }) = map.get_mut(&ino) else { return None };
    let mut byte = [0u8];
    pages.read(offset, &mut byte);
    byte[0] ^= 1 << bit;
    pages.write(offset, &byte);
    Some((paths[&ino].clone(), offset, bit))
}

/// The durable pages of a file. The budget counts the page cache only
/// (`space.rs`), so a host file is read in with no limit but the size cap.
fn durable_pages(data: &mut FileData) -> Result<&mut Pages, Errno> {
    data.load(u64::MAX)
}

impl FileDisk {
    fn new(data: FileData) -> FileDisk {
        FileDisk { data, pending: Vec::new(), pending_bytes: 0 }
    }

    fn push(&mut self, op: Pending) {
        self.pending_bytes += op.size();
        self.pending.push(op);
        if self.pending_bytes > WRITEBACK_BYTES {
            // Rule 10: the oldest writes go to disk until half are left.
            let mut keep = self.pending_bytes;
            let mut ops = 0;
            while keep > WRITEBACK_BYTES / 2 {
                keep -= self.pending[ops].size();
                ops += 1;
            }
            // A host file that cannot be read keeps its writes pending.
            let _ = self.apply(Prefix { ops, bytes: 0 });
        }
    }

    fn sizes(&self) -> Vec<usize> {
        self.pending.iter().map(Pending::size).collect()
    }

    /// The pages the pending writes touch, for rules 19 and 20, and the
    /// file's length in pages once they are applied (`misplace::touched`).
    /// Reads a host file in to know its length: the sync would anyway.
    fn touched(&mut self) -> Result<(Vec<u64>, u64), Errno> {
        if !self.pending.iter().any(|op| matches!(op, Pending::Write { .. })) {
            return Ok((Vec::new(), 0));
        }
        let len = durable_pages(&mut self.data)?.len();
        Ok(misplace::touched(&self.pending, len))
    }

    /// Makes `prefix` of the pending writes durable; what is left of a write
    /// applied in part stays pending. On a host read error the writes not
    /// applied stay pending.
    fn apply(&mut self, prefix: Prefix) -> Result<(), Errno> {
        let prefix = prefix.fit(&self.sizes());
        let mut done = 0;
        let result = loop {
            if done == prefix.ops {
                break Ok(());
            }
            if let Err(e) = apply(&self.pending[done], &mut self.data) {
                break Err(e);
            }
            done += 1;
        };
        for op in self.pending.drain(..done) {
            self.pending_bytes -= op.size();
        }
        result?;
        if prefix.bytes > 0 {
            let Pending::Write { offset, bytes } = &mut self.pending[0] else {
                unreachable!("a clamped prefix only splits writes")
            };
            durable_pages(&mut self.data)?.write(*offset, &bytes[..prefix.bytes]);
            bytes.drain(..prefix.bytes);
            *offset += prefix.bytes as u64;
            self.pending_bytes -= prefix.bytes;
        }
        Ok(())
    }

    /// Rule 16: the crash keeps the pieces of the pending writes
    /// `reorder::kept` chooses, applied in the order they were written.
    fn reorder(
        &mut self,
        path: &str,
        model: FsModel,
        torn: bool,
        choices: &mut CrashChoices,
    ) -> (FileCrash, Vec<(u64, u64)>) {
        let durable_len = match &self.data {
            FileData::Mem(pages) => pages.len(),
            FileData::Host { size, .. } => size.unwrap_or(0),
        };
        let sizes = self.sizes();
        let kept = reorder::kept(&self.pending, durable_len, model, torn, path, choices);
        for op in &kept.ops {
            // A host file that cannot be read keeps its old bytes.
            let _ = apply(op, &mut self.data);
        }
        self.drop_pending();
        let crash = FileCrash {
            path: path.to_string(),
            pending: sizes.len(),
            sizes,
            kept: Prefix::default(),
            reordered: Some((kept.ops.len(), kept.pieces)),
        };
        (crash, written_by(&kept.ops, Prefix { ops: kept.ops.len(), bytes: 0 }).collect())
    }

    fn drop_pending(&mut self) {
        self.pending.clear();
        self.pending_bytes = 0;
    }
}

impl Record {
    /// The disk's copy of a page-cache inode, without pending writes.
    fn of(inode: &Inode, links: u32) -> Record {
        let disk = match &inode.node {
            Node::Dir(dir) => OnDisk::Dir { entries: dir.entries.clone(), host: dir.host.clone() },
            Node::File(data) => OnDisk::File(FileDisk::new(data.clone())),
            Node::Symlink(target) => OnDisk::Symlink(target.clone()),
            Node::Device(device) => OnDisk::Device(*device),
        };
        Record { disk, links, atim: inode.atim, mtim: inode.mtim, ctim: inode.ctim }
    }

    fn stamp(&mut self, inode: &Inode) {
        (self.atim, self.mtim, self.ctim) = (inode.atim, inode.mtim, inode.ctim);
    }

    fn is_dir(&self) -> bool {
        matches!(self.disk, OnDisk::Dir { .. })
    }
}

impl Durability {
    /// A disk holding exactly the page cache `inodes` (rule 9).
    fn snapshot(faults: DiskFaults, inodes: &Inodes) -> Durability {
        let records = inodes.iter().map(|(ino, inode)| (ino, Record::of(inode, inode.links))).collect();
        Durability { faults, records, unsynced: BTreeMap::new(), crashing: None }
    }

    fn strict_dirs(&self) -> bool {
        self.faults.config().strict_dirs
    }

    /// Sets or removes the durable entry `name` of `dir`, keeping link
    /// counts; returns the inode it named before, for `Fs::disk_collect`.
    fn set_entry(&mut self, dir: Ino, name: &str, child: Option<Ino>) -> Option<Ino> {
        let Some(OnDisk::Dir { entries, .. }) = self.records.get_mut(&dir).map(|r| &mut r.disk) else {
            debug_assert!(false, "durable entry in {dir:?}, which has no directory record");
            return None;
        };
        let old = match child {
            Some(child) => entries.insert(name.to_string(), child),
            None => entries.remove(name),
        };
        for (ino, up) in [(child, true), (old, false)] {
            if let Some(record) = ino.and_then(|ino| self.records.get_mut(&ino)) {
                if up {
                    record.links += 1;
                } else {
                    record.links -= 1;
                }
            }
        }
        old
    }

    /// Forgets that `ino`'s name (`dir`, `name`) waits for a sync.
    fn settle(&mut self, ino: Ino, dir: Ino, name: &str) {
        if self.unsynced.get(&ino).is_some_and(|(d, n)| *d == dir && n == name) {
            self.unsynced.remove(&ino);
        }
    }

    fn file(&mut self, ino: Ino) -> Option<&mut FileDisk> {
        match self.records.get_mut(&ino).map(|r| &mut r.disk) {
            Some(OnDisk::File(file)) => Some(file),
            _ => None,
        }
    }
}

impl Fs {
    /// Starts the disk model with `faults`: from now on changes are durable
    /// only as the contract says. What the tree holds now is durable.
    pub fn start_disk_model(&mut self, faults: DiskFaults) {
        self.disk = Some(Box::new(Durability::snapshot(faults, &self.inodes)));
    }

    /// The disk model's probabilities from now on (a branch's boost; its
    /// switches are the run's own and stay as they were). Without the model,
    /// nothing.
    pub fn set_disk_config(&mut self, config: DiskConfig) {
        if let Some(d) = self.disk.as_mut() {
            d.faults.set_config(config);
        }
    }

    /// The number of the last disk operation (0 before the first, and
    /// without the model).
    pub fn disk_ops(&self) -> u64 {
        self.disk.as_ref().map_or(0, |d| d.faults.ops())
    }

    /// Every fault injected so far, with its operation number (rule 11).
    pub fn disk_faults(&self) -> &[DiskFault] {
        self.disk.as_ref().map_or(&[], |d| d.faults.log())
    }

    /// The fault that is crashing the node in the middle of an operation
    /// (rule 5): the node must not run again before `crash`.
    pub fn crash_requested(&self) -> Option<DiskFault> {
        self.disk.as_ref().and_then(|d| d.crashing)
    }

    /// How many inodes the disk keeps records for.
    #[cfg(test)]
    pub(super) fn disk_records(&self) -> usize {
        self.disk.as_ref().map_or(0, |d| d.records.len())
    }

    /// fd_sync and fd_datasync (rules 2, 5, 6, 7): makes a file's pending
    /// writes durable, or a directory's entries. `IO` when `fsync_eio` or
    /// `crash_on_io` strikes. Devices have nothing to sync.
    pub fn sync(&mut self, ino: Ino) -> Result<(), Errno> {
        let filetype = self.filetype(ino)?;
        if !matches!(filetype, FileType::RegularFile | FileType::Directory) || self.disk.is_none() {
            return Ok(());
        }
        let op = self.begin()?;
        if filetype == FileType::Directory { self.sync_dir(op, ino) } else { self.sync_file(op, ino) }
    }

    fn sync_file(&mut self, op: u64, ino: Ino) -> Result<(), Errno> {
        let Some(d) = self.disk.as_deref_mut() else { return Ok(()) };
        if d.faults.config().mutant == Some(Mutant::FsyncNoop) {
            return Ok(());
        }
        let Some(file) = d.file(ino) else {
            debug_assert!(false, "{ino:?} is a file without a record");
            return Ok(());
        };
        let sizes = file.sizes();
        let has_pending = !sizes.is_empty();
        if let Some(fault) = d.faults.crash_in(op, DiskOp::Sync, &sizes) {
            let DiskFaultKind::Crash { applied } = fault.kind else { unreachable!() };
            let sector = d.faults.config().torn_sector;
            if let Some(file) = d.file(ino) {
                // The disk tears a sync it is writing as it tears one at rest
                // (rule 4); the log keeps the draw, which replays to the same.
                let _ = file.apply(crash_states::whole_sectors(applied, &file.pending, sector));
            }
            d.crashing = Some(fault);
            return Err(Errno::IO);
        }
        if d.faults.sync_eio(op, has_pending).is_some() {
            if let Some(file) = d.file(ino) {
                file.drop_pending();
            }
            return Err(Errno::IO);
        }
        // Rules 19 and 20 are drawn before the writes are applied, so the
        // page they undo can still be read as it was. A host file that
        // cannot be read: the disk failed to write.
        let (pages, len_pages) = d.file(ino).map_or(Ok((Vec::new(), 0)), FileDisk::touched).map_err(|_| Errno::IO)?;
        let misplaced = d.faults.misplace(op, &pages, len_pages).map(|fault| fault.kind);
        if let Some(file) = d.file(ino) {
            let old = misplaced.and_then(|kind| misplace::before(durable_pages(&mut file.data).ok()?, kind));
            file.apply(Prefix { ops: usize::MAX, bytes: 0 }).map_err(|_| Errno::IO)?;
            if let Some(kind) = misplaced {
                misplace::misplace(durable_pages(&mut file.data)?, kind, old);
            }
        }
        let inode = self.inodes.get(ino)?;
        let d = self.disk.as_deref_mut().expect("checked above");
        if let Some(record) = d.records.get_mut(&ino) {
            record.stamp(inode);
        }
        if let Some((dir, name)) = d.unsynced.remove(&ino) {
            let old = d.set_entry(dir, &name, Some(ino));
            debug_assert!(old.is_none(), "an unsynced name shadowed a durable one");
            self.disk_collect(old);
        }
        Ok(())
    }

    fn sync_dir(&mut self, op: u64, ino: Ino) -> Result<(), Errno> {
        let d = self.disk.as_deref_mut().expect("checked by sync");
        if d.faults.config().mutant == Some(Mutant::DirFsyncNoop) {
            return Ok(());
        }
        let crash = d.faults.crash_in(op, DiskOp::Sync, &[0]);
        if crash.is_none_or(|fault| fault.kind == DiskFaultKind::Crash { applied: Prefix { ops: 1, bytes: 0 } }) {
            self.persist_dir(ino)?;
        }
        match crash {
            Some(fault) => {
                self.disk.as_deref_mut().expect("checked by sync").crashing = Some(fault);
                Err(Errno::IO)
            }
            None => Ok(()),
        }
    }

    /// Makes the page cache's entries of `dir` its durable entries.
    fn persist_dir(&mut self, dir: Ino) -> Result<(), Errno> {
        let inode = self.inodes.get(dir)?;
        let Node::Dir(cached) = &inode.node else { return Err(Errno::NOTDIR) };
        let (entries, host) = (cached.entries.clone(), cached.host.clone());
        let d = self.disk.as_deref_mut().expect("only called with the model");
        let children: Vec<Ino> = entries.values().copied().collect();
        let Some(record) = d.records.get_mut(&dir) else { return Ok(()) };
        record.stamp(inode);
        let OnDisk::Dir { entries: durable, host: durable_host } = &mut record.disk else {
            unreachable!("a directory's record is a directory")
        };
        *durable_host = host;
        let old = std::mem::replace(durable, entries);
        for child in children {
            if let Some(record) = d.records.get_mut(&child) {
                record.links += 1;
            }
        }
        for child in old.values() {
            if let Some(record) = d.records.get_mut(child) {
                record.links -= 1;
            }
        }
        d.unsynced.retain(|_, (parent, _)| *parent != dir);
        for child in old.into_values() {
            self.disk_collect(Some(child));
        }
        Ok(())
    }

    /// The crash (rules 3 and 4): rebuilds the page cache from the disk,
    /// tearing pending writes with `random` if `torn_writes`. Without the
    /// model every change was final, so everything survives but the
    /// descriptors' holds, and there is still no model afterwards.
    pub fn crash(&mut self, random: &mut RandomStream) -> CrashReport {
        self.crash_as(CrashChoices::drawn(random))
    }

    /// Rule 18 (`bitrot`): flips bit `pick mod (durable bits)` of the
    /// durable bytes of regular files, counted in inode order, on the disk
    /// only (the page cache keeps the right bytes). Returns the inode, the
    /// byte offset and the bit; None without the model or durable bytes.
    pub fn rot(&mut self, pick: u64) -> Option<(String, u64, u8)> {
        let d = self.disk.as_mut()?;
        let files = || {
            d.records.iter().filter_map(|(&ino, r)| match &r.disk {
                OnDisk::File(FileDisk { data: FileData::Mem(pages), .. }) if pages.len() > 0 => {
                    Some((ino, pages.len()))
                }
                _ => None,
            })
        };
        let bits = files().fold(0u64, |n, (_, len)| n.saturating_add(len.saturating_mul(8)));
        if bits == 0 {
            return None;
        }
        let mut nth = pick % bits;
        let (ino, _) = files().find(|&(_, len)| {
            let here = nth < len * 8;
            if !here {
                nth -= len * 8;
            }
            here
        })?;
        let Some(Record { disk: OnDisk::File(FileDisk { data: FileData::Mem(pages), .. }), .. }) =
            d.records.get_mut(&ino)
        else {
            return None;
        };
        let (offset, bit) = (nth / 8, (nth % 8) as u8);
        let mut byte = [0u8];
        pages.read(offset, &mut byte);
        byte[0] ^= 1 << bit;
        pages.write(offset, &byte);
        let names = self.cache_names();
        let path = names.into_iter().find(|(_, i)| *i == ino).map_or(format!("inode {}", ino.0), |(path, _)| path);
        Some((path, offset, bit))
    }

    /// Whether a crash reorders pending writes (rule 16): its draws then
    /// come from a stream keyed by the crash.
    pub fn reorders_writes(&self) -> bool {
        self.disk.as_ref().is_some_and(|d| d.faults.config().reorder_writes)
    }

    /// The crash as `crash`, with its choices given (`CrashSpace::state`):
    /// the k-th choice it makes takes `prefixes[k]` (bent to fit; the
    /// empty prefix when missing), whether or not `torn_writes` is on.
    /// Rule 17's corruption is never drawn.
    pub fn crash_into(&mut self, prefixes: &[Prefix]) -> CrashReport {
        self.crash_as(CrashChoices::given(prefixes))
    }

    fn crash_as(&mut self, mut choices: CrashChoices) -> CrashReport {
        let modelled = self.disk.is_some();
        if !modelled {
            self.start_disk_model(DiskFaults::none());
        }
        let mut d = *self.disk.take().expect("started above");
        let before = self.cache_paths();
        let mut report = CrashReport { during: d.crashing.take(), ..CrashReport::default() };
        choices.sector = d.faults.config().torn_sector;

        let reorder = d.faults.config().reorder_writes.then_some(d.faults.config().fs_model);
        if reorder == Some(FsModel::DirReorder) {
            let names = self.cache_names();
            for (ino, record) in &mut d.records {
                let cached = self.inodes.get(*ino).ok().map(|inode| &inode.node);
                if let (OnDisk::Dir { entries, host: None }, Some(Node::Dir(cached))) = (&mut record.disk, cached)
                    && cached.host.is_none()
                {
                    let named = names.iter().find(|(_, i)| i == ino).map(|(p, _)| p.clone());
                    let dir = if *ino == ROOT { String::new() } else { named.unwrap_or(format!("inode {}", ino.0)) };
                    reorder::dir_changes(entries, &cached.entries, &dir, &mut choices);
                }
            }
        }

        // The inodes reachable from the root through durable entries, the
        // entries kept (a directory keeps its first name only), each
        // directory's parent, and each inode's durable name count.
        let mut path: BTreeMap<Ino, String> = BTreeMap::from([(ROOT, String::new())]);
        let mut kept: BTreeMap<Ino, Dir> = BTreeMap::new();
        let mut links: BTreeMap<Ino, u32> = BTreeMap::from([(ROOT, 1)]);
        let mut stack = vec![(ROOT, ROOT)];
        while let Some((dir, parent)) = stack.pop() {
            let Some(OnDisk::Dir { entries, host }) = d.records.get(&dir).map(|r| &r.disk) else {
                unreachable!("only directories are stacked")
            };
            let mut rebuilt = Dir::new(host.clone());
            rebuilt.parent = parent;
            for (name, &child) in entries {
                let Some(record) = d.records.get(&child) else {
                    debug_assert!(false, "durable entry {name} names {child:?}, which has no record");
                    continue;
                };
                if record.is_dir() && path.contains_key(&child) {
                    continue; // a second name of a directory, or a cycle
                }
                rebuilt.entries.insert(name.clone(), child);
                *links.entry(child).or_default() += 1;
                if !path.contains_key(&child) {
                    path.insert(child, format!("{}/{name}", path[&dir]));
                    if record.is_dir() {
                        rebuilt.subdirs += 1;
                        stack.push((child, dir));
                    }
                }
            }
            kept.insert(dir, rebuilt);
        }

        // Rule 4 (or 16), then the new page cache.
        let torn_writes = d.faults.config().torn_writes;
        // Rule 17 is drawn first, so the other draws do not depend on what was kept.
        let corrupt = choices.random().is_some_and(|random| random.chance(d.faults.config().corrupt_on_crash));
        // The bytes the crash wrote to disk: (file, offset, length).
        let mut written: Vec<(Ino, u64, u64)> = Vec::new();
        let mut map = BTreeMap::new();
        for (&ino, ino_path) in &path {
            let record = d.records.remove(&ino).expect("reachable inodes have records");
            let node = match record.disk {
                OnDisk::Dir { .. } => Node::Dir(kept.remove(&ino).expect("every reachable directory was walked")),
                OnDisk::File(mut file) => {
                    if !file.pending.is_empty() {
                        // crashstates asks what a real disk can leave: torn
                        // states whatever `torn_writes` says.
                        let torn = torn_writes || choices.random().is_none();
                        let crash = match reorder {
                            Some(model) => {
                                let (crash, ranges) = file.reorder(ino_path, model, torn, &mut choices);
                                written.extend(ranges.into_iter().map(|(at, len)| (ino, at, len)));
                                crash
                            }
                            None => {
                                let sizes = file.sizes();
                                let prefix = choices.file(ino_path, &file.pending, torn);
                                written.extend(written_by(&file.pending, prefix).map(|(at, len)| (ino, at, len)));
                                // A host file that cannot be read keeps its old bytes.
                                let _ = file.apply(prefix);
                                let pending = sizes.len();
                                FileCrash { path: ino_path.clone(), pending, sizes, kept: prefix, reordered: None }
                            }
                        };
                        report.files.push(crash);
                    }
                    Node::File(file.data)
                }
                OnDisk::Symlink(target) => Node::Symlink(target),
                OnDisk::Device(device) => Node::Device(device),
            };
            let inode =
                Inode { node, links: links[&ino], opens: 0, atim: record.atim, mtim: record.mtim, ctim: record.ctim };
            map.insert(ino, inode);
        }
        if corrupt && let Some(random) = choices.random() {
            report.corrupted = flip_one_bit(&mut map, &written, &path, random);
        }
        report.choices = std::mem::take(&mut choices.made);
        self.inodes = self.inodes.rebuilt(map);
        self.disk = Some(Box::new(Durability::snapshot(d.faults, &self.inodes)));

        let after = self.cache_paths();
        report.vanished = before.difference(&after).cloned().collect();
        report.restored = after.difference(&before).cloned().collect();
        if !modelled {
            self.disk = None;
        }
        report
    }

    /// Every path in the page cache, not reading host directories.
    fn cache_paths(&self) -> BTreeSet<String> {
        self.cache_names().into_iter().map(|(path, _)| path).collect()
    }

    /// Every (path, inode) in the page cache, not reading host directories.
    fn cache_names(&self) -> Vec<(String, Ino)> {
        let mut names = Vec::new();
        let mut stack = vec![(ROOT, String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let Ok(Node::Dir(cached)) = self.inodes.get(dir).map(|inode| &inode.node) else { continue };
            for (name, &child) in &cached.entries {
                let path = format!("{prefix}/{name}");
                if self.filetype(child) == Ok(FileType::Directory) {
                    stack.push((child, path.clone()));
                }
                names.push((path, child));
            }
        }
        names
    }

    // Hooks for the operations (rule 5's counting and crashing, then each
    // operation's effect on the disk). All do nothing without the model.

    /// The number of the last disk read (0 before the first, and without
    /// the model).
    pub fn disk_reads(&self) -> u64 {
        self.disk.as_ref().map_or(0, |d| d.faults.reads())
    }

    /// A read of a regular file returned `read` (rule 13): `IO` if it
    /// fails, or its bytes with one bit flipped.
    pub(super) fn read_faults(&mut self, read: &mut [u8]) -> Result<(), Errno> {
        let Some(d) = self.disk.as_deref_mut() else { return Ok(()) };
        match d.faults.read_fault(read.len()).map(|f| f.kind) {
            Some(DiskFaultKind::ReadEio) => Err(Errno::IO),
            Some(DiskFaultKind::ReadCorrupt { bit }) => {
                let bit = bit % (read.len() as u64 * 8);
                read[(bit / 8) as usize] ^= 1 << (bit % 8);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Counts a mutating operation; `IO` once the node is crashing.
    fn begin(&mut self) -> Result<u64, Errno> {
        match self.disk.as_deref_mut() {
            None => Ok(0),
            Some(d) if d.crashing.is_some() => Err(Errno::IO),
            Some(d) => Ok(d.faults.count()),
        }
    }

    /// Starts an atomic operation that passed its checks: `IO` if the node
    /// crashes before it takes effect. A crash after it is reported by
    /// `end_op`.
    pub(super) fn begin_op(&mut self, on: DiskOp) -> Result<(), Errno> {
        let op = self.begin()?;
        let Some(d) = self.disk.as_deref_mut() else { return Ok(()) };
        if let Some(fault) = d.faults.crash_in(op, on, &[0]) {
            d.crashing = Some(fault);
            if fault.kind == (DiskFaultKind::Crash { applied: Prefix::default() }) {
                return Err(Errno::IO);
            }
        }
        Ok(())
    }

    /// Starts a write of `len` bytes at `offset` that passed its checks: how
    /// many of them to write, or `IO` if none is written before the crash,
    /// or the errno of a failed write (rule 12).
    pub(super) fn begin_write(&mut self, offset: u64, len: usize) -> Result<usize, Errno> {
        let op = self.begin()?;
        let Some(d) = self.disk.as_deref_mut() else { return Ok(len) };
        let Some(fault) = d.faults.crash_in(op, DiskOp::Write, &[len]) else {
            return match d.faults.write_error(op).map(|f| f.kind) {
                Some(DiskFaultKind::WriteEio) => Err(Errno::IO),
                Some(_) => Err(Errno::NOSPC),
                None => Ok(len),
            };
        };
        d.crashing = Some(fault);
        let sector = d.faults.config().torn_sector;
        match fault.kind {
            DiskFaultKind::Crash { applied } if applied.is_all(1) => Ok(len),
            // The node dies before the guest reads its page cache again, so
            // the part written matters only as what may reach the disk: a
            // sector-atomic disk writes whole sectors of it (rule 4).
            DiskFaultKind::Crash { applied } => match crash_states::cut(applied, Some(offset), sector).bytes {
                0 => Err(Errno::IO),
                bytes => Ok(bytes),
            },
            _ => Err(Errno::IO),
        }
    }

    /// The result of an operation that took effect: `IO` instead if the node
    /// crashed in its middle.
    pub(super) fn end_op<T>(&self, value: T) -> Result<T, Errno> {
        match self.crash_requested() {
            Some(_) => Err(Errno::IO),
            None => Ok(value),
        }
    }

    /// `ino` was made and named (`dir`, `name`).
    pub(super) fn disk_created(&mut self, dir: Ino, name: &str, ino: Ino) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        let Ok(inode) = self.inodes.get(ino) else { return };
        d.records.insert(ino, Record::of(inode, 0));
        if d.strict_dirs() {
            return;
        }
        if matches!(inode.node, Node::File(_)) {
            d.unsynced.insert(ino, (dir, name.to_string()));
        } else {
            d.set_entry(dir, name, Some(ino));
        }
    }

    /// The name (`dir`, `name`) of `ino` was removed.
    pub(super) fn disk_removed(&mut self, dir: Ino, name: &str, ino: Ino) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        d.settle(ino, dir, name);
        let old = if d.strict_dirs() { None } else { d.set_entry(dir, name, None) };
        self.disk_collect(old);
        self.disk_collect(Some(ino));
    }

    /// `ino` was renamed from (`from_dir`, `from`) to (`to_dir`, `to`); the
    /// inode `to` named before was removed already (`disk_removed`).
    pub(super) fn disk_renamed(&mut self, from_dir: Ino, from: &str, to_dir: Ino, to: &str, ino: Ino) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        d.settle(ino, from_dir, from);
        if d.strict_dirs() {
            return;
        }
        let replaced = d.set_entry(to_dir, to, Some(ino));
        let moved = d.set_entry(from_dir, from, None);
        self.disk_collect(replaced);
        self.disk_collect(moved);
    }

    /// The mutant `RenameLosesTarget`: a crash in the middle of the rename
    /// to (`to_dir`, `to`) leaves no durable name there.
    pub(super) fn disk_rename_crashed(&mut self, to_dir: Ino, to: &str) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        if d.crashing.is_some() && d.faults.config().mutant == Some(Mutant::RenameLosesTarget) {
            let lost = d.set_entry(to_dir, to, None);
            self.disk_collect(lost);
        }
    }

    /// Whether writes through O_SYNC/O_DSYNC descriptors must be synced
    /// (not under the mutant that ignores those flags).
    pub fn honours_sync_flags(&self) -> bool {
        self.disk.as_ref().is_none_or(|d| d.faults.config().mutant != Some(Mutant::SyncFlagsIgnored))
    }

    /// `ino` got the new name (`dir`, `name`).
    pub(super) fn disk_linked(&mut self, dir: Ino, name: &str, ino: Ino) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        if !d.strict_dirs() {
            let old = d.set_entry(dir, name, Some(ino));
            self.disk_collect(old);
        }
    }

    /// `data` is being written to the page cache of file `ino` at
    /// `offset`. Its copy is guest-sized: `NOMEM` if the host cannot hold
    /// it.
    pub(super) fn disk_wrote(&mut self, ino: Ino, offset: u64, data: &[u8]) -> Result<(), Errno> {
        if let Some(file) = self.disk.as_deref_mut().and_then(|d| d.file(ino)) {
            let mut bytes = Vec::new();
            bytes.try_reserve_exact(data.len()).map_err(|_| Errno::NOMEM)?;
            bytes.extend_from_slice(data);
            file.push(Pending::Write { offset, bytes });
        }
        Ok(())
    }

    /// The page cache of file `ino` was truncated or extended to `size`.
    pub(super) fn disk_resized(&mut self, ino: Ino, size: u64) {
        if let Some(file) = self.disk.as_deref_mut().and_then(|d| d.file(ino)) {
            file.push(Pending::SetSize(size));
        }
    }

    /// The host entry `name` of `dir` was read in as `child` (rule 8).
    pub(super) fn disk_host_entry(&mut self, dir: Ino, name: &str, child: Ino) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        let Ok(inode) = self.inodes.get(child) else { return };
        d.records.insert(child, Record::of(inode, 0));
        d.set_entry(dir, name, Some(child));
    }

    /// All host entries of `dir` were read in.
    pub(super) fn disk_host_loaded(&mut self, dir: Ino) {
        if let Some(Record { disk: OnDisk::Dir { host, .. }, .. }) =
            self.disk.as_deref_mut().and_then(|d| d.records.get_mut(&dir))
        {
            *host = None;
        }
    }

    /// A host directory was mounted while `disk` was taken out (rule 9).
    pub(super) fn disk_remount(&mut self, disk: Option<Box<Durability>>) {
        if let Some(d) = disk {
            let Durability { faults, .. } = *d;
            self.start_disk_model(faults);
        }
    }

    /// Drops the records of inodes neither the page cache nor a durable
    /// entry holds any more, and what only they held.
    pub(super) fn disk_collect(&mut self, ino: Option<Ino>) {
        let Some(d) = self.disk.as_deref_mut() else { return };
        let mut work: Vec<Ino> = ino.into_iter().collect();
        while let Some(ino) = work.pop() {
            let dead = d.records.get(&ino).is_some_and(|r| r.links == 0) && self.inodes.get(ino).is_err();
            if !dead {
                continue;
            }
            d.unsynced.remove(&ino);
            if let Some(Record { disk: OnDisk::Dir { entries, .. }, .. }) = d.records.remove(&ino) {
                for child in entries.into_values() {
                    if let Some(record) = d.records.get_mut(&child) {
                        record.links -= 1;
                    }
                    work.push(child);
                }
            }
        }
    }
}
