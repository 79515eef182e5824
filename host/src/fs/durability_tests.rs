//! The disk durability contract (`durability.rs`), one test per rule, each
//! proving its rule fired: what survives a crash differs from what the page
//! cache showed just before it, exactly as the rule says.

use super::testutil::*;
use super::*;
use crate::random::{CrashKey, Purpose, RandomStream};

fn model(config: DiskConfig, faults: &[DiskFault]) -> Fs {
    let mut fs = Fs::new(T0);
    fs.start_disk_model(DiskFaults::replay(config, faults));
    fs
}

fn base() -> Fs {
    model(DiskConfig::default(), &[])
}

fn strict() -> Fs {
    model(DiskConfig { strict_dirs: true, ..DiskConfig::default() }, &[])
}

const TORN: DiskConfig = DiskConfig {
    crash_on_io: 0.0,
    torn_writes: true,
    torn_sector: 1,
    fsync_eio: 0.0,
    strict_dirs: false,
    write_eio: 0.0,
    write_enospc: 0.0,
    read_eio: 0.0,
    read_corrupt: 0.0,
    lost_write: 0.0,
    misdirected_write: 0.0,
    reorder_writes: false,
    fs_model: FsModel::Ext4Ordered,
    corrupt_on_crash: 0.0,
    mutant: None,
};

fn torn_stream(seed: u64) -> RandomStream {
    RandomStream::new(seed, Purpose::TornWrites, "n", 1)
}

fn crash(fs: &mut Fs) -> CrashReport {
    fs.crash(&mut torn_stream(0))
}

fn ino(fs: &mut Fs, path: &str) -> Ino {
    fs.lookup(fs.root(), path, true).unwrap()
}

fn sync(fs: &mut Fs, path: &str) {
    let ino = ino(fs, path);
    fs.sync(ino).unwrap();
}

/// The contents of the file at `path`, or `None` if there is none.
fn contents(fs: &mut Fs, path: &str) -> Option<Vec<u8>> {
    match fs.lookup(fs.root(), path, true) {
        Err(Errno::NOENT) => None,
        Ok(_) => Some(read(fs, path)),
        Err(e) => panic!("{path}: {e}"),
    }
}

fn append(fs: &mut Fs, path: &str, data: &[u8]) {
    let file = ino(fs, path);
    let end = fs.size(file).unwrap();
    assert_eq!(fs.write_at(file, end, data, T0), Ok(data.len()));
}

fn strings(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

/// Every path under `/` with a file's contents, sorted.
fn tree(fs: &mut Fs) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let at = ino(fs, if dir.is_empty() { "/" } else { &dir });
        for entry in fs.read_dir(at).unwrap().into_iter().skip(2) {
            let path = format!("{dir}/{}", entry.name);
            let data = match entry.filetype {
                FileType::RegularFile => read(fs, &path),
                FileType::Directory => {
                    stack.push(path.clone());
                    Vec::new()
                }
                _ => Vec::new(),
            };
            out.push((path, data));
        }
    }
    out.sort();
    out
}

#[test]
fn rule1_writes_are_visible_at_once_but_only_pending() {
    let mut fs = base();
    let root = fs.root();
    let file = write(&mut fs, "/tmp/f", b"old", T0);
    fs.sync(file).unwrap();
    fs.write_at(file, 0, b"new", T0).unwrap();
    assert_eq!(read(&mut fs, "/tmp/f"), b"new", "visible at once");
    fs.link(root, "/tmp/f", root, "/tmp/g", T0).unwrap();
    assert_eq!(read(&mut fs, "/tmp/g"), b"new", "through every name");
    let report = crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"old", "the write was only in the page cache");
    assert_eq!(read(&mut fs, "/tmp/g"), b"old");
    let pending =
        FileCrash { path: "/tmp/f".into(), pending: 1, sizes: vec![3], kept: Prefix::default(), reordered: None };
    assert_eq!(report.files, [pending]);
}

#[test]
fn rule2_sync_makes_data_and_size_durable() {
    let mut fs = base();
    let file = write(&mut fs, "/tmp/f", b"hello world", T0);
    fs.sync(file).unwrap();
    fs.set_size(file, 5, T0).unwrap();
    fs.sync(file).unwrap();
    fs.write_at(file, 20, b"!", T0).unwrap();
    assert_eq!(fs.size(file), Ok(21));
    let report = crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"hello", "synced data and size, not the later write");
    assert_eq!(report.vanished, Vec::<String>::new());
    assert_eq!(report.files.len(), 1);
}

#[test]
fn rule3_crash_keeps_only_durable_state() {
    let mut fs = base();
    let root = fs.root();
    let kept = write(&mut fs, "/tmp/kept", b"k", T0);
    fs.sync(kept).unwrap();
    let lost = write(&mut fs, "/tmp/lost", b"never synced", T0);
    fs.retain(lost);
    let gone = write(&mut fs, "/tmp/gone", b"synced, then unlinked while open", T0);
    fs.sync(gone).unwrap();
    fs.retain(gone);
    fs.unlink(root, "/tmp/gone", T0).unwrap();
    let report = crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/lost"), None, "a file never synced disappears");
    assert_eq!(report.vanished, strings(&["/tmp/lost"]));
    assert_eq!(contents(&mut fs, "/tmp/kept"), Some(b"k".to_vec()));
    assert_eq!(fs.stat(lost), Err(Errno::BADF), "no hold survives");
    assert_eq!(fs.stat(gone), Err(Errno::BADF), "an unlinked open file goes with its holds");
    let st = fs.stat(kept).unwrap();
    assert_eq!((st.ino, st.nlink), (kept, 1), "survivors keep their numbers");
    let new = write(&mut fs, "/tmp/new", b"", T0);
    assert!(new > gone, "numbers are never reused");
}

#[test]
fn rule4_torn_writes_keep_a_seeded_in_order_prefix() {
    let all = b"aaaabbbbcccc";
    let run = |config: DiskConfig, seed: u64| {
        let mut fs = model(config, &[]);
        let file = write(&mut fs, "/tmp/log", b"", T0);
        fs.sync(file).unwrap();
        for chunk in all.chunks(4) {
            append(&mut fs, "/tmp/log", chunk);
        }
        let report = fs.crash(&mut torn_stream(seed));
        (read(&mut fs, "/tmp/log"), report)
    };
    let mut lengths = std::collections::BTreeSet::new();
    let mut mid_write = None;
    for seed in 0..64 {
        let (data, report) = run(TORN, seed);
        let kept = report.files[0].kept;
        assert_eq!(report.files[0].pending, 3);
        assert_eq!(data, all[..kept.ops * 4 + kept.bytes], "seed {seed}: an in-order prefix");
        assert_eq!(run(TORN, seed), (data.clone(), report), "seed {seed}: same seed, same prefix");
        lengths.insert(data.len());
        if kept.bytes > 0 && mid_write.is_none() {
            mid_write = Some((seed, data));
        }
    }
    let (seed, data) = mid_write.expect("some seed tears a write");
    assert_ne!(data.len() % 4, 0, "seed {seed} ends inside a write: {data:?}");
    assert!(lengths.contains(&0) && lengths.contains(&12), "{lengths:?}");
    assert_eq!(run(DiskConfig::default(), 7).0, b"", "without torn_writes nothing pending survives");
}

/// `/tmp/log` with 100 durable bytes, then appends of these lengths, crashed
/// with `torn_sector` `sector` and `seed`: the bytes left and what was kept.
fn sector_crash(sector: u64, lengths: &[usize], seed: u64) -> (Vec<u8>, Prefix) {
    let mut fs = model(DiskConfig { torn_sector: sector, ..TORN }, &[]);
    write(&mut fs, "/tmp/log", &[b'd'; 100], T0);
    sync(&mut fs, "/tmp/log");
    for (i, &len) in lengths.iter().enumerate() {
        append(&mut fs, "/tmp/log", &vec![b'a' + i as u8; len]);
    }
    let report = fs.crash(&mut torn_stream(seed));
    (read(&mut fs, "/tmp/log"), report.files[0].kept)
}

