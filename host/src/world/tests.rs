//! `World` driven step by step with small WAT guests, without the CLI:
//! tie-breaking by seed, the order of faults due at one instant, quiet
//! windows, crash_io replay, supervised restarts, and the determinism
//! checks (a test hook makes the second run differ; the first divergence
//! must be named).

use super::divergence::compare_runs;
use super::*;
use crate::knob::KnobValue;
use crate::vtime::{SimDuration, SimTime};

/// A guest: `sleep(ns)` through poll_oneoff (absolute deadlines when
/// `ABS` is set), `tick`, `print_u64(v)` (decimal and a newline),
/// `clock(id)` (0 wall, 1 monotonic), file helpers; `_start` is `body`.
pub(super) fn guest(body: &str) -> Arc<Code> {
    let wat = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_sync" (func $fd_sync (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "seedfall" "quiet_for" (func $quiet (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "tick\n")
  (data (i32.const 1040) "f")
  ;; sleep: one clock subscription at 0, its event at 128.
  (func $sleep (param $ns i64) (param $abs i32)
    (i32.store (i32.const 16) (i32.const 1))
    (i64.store (i32.const 24) (local.get $ns))
    (i32.store16 (i32.const 40) (local.get $abs))
    (drop (call $poll (i32.const 0) (i32.const 128) (i32.const 1) (i32.const 256))))
  ;; print "tick\n" to stdout.
  (func $tick
    (i32.store (i32.const 512) (i32.const 1024))
    (i32.store (i32.const 516) (i32.const 5))
    (drop (call $fd_write (i32.const 1) (i32.const 512) (i32.const 1) (i32.const 520))))
  ;; print $v in decimal and a newline; digits end at 3000.
  (func $print_u64 (param $v i64) (local $p i32)
    (local.set $p (i32.const 3000))
    (i32.store8 (i32.const 3000) (i32.const 10))
    (loop $d
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $d (i64.ne (local.get $v) (i64.const 0))))
    (i32.store (i32.const 512) (local.get $p))
    (i32.store (i32.const 516) (i32.sub (i32.const 3001) (local.get $p)))
    (drop (call $fd_write (i32.const 1) (i32.const 512) (i32.const 1) (i32.const 520))))
  (func $clock (param $id i32) (result i64)
    (drop (call $clock_time_get (local.get $id) (i64.const 1) (i32.const 3100)))
    (i64.load (i32.const 3100)))
  ;; open "f" (created) and return its fd; $open_with takes WASI fdflags.
  (func $open (result i32) (call $open_with (i32.const 0)))
  (func $open_with (param $fdflags i32) (result i32)
    (drop (call $path_open (i32.const 3) (i32.const 0) (i32.const 1040) (i32.const 1) (i32.const 1)
      (i64.const -1) (i64.const -1) (local.get $fdflags) (i32.const 600)))
    (i32.load (i32.const 600)))
  ;; write "tick\n" to fd without syncing it.
  (func $put (param $fd i32)
    (i32.store (i32.const 512) (i32.const 1024))
    (i32.store (i32.const 516) (i32.const 5))
    (drop (call $fd_write (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520))))
  ;; write "tick\n" to fd and sync it.
  (func $append (param $fd i32)
    (i32.store (i32.const 512) (i32.const 1024))
    (i32.store (i32.const 516) (i32.const 5))
    (drop (call $fd_write (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520)))
    (drop (call $fd_sync (local.get $fd))))
  ;; read up to 64 bytes of fd into 2048.
  (func $read (param $fd i32)
    (i32.store (i32.const 512) (i32.const 2048))
    (i32.store (i32.const 516) (i32.const 64))
    (drop (call $fd_read (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520))))
  (func (export "_start") (local $i i32) (local $fd i32)
    {body}))"#
    );
    let wasm = wat::parse_str(&wat).expect("test guests are valid WAT");
    let artifact = seedfall_engine::compile(&wasm, &seedfall_engine::CompileConfig::default()).expect("compiles");
    Arc::new(Code::load(artifact).expect("loads"))
}

/// Sleeps `ms` milliseconds, `n` times, printing a tick each time.
pub(super) fn sleeper(n: u32, ms: u64) -> Arc<Code> {
    guest(&format!(
        "(loop $l (call $sleep (i64.const {}) (i32.const 0)) (call $tick)
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const {n}))))",
        ms * 1_000_000
    ))
}

