//! `seedfall test` and `go-exec` (issue 37) on examples/gotest's bank (a
//! check-then-act race across a function call) and banksafe (its correct
//! twin), copied to a scratch module so `-minimize` can write its corpus,
//! and on the fixtures in tests/go/gotests (a lock-order deadlock, spinning
//! tests, a package that does not compile).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("gotest-cache")
}

/// A fresh copy of examples/gotest named `name`.
fn module(name: &str) -> PathBuf {
    module_at(&Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gotest-{name}")))
}

/// A fresh copy of examples/gotest at `dir`.
fn module_at(dir: &Path) -> PathBuf {
    let dir = dir.to_path_buf();
    let _ = std::fs::remove_dir_all(&dir);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gotest");
    for package in ["bank", "banksafe"] {
        std::fs::create_dir_all(dir.join(package)).unwrap();
        for file in std::fs::read_dir(source.join(package)).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "go") {
                std::fs::copy(&file, dir.join(package).join(file.file_name().unwrap())).unwrap();
            }
        }
    }
    std::fs::copy(source.join("go.mod"), dir.join("go.mod")).unwrap();
    dir
}

fn seedfall(dir: &Path, args: &[&str]) -> Output {
    seedfall_with(dir, args, &[])
}

/// `seedfall ARGS` in `dir` with `env` added to the environment.
fn seedfall_with(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .current_dir(dir)
        .env("SEEDFALL_CACHE_DIR", cache())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap()
}

/// `seedfall test ARGS --json F` in `dir`: exit code, stdout and the document.
fn test(dir: &Path, args: &[&str]) -> (i32, String, Value) {
    test_with(dir, args, &[])
}

/// `test` with `env` added to the environment.
fn test_with(dir: &Path, args: &[&str], env: &[(&str, String)]) -> (i32, String, Value) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gotest-{}-{n}.json", std::process::id()));
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    let json_arg = json.display().to_string();
    // Before any `--`: what follows it belongs to the test binary.
    let at = all.iter().position(|a| *a == "--").unwrap_or(all.len());
    all.splice(at..at, ["--json", json_arg.as_str()]);
    let out = seedfall_with(dir, &all, env);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc = std::fs::read_to_string(&json).map(|t| serde_json::from_str(&t).unwrap()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), format!("{stdout}{stderr}"), doc)
}

/// The JSON of test `name` in the first package.
fn test_doc<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let tests = doc["packages"][0]["tests"].as_array().expect("tests");
    tests.iter().find(|t| t["test"] == name).unwrap_or_else(|| panic!("{name} in {doc}"))
}