#[test]
fn rule4_torn_sector_tears_only_at_sector_boundaries_of_the_file() {
    // At most rule 10's 1 KiB under test, so all of it stays pending.
    let lengths = [300, 600, 40, 60];
    let starts: Vec<usize> = lengths.iter().scan(100, |at, len| Some(std::mem::replace(at, *at + len))).collect();
    let mut torn = 0;
    for seed in 0..400 {
        let (data, kept) = sector_crash(512, &lengths, seed);
        let (bytewise, by_byte) = sector_crash(1, &lengths, seed);
        assert_eq!(kept.ops, by_byte.ops, "seed {seed}: the same draw, only cut back");
        assert!(bytewise.starts_with(&data), "seed {seed}: never more than byte-granular tearing keeps");
        let whole_ops = 100 + lengths[..kept.ops].iter().sum::<usize>();
        if kept.bytes > 0 {
            torn += 1;
            assert_eq!((starts[kept.ops] + kept.bytes) % 512, 0, "seed {seed}: {kept:?} ends mid-sector");
            assert_eq!(data.len() % 512, 0, "seed {seed}: the file ends on a sector");
        } else {
            assert_eq!(data.len(), whole_ops, "seed {seed}: whole writes only");
        }
        let page_cache: Vec<u8> = [vec![b'd'; 100]]
            .into_iter()
            .chain(lengths.iter().enumerate().map(|(i, &len)| vec![b'a' + i as u8; len]))
            .flatten()
            .collect();
        assert_eq!(data, page_cache[..data.len()], "seed {seed}: an in-order prefix");
    }
    assert!(torn > 20, "some seeds tear at a sector boundary: {torn}");
}

#[test]
fn rule4_a_write_inside_one_sector_is_kept_whole_or_not_at_all() {
    // 72 bytes at 100..172: no sector boundary of 512 inside them.
    let lengths: std::collections::BTreeSet<usize> =
        (0..200).map(|seed| sector_crash(512, &[72], seed).0.len()).collect();
    assert_eq!(lengths, [100, 172].into(), "never torn");
    let bytewise: std::collections::BTreeSet<usize> =
        (0..200).map(|seed| sector_crash(1, &[72], seed).0.len()).collect();
    assert!(bytewise.len() > 10, "byte-granular tears it: {bytewise:?}");
}

#[test]
fn rule4_torn_sector_1_is_byte_granular_as_before() {
    for seed in 0..100 {
        let run = |config: DiskConfig| {
            let mut fs = model(config, &[]);
            write(&mut fs, "/tmp/log", b"0123456789", T0);
            sync(&mut fs, "/tmp/log");
            append(&mut fs, "/tmp/log", b"abcdefghij");
            append(&mut fs, "/tmp/log", b"klmnopqrst");
            let report = fs.crash(&mut torn_stream(seed));
            (read(&mut fs, "/tmp/log"), report)
        };
        // The default config's 0 and a config's 1 both mean any byte.
        assert_eq!(run(DiskConfig { torn_sector: 1, ..TORN }), run(TORN), "seed {seed}");
    }
}

#[test]
fn rule5_a_crash_in_a_sync_tears_at_sectors_too() {
    // Op 5 is the sync: one pending write and 2 bytes of the next, which
    // starts at byte 4 of the file: no whole sector, so none of it.
    let applied = Prefix { ops: 1, bytes: 2 };
    let fault = DiskFault { op: 5, on: DiskOp::Sync, kind: DiskFaultKind::Crash { applied } };
    let run = |sector: u64| {
        let mut fs = model(DiskConfig { torn_sector: sector, ..DiskConfig::default() }, &[fault]);
        let file = write(&mut fs, "/tmp/f", b"", T0);
        fs.sync(file).unwrap();
        append(&mut fs, "/tmp/f", b"aaaa");
        append(&mut fs, "/tmp/f", b"bbbb");
        assert_eq!(fs.sync(file), Err(Errno::IO));
        crash(&mut fs);
        read(&mut fs, "/tmp/f")
    };
    assert_eq!(run(1), b"aaaabb");
    assert_eq!(run(512), b"aaaa");
}

#[test]
fn rule5_a_crash_in_a_write_leaves_whole_sectors_of_it() {
    // Op 4 is the write of 600 bytes at 100: 500 of them drawn, cut back
    // to byte 512 of the file (412 of them), or to none with 1 KiB sectors.
    let applied = Prefix { ops: 0, bytes: 500 };
    let fault = DiskFault { op: 4, on: DiskOp::Write, kind: DiskFaultKind::Crash { applied } };
    let run = |sector: u64| {
        let mut fs = model(DiskConfig { torn_sector: sector, ..TORN }, &[fault]);
        let file = write(&mut fs, "/tmp/f", &[b'd'; 100], T0);
        fs.sync(file).unwrap();
        let wrote = fs.write_at(file, 100, &[b'a'; 600], T0);
        (wrote, read(&mut fs, "/tmp/f").len())
    };
    assert_eq!(run(1), (Err(Errno::IO), 600));
    assert_eq!(run(512), (Err(Errno::IO), 512));
    assert_eq!(run(1024), (Err(Errno::IO), 100));
}

/// A deterministic workload for rule 5: it stops at the first error.
fn workload(fs: &mut Fs) -> Result<(), Errno> {
    let root = fs.root();
    for i in 0..30 {
        let path = format!("/tmp/f{i}");
        let file = fs.open(root, &path, CREATE, true, T0)?;
        fs.write_at(file, 0, format!("entry {i}").as_bytes(), T0)?;
        fs.sync(file)?;
        if i % 3 == 0 {
            fs.rename(root, &path, root, &format!("/tmp/r{i}"), T0)?;
        }
    }
    Ok(())
}

#[test]
fn rule5_crash_on_io_records_the_operation_and_replays_it() {
    let config = DiskConfig { crash_on_io: 0.05, ..TORN };
    let root = Fs::new(T0).root();
    let mut hits = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let mut fs = Fs::new(T0);
        fs.start_disk_model(DiskFaults::seeded(config, seed, "n"));
        if workload(&mut fs).is_ok() {
            continue;
        }
        let fault = fs.crash_requested().expect("the workload stopped on a crash");
        assert_eq!(fault.op, fs.disk_ops(), "the operation it hit is the last one counted");
        assert_eq!(fs.disk_faults(), [fault]);
        assert_eq!(fs.mkdir(root, "/tmp/x", T0), Err(Errno::IO), "nothing runs on a crashing disk");
        assert_eq!(fs.disk_ops(), fault.op, "and nothing more is counted");
        hits.insert((fault.op, fault.on));
        let report = fs.crash(&mut torn_stream(seed));
        assert_eq!(report.during, Some(fault));
        assert_eq!(fs.crash_requested(), None);
        let image = tree(&mut fs);

        let mut replayed = Fs::new(T0);
        replayed.start_disk_model(DiskFaults::replay(config, fs.disk_faults()));
        assert_eq!(workload(&mut replayed), Err(Errno::IO));
        assert_eq!(replayed.crash_requested(), Some(fault), "seed {seed}: the same fault at the same op");
        assert_eq!(replayed.crash(&mut torn_stream(seed)), report);
        assert_eq!(tree(&mut replayed), image, "seed {seed}: the same disk after the crash");

        fs.mkdir(root, "/tmp/after", T0).unwrap();
        assert_eq!(fs.disk_ops(), fault.op + 1, "the count goes on across crashes");
    }
    assert!(hits.len() >= 3, "different seeds hit different operations: {hits:?}");
}