pub(super) fn program(name: &str, code: Arc<Code>) -> NodeProgram {
    NodeProgram {
        name: name.into(),
        code,
        counter_global: None,
        go_offsets: None,
        symbols: Default::default(),
        args: Vec::new(),
        env: Vec::new(),
        role: Role::Service { supervise: false },
        mounts: Vec::new(),
    }
}

pub(super) fn workload(code: Arc<Code>) -> NodeProgram {
    NodeProgram { role: Role::Workload, ..program("client", code) }
}

pub(super) fn spec(seed: u64, programs: Vec<NodeProgram>) -> RunSpec {
    RunSpec::new(seed, programs, SimDuration::from_ns(10_000_000_000))
}

/// Runs `spec` step by step; returns the verdict, the replay log and the result.
pub(super) fn run_logged(spec: &RunSpec) -> (Verdict, String, RunResult) {
    let mut log = Vec::new();
    let mut world = World::new(spec, Some(&mut log));
    let verdict = loop {
        if let Some(v) = world.step().expect("no engine error") {
            break v;
        }
    };
    let result = world.finish(verdict.clone());
    (verdict, String::from_utf8(log).expect("utf-8"), result)
}

pub(super) fn at(ms: u64) -> SimTime {
    SimTime::from_ns(ms * 1_000_000)
}

pub(super) fn crash(node: &str, at_ms: u64, until_ms: u64) -> Fault {
    let mut f = Fault::on_node(at(at_ms), Kind::from_name("crash").expect("registered"), node);
    f.until = Some(at(until_ms));
    f
}

/// The slots in the order they first boot.
fn boot_order(log: &str) -> Vec<String> {
    log.lines().filter_map(|l| l.split("* boot ").nth(1)).map(str::to_string).collect()
}

#[test]
fn ties_between_nodes_are_broken_by_the_seed_and_only_by_it() {
    let programs = || vec![program("a", sleeper(1, 1)), program("b", sleeper(1, 1)), workload(sleeper(1, 5))];
    let mut orders = std::collections::BTreeSet::new();
    for seed in 1..=12 {
        let (verdict, log, _) = run_logged(&spec(seed, programs()));
        assert_eq!(verdict, Verdict::Pass, "{log}");
        let order = boot_order(&log);
        assert_eq!(order, boot_order(&run_logged(&spec(seed, programs())).1), "seed {seed} twice: same order");
        orders.insert(order);
    }
    assert!(orders.len() >= 3, "three nodes due at 0 boot in seed-dependent orders: {orders:?}");
}

#[test]
fn faults_due_at_one_instant_come_in_registry_order_and_before_nodes() {
    // `a` sleeps until exactly 10ms (an absolute deadline); a crash is due then too.
    let wake_at_10ms = guest(&format!(
        "(call $sleep (i64.const {}) (i32.const 1)) (call $tick) (call $sleep (i64.const 1000000000) (i32.const 0))",
        crate::clock::MONOTONIC_START_NS + 10_000_000
    ));
    let mut s = spec(1, vec![program("a", wake_at_10ms), program("b", sleeper(1, 50)), workload(sleeper(1, 100))]);
    let mut partition = Fault::on_node(at(10), Kind::from_name("partition").expect("registered"), "");
    partition.target =
        Target::Groups { groups: vec![vec!["a".into()], vec!["b".into(), "client".into()]], oneway: false };
    partition.until = Some(at(20));
    s.schedule = Some(vec![crash("a", 10, 30), partition]);
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let part = log.find("* partition a | b,client").expect("the partition happened");
    let crashed = log.find("* crash a#1").expect("the crash happened");
    assert!(part < crashed, "partition is first in the registry:\n{log}");
    assert!(!log.contains("a#1 | tick"), "the crash came before a's wake-up at the same instant:\n{log}");
    assert!(log.contains("a#2"), "a restarted at 30ms:\n{log}");
    assert_eq!(result.faults.len(), 2, "{:?}", result.faults);
    assert!(log.contains("heal the network"), "{log}");
}

#[test]
fn quiet_windows_hold_faults_off_and_then_let_them_through() {
    let quiet_first =
        guest("(call $quiet (i64.const 1000000000)) (call $sleep (i64.const 3000000000) (i32.const 0)) (call $tick)");
    let mut s = spec(1, vec![program("a", sleeper(100, 20)), workload(quiet_first)]);
    s.schedule = Some(vec![crash("a", 500, 600), crash("a", 1500, 1600)]);
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(log.contains("client#1: quiet for 1s"), "{log}");
    let crashes: Vec<&str> = log.lines().filter(|l| l.contains("* crash a#")).collect();
    assert_eq!(crashes.len(), 1, "only the crash after the window: {crashes:?}");
    assert!(crashes[0].starts_with("[1.5s]"), "{crashes:?}");
    assert_eq!(result.faults.len(), 1);
}

