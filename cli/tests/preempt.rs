//! Deterministic preemption through `seedfall exec`: spinning goroutines no
//! longer starve main, a check-then-act race is found by `pct` on most seeds
//! and never without preemption points, and loops without stack-checked calls
//! end as busy loops (with loop counters) or by the watchdog (without).
//! Issue 14: loops over frameless helpers and atomic spin-waits are preempted
//! through the instrumentation's entry checks; where a request cannot take
//! effect the watchdog ends the run (start functions included), never a hang.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("preempt-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build(name: &str) -> PathBuf {
    let output = out_dir().join(format!("{name}.wasm"));
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&output)
        .arg(format!("./{name}"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go"))
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .status()
        .expect("the `go` command is needed for these tests");
    assert!(status.success(), "building {name}");
    output
}

fn exec(args: &[&str], wasm: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .arg("exec")
        .args(args)
        .arg(wasm)
        .env("SEEDFALL_CACHE_DIR", out_dir().join("cache"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `wasm` twice with the same seed: both succeed with the same output and trace hash.
fn finishes_the_same_way_twice(wasm: &Path, expected: &str) -> String {
    let run = || {
        let out = exec(&["--seed", "5", "--trace-hash"], wasm);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (first, second) = (run(), run());
    assert!(first.0.contains(expected), "{}", first.0);
    assert!(first.1.contains("trace hash"), "{}", first.1);
    assert_eq!(first, second, "same seed, same output and trace hash");
    first.0
}

#[test]
fn issue_14_goroutines_looping_over_a_frameless_helper_are_preempted() {
    finishes_the_same_way_twice(&build("leafspin"), "main woke after true");
}

#[test]
fn issue_14_a_spin_wait_on_an_atomic_bool_is_preempted() {
    let out = finishes_the_same_way_twice(&build("atomicspin"), "ready after spinning: true");
    println!("{out}");
}

#[test]
fn issue_14_without_entry_checks_the_ignored_requests_end_in_a_watchdog_verdict_naming_the_function() {
    // The request cannot take effect: the loop's only callee has no check. Not a hang.
    let start = std::time::Instant::now();
    let out = exec(&["--no-entry-checks", "--watchdog", "1s"], &build("leafspin"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("busy loop") && stderr.contains("ignored"), "{stderr}");
    // Where the interrupt lands is real time: in mix, or in spin's loop (which
    // the compiler may have inlined into the goroutine's wrapper).
    let named = ["main.mix", "main.spin", "main.main.gowrap"].iter().any(|f| stderr.contains(&format!(" in {f}")));
    assert!(named, "names the function: {stderr}");
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

#[test]
fn issue_14_a_call_free_spin_with_loop_counters_ends_the_same_way_every_run() {
    let wasm = build("busyloop");
    let run = || {
        let out = exec(&["--preempt", "none,loops=true", "--trace-hash"], &wasm);
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("ignored 100 preemption requests") && stderr.contains("main.main.func1"), "{stderr}");
        // Where the interrupt lands in the loop (the wasm offset) is real time; the verdict and
        // the trace, frozen at detection, are not.
        let hash = stderr.lines().find(|l| l.contains("trace hash")).expect("a trace hash").to_string();
        (hash, stderr.split(" in main.main.func1").next().unwrap().to_string())
    };
    assert_eq!(run(), run());
}

#[test]
fn issue_14_a_spinning_start_function_is_stopped_by_the_watchdog() {
    let path = out_dir().join("start-spin.wasm");
    std::fs::write(
        &path,
        wat::parse_str(
            r#"(module (func $main.startspin (loop (br 0))) (start $main.startspin) (func (export "_start")))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let start = std::time::Instant::now();
    let out = exec(&["--watchdog", "500ms"], &path);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("busy loop") && stderr.contains("main.startspin"), "{stderr}");
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

#[test]
fn issue_14_a_watchdog_under_100ms_is_refused() {
    let out = exec(&["--watchdog", "99ms"], &build("spin"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("--watchdog must be at least 100ms") && stderr.contains("99ms"), "{stderr}");
}

#[test]
fn spinning_goroutines_do_not_starve_main_and_runs_repeat_exactly() {
    let wasm = build("spin");
    let run = || {
        let out = exec(&["--seed", "3", "--trace-hash"], &wasm);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (first, second) = (run(), run());
    assert!(first.0.contains("main woke after true"), "{}", first.0);
    assert_eq!(first, second, "same seed, same output and trace hash");
}

#[test]
fn a_tiny_every_cannot_livelock_the_runtime() {
    let out = exec(&["--preempt", "calls,every=8"], &build("spin"));
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn pct_finds_the_check_then_act_race_on_most_seeds() {
    let wasm = build("race");
    let mut failures = Vec::new();
    for strategy in ["none", "random", "pct,depth=2"] {
        let failed = (1..=20)
            .filter(|seed| !exec(&["--seed", &seed.to_string(), "--preempt", strategy], &wasm).status.success())
            .count();
        println!("race, seeds 1-20, --preempt {strategy}: {failed} failed");
        failures.push(failed);
    }
    let [none, random, pct] = failures[..] else { unreachable!() };
    assert_eq!(none, 0, "without preemption points the window is never split");
    assert!(pct > 10, "pct depth 2 finds it on most seeds: {pct}/20");
    assert!(random < pct, "random preempts too often to leave the other goroutine a long stretch: {random}");
}

#[test]
fn a_call_free_spin_is_a_busy_loop_with_loop_counters_and_stopped_by_the_watchdog_without() {
    let wasm = build("busyloop");
    let counted = exec(&["--preempt", "none,loops=true"], &wasm);
    assert_eq!(counted.status.code(), Some(2));
    let stderr = text(&counted.stderr);
    assert!(stderr.contains("node main") && stderr.contains("busy loop") && stderr.contains("ignored"), "{stderr}");
    let watched = exec(&["--watchdog", "1s"], &wasm);
    assert_eq!(watched.status.code(), Some(2));
    let stderr = text(&watched.stderr);
    assert!(
        stderr.contains("busy loop") && stderr.contains("watchdog") && stderr.contains("main.main.func1"),
        "{stderr}"
    );
}

#[test]
fn a_bad_preempt_spec_is_a_usage_error() {
    let out = exec(&["--preempt", "pcd,depth=2"], &build("spin"));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown strategy"), "{}", text(&out.stderr));
}