#[test]
fn rule5_a_crash_in_an_operation_takes_effect_in_part() {
    let crash_at = |op, ops, bytes| DiskFault {
        op,
        on: DiskOp::Write, // informational only: replay ignores it
        kind: DiskFaultKind::Crash { applied: Prefix { ops, bytes } },
    };
    // Ops 1 and 2 are the create and the sync; op 3 is the write.
    let mut fs = model(DiskConfig::default(), &[crash_at(3, 0, 2)]);
    let file = write(&mut fs, "/tmp/f", b"", T0);
    fs.sync(file).unwrap();
    assert_eq!(fs.write_at(file, 0, b"abcdef", T0), Err(Errno::IO));
    assert_eq!(read(&mut fs, "/tmp/f"), b"ab", "two bytes reached the page cache");
    assert_eq!(fs.crash_requested().unwrap().on, DiskOp::Write, "the log says what the op was");

    // Op 5 is the sync: one pending write and two bytes of the next reach the disk.
    let mut fs = model(DiskConfig::default(), &[crash_at(5, 1, 2)]);
    let file = write(&mut fs, "/tmp/f", b"", T0);
    fs.sync(file).unwrap();
    append(&mut fs, "/tmp/f", b"aaaa");
    append(&mut fs, "/tmp/f", b"bbbb");
    assert_eq!(fs.sync(file), Err(Errno::IO));
    let report = crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"aaaabb", "without torn_writes: what the sync wrote");
    assert_eq!(report.during.unwrap().kind, DiskFaultKind::Crash { applied: Prefix { ops: 1, bytes: 2 } });

    // Op 4 is a rename, atomic: done (and durable at once without strict_dirs) or not.
    for (done, survivor) in [(1, "/tmp/b"), (0, "/tmp/a")] {
        let mut fs = model(DiskConfig::default(), &[crash_at(4, done, 0)]);
        let root = fs.root();
        let file = write(&mut fs, "/tmp/a", b"x", T0);
        fs.sync(file).unwrap();
        assert_eq!(fs.rename(root, "/tmp/a", root, "/tmp/b", T0), Err(Errno::IO));
        crash(&mut fs);
        assert_eq!(contents(&mut fs, survivor), Some(b"x".to_vec()), "applied {done}");
    }
}

#[test]
fn rule5_only_mutating_operations_are_counted() {
    let mut fs = base();
    let root = fs.root();
    let file = fs.open(root, "/tmp/f", CREATE, true, T0).unwrap(); // 1
    fs.write_at(file, 0, b"data", T0).unwrap(); // 2
    fs.write_at(file, 9, b"", T0).unwrap();
    fs.read_at(file, 0, &mut [0; 4]).unwrap();
    fs.stat(file).unwrap();
    fs.set_times(file, Some(1), Some(2), T0).unwrap();
    fs.open(root, "/tmp/f", CREATE, true, T0).unwrap();
    let trunc = OpenFlags { truncate: true, ..OpenFlags::default() };
    fs.open(root, "/tmp/f", trunc, true, T0).unwrap(); // 3
    fs.sync(file).unwrap(); // 4
    assert_eq!(fs.unlink(root, "/tmp/nope", T0), Err(Errno::NOENT));
    assert_eq!(fs.mkdir(root, "/tmp", T0), Err(Errno::EXIST));
    fs.mkdir(root, "/tmp/d", T0).unwrap(); // 5
    fs.rename(root, "/tmp/f", root, "/tmp/d/f", T0).unwrap(); // 6
    fs.link(root, "/tmp/d/f", root, "/tmp/g", T0).unwrap(); // 7
    fs.unlink(root, "/tmp/g", T0).unwrap(); // 8
    fs.symlink("d", root, "/tmp/l", T0).unwrap(); // 9
    fs.set_size(file, 2, T0).unwrap(); // 10
    let null = ino(&mut fs, "/dev/null");
    fs.write_at(null, 0, b"x", T0).unwrap();
    fs.sync(null).unwrap();
    let tmp = ino(&mut fs, "/tmp");
    fs.sync(tmp).unwrap(); // 11
    assert_eq!(fs.disk_ops(), 11);
}

#[test]
fn rule6_strict_dirs_lose_namespace_changes_until_the_directory_is_synced() {
    let mut fs = strict();
    let root = fs.root();
    let file = write(&mut fs, "/tmp/new", b"data", T0);
    fs.sync(file).unwrap();
    let report = crash(&mut fs);
    assert_eq!(report.vanished, strings(&["/tmp/new"]), "a synced file without a synced name");

    let file = write(&mut fs, "/tmp/new", b"data", T0);
    fs.sync(file).unwrap();
    sync(&mut fs, "/tmp");
    crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/new"), Some(b"data".to_vec()), "kept after the dir sync");

    fs.rename(root, "/tmp/new", root, "/tmp/renamed", T0).unwrap();
    let report = crash(&mut fs);
    assert_eq!((report.vanished, report.restored), (strings(&["/tmp/renamed"]), strings(&["/tmp/new"])));

    fs.rename(root, "/tmp/new", root, "/tmp/renamed", T0).unwrap();
    sync(&mut fs, "/tmp");
    crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/new"), None);
    assert_eq!(contents(&mut fs, "/tmp/renamed"), Some(b"data".to_vec()), "kept after the dir sync");

    fs.unlink(root, "/tmp/renamed", T0).unwrap();
    let report = crash(&mut fs);
    assert_eq!(report.restored, strings(&["/tmp/renamed"]), "an unsynced unlink is undone");

    fs.mkdir(root, "/tmp/d", T0).unwrap();
    let file = write(&mut fs, "/tmp/d/f", b"deep", T0);
    fs.sync(file).unwrap();
    sync(&mut fs, "/tmp/d");
    let report = crash(&mut fs);
    assert_eq!(report.vanished, strings(&["/tmp/d", "/tmp/d/f"]), "/tmp itself was not synced");
    let tmp = ino(&mut fs, "/tmp");
    assert_eq!(fs.stat(tmp).unwrap().nlink, 2);
}

#[test]
fn rule6_without_strict_dirs_namespace_changes_are_durable_at_once() {
    let mut fs = base();
    let root = fs.root();
    let file = write(&mut fs, "/tmp/a", b"v1", T0);
    fs.sync(file).unwrap();
    fs.rename(root, "/tmp/a", root, "/tmp/b", T0).unwrap();
    fs.mkdir(root, "/tmp/d", T0).unwrap();
    fs.symlink("b", root, "/tmp/l", T0).unwrap();
    crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/a"), None);
    assert_eq!(contents(&mut fs, "/tmp/b"), Some(b"v1".to_vec()), "no dir sync needed");
    assert_eq!(fs.readlink(root, "/tmp/l"), Ok("b".to_string()));
    assert!(fs.lookup(root, "/tmp/d", true).is_ok());

    fs.unlink(root, "/tmp/b", T0).unwrap();
    write(&mut fs, "/tmp/c", b"data not synced", T0);
    sync(&mut fs, "/tmp");
    write(&mut fs, "/tmp/new", b"unsynced", T0);
    let report = crash(&mut fs);
    assert_eq!(report.vanished, strings(&["/tmp/new"]), "a created file waits for a sync");
    assert_eq!(contents(&mut fs, "/tmp/b"), None, "the unlink was durable at once");
    assert_eq!(contents(&mut fs, "/tmp/c"), Some(Vec::new()), "its name synced with the dir, not its data");

    // The zero-length file: write a new version, rename it over, no sync.
    let old = write(&mut fs, "/tmp/db", b"old", T0);
    fs.sync(old).unwrap();
    write(&mut fs, "/tmp/db.tmp", b"new", T0);
    fs.rename(root, "/tmp/db.tmp", root, "/tmp/db", T0).unwrap();
    crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/db"), Some(Vec::new()), "neither old nor new");
}

