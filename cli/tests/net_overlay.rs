//! net_overlay's conformance arm: cli/tests/go/netconf (net.Listen, net.Dial,
//! deadlines, a closed connection, a refused dial, net/http server and client
//! with keep-alive and a client timeout, UDP) prints the same lines natively
//! on localhost (`go run`) and as a workload under `seedfall run` with
//! `"net_overlay": true`, where its TCP and UDP go through the simulated network
//! and its own node name resolves through the simulated /etc/hosts; the same
//! comparison runs in every seed of 1-100. cli/tests/go/reconnect rides
//! through crashes and healing partitions in every seed of 1-100 and prints
//! the summary written here.
//! compat_overlay's flock: etcd v3.7.3's `storage/wal` creates, locks and
//! reads back a WAL (cli/tests/go/etcdwal, docs/flock.md). Its mmap:
//! cli/tests/go/mmap checks mappings from inside a guest and runs bbolt
//! v1.4.3, whose module files compat_overlay adds (docs/mmap.md).

use std::path::{Path, PathBuf};
use std::process::Command;

fn go_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn native_netconf() -> String {
    let native = Command::new("go").args(["run", "./netconf"]).current_dir(go_dir()).output().unwrap();
    assert!(native.status.success(), "{}{}", text(&native.stdout), text(&native.stderr));
    let native = text(&native.stdout);
    assert!(native.ends_with("done\n"), "{native}");
    native
}

#[test]
fn netconf_prints_the_same_natively_and_under_the_overlay() {
    let native = native_netconf();
    let config = go_dir().join("netconf/seedfall.json");
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-overlay-cache");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["replay", "-c"])
        .arg(&config)
        .args(["-seed", "1"])
        .env("SEEDFALL_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let trace = text(&out.stdout);
    assert!(out.status.success(), "{trace}{}", text(&out.stderr));
    let simulated: String =
        trace.lines().filter_map(|l| l.split_once("client#1 | ").map(|(_, printed)| format!("{printed}\n"))).collect();
    assert_eq!(simulated, native);
}

/// The same comparison in every seed of a sweep: netconf compares what it
/// printed with NETCONF_EXPECT (the native output) and exits 1 on a
/// difference, so seeds whose schedules order connection setup differently
/// (late listener, simultaneous dials, cut handshakes, lookups) all agree.
#[test]
fn netconf_agrees_with_the_native_run_in_every_seed() {
    let native = native_netconf();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("netconf-sweep");
    std::fs::create_dir_all(&dir).unwrap();
    let workload = serde_json::json!({
        "name": "client", "pkg": go_dir().join("netconf"), "args": ["-host", "client"],
        "env": { "NETCONF_EXPECT": native },
    });
    let config = serde_json::json!({ "net_overlay": true, "workload": workload, "duration": "60s" });
    std::fs::write(dir.join("seedfall.json"), config.to_string()).unwrap();
    let (code, out) = seedfall(&dir.join("seedfall.json"), &["run", "-seeds", "1-100"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("100 passed, 0 failed"), "{out}");

    // The comparison can fail: a native run that saw one dial fewer.
    let mut wrong = config;
    wrong["workload"]["env"]["NETCONF_EXPECT"] = native.replace("20 of 20", "19 of 20").into();
    std::fs::write(dir.join("wrong.json"), wrong.to_string()).unwrap();
    let (code, out) = seedfall(&dir.join("wrong.json"), &["run", "-seeds", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("where natively it printed"), "{out}");
}

fn seedfall(config: &Path, args: &[&str]) -> (i32, String) {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-overlay-cache");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .arg(args[0])
        .arg("-c")
        .arg(config)
        .args(&args[1..])
        .env("SEEDFALL_CACHE_DIR", &cache)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), format!("{}{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn dials_resolve_node_names_and_fail_like_a_real_network() {
    let (code, trace) = seedfall(&go_dir().join("netdial/seedfall.json"), &["replay", "-seed", "1"]);
    assert_eq!(code, 0, "{trace}");
    for line in [
        "[0s] * hosts: 10.0.0.1 server, 10.0.0.2 client",
        "client#1 | server resolves to [10.0.0.1] <nil>",
        "client#1 | server says hello 10.0.0.2",
        "client#1 | remote 10.0.0.1:7001 local ip 10.0.0.2",
        "client#1 | no listener refused: true",
        "client#1 | unknown ip unreachable: true",
        "client#1 | unknown name not found: true",
    ] {
        assert!(trace.contains(line), "{line:?} missing from\n{trace}");
    }
}

#[test]
fn etcd_wal_creates_and_locks_under_compat_overlay() {
    let (code, trace) = seedfall(&go_dir().join("etcdwal/seedfall.json"), &["replay", "-seed", "1"]);
    assert_eq!(code, 0, "{trace}");
    for line in ["segment locked while open", "segment free after close", "read back", "wal ok"] {
        assert!(trace.contains(&format!("client#1 | {line}")), "{line:?} missing from\n{trace}");
    }
}

#[test]
fn mappings_follow_their_files_and_bbolt_runs_under_compat_overlay() {
    let (code, trace) = seedfall(&go_dir().join("mmap/seedfall.json"), &["replay", "-seed", "1"]);
    assert_eq!(code, 0, "{trace}");
    for check in [
        "a shared mapping sees a write",
        "msync writes changes back",
        "munmap writes changes back",
        "bbolt reads back what it wrote",
    ] {
        assert!(trace.contains(&format!("client#1 | ok: {check}\n")), "{check:?} missing from\n{trace}");
    }
    // `seedfall test` builds the package's tests with the module files too.
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["test", "-seeds", "1", "."])
        .current_dir(go_dir().join("mmap"))
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-overlay-cache"))
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success() && said.contains("ok   TestBoltRoundTrip: 1 seeds"), "{said}");
}

/// A mapping is guest memory: past the node's `memory` cap Go runs out of
/// memory, and under it the same mapping works.
#[test]
fn a_mapping_counts_against_the_memory_cap() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mmap-cap");
    std::fs::create_dir_all(&dir).unwrap();
    for (bytes, code, said) in
        [(64 << 20, 1, "fatal error: out of memory"), (8 << 20, 0, "client#1 | mapped 8388608 bytes")]
    {
        let workload =
            serde_json::json!({ "name": "client", "pkg": go_dir().join("mmap"), "args": ["-map", bytes.to_string()] });
        let config =
            serde_json::json!({ "compat_overlay": true, "memory": 32 << 20, "workload": workload, "duration": "60s" });
        std::fs::write(dir.join("seedfall.json"), config.to_string()).unwrap();
        let (got, trace) = seedfall(&dir.join("seedfall.json"), &["replay", "-seed", "1"]);
        assert_eq!(got, code, "{bytes}: {trace}");
        assert!(trace.contains(said), "{bytes}: {said:?} missing from\n{trace}");
    }
}

