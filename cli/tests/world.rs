//! The simulated world through `seedfall run` and `replay`: verdicts for a
//! deadlock (and its replay's goroutine stacks), a panicking node, a node spinning without calls (the watchdog;
//! with loop counters a liveness verdict),
//! a supervised node that restarts, `QuietFor` holding faults off, a
//! `Sometimes` never true; clear errors for a config typo, a missing package
//! or config (`-c` named, with the nearest name), a `pkg` naming a file, a
//! build failure and one wasip1 causes (docs/wasip1.md), a service on package
//! net without `net_overlay`; the checkout's commit for a bare `-c NAME`; and determinism: the same seed gives the same trace
//! across processes, worker counts and a cold or warm cache, and `-check`
//! passes on a sweep with crashes, torn writes and fsync errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn world_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world")
}

fn kvlog_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog")
}

fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache")
}

fn seedfall_with_cache(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall")).args(args).env("SEEDFALL_CACHE_DIR", cache).output().unwrap()
}

fn seedfall(args: &[&str]) -> Output {
    seedfall_with_cache(&shared_cache(), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn config(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

fn run(config_file: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", "-c", config_file];
    args.extend_from_slice(extra);
    let out = seedfall(&args);
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn deadlock_fails_the_run_and_names_what_nodes_wait_on() {
    let (code, stdout, stderr) = run(&config(&world_dir(), "deadlock.json"), &["-seeds", "1"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("FAIL seed 1 at t="), "{stdout}");
    assert!(stdout.contains("  world: deadlock: every node is blocked and nothing is pending"), "{stdout}");
    assert!(stdout.contains("server#1 waits on Readable(") && stdout.contains("client#1 waits on"), "{stdout}");
}

#[test]
fn a_deadlocks_replay_shows_every_blocked_nodes_goroutine_stacks() {
    let file = config(&world_dir(), "lockorder.json");
    let (code, stdout, stderr) = run(&file, &["-seeds", "1"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("  world: deadlock: every node is blocked and nothing is pending"), "{stdout}");
    let replay = seedfall(&["replay", "-c", &file, "-seed", "1"]);
    let trace = text(&replay.stdout);
    assert_eq!(replay.status.code(), Some(1), "{trace}");
    for line in ["server#1: deadlocked; its goroutines:", "client#1: deadlocked; its goroutines:"] {
        assert!(trace.contains(line), "{line} in\n{trace}");
    }
    // Both goroutines of the lock-order deadlock, with the function each waits in.
    let stacks = trace.lines().filter(|l| l.contains("server#1") && l.contains("main.lockBoth(")).count();
    assert_eq!(stacks, 2, "{trace}");
    assert!(trace.contains("[sync.Mutex.Lock]"), "{trace}");
    assert!(trace.contains("world: deadlock: every node is blocked"), "still a deadlock verdict: {trace}");
}

#[test]
fn a_panicking_node_fails_the_run_with_its_panic() {
    let (code, stdout, stderr) = run(&config(&world_dir(), "panic.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("FAIL seed 1 at t=1"), "{stdout}");
    assert!(stdout.contains("  server#1: exited with status 2: panic: boom"), "{stdout}");
    assert!(stdout.contains("lowest failing seed: 1"), "{stdout}");
}

#[test]
fn a_go_panic_fails_the_run_even_under_supervise() {
    let file = config(&world_dir(), "panic-supervised.json");
    let (code, stdout, stderr) = run(&file, &["-seeds", "1"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("  server#1: exited with status 2: panic: boom"), "not restarted: {stdout}");
}

#[test]
fn supervise_restarts_a_node_that_exits_with_an_error() {
    let file = config(&world_dir(), "supervise.json");
    let (code, stdout, stderr) = run(&file, &["-seeds", "1-3"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let out = seedfall(&["replay", "-c", &file, "-seed", "2"]);
    let trace = text(&out.stdout);
    assert!(out.status.success(), "{trace}");
    for line in [
        // The message ends with the last line the process wrote to stderr.
        "server#1 exited with status 1: flaky: incarnation 1 gives up; supervised: restart at 100.0000",
        "server#2 exited with status 1: flaky: incarnation 2 gives up; supervised: restart at 200.0000",
        "* boot server#3",
        "client#1 | server is up in incarnation 3",
        "PASS seed 2",
    ] {
        assert!(trace.contains(line), "missing {line:?} in\n{trace}");
    }
    // Connections report node names and real ports on both ends (seedfall.sock_name).
    let dialed = trace.lines().find_map(|l| l.split("client#1 | dialed ").nth(1)).expect("a dialed line");
    let (local, remote) = dialed.split_once(" -> ").unwrap();
    assert_eq!(remote, "server:7000");
    let port: u16 = local.strip_prefix("client:").and_then(|p| p.parse().ok()).expect("client:PORT");
    assert!(port >= 49152, "an ephemeral port: {dialed}");
    assert!(trace.contains(&format!("server#3 | accepted server:7000 <- client:{port}")), "{trace}");
}

#[test]
fn a_sometimes_never_true_fails_the_sweep() {
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sometimes.json");
    let (code, stdout, stderr) =
        run(&config(&world_dir(), "sometimes.json"), &["-seeds", "1-3", "--json", json.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("3 passed, 0 failed"), "every seed passes on its own: {stdout}");
    assert!(stdout.contains("FAIL sometimes never true in any seed: never true"), "{stdout}");
    assert!(stdout.contains("sometimes                3          0  never true"), "the property table: {stdout}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["sometimes_never_true"][0], "never true");
    assert_eq!(doc["exit_code"], 1);
}

/// A config may exempt a property it cannot make happen
/// (`optional_properties`); the table still lists it, and a message no
/// package asserts is a setup error, so a typo cannot exempt nothing.
#[test]
fn an_optional_property_never_true_does_not_fail_the_sweep() {
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sometimes-optional.json");
    let (code, stdout, stderr) =
        run(&config(&world_dir(), "sometimes-optional.json"), &["-seeds", "1-3", "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("sometimes                3          0  never true"), "the property table: {stdout}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["sometimes_never_true"], serde_json::json!([]));
    let row = doc["properties"].as_array().unwrap().iter().find(|r| r["message"] == "never true").unwrap();
    assert_eq!(row["optional"], true);

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("optional-typo");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(world_dir().join("sometimes-optional.json")).unwrap();
    let text = text.replace("\"never true\"]", "\"nevr true\"]").replace("./", &format!("{}/", world_dir().display()));
    std::fs::write(dir.join("typo.json"), text).unwrap();
    let (code, _, stderr) = run(dir.join("typo.json").to_str().unwrap(), &["-seeds", "1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("optional_properties names \"nevr true\", which no package of this config asserts"),
        "{stderr}"
    );
}

#[test]
fn config_mistakes_and_build_failures_are_clear_errors() {
    let (code, _, stderr) = run(&config(&world_dir(), "typo.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown field `faults.crash_per_secc`; did you mean `crash_per_sec`?"), "{stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "missing.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-package: no such directory"), "{stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "broken.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("go build") && stderr.contains("undefined: undefinedFunction"), "Go's own error: {stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "no-such-config.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-config.json: no such file (the config -c names)"), "{stderr}");
    assert!(!stderr.contains("name the config with -c"), "-c was given: {stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "deadlok.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains(&format!("did you mean {}?", config(&world_dir(), "deadlock.json"))), "{stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "wasip1-only.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("statfs failed (GOOS=wasip1 GOARCH=wasm):\n"), "{stderr}");
    assert!(stderr.contains("undefined: syscall.Statfs_t"), "Go's own line stays: {stderr}");
    assert!(stderr.contains("syscall.Statfs_t, syscall.Statfs are not defined there"), "{stderr}");
    assert!(stderr.contains("docs/wasip1.md"), "{stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "pkg-file.json"), &["-seeds", "1"]);
    assert_eq!(code, 2);
    let node = world_dir().join("node");
    assert!(
        stderr.contains(&format!("package {}/main.go is a file: `pkg` names a Go package's directory", node.display())),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("name {} instead", node.display())), "{stderr}");
    let (code, _, stderr) = run(&config(&world_dir(), "deadlock.json"), &["-seeds", "9-1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("runs backwards"), "{stderr}");
}

/// A server on package net without `net_overlay` deadlocks in Go's fake
/// network; the finding says which config key fixes it, and the same
/// programs with the overlay pass without a word about it.
#[test]
fn a_service_on_package_net_without_the_overlay_is_told_to_set_net_overlay() {
    let (code, out, stderr) = run(&config(&world_dir(), "fakenet.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 1, "{out}{stderr}");
    assert!(
        out.contains(
            "server#1: exited with status 2: fatal error: all goroutines are asleep - deadlock!; this service uses \
             package net: set \"net_overlay\": true in the config"
        ),
        "{out}"
    );
    let (code, out, stderr) = run(&config(&world_dir(), "fakenet-overlay.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 0, "{out}{stderr}");
    assert!(!out.contains("net_overlay"), "{out}");
}

/// `-c NAME.json` with no folder part, run from the config's folder: the
/// findings history still records the checkout's commit (it was null: git
/// was asked to run in the empty path "").
#[test]
fn a_config_named_without_a_folder_records_the_checkouts_commit() {
    let name = "commit-test.json";
    std::fs::copy(world_dir().join("fakenet.json"), world_dir().join(name)).unwrap();
    let _ = std::fs::remove_file(world_dir().join(".seedfall/commit-test.findings.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c", name, "-seeds", "1"])
        .current_dir(world_dir())
        .env("SEEDFALL_CACHE_DIR", shared_cache())
        .output()
        .unwrap();
    let _ = std::fs::remove_file(world_dir().join(name));
    assert_eq!(out.status.code(), Some(1), "{}{}", text(&out.stdout), text(&out.stderr));
    let head = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(world_dir()).output().unwrap();
    let head = text(&head.stdout).trim().to_string();
    let history = std::fs::read_to_string(world_dir().join(".seedfall/commit-test.findings.json")).unwrap();
    let history: serde_json::Value = serde_json::from_str(&history).unwrap();
    let row = &history["findings"][0]["history"][0];
    match head.is_empty() {
        false => assert_eq!(row["commit"], head.as_str(), "{history}"),
        true => assert!(row["commit"].is_null(), "not a git checkout: {history}"),
    }
}

fn trace_hash(replay_stdout: &str) -> String {
    replay_stdout.lines().find_map(|l| l.strip_prefix("trace hash ")).expect("a trace hash line").to_string()
}

#[test]
fn replay_saves_a_trace_log_and_names_the_first_event_another_run_differs_at() {
    let file = config(&kvlog_dir(), "seedfall.json");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let log = tmp.join("kvlog-seed-3.trace");
    let out = seedfall(&["replay", "-c", &file, "-seed", "3", "--save-trace", log.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("events written to"), "{}", text(&out.stdout));
    let saved = std::fs::read_to_string(&log).unwrap();
    assert!(saved.lines().count() > 1000, "every event, host calls included");
    let out = seedfall(&["replay", "-c", &file, "-seed", "3", "--against", log.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("same ") && out.status.code() == Some(1), "{}", text(&out.stdout));

    // Another machine's log whose 500th event differs (a different digest).
    let mut lines: Vec<String> = saved.lines().map(str::to_string).collect();
    let mut fields: Vec<String> = lines[499].split('\t').map(str::to_string).collect();
    fields[3] = "0123456789abcdef".into();
    lines[499] = fields.join("\t");
    let other = tmp.join("kvlog-seed-3-other.trace");
    std::fs::write(&other, lines.join("\n") + "\n").unwrap();
    let out = seedfall(&["replay", "-c", &file, "-seed", "3", "--against", other.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("first divergence at event 499: scheduler step "), "{stdout}");
    assert!(stdout.contains("(digest 0123456789abcdef)"), "{stdout}");
    let broken = tmp.join("kvlog-broken.trace");
    std::fs::write(&broken, "not a log\n").unwrap();
    let out = seedfall(&["replay", "-c", &file, "-seed", "3", "--against", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("kvlog-broken.trace: line 1: not a trace log line"), "{}", text(&out.stderr));
}

#[test]
fn swarm_keeps_a_seeded_subset_of_the_fault_kinds_and_replay_says_which() {
    // A copy of the ack-before-fsync config with swarm on, beside it (paths are relative).
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(kvlog_dir().join("seedfall.json")).unwrap()).unwrap();
    doc["faults"]["swarm"] = true.into();
    doc["faults"]["crash_on_io"] = 0.01.into();
    doc["faults"]["fsync_eio"] = 0.05.into();
    let file = kvlog_dir().join("swarm-test.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let swarm_line = |seed: &str| {
        let out = seedfall(&["replay", "-c", file, "-seed", seed]);
        let stdout = text(&out.stdout);
        let first = stdout.lines().next().unwrap_or_default().to_string();
        assert!(first.starts_with("[0s] * swarm: "), "the first line says what swarm kept: {stdout}");
        first
    };
    let lines: Vec<String> = ["1", "2", "3", "4", "5", "6"].iter().map(|s| swarm_line(s)).collect();
    assert_eq!(lines[0], swarm_line("1"), "seeded");
    assert!(lines.iter().collect::<std::collections::BTreeSet<_>>().len() >= 2, "seeds differ: {lines:?}");
    assert!(lines.iter().any(|l| l.contains(" off")), "some seed drops a kind: {lines:?}");
    let _ = std::fs::remove_file(file);
}

#[test]
fn same_seed_same_trace_across_processes_workers_and_caches() {
    let file = config(&kvlog_dir(), "seedfall.json");
    let cold = Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cold-cache");
    let _ = std::fs::remove_dir_all(&cold);
    let replay = |cache: &Path| {
        let out = seedfall_with_cache(cache, &["replay", "-c", &file, "-seed", "3"]);
        assert_eq!(out.status.code(), Some(1), "seed 3 of the ack-before-fsync store fails: {}", text(&out.stdout));
        text(&out.stdout)
    };
    let (first, cold_run, warm_run) = (replay(&shared_cache()), replay(&cold), replay(&cold));
    assert!(first.contains("crash server#1"), "the run has faults: {first}");
    assert_eq!(trace_hash(&first), trace_hash(&cold_run), "a cold cache changes nothing");
    assert_eq!(trace_hash(&first), trace_hash(&warm_run), "a warm cache changes nothing");
    let strip_real = |s: &str| {
        s.lines().filter(|l| !l.starts_with("real time") && !l.starts_with("FAIL")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(strip_real(&first), strip_real(&warm_run), "the whole replay output is the same");

    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let sweep = |jobs: &str| {
        let json = tmp.join(format!("kvlog-j{jobs}.json"));
        let (code, stdout, _) = run(&file, &["-seeds", "1-6", "-j", jobs, "--json", json.to_str().unwrap()]);
        assert_eq!(code, 1, "{stdout}");
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (
            doc["trace_digest"].clone(),
            doc["failures"].as_array().unwrap().iter().map(|f| f["failures"].clone()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(sweep("1"), sweep("2"), "-j 1 and -j 2 give the same runs");
}

#[test]
fn check_runs_every_seed_twice_and_passes_when_they_agree() {
    let (code, stdout, stderr) = run(&config(&kvlog_dir(), "seedfall.fixed.json"), &["-seeds", "1-4", "-check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("4 seeds in") && stdout.contains("0 failed"), "{stdout}");
    assert!(!stdout.contains("not deterministic"), "{stdout}");
}

/// `-check` through the CLI, failing: the test-only `SEEDFALL_TEST_PERTURB` hook
/// (cli/src/sweep.rs) makes the second run of each pair differ, and the sweep
/// must say `FAIL seed N is not deterministic`, list the seed and exit 1.
#[test]
fn check_fails_a_seed_whose_second_run_differs() {
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-diverged.json");
    let file = config(&kvlog_dir(), "seedfall.fixed.json");
    let args = ["run", "-c", &file, "-seeds", "1-2", "-check", "--json", json.to_str().unwrap()];
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", shared_cache())
        .env("SEEDFALL_TEST_PERTURB", "server,1,fd_sync,1,29")
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    for seed in [1, 2] {
        assert!(stdout.contains(&format!("FAIL seed {seed} is not deterministic: ")), "{stdout}");
    }
    assert!(stdout.contains("host call fd_sync("), "names where the runs part: {stdout}");
    assert!(stdout.contains("not deterministic: seeds [1, 2]"), "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["diverged"], serde_json::json!([1, 2]), "{doc}");
    assert_eq!(doc["exit_code"], 1);
    // The hook is inert without -check: the same sweep passes.
    let plain = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c", &file, "-seeds", "1-2"])
        .env("SEEDFALL_CACHE_DIR", shared_cache())
        .env("SEEDFALL_TEST_PERTURB", "server,1,fd_sync,1,29")
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stdout));
}

#[test]
fn ctrl_c_stops_a_sweep_and_still_reports_the_lowest_failing_seed() {
    use std::io::{BufRead, BufReader};
    let file = config(&kvlog_dir(), "seedfall.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c", &file, "-seeds", "1-100000", "-j", "1"])
        .env("SEEDFALL_CACHE_DIR", shared_cache())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the sweep has found something (seed 1 fails).
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("FAIL seed 1 ") {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the sweep ended early: {seen}");
        seen.push_str(&line);
    }
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let code = child.wait().unwrap().code();
    let stdout = seen + &rest;
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("interrupted after ") && stdout.contains(" of 100000 seeds"), "{stdout}");
    assert!(stdout.contains("lowest failing seed: 1 "), "{stdout}");
}

#[test]
fn a_node_spinning_without_calls_is_stopped_by_the_watchdog() {
    let (code, stdout, stderr) = run(&config(&world_dir(), "spin.json"), &["-seeds", "1"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("  server#1: stopped by the watchdog after 1s of CPU time without yielding"), "{stdout}");
    assert!(stdout.contains("main.spin"), "the trap names the spinning function: {stdout}");
}

#[test]
fn a_busy_loop_the_counters_find_is_a_liveness_verdict_not_the_watchdog() {
    // With loop counters the spin is found deterministically, long before the
    // (real-time) watchdog's minute: the same verdict on any machine.
    // -check: how long it spins until the interrupt lands is real time, and must not reach the hash.
    let (code, stdout, stderr) = run(&config(&world_dir(), "busyloop.json"), &["-seeds", "1", "-check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(!stdout.contains("not deterministic"), "{stdout}");
    assert!(
        stdout.contains("  server#1: busy loop: the running goroutine ignored 100 preemption requests"),
        "{stdout}"
    );
    assert!(stdout.contains("main.spin"), "names the spinning function: {stdout}");
    assert!(!stdout.contains("watchdog"), "{stdout}");
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join("busyloop-sweep.json");
    seedfall(&["run", "-c", &config(&world_dir(), "busyloop.json"), "-seeds", "1", "--json", json.to_str().unwrap()]);
    let doc = std::fs::read_to_string(&json).unwrap();
    assert!(doc.contains("\"class\": \"liveness\""), "{doc}");
}

/// A Go duration as replay prints it ("177.956914ms", "1.2s"), in seconds.
fn seconds(text: &str) -> f64 {
    for (unit, scale) in [("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0)] {
        if let Some(value) = text.strip_suffix(unit).and_then(|n| n.parse::<f64>().ok()) {
            return value * scale;
        }
    }
    panic!("not a duration: {text}")
}

#[test]
fn quiet_for_stops_faults_for_its_window() {
    let out = seedfall(&["replay", "-c", &config(&world_dir(), "quiet.json"), "-seed", "1"]);
    let trace = text(&out.stdout);
    assert!(out.status.success(), "{trace}");
    assert!(trace.contains("client#1: quiet for 1s"), "{trace}");
    let fault_times: Vec<f64> = trace
        .lines()
        .filter(|l| l.contains("] * crash ") || l.contains("] * partition "))
        .map(|l| seconds(&l[1..l.find(']').unwrap()]))
        .collect();
    assert!(fault_times.iter().any(|t| *t < 0.2), "faults before the window: {trace}");
    assert!(fault_times.iter().any(|t| *t > 1.2), "faults after it: {trace}");
    assert!(!fault_times.iter().any(|t| (0.2..1.2).contains(t)), "no fault inside the window: {trace}");
}

#[test]
fn a_net_reset_resets_a_live_nodes_connections_and_the_client_reconnects() {
    let out = seedfall(&["replay", "-c", &config(&kvlog_dir(), "net-reset.json"), "-seed", "1"]);
    let trace = text(&out.stdout);
    assert!(out.status.success(), "the fixed store and its client survive resets: {trace}{}", text(&out.stderr));
    let resets = trace.lines().filter(|l| l.contains("* net reset server#1: 1 connections reset")).count();
    assert!(resets >= 3, "the server's connection to the client was reset, the server lived on: {trace}");
    assert!(!trace.contains("boot server#2"), "no restart: a reset is not a crash");
    let reconnects: u32 = trace
        .lines()
        .find_map(|l| l.split("kvlog client: ").nth(1)?.strip_suffix(" reconnects")?.parse().ok())
        .expect("the client reports its reconnects");
    assert!(reconnects as usize >= resets, "it reconnected after each reset: {reconnects} of {resets}");
}

#[test]
fn properties_never_reached_in_any_seed_fail_the_sweep() {
    let (code, stdout, stderr) = run(&config(&world_dir(), "catalog.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    for line in [
        "FAIL always never reached in any seed: always, never reached",
        "FAIL reachable never reached in any seed: reachable, never reached",
        // Through an aliased import of the Antithesis SDK.
        "FAIL reachable never reached in any seed: antithesis reachable, never reached",
        "always                   0          0  always, never reached",
        "unreachable              0          0  unreachable, reached only with -unreachable",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    assert!(!stdout.contains("FAIL seed"), "no seed fails: {stdout}");
    assert!(!stdout.contains("never reached in any seed: unreachable"), "{stdout}");
    assert!(
        stderr.contains("catalog/main.go:25: the message of sim.Sometimes is not a string literal"),
        "a message the catalog cannot read is a warning: {stderr}"
    );
    let (code, stdout, stderr) = run(&config(&world_dir(), "catalog-reached.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 0, "every catalogued property reached: {stdout}{stderr}");
    assert!(stdout.contains("always                   2          2  always, never reached"), "{stdout}");
}

/// A `sim.Unreachable` that a run reaches fails that run, as a property
/// failure naming its message, and the table counts it as reached, never true.
#[test]
fn a_run_that_reaches_sim_unreachable_fails() {
    let (code, stdout, stderr) = run(&config(&world_dir(), "catalog-unreachable.json"), &["-seeds", "1-2"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    for line in [
        "FAIL seed 1 at t=0s",
        "  client#1: unreachable, reached only with -unreachable",
        "2 seeds in",
        "0 passed, 2 failed",
        "unreachable              2          0  unreachable, reached only with -unreachable",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
}

/// The same source checked out in two places builds the same modules and
/// gives the same traces: Go would otherwise embed each checkout's path in
/// the wasm (`go build -trimpath`, docs/platforms.md), and a developer's
/// laptop and a CI runner would disagree on every trace and cache key.
#[test]
fn two_checkouts_of_the_same_source_give_the_same_modules_and_traces() {
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/go").canonicalize().unwrap();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("two-checkouts");
    let _ = std::fs::remove_dir_all(&root);
    let mut summaries = Vec::new();
    for checkout in ["a", "somewhere/else/b"] {
        let dir = root.join(checkout).join("world");
        std::fs::create_dir_all(dir.join("node")).unwrap();
        let go_mod = std::fs::read_to_string(world_dir().join("go.mod")).unwrap();
        let go_mod = go_mod.replace("../../../../sdk/go", &sdk.display().to_string());
        std::fs::write(dir.join("go.mod"), go_mod).unwrap();
        for file in ["go.sum", "quiet.json", "node/main.go"] {
            std::fs::copy(world_dir().join(file), dir.join(file)).unwrap();
        }
        let json = dir.join("sweep.json");
        let (code, stdout, stderr) =
            run(&config(&dir, "quiet.json"), &["-seeds", "1-3", "--json", json.to_str().unwrap()]);
        assert_eq!(code, 0, "{checkout}: {stdout}{stderr}");
        let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        summaries.push((summary["programs_hash"].clone(), summary["trace_digest"].clone()));
    }
    assert_eq!(summaries[0], summaries[1]);
}

/// Replay prints what the service did to its files, with the bytes written:
/// kvlog's log opens, appends and fsyncs, and its meta file's atomic
/// replace (a write through O_SYNC, a rename, the directory's fsync).
#[test]
fn replay_shows_the_services_file_operations() {
    let out = seedfall(&["replay", "-c", &config(&kvlog_dir(), "seedfall.json"), "-seed", "1"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let ops: Vec<&str> = stdout.lines().filter_map(|l| l.split_once("] * server#1: ").map(|(_, op)| op)).collect();
    for expected in [
        "open /data/kv.log (create): fd ",
        "open /data/kv.meta.tmp (create, truncate): fd ",
        "write /data/kv.meta.tmp: 8 bytes at offset 0",
        "rename /data/kv.meta.tmp -> /data/kv.meta",
        "fsync /data",
        "write /data/kv.log: ",
        "fsync /data/kv.log",
    ] {
        assert!(ops.iter().any(|op| op.starts_with(expected)), "no `{expected}` in:\n{}", ops.join("\n"));
    }
}