#[test]
fn rule7_fsync_eio_drops_pending_writes_for_good() {
    // Ops: create 1, write 2, sync 3, write 4, sync 5 (EIO), sync 6, write 7, sync 8.
    let eio = DiskFault { op: 5, on: DiskOp::Sync, kind: DiskFaultKind::SyncEio };
    let mut fs = model(DiskConfig::default(), &[eio]);
    let file = write(&mut fs, "/tmp/f", b"A", T0);
    fs.sync(file).unwrap();
    fs.write_at(file, 1, b"B", T0).unwrap();
    assert_eq!(fs.disk_ops(), 4);
    assert_eq!(fs.sync(file), Err(Errno::IO));
    assert_eq!(fs.disk_faults(), [eio]);
    assert_eq!(read(&mut fs, "/tmp/f"), b"AB", "still readable from the page cache");
    fs.sync(file).unwrap();
    fs.write_at(file, 2, b"C", T0).unwrap();
    fs.sync(file).unwrap();
    assert_eq!(read(&mut fs, "/tmp/f"), b"ABC");
    assert_eq!(fs.crash_requested(), None, "EIO is not a crash");
    crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"A\0C", "B is gone though later syncs succeeded");

    // Drawn: every sync with something to lose fails; a failed sync makes no name durable.
    let mut fs = Fs::new(T0);
    let config = DiskConfig { fsync_eio: 1.0, ..DiskConfig::default() };
    fs.start_disk_model(DiskFaults::seeded(config, 1, "n"));
    let empty = write(&mut fs, "/tmp/empty", b"", T0);
    assert_eq!(fs.sync(empty), Ok(()), "nothing pending, nothing to fail");
    let file = write(&mut fs, "/tmp/g", b"data", T0);
    assert_eq!(fs.sync(file), Err(Errno::IO));
    assert_eq!(fs.disk_faults().len(), 1);
    let report = crash(&mut fs);
    assert_eq!(report.vanished, strings(&["/tmp/g"]));
}

#[test]
fn rule12_a_failed_write_changes_nothing_and_still_counts() {
    // Ops: create 1, write 2, sync 3, write 4 (EIO), write 5 (ENOSPC), write 6, sync 7.
    let eio = DiskFault { op: 4, on: DiskOp::Write, kind: DiskFaultKind::WriteEio };
    let enospc = DiskFault { op: 5, on: DiskOp::Write, kind: DiskFaultKind::WriteEnospc };
    let mut fs = model(DiskConfig::default(), &[eio, enospc]);
    let file = write(&mut fs, "/tmp/f", b"A", T0);
    fs.sync(file).unwrap();
    assert_eq!(fs.write_at(file, 1, b"BB", T0), Err(Errno::IO));
    assert_eq!(fs.write_at(file, 1, b"CC", T0), Err(Errno::NOSPC));
    assert_eq!((fs.disk_ops(), fs.disk_faults()), (5, &[eio, enospc][..]), "each counted and logged");
    assert_eq!(read(&mut fs, "/tmp/f"), b"A", "neither reached the page cache or the size");
    assert_eq!(fs.crash_requested(), None, "a failed write is not a crash");
    fs.write_at(file, 1, b"D", T0).unwrap();
    fs.sync(file).unwrap();
    crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"AD", "and nothing of them reached the disk");

    // Drawn, each from its own stream; a write that crashes is not also a failed write.
    for (config, errno, kind) in [
        (DiskConfig { write_eio: 1.0, ..DiskConfig::default() }, Errno::IO, DiskFaultKind::WriteEio),
        (DiskConfig { write_enospc: 1.0, ..DiskConfig::default() }, Errno::NOSPC, DiskFaultKind::WriteEnospc),
    ] {
        let mut fs = Fs::new(T0);
        fs.start_disk_model(DiskFaults::seeded(config, 1, "n"));
        let file = write(&mut fs, "/tmp/g", b"", T0);
        assert_eq!(fs.write_at(file, 0, b"data", T0), Err(errno));
        assert_eq!(fs.disk_faults(), [DiskFault { op: 2, on: DiskOp::Write, kind }]);
        assert_eq!(fs.size(file), Ok(0));
    }
    let mut fs = Fs::new(T0);
    let file = write(&mut fs, "/tmp/h", b"", T0);
    let both = DiskConfig { crash_on_io: 1.0, write_enospc: 1.0, ..DiskConfig::default() };
    fs.start_disk_model(DiskFaults::seeded(both, 1, "n"));
    assert_ne!(fs.write_at(file, 0, b"xyz", T0), Err(Errno::NOSPC));
    assert!(
        matches!(fs.disk_faults(), [DiskFault { kind: DiskFaultKind::Crash { .. }, .. }]),
        "{:?}",
        fs.disk_faults()
    );
}

#[test]
fn rule13_a_failed_or_corrupted_read_leaves_the_right_bytes_behind() {
    // Reads are numbered on their own: read 1 fails, read 2 has bit 8 flipped.
    let eio = DiskFault { op: 1, on: DiskOp::Read, kind: DiskFaultKind::ReadEio };
    let corrupt = DiskFault { op: 2, on: DiskOp::Read, kind: DiskFaultKind::ReadCorrupt { bit: 8 } };
    let mut fs = model(DiskConfig::default(), &[eio, corrupt]);
    let file = write(&mut fs, "/tmp/f", b"ABCD", T0);
    let mut buf = [0u8; 4];
    assert_eq!(fs.read_at(file, 0, &mut buf), Err(Errno::IO));
    assert_eq!(fs.read_at(file, 0, &mut buf), Ok(4));
    assert_eq!(&buf, b"A\x43CD", "bit 8 is the second byte's lowest: B (0x42) reads as C (0x43)");
    assert_eq!(read(&mut fs, "/tmp/f"), b"ABCD", "the page cache kept the right bytes");
    assert_eq!(fs.disk_reads(), 3);
    assert_eq!(fs.disk_faults(), [eio, corrupt]);
    assert_eq!(fs.disk_ops(), 2, "reads are not disk operations");
    assert_eq!(fs.read_at(file, 4, &mut buf), Ok(0), "a read of nothing is not counted");
    assert_eq!(fs.disk_reads(), 3);

    // Drawn: every read fails, or every read is corrupted by one bit.
    for config in [
        DiskConfig { read_eio: 1.0, ..DiskConfig::default() },
        DiskConfig { read_corrupt: 1.0, ..DiskConfig::default() },
    ] {
        let mut fs = Fs::new(T0);
        let file = write(&mut fs, "/tmp/g", b"hello", T0);
        fs.start_disk_model(DiskFaults::seeded(config, 1, "n"));
        let mut buf = [0u8; 5];
        match fs.read_at(file, 0, &mut buf) {
            Err(e) => assert_eq!((e, config.read_eio), (Errno::IO, 1.0)),
            Ok(n) => {
                let flipped: u32 = buf[..n].iter().zip(b"hello").map(|(a, b)| (a ^ b).count_ones()).sum();
                assert_eq!((n, flipped), (5, 1), "{buf:?}");
            }
        }
        assert_eq!(fs.disk_faults().len(), 1);
    }
}