#[test]
fn drawn_crash_io_faults_replay_exactly_from_their_schedule() {
    // `w` appends and syncs a line every 10ms; half of its disk operations crash it.
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    let mut drawn = spec(7, vec![program("w", writer), workload(sleeper(1, 2000))]);
    drawn.faults.put("crash_on_io", KnobValue::Number(0.2));
    drawn.faults.put("torn_writes", KnobValue::Switch(true));
    drawn
        .faults
        .put("crash_downtime", KnobValue::Range(SimDuration::from_ns(5_000_000), SimDuration::from_ns(50_000_000)));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let crash_io = Kind::from_name("crash_io").expect("registered");
    let recorded: Vec<&Fault> = first.faults.iter().filter(|f| f.kind == crash_io).collect();
    assert!(recorded.len() >= 3, "the writer crashed in the middle of disk operations: {:?}", first.faults);
    assert!(recorded.iter().all(|f| f.op.is_some() && f.applied.is_some() && f.until.is_some()));

    let mut replay = spec(7, drawn.programs.iter().map(clone_program).collect());
    replay.faults.put("torn_writes", KnobValue::Switch(true));
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!(second.faults, first.faults, "the same faults at the same ops");
    assert_eq!(second.trace_hash, first.trace_hash, "and the same run");
    assert_eq!(replay_log, log);
}

#[test]
fn drawn_write_errors_are_schedule_entries_that_replay_exactly() {
    // `w` appends and syncs a line every 10ms; some writes fail with EIO or ENOSPC.
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    let mut drawn = spec(5, vec![program("w", writer), workload(sleeper(1, 1000))]);
    drawn.faults.put("write_eio", KnobValue::Number(0.2));
    drawn.faults.put("write_enospc", KnobValue::Number(0.2));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    for name in ["write_eio", "write_enospc"] {
        let kind = Kind::from_name(name).expect("registered");
        let recorded: Vec<&Fault> = first.faults.iter().filter(|f| f.kind == kind).collect();
        assert!(recorded.len() >= 3 && recorded.iter().all(|f| f.op.is_some()), "{name}: {:?}", first.faults);
    }
    assert!(log.contains("): EIO, nothing written") && log.contains("): ENOSPC, nothing written"), "{log}");

    let mut replay = spec(5, drawn.programs.iter().map(clone_program).collect());
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((second.faults, second.trace_hash), (first.faults.clone(), first.trace_hash));
    assert_eq!(replay_log, log);
    // Without them the writes succeed: another run.
    replay.schedule = Some(Vec::new());
    assert_ne!(run_logged(&replay).2.trace_hash, first.trace_hash);
}

#[test]
fn drawn_lost_and_misdirected_writes_are_schedule_entries_at_their_fsync() {
    // `w` appends and syncs a line every 10ms; some syncs lose or misdirect a page.
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    let mut drawn = spec(5, vec![program("w", writer), workload(sleeper(1, 1000))]);
    drawn.faults.put("lost_write", KnobValue::Number(0.2));
    drawn.faults.put("misdirected_write", KnobValue::Number(0.2));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let of =
        |faults: &[Fault], name: &str| faults.iter().filter(|f| f.kind.name() == name).cloned().collect::<Vec<_>>();
    let (lost, misdirected) = (of(&first.faults, "lost_write"), of(&first.faults, "misdirected_write"));
    assert!(lost.len() >= 3 && misdirected.len() >= 3, "{:?}", first.faults);
    assert!(lost.iter().chain(&misdirected).all(|f| f.op.is_some() && f.amount == Some(0)), "one page: page 0");
    assert!(misdirected.iter().all(|f| f.to == Some(1)), "a file of one page: past its end");
    assert!(log.contains("(sync): page 0 lost, the sync reported success"), "{log}");
    assert!(log.contains("(sync): page 0 written to page 1, the sync reported success"), "{log}");
    // The schedule file form keeps the pages.
    for f in [&lost[0], &misdirected[0]] {
        assert_eq!(Fault::from_json(&f.to_json()).as_ref(), Ok(f), "{}", f.to_json());
    }
    assert!(misdirected[0].describe().ends_with(", page 0 written to page 1"), "{}", misdirected[0].describe());

    // Replayed with no probability, only the recorded ops: the same run.
    let mut replay = spec(5, drawn.programs.iter().map(clone_program).collect());
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((second.faults, second.trace_hash), (first.faults.clone(), first.trace_hash));
    assert_eq!(replay_log, log);
    // Removed from the schedule (`seedfall faults -remove`), it does not fire; the others still do.
    let removed = first.faults.iter().position(|f| f.kind.name() == "lost_write").unwrap();
    let mut without = first.faults.clone();
    without.remove(removed);
    replay.schedule = Some(without.clone());
    let third = run_logged(&replay).2;
    assert_eq!(third.faults, without);
    assert_ne!(third.trace_hash, first.trace_hash);
}

