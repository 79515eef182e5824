//! Issue 56, through the real binary: a checkout is hostile input. Writes
//! under `.seedfall/` never go through a symlink (a committed history lock
//! or `cause.json` link leaves its target's bytes alone); outputs never
//! overwrite an input (`-report seedfall.html` next to the config); explore
//! keeps each config's schedules apart and exits 2 when it has no verdict;
//! reads of traces and histories refuse FIFOs and devices at once; a
//! guest's control characters are escaped on the terminal; printed replay
//! commands are shell-quoted; an interrupted shrink keeps a smaller saved
//! schedule. The configs run `tests/go/hostile/prog` (built once) in a
//! fresh folder each, on virtual time: each test takes seconds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_seedfall"));
    // The world tests' cache: prog is compiled once for all of them.
    cmd.args(args).env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"));
    cmd
}

fn seedfall(args: &[&str]) -> Output {
    command(args).output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("safe-write-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// tests/go/hostile/prog built for wasip1, once per test binary.
fn prog_wasm() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("safe-write-prog.wasm");
        let status = Command::new("go")
            .args(["build", "-o"])
            .arg(&out)
            .arg("./prog")
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/hostile"))
            .env("GOOS", "wasip1")
            .env("GOARCH", "wasm")
            .status()
            .expect("the `go` command is needed for these tests");
        assert!(status.success());
        out
    })
}

/// Writes config `name` into `dir`: a server that waits and a workload
/// that says `message` and fails (None: waits and passes).
fn config(dir: &Path, name: &str, message: Option<&str>) -> PathBuf {
    let wasm = prog_wasm().display().to_string();
    let workload = match message {
        Some(m) => serde_json::json!(["say", m]),
        None => serde_json::json!(["wait"]),
    };
    let doc = serde_json::json!({
        "nodes": [{"name": "server", "wasm": wasm, "args": ["wait"]}],
        "workload": {"name": "client", "wasm": wasm, "args": workload},
        "duration": "10s",
    });
    let file = dir.join(name);
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    file
}