#[test]
fn a_crash_restores_the_times_a_file_had_at_its_last_sync() {
    let mut fs = base();
    let file = write(&mut fs, "/tmp/f", b"A", T0);
    fs.sync(file).unwrap();
    fs.set_times(file, Some(T0 + 1), Some(T0 + 2), T0 + 3).unwrap();
    fs.sync(file).unwrap();
    let synced = fs.stat(file).unwrap();
    fs.write_at(file, 1, b"B", T0 + 50).unwrap();
    fs.accessed(file, T0 + 60);
    let before = fs.stat(file).unwrap();
    assert_eq!((before.atim, before.mtim), (T0 + 60, T0 + 50));
    crash(&mut fs);
    let file = ino(&mut fs, "/tmp/f");
    let after = fs.stat(file).unwrap();
    assert_eq!((after.atim, after.mtim, after.ctim), (synced.atim, synced.mtim, synced.ctim), "as of the last sync");
    assert_eq!((after.atim, after.mtim, after.ctim), (T0 + 1, T0 + 2, T0 + 3));
}

#[test]
fn each_mutant_breaks_its_promise_silently() {
    let mutant = |m, strict_dirs, faults: &[DiskFault]| {
        model(DiskConfig { mutant: Some(m), strict_dirs, ..DiskConfig::default() }, faults)
    };
    // fsync does nothing: a synced file is lost.
    let mut fs = mutant(Mutant::FsyncNoop, false, &[]);
    let file = write(&mut fs, "/tmp/f", b"data", T0);
    assert_eq!(fs.sync(file), Ok(()), "it says it worked");
    assert_eq!(crash(&mut fs).vanished, strings(&["/tmp/f"]));

    // Directory fsync does nothing: under strict_dirs the new name is lost.
    let mut fs = mutant(Mutant::DirFsyncNoop, true, &[]);
    let file = write(&mut fs, "/tmp/f", b"data", T0);
    fs.sync(file).unwrap();
    sync(&mut fs, "/tmp");
    crash(&mut fs);
    assert_eq!(contents(&mut fs, "/tmp/f"), None);

    // A crash in the middle of a rename leaves the target missing. Ops:
    // create 1, write 2, sync 3, create 4, write 5, sync 6, rename 7 (crash, done in full).
    let at_rename =
        DiskFault { op: 7, on: DiskOp::Rename, kind: DiskFaultKind::Crash { applied: Prefix { ops: 1, bytes: 0 } } };
    for (m, target) in [(None, Some(b"new".to_vec())), (Some(Mutant::RenameLosesTarget), None)] {
        let config = DiskConfig { mutant: m, ..DiskConfig::default() };
        let mut fs = model(config, &[at_rename]);
        let old = write(&mut fs, "/tmp/db", b"old", T0);
        fs.sync(old).unwrap();
        let new = write(&mut fs, "/tmp/db.tmp", b"new", T0);
        fs.sync(new).unwrap();
        assert_eq!(fs.rename(fs.root(), "/tmp/db.tmp", fs.root(), "/tmp/db", T0), Err(Errno::IO));
        crash(&mut fs);
        assert_eq!(contents(&mut fs, "/tmp/db"), target, "mutant {m:?}");
    }
    assert!(
        !model(DiskConfig { mutant: Some(Mutant::SyncFlagsIgnored), ..DiskConfig::default() }, &[])
            .honours_sync_flags()
    );
    assert!(base().honours_sync_flags());
}

/// A host directory for one test, removed when dropped.
struct HostDir(std::path::PathBuf);

