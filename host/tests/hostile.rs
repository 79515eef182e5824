//! Issue 19, hostile guests: small WAT programs that try to make the host
//! allocate what the guest names (iovec sums of gigabytes, wrapping iovec
//! pointers, huge reads), run under `exec::run`. Each must end quickly
//! with an errno or a count, the host's memory staying bounded: the guest's
//! answers are written where the test reads them back.

use seedfall_engine::{Code, CompileConfig, compile};
use seedfall_host::exec::{self, Exit};
use seedfall_host::node::{CAPTURE_TAIL_BYTES, Output};
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::{ExecNode, Guest};
use std::sync::Arc;
use std::time::Duration;

/// A guest with `pages` of memory whose `_start` is `body`, with helpers:
/// `$open(path_ptr, path_len, oflags) -> fd`, `$iov(at, ptr, len)` storing one
/// iovec, and `$store(at, value)`.
fn guest(pages: u32, body: &str) -> Arc<Code> {
    let wat = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pwrite" (func $fd_pwrite (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (memory (export "memory") {pages})
  (data (i32.const 1024) "/dev/null")
  (data (i32.const 1040) "/tmp/big")
  (data (i32.const 1056) "/dev/urandom")
  (func $open (param $path i32) (param $len i32) (param $oflags i32) (result i32)
    (drop (call $path_open (i32.const 3) (i32.const 0) (local.get $path) (local.get $len) (local.get $oflags)
      (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))
    (i32.load (i32.const 600)))
  (func $iov (param $at i32) (param $ptr i32) (param $len i32)
    (i32.store (local.get $at) (local.get $ptr))
    (i32.store (i32.add (local.get $at) (i32.const 4)) (local.get $len)))
  (func (export "_start") (local $i i32) (local $fd i32)
    {body}))"#
    );
    let wasm = wat::parse_str(&wat).expect("valid WAT");
    Arc::new(Code::load(compile(&wasm, &CompileConfig::default()).expect("compiles")).expect("loads"))
}

/// Runs the guest; returns the u32s it left at 100, 104, 108, ... (`n` of them).
fn run(code: Arc<Code>, n: usize, capture: bool) -> (Vec<u32>, seedfall_host::node::Node) {
    let spec = ExecNode {
        name: "main".into(),
        seed: 1,
        argv: vec!["main".into()],
        env: vec![],
        mounts: vec![],
        preempt: PreemptConfig::default(),
    };
    let mut node = Guest::new(code.clone()).unwrap().exec_node(spec).unwrap();
    if capture {
        node.stdout = Output::Capture(Vec::new());
    }
    let (exit, mut instance) = exec::run(code, node, Duration::from_secs(10)).expect("runs");
    assert!(matches!(exit, Exit::Code(0)), "{:?}", matches!(exit, Exit::Trapped(_)));
    let memory = instance.memory().unwrap().bytes();
    let words = (0..n).map(|i| u32::from_le_bytes(memory[100 + 4 * i..104 + 4 * i].try_into().unwrap())).collect();
    let node = std::mem::replace(
        instance.data_mut(),
        seedfall_host::node::Node::new("x", 0, vec![], vec![], seedfall_host::fs::Fs::new(0)),
    );
    (words, node)
}

/// The process's peak resident set, in bytes (Linux).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[test]
fn issue_19_iovecs_adding_up_to_terabytes_are_streamed_not_gathered() {
    let before = peak_rss();
    // 16384 pages: 1 GiB of guest memory, never touched. 1024 iovecs of
    // all of it (1 TiB) to /dev/null, then to stdout (captured), then 1025.
    let body = "
      (local.set $fd (call $open (i32.const 1024) (i32.const 9) (i32.const 0)))
      (loop $l
        (call $iov (i32.add (i32.const 4096) (i32.mul (local.get $i) (i32.const 8))) (i32.const 0) (i32.const 0x40000000))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (i32.const 1025))))
      (i32.store (i32.const 100) (call $fd_write (local.get $fd) (i32.const 4096) (i32.const 1024) (i32.const 104)))
      (i32.store (i32.const 108) (call $fd_write (i32.const 1) (i32.const 4096) (i32.const 3) (i32.const 112)))
      (i32.store (i32.const 116) (call $fd_write (local.get $fd) (i32.const 4096) (i32.const 1025) (i32.const 120)))
      ;; An iovec array that wraps around the address space: EFAULT, not a read at 0.
      (i32.store (i32.const 124) (call $fd_write (local.get $fd) (i32.const 0xfffffff8) (i32.const 2) (i32.const 128)))
      ;; An iovec that runs past the end of memory.
      (call $iov (i32.const 8192) (i32.const 0x3fffff00) (i32.const 0x1000))
      (i32.store (i32.const 132) (call $fd_write (local.get $fd) (i32.const 8192) (i32.const 1) (i32.const 136)))";
    let (w, node) = run(guest(16384, body), 10, true);
    assert_eq!((w[0], w[1]), (0, 0x7fff_f000), "/dev/null: Linux's MAX_RW_COUNT, a short count");
    assert_eq!(w[2], 0, "stdout");
    assert_eq!(w[3], 0x7fff_f000, "3 GiB asked, MAX_RW_COUNT written");
    let kept = node.stdout.captured().len();
    assert!((CAPTURE_TAIL_BYTES..=2 * CAPTURE_TAIL_BYTES).contains(&kept), "the captured tail is bounded: {kept}");
    assert_eq!(node.output_dropped + kept as u64, 0x7fff_f000, "what was dropped is counted");
    assert_eq!(w[4], 28, "1025 iovecs: EINVAL (IOV_MAX is 1024)");
    assert_eq!(w[6], 21, "wrapping iovec array: EFAULT");
    assert_eq!(w[8], 21, "an iovec past the end of memory: EFAULT");
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 256 << 20, "peak RSS grew by {} MiB", grown >> 20);
}