#[test]
fn drawn_read_faults_are_schedule_entries_numbered_by_disk_read() {
    let cluster = || {
        let mut s = reader_cluster(6);
        s.programs[1] = workload(sleeper(1, 500));
        s
    };
    let mut drawn = cluster();
    drawn.faults.put("read_eio", KnobValue::Number(0.2));
    drawn.faults.put("read_corrupt", KnobValue::Number(0.3));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let corrupt: Vec<&Fault> = first.faults.iter().filter(|f| f.kind.name() == "read_corrupt").collect();
    let eio: Vec<&Fault> = first.faults.iter().filter(|f| f.kind.name() == "read_eio").collect();
    assert!(!corrupt.is_empty() && !eio.is_empty(), "{:?}", first.faults);
    assert!(corrupt.iter().all(|f| f.op.is_some() && f.amount.is_some()), "each with its read number and bit");
    assert!(log.contains(": EIO") && log.contains("flipped"), "{log}");
    // The schedule file form keeps the bit; replayed, the same run.
    let text = corrupt[0].to_json().to_string();
    assert!(text.contains("\"bit\""), "{text}");
    assert_eq!(Fault::from_json(&corrupt[0].to_json()).as_ref(), Ok(corrupt[0]));
    let mut replay = cluster();
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((second.faults, second.trace_hash), (first.faults.clone(), first.trace_hash));
    assert_eq!(replay_log, log);
}

#[test]
fn a_write_through_an_o_sync_or_o_dsync_descriptor_is_durable_when_it_returns() {
    // `w` opens "f" with the given fdflags, writes one line without fd_sync, and waits; it crashes at 50ms.
    let kept_after_crash = |fdflags: u16| {
        let writer = guest(&format!(
            "(call $put (call $open_with (i32.const {fdflags}))) (call $sleep (i64.const 1000000000) (i32.const 0))"
        ));
        let mut s = spec(1, vec![program("w", writer), workload(sleeper(1, 100))]);
        s.schedule = Some(vec![crash("w", 50, 60)]);
        let (verdict, log, _) = run_logged(&s);
        assert_eq!(verdict, Verdict::Pass, "{log}");
        let crash = log.lines().skip_while(|l| !l.contains("* crash w#1")).take(3).collect::<Vec<_>>().join("\n");
        (!crash.contains("never durable, gone"), crash)
    };
    use crate::wasi::abi::{FDFLAG_DSYNC, FDFLAG_RSYNC, FDFLAG_SYNC};
    for (name, flag) in [("O_SYNC", FDFLAG_SYNC), ("O_DSYNC", FDFLAG_DSYNC), ("O_RSYNC", FDFLAG_RSYNC)] {
        let (kept, crash) = kept_after_crash(flag);
        assert!(kept, "{name}: the write was synced when it returned\n{crash}");
    }
    let (kept, crash) = kept_after_crash(0);
    assert!(!kept, "without a flag an unsynced new file is lost\n{crash}");
}