impl HostDir {
    fn new(test: &str) -> HostDir {
        let path = std::env::temp_dir().join(format!("seedfall-disk-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(path.join("sub")).unwrap();
        std::fs::write(path.join("data.txt"), "host bytes").unwrap();
        std::fs::write(path.join("sub/inner"), "inner").unwrap();
        HostDir(path)
    }
}

impl Drop for HostDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn rule8_host_files_are_durable_from_the_start_and_tmp_is_a_disk() {
    let host = HostDir::new("rule8");
    let mut fs = Fs::new(T0);
    fs.mount_host(&host.0, "/m").unwrap();
    fs.start_disk_model(DiskFaults::replay(DiskConfig { strict_dirs: true, ..DiskConfig::default() }, &[]));
    let root = fs.root();
    let data = ino(&mut fs, "/m/data.txt");
    fs.write_at(data, 0, b"HOST", T0).unwrap();
    fs.unlink(root, "/m/sub/inner", T0).unwrap();
    let tmp = write(&mut fs, "/tmp/t", b"tmp", T0);
    fs.sync(tmp).unwrap();
    sync(&mut fs, "/tmp");
    assert_eq!(read(&mut fs, "/m/data.txt"), b"HOST bytes");
    let report = crash(&mut fs);
    assert_eq!(read(&mut fs, "/m/data.txt"), b"host bytes", "the host's bytes were durable");
    assert_eq!(report.restored, strings(&["/m/sub/inner"]));
    assert_eq!(read(&mut fs, "/m/sub/inner"), b"inner");
    assert_eq!(read(&mut fs, "/tmp/t"), b"tmp", "/tmp is not a tmpfs");

    let data = ino(&mut fs, "/m/data.txt");
    fs.write_at(data, 0, b"HOST", T0).unwrap();
    fs.sync(data).unwrap();
    crash(&mut fs);
    assert_eq!(read(&mut fs, "/m/data.txt"), b"HOST bytes", "a synced change to a host file");
    assert_eq!(std::fs::read(host.0.join("data.txt")).unwrap(), b"host bytes", "the host is never written");
}

#[test]
fn rule9_the_tree_at_the_start_is_durable() {
    let host = HostDir::new("rule9");
    let mut fs = Fs::new(T0);
    let root = fs.root();
    write(&mut fs, "/tmp/setup", b"s", T0);
    fs.mkdir(root, "/etc", T0).unwrap();
    fs.start_disk_model(DiskFaults::replay(DiskConfig { strict_dirs: true, ..DiskConfig::default() }, &[]));
    fs.mount_host(&host.0, "/late/mount").unwrap();
    assert_eq!(fs.disk_ops(), 0, "mounting is setup, not disk operations");
    let report = crash(&mut fs);
    assert_eq!(report.vanished, Vec::<String>::new());
    assert_eq!(read(&mut fs, "/tmp/setup"), b"s");
    assert_eq!(read(&mut fs, "/late/mount/data.txt"), b"host bytes");
    assert!(fs.lookup(root, "/etc", true).is_ok());
    let null = ino(&mut fs, "/dev/null");
    assert_eq!(fs.stat(null).unwrap().filetype, FileType::CharacterDevice);
}

#[test]
fn rule10_writeback_keeps_pending_writes_bounded() {
    // Under test the threshold is 1 KiB: the fifth 256-byte write passes it
    // and the three oldest go to disk, leaving 512 bytes pending.
    let mut fs = base();
    let file = write(&mut fs, "/tmp/big", b"", T0);
    fs.sync(file).unwrap();
    let chunks: Vec<Vec<u8>> = (0..6u8).map(|i| vec![b'0' + i; 256]).collect();
    for chunk in &chunks {
        append(&mut fs, "/tmp/big", chunk);
    }
    let report = crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/big"), chunks[..3].concat(), "written back without a sync");
    assert_eq!(report.files[0].pending, 3);
}

#[test]
fn rule11_every_injected_fault_is_logged_with_its_operation() {
    let config = DiskConfig { crash_on_io: 0.0, fsync_eio: 0.5, ..DiskConfig::default() };
    let run = |faults: DiskFaults| {
        let mut fs = Fs::new(T0);
        fs.start_disk_model(faults);
        let file = write(&mut fs, "/tmp/f", b"", T0);
        let mut results = Vec::new();
        for i in 0..40u8 {
            fs.write_at(file, u64::from(i), &[i], T0).unwrap();
            results.push((fs.disk_ops(), fs.sync(file)));
        }
        (results, fs.disk_faults().to_vec())
    };
    let (results, log) = run(DiskFaults::seeded(config, 3, "n"));
    let failed: Vec<u64> = results.iter().filter(|(_, r)| r.is_err()).map(|(op, _)| op + 1).collect();
    assert!(failed.len() > 5 && failed.len() < 35, "{failed:?}");
    assert_eq!(log.iter().map(|f| f.op).collect::<Vec<_>>(), failed, "each EIO logged at its sync");
    assert_eq!(run(DiskFaults::replay(config, &log)), (results, log.clone()), "replayed exactly");
    assert_eq!(run(DiskFaults::seeded(config, 3, "n")).1, log, "seeded: same seed, same faults");
}

#[test]
fn crash_without_the_model_keeps_everything_but_the_holds() {
    let mut fs = Fs::new(T0);
    let file = write(&mut fs, "/tmp/f", b"final", T0);
    let open = write(&mut fs, "/tmp/open", b"", T0);
    fs.retain(open);
    fs.unlink(fs.root(), "/tmp/open", T0).unwrap();
    let report = crash(&mut fs);
    assert_eq!(report, CrashReport::default());
    assert_eq!(read(&mut fs, "/tmp/f"), b"final");
    assert_eq!(fs.stat(file).unwrap().ino, file);
    assert_eq!(fs.stat(open), Err(Errno::BADF));
    assert_eq!(fs.disk_records(), 0, "still no model");
}

#[test]
fn records_of_dead_inodes_are_dropped() {
    let mut fs = strict();
    let root = fs.root();
    let start = fs.disk_records();
    for i in 0..20 {
        let path = format!("/tmp/f{i}");
        let file = write(&mut fs, &path, b"x", T0);
        fs.sync(file).unwrap();
        fs.unlink(root, &path, T0).unwrap();
    }
    assert_eq!(fs.disk_records(), start, "never durable, freed by unlink");
    let file = write(&mut fs, "/tmp/kept", b"x", T0);
    sync(&mut fs, "/tmp");
    fs.unlink(root, "/tmp/kept", T0).unwrap();
    assert_eq!(fs.disk_records(), start + 1, "still named on the disk");
    sync(&mut fs, "/tmp");
    assert_eq!(fs.disk_records(), start, "gone once the unlink is durable");
    assert_eq!(fs.stat(file), Err(Errno::BADF));
}

#[test]
fn rule4_a_crash_given_prefixes_keeps_exactly_them_in_file_order() {
    // Every state `CrashSpace` names is one a crash can leave: here the
    // second of two pending writes torn after 2 bytes, and the other file untouched.
    let mut fs = base();
    let f = write(&mut fs, "/tmp/f", b"", T0);
    let g = write(&mut fs, "/tmp/g", b"", T0);
    fs.sync(f).unwrap();
    fs.sync(g).unwrap();
    fs.write_at(f, 0, b"one", T0).unwrap();
    fs.write_at(f, 3, b"two", T0).unwrap();
    fs.write_at(g, 0, b"gee", T0).unwrap();
    let report = fs.crash_into(&[Prefix { ops: 1, bytes: 2 }]);
    assert_eq!(read(&mut fs, "/tmp/f"), b"onetw");
    assert_eq!(read(&mut fs, "/tmp/g"), b"", "no prefix given: nothing pending survives");
    let space = super::CrashSpace::of(&report.choices);
    let file = |path: &str, sizes: Vec<usize>, offsets: Vec<u64>| super::Choice {
        of: super::ChoiceOf::File(path.to_string()),
        sizes,
        offsets,
        sector: 0,
    };
    assert_eq!(space.choices, [file("/tmp/f", vec![3, 3], vec![0, 3]), file("/tmp/g", vec![3], vec![0])]);
    assert_eq!(space.count(), (3 + 3 + 1) * (3 + 1));
}

/// A crash of `/tmp/f` (durable: 8 KiB of `d`, then an overwrite of its
/// second page and two appends) and of a create in `/tmp` not yet durable,
/// its choices drawn from `random` or given: the file's bytes and whether
/// `/tmp/new` survived, with the crash's choices.
fn reorder_crash(
    fs_model: FsModel,
    crash: impl FnOnce(&mut Fs) -> CrashReport,
) -> ((Vec<u8>, bool), Vec<super::Choice>) {
    let config = DiskConfig { reorder_writes: true, fs_model, strict_dirs: true, ..DiskConfig::default() };
    let mut fs = model(config, &[]);
    let f = write(&mut fs, "/tmp/f", &[b'd'; 8192], T0);
    fs.sync(f).unwrap();
    sync(&mut fs, "/tmp");
    fs.write_at(f, 4096, b"OO", T0).unwrap();
    fs.write_at(f, 8192, b"A", T0).unwrap();
    fs.write_at(f, 8193, b"B", T0).unwrap();
    write(&mut fs, "/tmp/new", b"", T0);
    let report = crash(&mut fs);
    let bytes = read(&mut fs, "/tmp/f");
    let new = contents(&mut fs, "/tmp/new").is_some();
    (([&bytes[4096..4098], &bytes[8192..]].concat(), new), report.choices)
}

#[test]
fn rule16_crashstates_lists_exactly_the_states_a_reordering_crash_can_draw() {
    for fs_model in [FsModel::Ext4Ordered, FsModel::PageIndependent, FsModel::DirReorder] {
        let stream = |seed| RandomStream::new(seed, Purpose::Crash(CrashKey::Time(1)), "n", 0);
        let mut drawn = std::collections::BTreeSet::new();
        let mut space = None;
        for seed in 0..3000 {
            let (outcome, choices) = reorder_crash(fs_model, |fs| fs.crash(&mut stream(seed)));
            drawn.insert(outcome);
            space.get_or_insert(super::CrashSpace::of(&choices));
        }
        let space = space.unwrap();
        let listed: std::collections::BTreeSet<_> =
            (0..space.count()).map(|i| reorder_crash(fs_model, |fs| fs.crash_into(&space.state(i))).0).collect();
        // Under torn_writes off, a draw never tears; the listing does (a
        // real disk can): the drawn outcomes are the listed untorn ones.
        let untorn: std::collections::BTreeSet<_> = (0..space.count())
            .map(|i| space.state(i))
            .filter(|state| state.iter().all(|p| p.bytes == 0))
            .map(|state| reorder_crash(fs_model, |fs| fs.crash_into(&state)).0)
            .collect();
        assert_eq!(drawn, untorn, "{fs_model:?}: every drawable state is listed");
        assert!(listed.is_superset(&untorn) && listed.len() > untorn.len(), "{fs_model:?}: and torn ones too");
        let survives_alone = |o: &(Vec<u8>, bool)| o.0.len() > 2 && o.0[..2] == *b"dd";
        assert!(listed.iter().any(survives_alone), "{fs_model:?}: the appends without the overwrite");
        let entry_choices = space.choices.iter().filter(|c| matches!(c.of, super::ChoiceOf::Entry(_))).count();
        assert_eq!(entry_choices > 0, fs_model == FsModel::DirReorder, "{fs_model:?}: {:?}", space.choices);
        assert_eq!(listed.iter().any(|o| o.1), fs_model == FsModel::DirReorder, "{fs_model:?}: the create survives");
    }
}

/// What survives of `/tmp/f` (durable: 8 KiB of `d`) after an overwrite of
/// its second page and two appends, over many crashes of `model`.
fn reordered_outcomes(fs_model: FsModel) -> std::collections::BTreeSet<Vec<u8>> {
    let config = DiskConfig { reorder_writes: true, fs_model, ..DiskConfig::default() };
    let mut outcomes = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let mut fs = model(config, &[]);
        let f = write(&mut fs, "/tmp/f", &[b'd'; 8192], T0);
        fs.sync(f).unwrap();
        fs.write_at(f, 4096, b"O", T0).unwrap();
        fs.write_at(f, 8192, b"A", T0).unwrap();
        fs.write_at(f, 8193, b"B", T0).unwrap();
        let report = fs.crash(&mut RandomStream::new(seed, Purpose::Crash(CrashKey::Time(1)), "n", 0));
        assert_eq!(report.files[0].reordered.map(|(_, pieces)| pieces), Some(3), "{report:?}");
        let bytes = read(&mut fs, "/tmp/f");
        // The overwritten byte, then what was appended.
        outcomes.insert([&bytes[4096..4097], &bytes[8192..]].concat());
    }
    outcomes
}

#[test]
fn rule16_reordered_writeback_keeps_what_the_fs_model_allows() {
    let ext4 = reordered_outcomes(FsModel::Ext4Ordered);
    let expected: std::collections::BTreeSet<Vec<u8>> =
        [&b"d"[..], b"dA", b"dAB", b"O", b"OA", b"OAB"].iter().map(|b| b.to_vec()).collect();
    assert_eq!(ext4, expected, "appends as an in-order prefix, the overwrite on its own, before or after");
    let pages = reordered_outcomes(FsModel::PageIndependent);
    assert!(pages.is_superset(&ext4) && pages.len() == ext4.len(), "two appends in one page stay ordered");
    // Without reorder_writes the same crash keeps an in-order prefix only:
    // never the append without the overwrite that came first.
    assert!(!model(TORN, &[]).reorders_writes());
    for seed in 0..50 {
        let mut copy = model(TORN, &[]);
        let g = write(&mut copy, "/tmp/f", &[b'd'; 8192], T0);
        copy.sync(g).unwrap();
        copy.write_at(g, 4096, b"O", T0).unwrap();
        copy.write_at(g, 8192, b"A", T0).unwrap();
        copy.crash(&mut torn_stream(seed));
        let bytes = read(&mut copy, "/tmp/f");
        assert!(!(bytes[4096] == b'd' && bytes.len() > 8192), "in order without rule 16");
    }
}

#[test]
fn rule16_a_later_page_survives_an_earlier_one_only_when_pages_are_independent() {
    let later_alone = |fs_model: FsModel| {
        (0..200).any(|seed| {
            let config = DiskConfig { reorder_writes: true, fs_model, ..DiskConfig::default() };
            let mut fs = model(config, &[]);
            let f = write(&mut fs, "/tmp/f", b"", T0);
            fs.sync(f).unwrap();
            // Small writes: rule 10 writes back past 1 KiB under test.
            fs.write_at(f, 0, b"1", T0).unwrap();
            fs.write_at(f, 4096, b"2", T0).unwrap();
            fs.crash(&mut RandomStream::new(seed, Purpose::Crash(CrashKey::Time(1)), "n", 0));
            let bytes = read(&mut fs, "/tmp/f");
            bytes.len() == 4097 && bytes[0] == 0 && bytes[4096] == b'2'
        })
    };
    assert!(later_alone(FsModel::PageIndependent), "the second page without the first: a hole before it");
    assert!(!later_alone(FsModel::Ext4Ordered), "appends are ordered under ext4_ordered");
}

#[test]
fn rule17_corrupt_on_crash_flips_one_bit_of_what_the_crash_wrote() {
    let crashed = |corrupt_on_crash: f64, seed: u64| {
        let mut fs = model(DiskConfig { corrupt_on_crash, ..TORN }, &[]);
        let f = write(&mut fs, "/tmp/f", b"durable", T0);
        fs.sync(f).unwrap();
        fs.write_at(f, 7, b"-pending", T0).unwrap();
        let report = fs.crash(&mut torn_stream(seed));
        (report, read(&mut fs, "/tmp/f"))
    };
    let mut flipped = 0;
    for seed in 0..40 {
        let (report, bytes) = crashed(1.0, seed);
        assert_eq!(crashed(0.0, seed).0.corrupted, None);
        assert_eq!(&bytes[..7], b"durable", "only what the crash wrote can flip");
        match &report.corrupted {
            None => assert_eq!(report.files[0].kept, Prefix::default(), "nothing written, nothing flipped"),
            Some((path, offset, bit)) => {
                flipped += 1;
                assert_eq!(path, "/tmp/f");
                assert!((7..15).contains(offset), "{offset}");
                let differ: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != b"durable-pending"[i]).collect();
                assert_eq!(differ, [*offset as usize], "one byte differs from what was written");
                assert_eq!(bytes[*offset as usize] ^ b"durable-pending"[*offset as usize], 1 << bit, "by one bit");
            }
        }
    }
    assert!(flipped > 10, "a crash that writes something flips a bit: {flipped} of 40");
}

