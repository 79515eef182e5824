//! History checks through `seedfall run` and `replay` (DESIGN.md §1, §6): `examples/replkv`'s stale reads
//! fail as `linearizability` naming the key and a minimal sub-history, its fixed twin passes, a seed run
//! twice gives the same trace hash, `replay` writes the timeline page and a real browser (Debian's headless
//! Chromium) renders one element per operation, an unknown model is a config error listing the valid
//! ones, and `examples/txnkv`'s lost updates fail as `isolation` while its locked twin passes.

#[path = "support/chromium.rs"]
mod chromium;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn replkv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/replkv")
}

fn config(name: &str) -> String {
    replkv().join(name).display().to_string()
}

fn seedfall(args: &[&str]) -> Output {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache");
    Command::new(env!("CARGO_BIN_EXE_seedfall")).args(args).env("SEEDFALL_CACHE_DIR", cache).output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn stale_reads_fail_as_linearizability_and_the_fixed_twin_passes() {
    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-fail.json");
    let out = seedfall(&["run", "-c", &config("seedfall.json"), "-seeds", "1-3", "--json", report.to_str().unwrap()]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("  world: key \"k0\" is not linearizable: [c"), "{all}");
    assert!(all.lines().any(|l| l == "linearizability unknown: 0 seeds"), "said even at 0: {all}");
    let doc = json(&report);
    let first = &doc["failures"][0]["failures"][0];
    assert_eq!((first["class"].as_str(), first["node"].as_str()), (Some("linearizability"), Some("world")), "{doc}");
    // The failure's time is when the history was already failing, before the run's end.
    let (at, end) = (first["at_ns"].as_u64().unwrap(), doc["failures"][0]["virtual_ns"].as_u64().unwrap());
    assert!(at < end, "{doc}");
    assert_eq!(doc["linearizability_unknown"], 0);
    assert_eq!(doc["linearizable"], "kv");

    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-pass.json");
    let out =
        seedfall(&["run", "-c", &config("seedfall.fixed.json"), "-seeds", "1-3", "--json", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&report)["linearizability_unknown"], 0);
}

#[test]
fn a_seed_gives_the_same_history_and_trace_hash_twice() {
    let out = seedfall(&["run", "-c", &config("seedfall.json"), "-seeds", "2", "-check"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(!all.contains("not deterministic"), "{all}");
    let hash = |out: &Output| {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout.lines().find(|l| l.starts_with("trace hash ")).map(str::to_owned).expect("a trace hash")
    };
    let (a, b) = (
        seedfall(&["replay", "-c", &config("seedfall.fixed.json"), "-seed", "4"]),
        seedfall(&["replay", "-c", &config("seedfall.fixed.json"), "-seed", "4"]),
    );
    assert_eq!(hash(&a), hash(&b));
}

#[test]
fn replay_writes_a_timeline_a_browser_renders_with_one_element_per_operation() {
    let out = seedfall(&["replay", "-c", &config("seedfall.json"), "-seed", "3"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let page = replkv().join(".seedfall/seed-3.history.html");
    assert!(all.contains(&format!("history timeline: {}", page.display())), "{all}");
    let ops: usize = all
        .lines()
        .find_map(|l| l.split("* history: ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("replay says how many operations the history has");
    assert!(ops > 10, "{all}");

    let chromium = |extra: &[&str]| chromium::chromium(&page, extra);
    let dom = chromium(&["--dump-dom"]);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "{}", text(&dom));
    let elements: Vec<&str> = dom_text.split("data-op=\"").skip(1).collect();
    assert_eq!(elements.len(), ops, "one element per operation in the rendered DOM");
    assert!(dom_text.contains("class=\"op unplaced"), "the operation that cannot be placed is highlighted");
    assert!(dom_text.contains("class=\"op lin"), "the linearizable prefix is marked");

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replkv-seed-3-history.png");
    let _ = std::fs::remove_file(&shot);
    let out = chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1400,900"]);
    assert!(out.status.success(), "{}", text(&out));
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(size > 1000, "the screenshot {} is missing or empty ({size} bytes)", shot.display());
}

#[test]
fn an_unknown_model_is_a_config_error_listing_the_models() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-bad-model");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seedfall.json");
    std::fs::write(&file, r#"{"workload": {"pkg": "./client"}, "linearizable": "linearisable-kv"}"#).unwrap();
    let out = seedfall(&["run", "-c", file.to_str().unwrap(), "-seeds", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(
            "`linearizable`: unknown linearizability model \"linearisable-kv\" \
             (known: kv, register, cas-register, counter, queue, set)"
        ),
        "{}",
        text(&out)
    );
}

#[test]
fn a_lost_update_fails_as_isolation_and_the_locked_twin_passes() {
    let txnkv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/txnkv");
    let run = |name: &str| seedfall(&["run", "-c", txnkv.join(name).to_str().unwrap(), "-seeds", "1-3", "-check"]);
    let out = run("seedfall.json");
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("  world: ") && all.contains(" forbidden by serializable: T"), "{all}");
    assert!(!all.contains("not deterministic"), "{all}");
    let out = run("seedfall.fixed.json");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_linearizability_failure_shrinks_and_the_shrunk_schedule_fails_the_same_way() {
    // A variant name of its own, so the schedule does not collide with other tests' files.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-shrink");
    std::fs::create_dir_all(&dir).unwrap();
    let text_of = |name: &str| std::fs::read_to_string(replkv().join(name)).unwrap();
    let source = text_of("seedfall.json").replace("\"./", &format!("\"{}/", replkv().display()));
    let file = dir.join("stale.json");
    std::fs::write(&file, source).unwrap();
    let out = seedfall(&["shrink", "-c", file.to_str().unwrap(), "-seed", "3"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("sim.Budget capped at"), "shrink caps the workload: {all}");
    let schedule = dir.join(".seedfall/stale.seed-3.faults.json");
    let out = seedfall(&["replay", "-c", file.to_str().unwrap(), "-seed", "3", "-faults", schedule.to_str().unwrap()]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("  world: key \"k0\" is not linearizable: [c"), "{all}");
}