#[test]
fn drawn_partitions_cut_into_up_to_partition_groups_groups_one_way_as_often_as_partition_oneway() {
    let shapes = |groups: u32, oneway: f64| {
        let programs = ["a", "b", "c", "d"].iter().map(|n| program(n, sleeper(200, 10))).collect::<Vec<_>>();
        let mut s = spec(3, programs.into_iter().chain([workload(sleeper(1, 2000))]).collect());
        s.faults.put("partition_per_sec", KnobValue::Number(20.0));
        s.faults.put(
            "partition_length",
            KnobValue::Range(SimDuration::from_ns(5_000_000), SimDuration::from_ns(10_000_000)),
        );
        s.faults.put("partition_groups", KnobValue::Whole(u64::from(groups)));
        s.faults.put("partition_oneway", KnobValue::Number(oneway));
        let (verdict, log, result) = run_logged(&s);
        assert_eq!(verdict, Verdict::Pass, "{log}");
        let shapes: Vec<(Vec<Vec<String>>, bool)> = result
            .faults
            .into_iter()
            .filter_map(|f| match f.target {
                Target::Groups { groups, oneway } => Some((groups, oneway)),
                Target::Node(_) | Target::Link { .. } => None,
            })
            .collect();
        assert!(shapes.len() >= 20, "{log}");
        for (groups, _) in &shapes {
            let mut all: Vec<&String> = groups.iter().flatten().collect();
            all.sort();
            assert_eq!(all, ["a", "b", "c", "client", "d"], "every node in exactly one group: {groups:?}");
            assert!(groups.len() >= 2 && groups.iter().all(|g| !g.is_empty()), "{groups:?}");
        }
        shapes
    };
    let wide = shapes(4, 0.5);
    assert!(wide.iter().all(|(g, _)| g.len() <= 4));
    assert!(wide.iter().any(|(g, _)| g.len() > 2), "more than two groups happen");
    let oneway = wide.iter().filter(|(_, one)| *one).count();
    assert!(oneway > 0 && oneway < wide.len(), "one way about half the time: {oneway} of {}", wide.len());
    assert!(shapes(2, 0.0).iter().all(|(g, one)| g.len() == 2 && !one), "the default: two groups, both ways");
    assert!(shapes(2, 1.0).iter().all(|(_, one)| *one));
}

#[test]
fn a_start_function_that_traps_or_spins_is_a_verdict_not_an_engine_error() {
    let module = |body: &str| {
        let wat =
            format!("(module (memory (export \"memory\") 1) (func $s {body}) (start $s) (func (export \"_start\")))");
        let artifact = seedfall_engine::compile(&wat::parse_str(&wat).unwrap(), &Default::default()).unwrap();
        Arc::new(Code::load(artifact).unwrap())
    };
    let run_with = |code| {
        let mut s = spec(1, vec![program("a", code), workload(sleeper(1, 10))]);
        s.watchdog = Duration::from_millis(200);
        run_logged(&s)
    };
    let (verdict, log, _) = run_with(module("unreachable"));
    let Verdict::Fail(f) = verdict else { panic!("{log}") };
    assert_eq!((f[0].class, f[0].node.as_str()), (Class::Trap, "a"), "{log}");
    assert!(f[0].message.starts_with("trapped in its start function: "), "{}", f[0].message);
    let (verdict, log, _) = run_with(module("(loop $l (br $l))"));
    let Verdict::Fail(f) = verdict else { panic!("{log}") };
    assert_eq!((f[0].class, f[0].node.as_str()), (Class::Watchdog, "a"), "{log}");
    assert!(f[0].message.contains("after 200ms of CPU time in its start function"), "{}", f[0].message);
}

#[test]
fn drawn_slowdowns_are_recorded_with_their_latency_and_end_at_until() {
    let mut s = spec(8, vec![program("a", sleeper(200, 10)), workload(sleeper(1, 2000))]);
    s.faults.put("slow_per_sec", KnobValue::Number(5.0));
    s.faults.put("slow_length", KnobValue::Range(SimDuration::from_ns(50_000_000), SimDuration::from_ns(100_000_000)));
    s.faults.put("slow_latency", KnobValue::Range(SimDuration::from_ns(10_000_000), SimDuration::from_ns(20_000_000)));
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let slow: Vec<&Fault> = result.faults.iter().filter(|f| f.kind.name() == "slow").collect();
    assert!(slow.len() >= 3, "{log}");
    for f in &slow {
        let (length, latency) = (f.length().unwrap().ns(), f.amount.unwrap() as u64);
        assert!((50_000_000..=100_000_000).contains(&length) && (10_000_000..=20_000_000).contains(&latency));
        let back = format!("[{}] * a#1's network is back to normal", f.until.unwrap());
        assert!(log.contains(&back), "ends at its until: {back}\n{log}");
    }
    let mut replay = spec(8, s.programs.iter().map(clone_program).collect());
    replay.schedule = Some(result.faults.clone());
    assert_eq!(run_logged(&replay).2.trace_hash, result.trace_hash, "replays exactly");
}

pub(super) fn clone_program(p: &NodeProgram) -> NodeProgram {
    NodeProgram {
        name: p.name.clone(),
        code: p.code.clone(),
        args: p.args.clone(),
        env: p.env.clone(),
        mounts: p.mounts.clone(),
        symbols: p.symbols.clone(),
        ..*p
    }
}