#[test]
fn rule18_bitrot_flips_a_durable_bit_the_page_cache_hides_until_a_crash() {
    let mut fs = base();
    assert_eq!(fs.rot(5), None, "no durable file bytes, nothing to rot");
    let f = write(&mut fs, "/tmp/f", b"hello", T0);
    fs.sync(f).unwrap();
    let (path, offset, bit) = fs.rot(8 * 3 + 2).expect("rots");
    assert_eq!((path.as_str(), offset, bit), ("/tmp/f", 3, 2));
    assert_eq!(read(&mut fs, "/tmp/f"), b"hello", "the page cache keeps the right bytes");
    crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), [b'h', b'e', b'l', b'l' ^ 4, b'o'], "the disk had the rotten bit");
    assert_eq!(fs.rot(8 * 5 + 1).map(|(_, offset, bit)| (offset, bit)), Some((0, 1)), "the pick wraps around");
}

#[test]
fn rule16_dir_reorder_lets_each_pending_name_survive_on_its_own() {
    let outcomes = |fs_model: FsModel| {
        let config = DiskConfig { reorder_writes: true, fs_model, strict_dirs: true, ..DiskConfig::default() };
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..64 {
            let mut fs = model(config, &[]);
            for name in ["/tmp/a", "/tmp/b"] {
                let f = write(&mut fs, name, b"x", T0);
                fs.sync(f).unwrap();
            }
            // Neither name is durable: /tmp was never synced.
            fs.crash(&mut RandomStream::new(seed, Purpose::Crash(CrashKey::Time(1)), "n", 0));
            seen.insert((contents(&mut fs, "/tmp/a").is_some(), contents(&mut fs, "/tmp/b").is_some()));
        }
        seen
    };
    let all: std::collections::BTreeSet<(bool, bool)> =
        [(false, false), (false, true), (true, false), (true, true)].into_iter().collect();
    assert_eq!(outcomes(FsModel::DirReorder), all, "each create on its own");
    assert_eq!(outcomes(FsModel::PageIndependent), [(false, false)].into_iter().collect(), "strict_dirs alone");
}

const PAGE: usize = 4096;

/// Writes 100 bytes of `byte` at the start of page `page` (small, so they
/// stay pending under the test's writeback threshold, rule 10).
fn stamp(fs: &mut Fs, file: Ino, page: u64, byte: u8) {
    fs.write_at(file, page * PAGE as u64, &[byte; 100], T0).unwrap();
}

/// A file of three durable pages of `o` (old), then the start of each page
/// overwritten with `n` (new) and synced under `faults`. Ops: create 1,
/// write 2, sync 3, writes 4 to 6, sync 7 (the one the faults hit).
fn three_pages_overwritten(faults: &[DiskFault]) -> Fs {
    let mut fs = model(DiskConfig::default(), faults);
    let file = write(&mut fs, "/tmp/f", &[b'o'; 3 * PAGE], T0);
    fs.sync(file).unwrap();
    for page in 0..3 {
        stamp(&mut fs, file, page, b'n');
    }
    assert_eq!((fs.sync(file), fs.disk_ops()), (Ok(()), 7), "the sync reports success");
    fs
}