#[test]
fn the_race_is_found_its_command_reproduces_it_and_its_minimized_schedule_fails_a_later_plain_run() {
    let dir = module("race");
    let (code, out, doc) = test(&dir, &["./bank", "-preempt", "random", "-seeds", "1-300"]);
    assert_eq!(code, 1, "{out}");
    let race = test_doc(&doc, "TestConcurrentWithdrawals");
    let finding = &race["findings"][0];
    let failing = finding["count"].as_u64().unwrap();
    assert!((10..=290).contains(&failing), "a race, not a certainty: {failing} of 300\n{out}");
    assert!(finding["output"].as_str().unwrap().contains("overdrawn: balance -40"), "{out}");
    assert_eq!(test_doc(&doc, "TestSingleWithdrawal")["failed"], 0);
    let lowest = finding["lowest_seed"].as_u64().unwrap();
    let reproduce = finding["reproduce"].as_str().unwrap();
    assert_eq!(reproduce, format!("seedfall test ./bank -run TestConcurrentWithdrawals -seeds {lowest}"));
    assert!(out.contains(&format!("reproduce: {reproduce}")), "{out}");

    // The printed command, as printed.
    let words: Vec<&str> = reproduce.split_whitespace().skip(1).collect();
    let again = seedfall(&dir, &words);
    let again_out = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(1), "{again_out}");
    assert!(again_out.contains(&format!("FAIL seed {lowest} at")) && again_out.contains("overdrawn"), "{again_out}");

    // -minimize saves a schedule of preemption points that still fails.
    let seed = lowest.to_string();
    let (code, out, doc) = test(&dir, &["./bank", "-run", "TestConcurrentWithdrawals", "-seeds", &seed, "-minimize"]);
    assert_eq!(code, 1, "{out}");
    let saved = dir.join(format!("bank/testdata/seedfall/TestConcurrentWithdrawals/seed-{lowest}.faults.json"));
    assert_eq!(test_doc(&doc, "TestConcurrentWithdrawals")["findings"][0]["schedule"], saved.display().to_string());
    let schedule: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let faults = schedule["faults"].as_array().unwrap();
    assert!(!faults.is_empty() && faults.iter().all(|f| f["kind"] == "preempt"), "{schedule}");
    assert!(faults.len() as u64 <= schedule["shrunk_from"]["faults"].as_u64().unwrap());
    // Each point names the Go function it fired in and its file:line, in the file and in the output.
    for fault in faults {
        let site = fault["where"].as_str().unwrap_or_else(|| panic!("{schedule}"));
        assert!(go_site(site), "{site}");
        let line = format!("preempt     test at counted call {} (in {site})", fault["op"]);
        assert!(out.contains(&line), "{line}\n{out}");
    }

    // A later plain run replays it first and fails on it, on a seed whose own run passes.
    let passing = (1..=300).find(|s| !finding["failing_seeds"].as_array().unwrap().contains(&Value::from(*s))).unwrap();
    let (code, out, doc) = test(&dir, &["./bank", "-seeds", &passing.to_string()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL saved schedule testdata/seedfall/TestConcurrentWithdrawals/"), "{out}");
    assert_eq!(doc["packages"][0]["corpus"][0]["verdict"], "fail");
    assert_eq!(test_doc(&doc, "TestConcurrentWithdrawals")["failed"], 0, "the seed itself passes");
    std::fs::remove_file(&saved).unwrap();
    let (code, out, _) = test(&dir, &["./bank", "-seeds", &passing.to_string()]);
    assert_eq!(code, 0, "without the saved schedule the same run passes: {out}");
}

/// `pkg.Func, file.go:LINE` (or an assembly `file.s`), as a preemption point's site reads.
fn go_site(site: &str) -> bool {
    let Some((function, place)) = site.split_once(", ") else { return false };
    let Some((file, line)) = place.rsplit_once(':') else { return false };
    let source = file.ends_with(".go") || file.ends_with(".s");
    function.contains('.') && source && !file.contains('/') && line.parse::<u32>().is_ok()
}

#[test]
fn a_failing_seeds_trace_diffs_against_its_minimized_run() {
    let dir = module("traces");
    let traces = dir.join("traces");
    // Seed 2 fails in every checkout: the package is mounted at its import path, not its host path.
    let args = ["./bank", "-run", "TestConcurrentWithdrawals", "-seeds", "2", "-minimize", "-save-trace"];
    let (code, out, doc) = test(&dir, &[&args[..], &[traces.to_str().unwrap()]].concat());
    assert_eq!(code, 1, "{out}");
    let finding = &test_doc(&doc, "TestConcurrentWithdrawals")["findings"][0];
    assert_eq!(finding["traces"].as_array().unwrap().len(), 1, "one per failing seed");
    let (original, minimized) = (finding["traces"][0].as_str().unwrap(), finding["minimized_trace"].as_str().unwrap());
    let diff = seedfall(&dir, &["trace", "diff", original, minimized, "--json", "-"]);
    let diff: Value = serde_json::from_slice(&diff.stdout).unwrap();
    // They share the start (boot, the test's set-up) and part where a dropped preemption point was.
    assert!(diff["shared_prefix"].as_u64().unwrap() > 0, "{diff}");
    assert!(!diff["parts_at"].is_null(), "{diff}");
    let view = seedfall(&dir, &["trace", "view", minimized]);
    let text = String::from_utf8_lossy(&view.stdout);
    assert!(view.status.success() && text.contains("test#1"), "{text}");
    // Its preemption points name the Go function they fired in.
    let points: Vec<&str> = text.lines().filter(|l| l.contains(r#""kind":"preempt""#)).collect();
    assert!(!points.is_empty(), "{text}");
    for point in points {
        let event = point.split("  [parks: ").next().unwrap();
        let site =
            event.split_once(" (in ").and_then(|(_, s)| s.strip_suffix(')')).unwrap_or_else(|| panic!("{point}"));
        assert!(go_site(site), "{point}");
    }
    let stats = seedfall(&dir, &["trace", "stats", original, "--json", "-"]);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    // The test binary's goroutines: main, the test's, its two withdrawers at least.
    let goroutines = stats["goroutines"].as_array().unwrap();
    assert!(goroutines.len() >= 4, "{stats}");
}

#[test]
fn the_correct_twin_passes_300_seeds_twice_with_the_same_trace_hashes() {
    let dir = module("twin");
    let (code, out, first) = test(&dir, &["./banksafe", "-seeds", "1-300"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, second) = test(&dir, &["./banksafe", "-seeds", "1-300", "-j", "1"]);
    assert_eq!(code, 0, "{out}");
    for name in ["TestConcurrentWithdrawals", "TestSingleWithdrawal"] {
        let (a, b) = (test_doc(&first, name), test_doc(&second, name));
        assert_eq!(a["seeds"], 300);
        assert_eq!(a["trace_digest"], b["trace_digest"], "{name}");
    }
}

#[test]
fn several_packages_are_swept_one_after_the_other_each_reported() {
    let dir = module("several");
    let (code, out, doc) = test(&dir, &["./...", "-run", "TestConcurrentWithdrawals", "-seeds", "1-20"]);
    assert_eq!(code, 1, "{out}");
    let packages: Vec<&str> =
        doc["packages"].as_array().unwrap().iter().map(|p| p["package"].as_str().unwrap()).collect();
    assert_eq!(packages, ["./bank", "./banksafe"]);
    assert!(out.contains("FAIL ./bank\n") && out.contains("ok   ./banksafe\n"), "{out}");
}

#[test]
fn novelty_stops_after_patience_plus_one_seeds_on_a_program_with_one_shape() {
    let dir = module("novelty");
    let (code, out, doc) = test(
        &dir,
        &["./banksafe", "-run", "TestSingleWithdrawal", "-preempt", "none", "-novelty", "-novelty-patience", "7"],
    );
    assert_eq!(code, 0, "{out}");
    let single = test_doc(&doc, "TestSingleWithdrawal");
    assert_eq!((single["seeds"].as_u64(), single["novelty"]["shapes"].as_u64()), (Some(8), Some(1)), "{out}");
    assert!(out.contains("novelty: 1 shapes in 8 seeds (stopped at seed 8: 7 seeds without a new shape)"), "{out}");
    // Two goroutines racing under random preemption take more than one shape.
    let (_, out, doc) =
        test(&dir, &["./banksafe", "-run", "TestConcurrentWithdrawals", "-novelty", "-novelty-patience", "30"]);
    assert!(test_doc(&doc, "TestConcurrentWithdrawals")["novelty"]["shapes"].as_u64().unwrap() > 1, "{out}");
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go")
}

#[test]
fn a_two_goroutine_deadlock_shows_both_goroutines_stacks() {
    let (code, out, doc) = test(&fixtures(), &["./gotests/deadlock", "-seeds", "1"]);
    assert_eq!(code, 1, "{out}");
    let output = test_doc(&doc, "TestLockOrder")["findings"][0]["output"].as_str().unwrap().to_string();
    for frame in ["deadlock.lockFirstThenSecond(", "deadlock.lockSecondThenFirst(", "[sync.Mutex.Lock]"] {
        assert!(output.contains(frame), "{frame} in\n{output}");
    }
}

#[test]
fn spinning_tests_end_in_their_verdicts_and_the_sweep_goes_on() {
    let dir = fixtures();
    let config = "gotests/spin/watchdog.json";
    let (code, out, doc) = test(&dir, &["./gotests/spin", "-c", config, "-seeds", "1", "--", "-timeout", "300ms"]);
    assert_eq!(code, 1, "{out}");
    let finding =
        |name: &str, field: &str| test_doc(&doc, name)["findings"][0][field].as_str().unwrap_or("").to_string();
    assert!(finding("TestSpinsWithoutCalls", "signature").contains("watchdog"), "{out}");
    assert!(finding("TestSpinsWithCalls", "output").contains("panic: test timed out after 300ms"), "{out}");
    assert_eq!(test_doc(&doc, "TestPasses")["failed"], 0, "{out}");
}

#[test]
fn a_package_that_does_not_compile_shows_gos_error_and_exits_2() {
    let (code, out, doc) = test(&fixtures(), &["./gotests/nobuild"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("cannot use \"not an int\""), "{out}");
    assert!(doc["packages"][0]["error"].as_str().unwrap().contains("nobuild_test.go:7"), "{doc}");
    let bad = seedfall(&fixtures(), &["test", "./gotests/deadlock", "-preempt", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("-preempt: preempt: unknown strategy \"sometimes\""));
}

/// The environment of another user: `user`, with HOME and TMPDIR under
/// `home`. Go's caches stay where they are (set explicitly, as they default
/// to places under HOME), so builds stay warm.
fn another_user(home: &Path, user: &str) -> Vec<(&'static str, String)> {
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    let go_env = Command::new("go").args(["env", "GOCACHE", "GOMODCACHE", "GOPATH"]).output().unwrap();
    let go_env = String::from_utf8(go_env.stdout).unwrap();
    let mut env = vec![("HOME", home.display().to_string()), ("USER", user.to_string())];
    env.push(("TMPDIR", home.join("tmp").display().to_string()));
    env.extend(["GOCACHE", "GOMODCACHE", "GOPATH"].into_iter().zip(go_env.lines().map(str::to_string)));
    env
}

/// Two fresh copies of examples/gotest under `name`, at paths of different lengths.
fn two_checkouts(name: &str) -> (PathBuf, PathBuf) {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gotest-{name}"));
    let _ = std::fs::remove_dir_all(&base);
    (module_at(&base.join("a")), module_at(&base.join("a-checkout-at-a-much-longer-path/of/several/directories")))
}

#[test]
fn two_checkouts_at_paths_of_different_lengths_fail_at_the_same_seeds_with_the_same_digests() {
    let (short, long) = two_checkouts("paths");
    let args = ["./bank", "-run", "TestConcurrentWithdrawals", "-seeds", "1-40"];
    let (code, out, first) = test_with(&short, &args, &another_user(&short.join("home"), "ann"));
    assert_eq!(code, 1, "{out}");
    let (code, out, second) = test_with(&long, &args, &another_user(&long.join("home"), "bob-with-a-longer-name"));
    assert_eq!(code, 1, "{out}");
    let (a, b) = (test_doc(&first, "TestConcurrentWithdrawals"), test_doc(&second, "TestConcurrentWithdrawals"));
    assert!(a["failed"].as_u64().unwrap() > 0, "{a}");
    assert_eq!(a["findings"][0]["failing_seeds"], b["findings"][0]["failing_seeds"]);
    assert_eq!(a["trace_digest"], b["trace_digest"]);
}

/// Installs the go-exec wrapper into `bin` and checks what it tells the user to set.
fn install_wrapper(dir: &Path, bin: &Path) {
    let install = seedfall(dir, &["go-exec", "install", bin.to_str().unwrap()]);
    assert!(install.status.success(), "{}", String::from_utf8_lossy(&install.stderr));
    let said = String::from_utf8_lossy(&install.stdout);
    assert!(said.lines().any(|l| l.starts_with("set: export GOFLAGS=-trimpath")), "{said}");
}

/// `go test ARGS` for wasip1 in `dir` through the wrapper in `bin`, with `env` added.
fn go_test(dir: &Path, bin: &Path, args: &[&str], env: &[(&str, String)]) -> String {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new("go")
        .arg("test")
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .env("SEEDFALL_CACHE_DIR", cache())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// The `go test -json` attr events' value of `key` for `test`.
fn attr(json_lines: &str, test: &str, key: &str) -> Option<String> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["Action"] == "attr" && e["Test"] == test && e["Key"] == key)
        .map(|e| e["Value"].as_str().unwrap().to_string())
}

#[test]
fn go_test_json_through_the_installed_wrapper_carries_the_attr_events() {
    let dir = module("goexec");
    let bin = dir.join("bin");
    install_wrapper(&dir, &bin);
    let env = [("SEEDFALL_SEED", "7".into()), ("GOFLAGS", "-trimpath".into())];
    let text = go_test(&dir, &bin, &["-json", "-count=1", "./banksafe"], &env);
    let of = |test: &str, key: &str| attr(&text, test, key);
    for test in ["TestConcurrentWithdrawals", "TestSingleWithdrawal"] {
        assert_eq!(of(test, "seedfall.seed").as_deref(), Some("7"), "{text}");
        assert_eq!(of(test, "seedfall.trace_hash").map(|h| h.len()), Some(64), "{text}");
        let replay = of(test, "seedfall.replay").unwrap();
        assert!(
            replay.starts_with("SEEDFALL_SEED=7 SEEDFALL_PREEMPT=random GOOS=wasip1 GOARCH=wasm go test -json"),
            "{replay}"
        );
    }
}

#[test]
fn go_test_built_with_trimpath_runs_the_same_in_two_checkouts_and_without_it_the_wrapper_warns_once() {
    let (short, long) = two_checkouts("goexec-paths");
    let bin = short.parent().unwrap().join("bin");
    install_wrapper(&short, &bin);
    // banksafe's trimmed binary is the one the test above compiles: the same bytes from any checkout.
    let args = ["-json", "-count=1", "-run", "TestConcurrentWithdrawals", "./banksafe"];
    let hash = |dir: &Path, user: &str, goflags: &str| {
        let mut env = another_user(&dir.join("home"), user);
        env.extend([("SEEDFALL_SEED", "3".to_string()), ("GOFLAGS", goflags.to_string())]);
        let text = go_test(dir, &bin, &args, &env);
        let warnings = text.matches("was built without -trimpath").count();
        (attr(&text, "TestConcurrentWithdrawals", "seedfall.trace_hash").expect("a trace hash"), warnings, text)
    };
    let (first, warnings, text) = hash(&short, "ann", "-trimpath");
    assert_eq!(warnings, 0, "{text}");
    let (second, warnings, text) = hash(&long, "bob-with-a-longer-name", "-trimpath");
    assert_eq!((second, warnings), (first, 0), "{text}");
    let (_, warnings, text) = hash(&short, "ann", "");
    assert_eq!(warnings, 1, "{text}");
    assert!(text.contains("export GOFLAGS=-trimpath"), "{text}");
}