/// Issue 19: random_get allocated a host buffer of the length the guest
/// named (4 GiB here) before checking it fits the guest's memory. A bad
/// range is EFAULT with nothing made; a good one is filled chunk by chunk.
#[test]
fn issue_19_random_get_checks_the_range_before_making_bytes() {
    let before = peak_rss();
    let body = "
      (i32.store (i32.const 100) (call $random_get (i32.const 0) (i32.const -1)))
      (i32.store (i32.const 104) (call $random_get (i32.const 0x3ffff0) (i32.const 0x20)))
      (i32.store (i32.const 108) (call $random_get (i32.const 4096) (i32.const 0x300000)))
      (i32.store (i32.const 112) (i32.load (i32.const 0x300ffc)))";
    let (w, _) = run(guest(64, body), 4, false);
    assert_eq!(&w[..3], [21, 21, 0], "4 GiB and past the end: EFAULT; 3 MiB in memory: filled");
    assert_ne!(w[3], 0, "the last chunk was filled too");
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 64 << 20, "peak RSS grew by {} MiB", grown >> 20);
}

/// Issue 19: a path is checked against PATH_MAX before it is copied out of
/// guest memory: 3 MiB of "path" is ENAMETOOLONG, past memory EFAULT.
#[test]
fn issue_19_a_guest_sized_path_is_refused_before_it_is_copied() {
    let body = "
      (i32.store (i32.const 100) (call $path_open (i32.const 3) (i32.const 0) (i32.const 0x1000) (i32.const 0x300000)
        (i32.const 0) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))
      (i32.store (i32.const 104) (call $path_open (i32.const 3) (i32.const 0) (i32.const 0x3ffff0) (i32.const 0x20)
        (i32.const 0) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))";
    let (w, _) = run(guest(64, body), 2, false);
    assert_eq!(w, [37, 21], "ENAMETOOLONG, EFAULT");
}

/// Issue 19: /dev holds seeded random devices. Reads of /dev/urandom are the
/// node's seeded bytes: the same for the same seed, never the host's.
#[test]
fn dev_urandom_reads_are_seeded_bytes() {
    let body = "
      (local.set $fd (call $open (i32.const 1056) (i32.const 12) (i32.const 0)))
      (call $iov (i32.const 4096) (i32.const 200) (i32.const 16))
      (i32.store (i32.const 100) (call $fd_read (local.get $fd) (i32.const 4096) (i32.const 1) (i32.const 104)))
      (i32.store (i32.const 108) (i32.load (i32.const 200)))
      (i32.store (i32.const 112) (i32.load (i32.const 212)))
      (i32.store (i32.const 116) (call $fd_write (local.get $fd) (i32.const 4096) (i32.const 1) (i32.const 120)))";
    let (first, _) = run(guest(1, body), 6, false);
    let (again, _) = run(guest(1, body), 6, false);
    assert_eq!((first[0], first[1]), (0, 16), "a read of 16 bytes gives 16");
    assert!(first[2] != 0 && first[3] != 0 && first[2] != first[3], "{first:x?}");
    assert_eq!((first[4], first[5]), (0, 16), "writes vanish, as Linux's");
    assert_eq!(first, again, "the same seed reads the same bytes");
}