/// The byte each page of `data` starts with.
fn page_heads(data: &[u8]) -> Vec<u8> {
    data.chunks(PAGE).map(|page| page[0]).collect()
}

fn lost(page: u64) -> DiskFault {
    DiskFault { op: 7, on: DiskOp::Sync, kind: DiskFaultKind::LostWrite { page } }
}

#[test]
fn rule19_a_lost_write_is_read_back_right_before_a_crash() {
    let mut fs = three_pages_overwritten(&[lost(1)]);
    assert_eq!(fs.disk_faults(), [lost(1)]);
    assert_eq!(fs.disk_faults()[0].to_string(), "disk op 7 (sync): page 1 lost, the sync reported success");
    assert_eq!(page_heads(&read(&mut fs, "/tmp/f")), b"nnn", "the page cache has the new bytes");
    assert_eq!(fs.crash_requested(), None, "a lost write is silent");
}

#[test]
fn rule19_after_a_crash_the_lost_page_is_old_and_the_others_new() {
    let mut fs = three_pages_overwritten(&[lost(1)]);
    crash(&mut fs);
    let data = read(&mut fs, "/tmp/f");
    assert_eq!(page_heads(&data), b"non", "page 1 kept its old durable bytes, pages 0 and 2 are new");
    assert_eq!(data[PAGE..2 * PAGE], [b'o'; PAGE], "all of page 1");
    assert_eq!(data[..100], [b'n'; 100]);

    // A later sync that writes the page again makes that write durable.
    let mut fs = three_pages_overwritten(&[lost(1)]);
    let file = ino(&mut fs, "/tmp/f");
    fs.write_at(file, PAGE as u64, b"m", T0).unwrap();
    fs.sync(file).unwrap();
    crash(&mut fs);
    let data = read(&mut fs, "/tmp/f");
    assert_eq!((data[PAGE], data[PAGE + 1]), (b'm', b'o'), "the page as the second sync wrote it: old but for m");
}

#[test]
fn rule20_a_misdirected_page_lands_on_another_page_and_its_own_stays_old() {
    let misdirected = DiskFault { op: 5, on: DiskOp::Sync, kind: DiskFaultKind::MisdirectedWrite { page: 0, to: 2 } };
    let mut fs = model(DiskConfig::default(), &[misdirected]);
    let file = write(&mut fs, "/tmp/f", &[b'o'; 3 * PAGE], T0);
    fs.sync(file).unwrap();
    // Only page 0 changes: page 2 is not written by this sync at all.
    stamp(&mut fs, file, 0, b'n');
    assert_eq!(fs.sync(file), Ok(()));
    assert_eq!(fs.disk_faults(), [misdirected]);
    assert_eq!(
        fs.disk_faults()[0].to_string(),
        "disk op 5 (sync): page 0 written to page 2, the sync reported success"
    );
    assert_eq!(page_heads(&read(&mut fs, "/tmp/f")), b"noo", "the page cache is right");
    crash(&mut fs);
    let data = read(&mut fs, "/tmp/f");
    assert_eq!(page_heads(&data), b"oon", "page 0 old, page 2 holds page 0's new bytes");
    assert_eq!((data[2 * PAGE + 99], data[2 * PAGE + 100]), (b'n', b'o'), "the whole of page 0 as synced");

    // A file of one page has no other page: the bytes land past its end.
    let past = DiskFault { op: 5, on: DiskOp::Sync, kind: DiskFaultKind::MisdirectedWrite { page: 0, to: 1 } };
    let mut fs = model(DiskConfig::default(), &[past]);
    let file = write(&mut fs, "/tmp/f", b"old", T0);
    fs.sync(file).unwrap();
    fs.write_at(file, 0, b"new", T0).unwrap();
    fs.sync(file).unwrap();
    crash(&mut fs);
    assert_eq!(read(&mut fs, "/tmp/f"), b"old", "the size kept, nothing past it stored");
}

#[test]
fn rule19_and_20_drawn_faults_are_logged_by_sync_and_replay_from_the_log() {
    // Eight pages of `o`, then rounds of overwriting two pages and a sync.
    let run = |faults: DiskFaults| {
        let mut fs = Fs::new(T0);
        fs.start_disk_model(faults);
        let file = write(&mut fs, "/tmp/f", &[b'o'; 8 * PAGE], T0);
        fs.sync(file).unwrap();
        for round in 0..20u64 {
            stamp(&mut fs, file, round % 7, b'a' + round as u8);
            stamp(&mut fs, file, (round * 3 + 1) % 8, b'A' + round as u8);
            assert_eq!(fs.sync(file), Ok(()), "both faults are silent");
        }
        let log = fs.disk_faults().to_vec();
        crash(&mut fs);
        (log, read(&mut fs, "/tmp/f"))
    };
    for config in [
        DiskConfig { lost_write: 0.3, ..DiskConfig::default() },
        DiskConfig { misdirected_write: 0.3, ..DiskConfig::default() },
    ] {
        let (log, disk) = run(DiskFaults::seeded(config, 4, "n"));
        assert!(log.len() >= 2, "{log:?}");
        for fault in &log {
            assert_eq!(fault.on, DiskOp::Sync);
            assert_eq!(
                fault.op % 3,
                0,
                "at a sync's op (create 1, write 2, sync 3, then 2 writes and a sync): {fault}"
            );
            match fault.kind {
                DiskFaultKind::LostWrite { page } => assert!(page < 8),
                DiskFaultKind::MisdirectedWrite { page, to } => assert!(page < 8 && to < 8 && to != page),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(run(DiskFaults::seeded(config, 4, "n")), (log.clone(), disk.clone()), "same seed, same run");
        let (clean_log, clean) = run(DiskFaults::none());
        assert!(clean_log.is_empty() && clean != disk, "the faults changed what the disk kept");
        // Replayed: no probability, only the logged ops.
        assert_eq!(run(DiskFaults::replay(DiskConfig::default(), &log)), (log.clone(), disk), "replayed exactly");
        // Without the first one, it does not fire and the others still do.
        let (rest_log, _) = run(DiskFaults::replay(DiskConfig::default(), &log[1..]));
        assert_eq!(rest_log, log[1..], "a removed fault does not fire");
    }
    // No page written, nothing to lose: a sync of a resize alone draws nothing.
    let mut fs = Fs::new(T0);
    fs.start_disk_model(DiskFaults::seeded(DiskConfig { lost_write: 1.0, ..DiskConfig::default() }, 1, "n"));
    let file = write(&mut fs, "/tmp/g", b"", T0);
    fs.set_size(file, 3 * PAGE as u64, T0).unwrap();
    fs.sync(file).unwrap();
    assert_eq!(fs.disk_faults(), []);
}

#[test]
fn rule19_a_replayed_page_the_sync_did_not_write_is_bent_to_one_it_did() {
    // Only page 2 is rewritten; the log says page 7 (7 mod 1 touched page: page 2).
    let mut fs = model(DiskConfig::default(), &[DiskFault { op: 5, ..lost(7) }]);
    let file = write(&mut fs, "/tmp/f", &[b'o'; 3 * PAGE], T0);
    fs.sync(file).unwrap();
    stamp(&mut fs, file, 2, b'n');
    fs.sync(file).unwrap();
    let bent = DiskFault { op: 5, kind: DiskFaultKind::LostWrite { page: 2 }, ..lost(2) };
    assert_eq!(fs.disk_faults(), [bent], "the log says what happened");
    crash(&mut fs);
    assert_eq!(page_heads(&read(&mut fs, "/tmp/f")), b"ooo");
}
