//! Findings across runs (issue 35): a service with two bugs
//! (`tests/go/world/twobugs`) swept, one bug fixed, swept with too few and
//! with enough seeds, the bug back; `--fail-on regressed` exits 0 on the run
//! with only an ongoing finding and 1 on the regression. And a sweep where
//! every seed fails prints ten `FAIL` blocks and one finding; the `-report`
//! page in headless Chromium.

#[path = "support/chromium.rs"]
mod chromium;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("triage-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `dir/twobugs.json`: the service with `args`, a workload that waits.
fn write_config(dir: &Path, args: &[&str]) -> PathBuf {
    let pkg = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world/twobugs");
    let config = serde_json::json!({
        "nodes": [{"name": "svc", "pkg": pkg, "args": args}],
        "workload": {"name": "client", "pkg": pkg, "args": ["-workload"]},
        "duration": "2s",
    });
    let path = dir.join("twobugs.json");
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// `seedfall run` of `config`: the exit code, stdout and the `--json` document.
fn sweep(config: &Path, seeds: &str, extra: &[&str]) -> (i32, String, Value) {
    let json = config.with_extension("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c"])
        .arg(config)
        .args(["--seeds", seeds, "--json"])
        .arg(&json)
        .args(extra)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out.status.code().unwrap_or(-1), stdout, doc)
}

/// (message, status) of each finding the document lists.
fn statuses(doc: &Value) -> Vec<(String, String)> {
    let list = doc["findings"].as_array().expect("findings");
    list.iter()
        .map(|f| (f["message"].as_str().unwrap().to_string(), f["status"].as_str().unwrap().to_string()))
        .collect()
}

/// The status the findings history gives the finding whose message has `bug`.
fn status_of(dir: &Path, bug: &str) -> String {
    let text = std::fs::read_to_string(dir.join(".seedfall/twobugs.findings.json")).unwrap();
    let history: Value = serde_json::from_str(&text).unwrap();
    let found = history["findings"].as_array().unwrap().iter().find(|f| f["message"].as_str().unwrap().contains(bug));
    found.map_or("absent".into(), |f| f["status"].as_str().unwrap().to_string())
}

#[test]
fn findings_are_new_then_unseen_resolved_ongoing_and_regressed() {
    let dir = scratch("statuses");
    let config = write_config(&dir, &["-a", "-b"]);
    let (code, out, doc) = sweep(&config, "1-20", &[]);
    assert_eq!(code, 1, "{out}");
    let first = statuses(&doc);
    assert_eq!(first.len(), 2, "two distinct bugs, two findings: {out}");
    assert!(first.iter().all(|(_, status)| status == "new"), "{first:?}");
    assert!(out.contains("findings: 2"), "{out}");
    let a = doc["findings"].as_array().unwrap().iter().find(|f| f["message"].as_str().unwrap().contains("bug a"));
    let a = a.expect("bug a struck a seed of 1-20");
    assert_eq!(a["node"], "svc");
    assert_eq!(a["replay"], format!("seedfall replay -c {} -seed {}", config.display(), a["lowest_seed"]));
    let a_rate = a["count"].as_f64().unwrap() / 20.0;

    // Bug a fixed.
    write_config(&dir, &["-b"]);
    let (_, out, _) = sweep(&config, "21-22", &[]);
    assert_eq!(status_of(&dir, "bug a"), "unseen", "two seeds cannot tell: {out}");
    assert!(out.contains("more clean seeds to call it resolved"), "{out}");
    let needed = (0.05f64.ln() / (1.0 - a_rate).ln()).ceil() as u64;
    let (code, out, doc) = sweep(&config, &format!("23-{}", 23 + needed + 10), &["--fail-on", "regressed"]);
    assert_eq!(status_of(&dir, "bug a"), "resolved", "{out}");
    assert_eq!(statuses(&doc).iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(), ["ongoing"], "bug b is still there");
    assert_eq!(code, 0, "--fail-on regressed: an ongoing finding is not a failure: {out}");

    // Bug a back.
    write_config(&dir, &["-a", "-b"]);
    let (code, out, _) = sweep(&config, "1-20", &["--fail-on", "regressed"]);
    assert_eq!(status_of(&dir, "bug a"), "regressed", "{out}");
    assert_eq!(code, 1, "--fail-on regressed fails on the regression: {out}");
    let (code, _, _) = sweep(&config, "1-20", &["--fail-on", "new"]);
    assert_eq!((code, status_of(&dir, "bug a")), (0, "ongoing".into()), "seen again: ongoing, not new");
}