#[test]
fn issue_19_a_huge_read_goes_through_a_bounded_buffer() {
    // A file extended to 256 MiB, read with one 256 MiB iovec and with
    // 1024 overlapping ones: the count is the file's, memory bounded.
    let body = "
      (local.set $fd (call $open (i32.const 1040) (i32.const 8) (i32.const 1)))
      (i32.store (i32.const 100) (call $set_size (local.get $fd) (i64.const 0x10000000)))
      (call $iov (i32.const 4096) (i32.const 0x100000) (i32.const 0x10000000))
      (i32.store (i32.const 104) (call $fd_read (local.get $fd) (i32.const 4096) (i32.const 1) (i32.const 108)))";
    let (w, _) = run(guest(16384, body), 3, false);
    assert_eq!(w, [0, 0, 0x1000_0000], "{w:x?}");
}

/// Issue 19: a file truncated to 1 GiB, then written a byte at 1 GiB and at
/// 1 TiB (a seek far past the end), costs two pages, not a gigabyte.
#[test]
fn issue_19_sparse_files_allocate_only_what_is_written() {
    let before = peak_rss();
    let body = "
      (local.set $fd (call $open (i32.const 1040) (i32.const 8) (i32.const 1)))
      (i32.store (i32.const 100) (call $set_size (local.get $fd) (i64.const 0x40000000)))
      (call $iov (i32.const 4096) (i32.const 1040) (i32.const 1))
      (i32.store (i32.const 104) (call $fd_pwrite (local.get $fd) (i32.const 4096) (i32.const 1) (i64.const 0x40000000)
        (i32.const 108)))
      (i32.store (i32.const 112) (call $fd_pwrite (local.get $fd) (i32.const 4096) (i32.const 1) (i64.const 0x10000000000)
        (i32.const 116)))";
    let (w, node) = run(guest(1, body), 5, false);
    assert_eq!(w, [0, 0, 1, 0, 1], "{w:x?}");
    assert_eq!(node.fs.disk_bytes_used(), 2 * 4096);
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 64 << 20, "peak RSS grew by {} MiB", grown >> 20);
}

/// Issue 19: a process holds at most `MAX_OPEN_FDS` descriptors; the next
/// open is EMFILE (33) and creates nothing, and a close frees a slot.
#[test]
fn issue_19_opening_past_the_fd_limit_is_emfile_and_a_close_frees_a_slot() {
    let body = "
      (block $done
        (loop $l
          (i32.store (i32.const 100) (call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (i32.const 9)
            (i32.const 0) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))
          (br_if $done (i32.load (i32.const 100)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $l)))
      (i32.store (i32.const 104) (local.get $i))
      ;; O_CREAT at the limit: EMFILE before the file is made.
      (i32.store (i32.const 108) (call $path_open (i32.const 3) (i32.const 0) (i32.const 1040) (i32.const 8)
        (i32.const 1) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))
      (i32.store (i32.const 112) (call $fd_close (i32.const 100)))
      (i32.store (i32.const 116) (call $open (i32.const 1024) (i32.const 9) (i32.const 0)))";
    let (w, mut node) = run(guest(1, body), 5, false);
    let opened = seedfall_host::fdtable::MAX_OPEN_FDS as u32 - 4; // 0-2 are stdio, 3 the preopen
    assert_eq!(w, [33, opened, 33, 0, 100], "{w:?}");
    let root = node.fs.root();
    assert_eq!(node.fs.lookup(root, "/tmp/big", true), Err(seedfall_host::fs::Errno::NOENT));
}

/// The CPU time this thread has run (Linux), which other processes on a
/// shared runner do not inflate as they do real time.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    Duration::from_nanos(stat.split_whitespace().next().and_then(|ns| ns.parse().ok()).unwrap_or(0))
}

/// Issue 19: 100,000 open/close cycles through WASI, in a debug build too.
#[test]
#[allow(clippy::disallowed_methods)] // timing the test itself, not the simulation
fn issue_19_a_hundred_thousand_opens_and_closes_take_under_two_seconds() {
    let body = "
      (loop $l
        (drop (call $fd_close (call $open (i32.const 1024) (i32.const 9) (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (i32.const 100000))))
      (i32.store (i32.const 100) (local.get $i))";
    let code = guest(1, body);
    let (started, cpu) = (std::time::Instant::now(), thread_cpu());
    let (w, _) = run(code, 1, false);
    let (elapsed, cpu) = (started.elapsed(), thread_cpu() - cpu);
    eprintln!("100,000 open/close cycles: {cpu:?} of CPU, {elapsed:?} real");
    assert_eq!(w, [100_000]);
    assert!(cpu < Duration::from_secs(2), "{cpu:?} of CPU");
}