/// The summary every seed of cli/tests/go/reconnect must print, whatever
/// its faults did: each of 100 exchanges done on a fresh connection, every
/// failure on the way one a real network gives, none taking over 10 s.
const RECONNECT_SUMMARY: &str = "exchanges completed: 100 of 100\n\
    failures other than refused, reset, closed or timed out: 0\n\
    exchanges that took over 10s: 0\n";

/// Reconnects after crashes (crash.json: the supervised server down 100 ms
/// to 1 s, about once a second) and dials across partitions that heal
/// (partition.json, 30% of them one way), in every seed of 1-100; seed 1's
/// replay shows the client riding through refusals or timeouts.
#[test]
fn reconnects_after_crashes_and_dials_across_healing_partitions_in_every_seed() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reconnect-sweep");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, failure) in [("crash", "refused"), ("partition", "timed out")] {
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(go_dir().join(format!("reconnect/{name}.json"))).unwrap())
                .unwrap();
        config["nodes"][0]["pkg"] = go_dir().join("reconnect").display().to_string().into();
        config["workload"]["pkg"] = config["nodes"][0]["pkg"].clone();
        config["workload"]["args"] = serde_json::json!(["-expect", RECONNECT_SUMMARY]);
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, config.to_string()).unwrap();
        let (code, out) = seedfall(&path, &["run", "-seeds", "1-100"]);
        assert_eq!(code, 0, "{name}: {out}");
        assert!(out.contains("100 passed, 0 failed"), "{name}: {out}");
        let (code, trace) = seedfall(&path, &["replay", "-seed", "1"]);
        assert_eq!(code, 0, "{name}: {trace}");
        assert!(trace.contains(&format!(": {failure}\n")), "{name}: no {failure} dial in\n{trace}");
        let printed: String =
            trace.lines().filter_map(|l| l.split_once("client#1 | ")).map(|(_, p)| p).collect::<Vec<_>>().join("\n");
        assert_eq!(printed + "\n", RECONNECT_SUMMARY, "{name}");
    }

    // The summary check can fail: a client that expects one exchange more.
    let path = dir.join("crash.json");
    let mut config: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["workload"]["args"][1] = RECONNECT_SUMMARY.replace("100 of 100", "101 of 100").into();
    std::fs::write(dir.join("wrong.json"), config.to_string()).unwrap();
    let (code, out) = seedfall(&dir.join("wrong.json"), &["run", "-seeds", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected"), "{out}");
}