/// Evidence 2: the `-report` page opened in Debian's headless Chromium.
#[test]
fn the_report_page_shows_one_element_per_finding_with_its_history_row() {
    let dir = scratch("report");
    let config = write_config(&dir, &["-a", "-b"]);
    let page = dir.join("sweep.html");
    let (_, out, _) = sweep(&config, "1-10", &["-shrink-new", "-budget", "30", "-report", page.to_str().unwrap()]);
    let first: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    for finding in first["findings"].as_array().unwrap() {
        assert_eq!(finding["status"], "new");
        let schedule = finding["schedule"].as_str().unwrap_or_else(|| panic!("a new finding is shrunk: {out}"));
        let seed = finding["lowest_seed"].as_u64().unwrap();
        assert!(schedule.ends_with(&format!(".seedfall/twobugs.seed-{seed}.faults.json")), "{schedule}");
        assert!(Path::new(schedule).is_file(), "{schedule}");
        assert!(out.contains(&format!("shrunk {} (seed {seed}): ", finding["id"].as_str().unwrap())), "{out}");
    }
    let (code, out, _) = sweep(&config, "11-30", &["-report", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    for field in ["seedfall_version", "config", "seeds", "run_at", "commit", "summary", "findings", "properties"] {
        assert!(doc.get(field).is_some(), "FILE.json has `{field}` (DESIGN.md §1)");
    }
    let listed = doc["findings"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{doc}");
    for finding in listed {
        assert_eq!(finding["history"].as_array().unwrap().len(), 2, "two sweeps of this config: {finding}");
        assert!(finding["trace_tail"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().contains("panic")));
        assert!(finding["fault_kinds"].is_array() && finding["fastest_seed"].is_u64());
        assert!(finding["schedule"].is_null(), "an ongoing finding is not shrunk again");
    }

    let chromium = |extra: &[&str]| chromium::chromium(&page, extra);
    let dom = chromium(&["--dump-dom"]);
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("<section class=\"finding\"").count(), 2, "one element per finding: {dom}");
    assert_eq!(dom.matches("<div class=\"history\">").count(), 2, "a history row each");
    assert_eq!(dom.matches("<span class=\"failing\"").count() + dom.matches("<span class=\"clean\"").count(), 4);
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("triage-report.png");
    let _ = std::fs::remove_file(&shot);
    let out = chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1200,1600"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(size > 1000, "the screenshot {} is missing or empty ({size} bytes)", shot.display());
}

#[test]
fn two_thousand_failing_seeds_print_ten_fail_blocks_and_one_finding() {
    let dir = scratch("many");
    let config = write_config(&dir, &["-a", "-a-share", "1"]);
    let (code, out, doc) = sweep(&config, "1-2000", &[]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().filter(|l| l.starts_with("FAIL seed ")).count(), 10, "{out}");
    assert!(out.contains("... and 1990 more failing seeds not shown (--show-fails 10)"), "{out}");
    assert_eq!(doc["failed"], 2000);
    assert_eq!(statuses(&doc).len(), 1, "one bug, one finding");
    assert!(out.contains("findings: 1\n") && out.contains(" 2000/2000 "), "{out}");
    let (_, out, _) = sweep(&config, "1-30", &["--show-fails", "3"]);
    assert_eq!(out.lines().filter(|l| l.starts_with("FAIL seed ")).count(), 3, "{out}");
}

#[test]
fn a_merged_report_equals_the_unsharded_one() {
    let whole = scratch("merge-whole");
    let config = write_config(&whole, &["-a", "-b"]);
    let page = whole.join("sweep.html");
    let (code, out, _) = sweep(&config, "1-12", &["-report", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");

    let sharded = scratch("merge-shards");
    let config = write_config(&sharded, &["-a", "-b"]);
    let mut shards = Vec::new();
    for shard in ["0/2", "1/2"] {
        let (_, out, _) = sweep(&config, "1-12", &["--shard", shard]);
        let file = sharded.join(format!("shard-{}.json", &shard[..1]));
        std::fs::rename(config.with_extension("out.json"), &file).unwrap_or_else(|e| panic!("{e}: {out}"));
        shards.push(file);
    }
    assert!(!sharded.join(".seedfall/twobugs.findings.json").exists(), "a shard keeps no history");
    let merged_page = sharded.join("merged.html");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["report", "merge"])
        .args(&shards)
        .args(["-report", merged_page.to_str().unwrap()])
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(merged_page.is_file() && sharded.join(".seedfall/twobugs.findings.json").is_file(), "{stdout}");

    // The same findings, seeds, fastest seeds, fault kinds and trace tails;
    // only where the config lives (and so the replay commands) differs.
    let read = |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let comparable = |doc: Value| -> Vec<Value> {
        let keep =
            ["id", "status", "count", "failing_seeds", "lowest_seed", "fastest_seed", "fault_kinds", "trace_tail"];
        let list = doc["findings"].as_array().unwrap().clone();
        list.into_iter().map(|f| keep.iter().map(|k| f[*k].clone()).collect::<Vec<_>>().into()).collect()
    };
    let (a, b) = (read(&whole.join("sweep.json")), read(&sharded.join("merged.json")));
    assert_eq!(a["summary"], b["summary"]);
    assert_eq!(a["seeds"], b["seeds"]);
    assert_eq!(comparable(a), comparable(b));
}

#[test]
fn a_reader_that_stops_early_ends_no_sweep_in_a_panic() {
    use std::io::{BufRead, BufReader};
    let dir = scratch("closed-stdout");
    let config = write_config(&dir, &["-a", "-b"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c"])
        .arg(&config)
        .args(["--seeds", "1-60", "--show-fails", "1000", "-j", "1"])
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `seedfall run … | head -1`: read one line, then close the pipe.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("FAIL seed"), "{first}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "the sweep finished with its finding: {stderr}");
}