#[test]
fn a_supervised_node_restarts_after_each_error_exit_and_one_that_is_not_fails_the_run() {
    let failing = || guest("(call $sleep (i64.const 30000000) (i32.const 0)) (call $exit (i32.const 3))");
    let supervised = NodeProgram { role: Role::Service { supervise: true }, ..program("s", failing()) };
    let (verdict, log, _) = run_logged(&spec(1, vec![supervised, workload(sleeper(1, 300))]));
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(log.contains("s#1 exited with status 3; supervised: restart at 130ms"), "{log}");
    assert!(log.contains("boot s#3"), "restarted again after its second exit: {log}");

    let (verdict, log, _) = run_logged(&spec(1, vec![program("s", failing()), workload(sleeper(1, 300))]));
    let Verdict::Fail(failures) = verdict else { panic!("an unsupervised exit fails the run: {log}") };
    assert_eq!((failures[0].class, failures[0].node.as_str()), (Class::Exit, "s"));
    assert_eq!(failures[0].message, "exited with status 3");
}

#[test]
fn a_node_that_ends_in_any_way_ends_its_incarnation_once() {
    // Exits, crashes, supervised restarts and the end of the run all fold
    // exactly one incarnation hash into the run's trace each.
    let writer = guest("(local.set $fd (call $open)) (call $append (local.get $fd)) (call $exit (i32.const 1))");
    let supervised = NodeProgram { role: Role::Service { supervise: true }, ..program("s", writer) };
    let mut s = spec(2, vec![supervised, program("a", sleeper(1000, 1)), workload(sleeper(1, 250))]);
    s.schedule = Some(vec![crash("a", 50, 60), crash("a", 120, 200)]);
    s.hash_log = true;
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let boots = log.matches("* boot ").count();
    let ended = result.hash_log.expect("logged").iter().filter(|e| e.what.starts_with("incarnation")).count();
    assert_eq!(ended, boots, "one incarnation hash per boot\n{log}");
}

/// A run of `spec` with the hash log on.
fn logged(mut s: RunSpec) -> RunResult {
    s.hash_log = true;
    run(&s, None).expect("no engine error")
}

pub(super) fn reader_cluster(seed: u64) -> RunSpec {
    // `r` writes a line, reads it back through a second descriptor, sleeps; forever.
    let reader = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $read (call $open))
           (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    spec(seed, vec![program("r", reader), workload(sleeper(3, 20))])
}

#[test]
fn check_names_the_first_divergence_when_a_host_call_answers_differently() {
    let first = logged(reader_cluster(1));
    let mut perturbed = reader_cluster(1);
    perturbed.perturb = Some(("r".into(), 1, Perturb::CallResult { call: "fd_sync".into(), nth: 2, errno: 29 }));
    let second = logged(perturbed);
    assert_eq!(compare_runs(&first, &logged(reader_cluster(1))), None, "the same seed twice is the same run");
    let report = compare_runs(&first, &second).expect("a different answer is a divergence");
    assert!(report.contains("scheduler step"), "{report}");
    assert!(report.contains("r#1"), "names the node incarnation: {report}");
    assert!(report.contains("host call fd_sync(4) = 0"), "names the call as it was: {report}");
    assert!(report.contains("host call fd_sync(4) = 29"), "and as it became: {report}");
    assert!(report.contains("t=10ms"), "at the second sync, 10ms in: {report}");
}

#[test]
fn check_catches_a_read_that_returns_other_bytes_with_the_same_errno_and_length() {
    let first = logged(reader_cluster(3));
    let mut perturbed = reader_cluster(3);
    perturbed.perturb = Some(("r".into(), 1, Perturb::ReadByte { nth: 2 }));
    let second = logged(perturbed);
    let report = compare_runs(&first, &second).expect("other bytes are a divergence");
    assert!(report.contains("host wrote 10 bytes at 0x800"), "the read data, written into guest memory: {report}");
    // Everything up to there is the same: the call and its result agree.
    let a = first.hash_log.as_ref().expect("logged");
    let b = second.hash_log.as_ref().expect("logged");
    let d = divergence::first_divergence(a, b).expect("differs");
    assert_eq!(a[d.index - 1], b[d.index - 1]);
    assert!(!report.contains("host call fd_read"), "the call itself is not where they part: {report}");
}