fn symlink(target: &Path, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn issue_56_a_committed_history_lock_link_leaves_its_target_intact() {
    let dir = folder("lock");
    let config = config(&dir, "seedfall.json", None);
    let precious = dir.join("precious.txt");
    std::fs::write(&precious, "the user's own bytes\n").unwrap();
    symlink(&precious, &dir.join(".seedfall/findings.json.lock"));
    let out = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "the user's own bytes\n", "{}", text(&out));
    assert!(text(&out).contains("findings.json.lock is a symbolic link: seedfall does not write through links"));
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn issue_56_a_committed_cause_json_link_is_refused_and_its_target_kept() {
    let dir = folder("cause");
    let config = config(&dir, "seedfall.json", Some("lost entry 3"));
    let precious = dir.join("precious.txt");
    std::fs::write(&precious, "keep\n").unwrap();
    symlink(&precious, &dir.join(".seedfall/cause/seed-1/cause.json"));
    let c = config.to_str().unwrap();
    let out = seedfall(&["cause", "-c", c, "-seed", "1", "-futures", "1", "-moments", "1", "-j", "1"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep\n", "{}", text(&out));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("cause.json is a symbolic link"), "{}", text(&out));
}

#[test]
fn issue_56_a_report_or_json_naming_the_config_or_each_other_is_an_error() {
    let dir = folder("outputs");
    let config = config(&dir, "seedfall.json", None);
    let before = std::fs::read(&config).unwrap();
    let c = config.to_str().unwrap();
    let page = dir.join("seedfall.html");
    let (r, j) = (dir.join("r.html"), dir.join("r.json"));
    for args in [
        vec!["run", "-c", c, "-seeds", "1", "-report", page.to_str().unwrap()],
        vec!["explore", "-c", c, "-budget", "2", "-report", page.to_str().unwrap()],
        vec!["run", "-c", c, "-seeds", "1", "--json", j.to_str().unwrap(), "-report", r.to_str().unwrap()],
        vec!["run", "-c", c, "-seeds", "1", "--json", c],
    ] {
        let out = seedfall(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("seedfall does not write over its inputs"), "{args:?}: {}", text(&out));
        assert_eq!(std::fs::read(&config).unwrap(), before, "{args:?}");
        assert!(!j.exists() && !page.exists() && !r.exists(), "{args:?}: nothing written");
    }
}

#[test]
fn issue_56_two_explored_configs_in_one_folder_keep_their_own_schedules() {
    let dir = folder("explore");
    // One failure, so one finding id: the file names alone would collide.
    let (a, b) = (config(&dir, "a.json", Some("lost entry 3")), config(&dir, "b.json", Some("lost entry 3")));
    for (config, own, other) in [(&a, "a.explore", "b.explore"), (&b, "b.explore", "a.explore")] {
        let out = seedfall(&["explore", "-c", config.to_str().unwrap(), "-seeds", "1", "-budget", "1", "-j", "1"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let schedules: Vec<_> = std::fs::read_dir(dir.join(".seedfall").join(own)).unwrap().collect();
        assert_eq!(schedules.len(), 1, "{}", text(&out));
        assert!(text(&out).contains(&format!(".seedfall/{own}/")), "{}", text(&out));
        assert!(!text(&out).contains(other), "{}", text(&out));
    }
    assert!(!dir.join(".seedfall/explore").exists());
    // Each printed replay command still fails: the other config wrote nothing over it.
    let out = seedfall(&["explore", "-c", a.to_str().unwrap(), "-seeds", "1", "-budget", "1", "-j", "1"]);
    let line = text(&out).lines().find_map(|l| l.trim().strip_prefix("replay: ").map(str::to_string)).unwrap();
    let words: Vec<&str> = line.split(' ').skip(1).collect();
    let replay = seedfall(&words);
    assert_eq!(replay.status.code(), Some(1), "{line}: {}", text(&replay));
    assert!(text(&replay).contains("lost entry 3"), "{}", text(&replay));
}

#[test]
fn issue_56_explore_with_nothing_run_has_no_verdict_and_exits_2() {
    let dir = folder("budget0");
    let config = config(&dir, "seedfall.json", None);
    let out = seedfall(&["explore", "-c", config.to_str().unwrap(), "-budget", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no verdict: no run fit the budget"), "{}", text(&out));
}

/// Runs seedfall, killing it if it takes more than 20 s (a read that hangs).
fn within_20s(args: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let mut child = command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code(), text(&out), started.elapsed())
}

#[test]
fn issue_56_traces_and_histories_that_are_fifos_or_devices_are_refused_at_once() {
    let dir = folder("fifo");
    let fifo = dir.join("trace.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let fifo = fifo.to_str().unwrap();
    for args in
        [vec!["trace", "view", fifo], vec!["trace", "stats", "/dev/zero"], vec!["trace", "diff", fifo, "/dev/zero"]]
    {
        let (code, out, took) = within_20s(&args);
        assert_eq!(code, Some(2), "{args:?}: {out}");
        assert!(out.contains("not a regular file"), "{args:?}: {out}");
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    }
    let config = config(&dir, "seedfall.json", None);
    let history = dir.join(".seedfall/findings.json");
    std::fs::create_dir_all(history.parent().unwrap()).unwrap();
    assert!(Command::new("mkfifo").arg(&history).status().unwrap().success());
    let (code, out, took) = within_20s(&["run", "-c", config.to_str().unwrap(), "-seeds", "1"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("findings.json: cannot read") || out.contains("not a regular file"), "{out}");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let (code, out, _) = within_20s(&["replay", "-c", config.to_str().unwrap(), "-seed", "1", "--against", fifo]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("not a regular file"), "{out}");
}

#[test]
fn issue_56_a_guest_cannot_fake_a_summary_line_with_control_characters() {
    let dir = folder("escape");
    let fake = "lost\r10 seeds in 0.1s (100 seeds/s on 1 workers): 10 passed, 0 failed\x1b[2K\x1b]0;pwned\x07";
    let config = config(&dir, "seedfall.json", Some(fake));
    for args in [
        vec!["run", "-c", config.to_str().unwrap(), "-seeds", "1"],
        vec!["replay", "-c", config.to_str().unwrap(), "-seed", "1"],
    ] {
        let out = seedfall(&args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let all = text(&out);
        assert!(!all.contains('\r') && !all.contains('\x1b') && !all.contains('\x07'), "{args:?}: {all:?}");
        assert!(all.contains(r"lost\r10 seeds in 0.1s"), "{args:?}: {all}");
        assert!(all.contains(r"\x1b[2K\x1b]0;pwned\x07"), "{args:?}: {all}");
    }
}

#[test]
fn issue_56_a_printed_replay_command_is_shell_quoted_and_runs_as_printed() {
    let dir = folder("quote");
    let config = config(&dir, "x;touch pwned;.json", Some("lost entry 3"));
    let out = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let all = text(&out);
    let line = all.lines().find(|l| l.starts_with("lowest failing seed: 1 ")).unwrap();
    let command = line.split_once("(replay: ").unwrap().1.strip_suffix(')').unwrap();
    assert!(command.contains(&format!("'{}'", config.display())), "{command}");
    // Pasted into a shell, it replays the seed and runs nothing else.
    let bin = Path::new(env!("CARGO_BIN_EXE_seedfall")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache");
    let pasted = Command::new("sh")
        .args(["-c", command])
        .current_dir(&dir)
        .env("PATH", path)
        .env("SEEDFALL_CACHE_DIR", cache)
        .output()
        .unwrap();
    assert_eq!(pasted.status.code(), Some(1), "{}", text(&pasted));
    assert!(text(&pasted).contains("lost entry 3"), "{}", text(&pasted));
    assert!(!dir.join("pwned").exists(), "the pasted command ran `touch`");
}

/// An interrupted shrink's best schedule may be far from minimal: it must
/// not replace a saved one with fewer faults that still fails the same way.
#[test]
fn issue_56_an_interrupted_shrink_keeps_a_smaller_saved_schedule() {
    let kvlog = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog");
    let config_file = kvlog.join("shrink-keep-test.json");
    std::fs::copy(kvlog.join("hostile.json"), &config_file).unwrap();
    let config = config_file.to_str().unwrap();
    let saved = kvlog.join(".seedfall/shrink-keep-test.seed-1.faults.json");
    let beside = kvlog.join(".seedfall/shrink-keep-test.seed-1.interrupted.faults.json");
    let _ = std::fs::remove_file(&saved);
    let _ = std::fs::remove_file(&beside);
    let faults = |file: &Path| {
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        doc["faults"].as_array().unwrap().len()
    };
    // A shrink its budget cut short: fewer faults than the seed drew, failing the same way.
    let out = seedfall(&["shrink", "-c", config, "-seed", "1", "-j", "1", "-budget", "30"]);
    assert!(out.status.success(), "{}", text(&out));
    let smaller = std::fs::read(&saved).unwrap();
    // Stopped at once: its best is the seed's own schedule.
    let mut child = command(&["shrink", "-c", config, "-seed", "1", "-j", "1"]).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("shrink seed 1:") {
        assert!(std::io::BufRead::read_line(&mut stdout, &mut seen).unwrap() > 0, "ended early: {seen}");
    }
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    std::io::Read::read_to_string(&mut stdout, &mut seen).unwrap();
    let code = child.wait().unwrap().code();
    let _ = std::fs::remove_file(&config_file);
    assert_eq!(code, Some(2), "{seen}");
    assert!(seen.contains(&format!("kept {}: it has fewer faults", saved.display())), "{seen}");
    assert!(seen.contains(&format!("saved {}", beside.display())), "{seen}");
    assert_eq!(std::fs::read(&saved).unwrap(), smaller, "the smaller schedule stays");
    assert!(faults(&beside) > faults(&saved), "{seen}");
}