/// `RunSpec::disk_bytes` is each node's disk: a service writing until its
/// disk is full gets a short write and then ENOSPC (51), never more bytes.
#[test]
fn a_service_filling_its_disk_gets_enospc_at_disk_bytes() {
    let filler = guest(
        "(local.set $fd (call $open))
         (block $full
           (loop $l
             (i32.store (i32.const 512) (i32.const 1024))
             (i32.store (i32.const 516) (i32.const 5))
             (local.set $i (call $fd_write (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520)))
             (br_if $full (local.get $i))
             (i64.store (i32.const 3200) (i64.add (i64.load (i32.const 3200)) (i64.load32_u (i32.const 520))))
             (br $l)))
         (call $print_u64 (i64.extend_i32_u (local.get $i)))
         (call $print_u64 (i64.load (i32.const 3200)))",
    );
    let mut s = spec(1, vec![program("w", filler), workload(sleeper(1, 100))]);
    s.faults.put("disk_bytes", KnobValue::Whole(2 * 4096));
    let (verdict, log, _) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    assert!(log.contains("w#1 | 51\n") && log.contains("w#1 | 8192\n"), "{log}");
}

#[test]
fn drawn_clogs_take_each_form_on_one_direction_of_a_link_end_at_until_and_replay_exactly() {
    let programs = || vec![program("a", sleeper(200, 10)), program("b", sleeper(200, 10)), workload(sleeper(1, 3000))];
    let mut s = spec(4, programs());
    s.faults.put("clog_per_sec", KnobValue::Number(10.0));
    s.faults.put("clog_length", KnobValue::Range(SimDuration::from_ns(20_000_000), SimDuration::from_ns(40_000_000)));
    s.faults.put("slow_latency", KnobValue::Range(SimDuration::from_ns(1_000_000), SimDuration::from_ns(2_000_000)));
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let clogs: Vec<&Fault> = result.faults.iter().filter(|f| f.kind.name() == "clog").collect();
    assert!(clogs.len() >= 15, "{log}");
    for form in ["stop", "jam", "slow"] {
        assert!(clogs.iter().any(|f| f.form == Some(form)), "each form is drawn: {form}\n{log}");
    }
    for f in &clogs {
        let Target::Link { from, to } = &f.target else { panic!("a clog is on a link: {f:?}") };
        assert_ne!(from, to);
        assert!((20_000_000..=40_000_000).contains(&f.length().unwrap().ns()), "{f:?}");
        assert_eq!(f.amount.is_some(), f.form == Some("slow"), "only a slow clog has a latency: {f:?}");
        let ends = format!("[{}] * clog {from} -> {to} ends", f.until.unwrap());
        assert!(log.contains(&ends), "ends at its until: {ends}\n{log}");
        assert_eq!(Fault::from_json(&f.to_json()).as_ref(), Ok(*f), "the schedule form reads back");
    }
    let mut replay = spec(4, programs());
    replay.schedule = Some(result.faults.clone());
    let (_, replay_log, again) = run_logged(&replay);
    assert_eq!((again.faults, again.trace_hash), (result.faults.clone(), result.trace_hash), "replays exactly");
    assert_eq!(replay_log, log);
    s.faults.put("clogs", KnobValue::SetOf(0b010));
    let (_, _, jams) = run_logged(&s);
    assert!(jams.faults.iter().all(|f| f.form == Some("jam")), "`clogs` limits the forms: {:?}", jams.faults);
}

#[test]
fn a_quiet_window_ends_every_clog_and_none_starts_inside_it() {
    let quiet_late = guest(
        "(call $sleep (i64.const 500000000) (i32.const 0)) (call $quiet (i64.const 1000000000))
         (call $sleep (i64.const 2000000000) (i32.const 0))",
    );
    let mut s = spec(2, vec![program("a", sleeper(200, 20)), workload(quiet_late)]);
    s.faults.put("clog_per_sec", KnobValue::Number(20.0));
    s.faults.put("clog_length", KnobValue::Range(SimDuration::from_ns(300_000_000), SimDuration::from_ns(600_000_000)));
    let (verdict, log, result) = run_logged(&s);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let (begin, end) = (at(500), at(1500));
    assert!(result.faults.iter().all(|f| f.at < begin || f.at >= end), "none starts inside: {:?}", result.faults);
    let ended_at_quiet = format!("[{begin}] * clog ");
    assert!(log.lines().any(|l| l.starts_with(&ended_at_quiet) && l.ends_with(" ends")), "{log}");
}

#[test]
fn clog_schedule_entries_say_what_is_wrong_with_them() {
    let read = |text: &str| Fault::from_json(&serde_json::from_str(text).unwrap());
    let ok = read(
        r#"{"at": "1s", "kind": "clog", "node": "a", "to": "b", "clog": "slow", "until": "2s", "latency": "5ms"}"#,
    )
    .expect("a slow clog");
    assert_eq!((ok.target.to_string(), ok.form, ok.amount), ("a -> b".into(), Some("slow"), Some(5_000_000)));
    let no_to = read(r#"{"at": "1s", "kind": "clog", "node": "a", "clog": "stop"}"#).unwrap_err().to_string();
    assert!(no_to.contains("`to`"), "{no_to}");
    let bad = read(r#"{"at": "1s", "kind": "clog", "node": "a", "to": "b", "clog": "plug"}"#).unwrap_err().to_string();
    assert!(bad.contains("unknown clog \"plug\""), "{bad}");
    let slow = read(r#"{"at": "1s", "kind": "clog", "node": "a", "to": "b", "clog": "slow"}"#).unwrap_err().to_string();
    assert!(slow.contains("`latency`"), "{slow}");
}

#[test]
fn with_disk_latency_each_fsync_of_a_service_waits_a_seeded_time_in_its_range() {
    // `w` prints its monotonic clock around one write+fsync, three times.
    let timed = guest(
        "(local.set $fd (call $open))
         (loop $l
           (call $print_u64 (call $clock (i32.const 1)))
           (call $append (local.get $fd))
           (call $print_u64 (call $clock (i32.const 1)))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))
         (call $sleep (i64.const 1000000000) (i32.const 0))",
    );
    let waits = |latency_ms: (u64, u64)| {
        let mut s = spec(3, vec![program("w", timed.clone()), workload(sleeper(1, 100))]);
        s.faults.put(
            "disk_latency",
            KnobValue::Range(
                SimDuration::from_ns(latency_ms.0 * 1_000_000),
                SimDuration::from_ns(latency_ms.1 * 1_000_000),
            ),
        );
        let (verdict, log, result) = run_logged(&s);
        assert_eq!(verdict, Verdict::Pass, "{log}");
        let clocks: Vec<u64> = log.lines().filter_map(|l| l.split("w#1 | ").nth(1)?.parse().ok()).collect();
        assert_eq!(clocks.len(), 6, "{log}");
        let waits: Vec<u64> = clocks.chunks(2).map(|c| c[1] - c[0]).collect();
        (waits, result.trace_hash)
    };
    let (none, _) = waits((0, 0));
    assert!(none.iter().all(|&w| w < 1_000), "no latency: the sync returns at once: {none:?}");
    let (slow, hash) = waits((5, 20));
    assert!(slow.iter().all(|&w| (5_000_000..20_001_000).contains(&w)), "each wait in [5ms, 20ms]: {slow:?}");
    assert!(slow.windows(2).any(|w| w[0] != w[1]), "drawn per fsync: {slow:?}");
    assert_eq!(waits((5, 20)), (slow, hash), "the same seed waits the same");
}

#[test]
fn drawn_bitrot_is_recorded_with_its_pick_and_replays_exactly() {
    let writer = guest(
        "(local.set $fd (call $open))
         (loop $l (call $append (local.get $fd)) (call $sleep (i64.const 10000000) (i32.const 0)) (br $l))",
    );
    let cluster = || spec(9, vec![program("w", writer.clone()), workload(sleeper(1, 1000))]);
    let mut drawn = cluster();
    drawn.faults.put("bitrot_per_sec", KnobValue::Number(5.0));
    let (verdict, log, first) = run_logged(&drawn);
    assert_eq!(verdict, Verdict::Pass, "{log}");
    let rot: Vec<&Fault> = first.faults.iter().filter(|f| f.kind.name() == "bitrot").collect();
    assert!(rot.len() >= 2, "{log}");
    assert!(log.contains("* bitrot w#1: bit ") && log.contains(" of /f flipped on disk"), "{log}");
    for f in &rot {
        assert!(f.to_json().to_string().contains("\"bit\""));
        assert_eq!(Fault::from_json(&f.to_json()).as_ref(), Ok(*f));
    }
    let mut replay = cluster();
    replay.schedule = Some(first.faults.clone());
    let (_, replay_log, second) = run_logged(&replay);
    assert_eq!((second.faults, second.trace_hash), (first.faults.clone(), first.trace_hash));
    assert_eq!(replay_log, log);
}
