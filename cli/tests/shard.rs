//! Sharded sweeps: `run --shard I/N` in separate processes, then `report
//! merge`, give the unsharded sweep's summary (all but real-time figures)
//! and its trace digest, for a config with failures and a property table;
//! a missing, duplicate, interrupted or mismatched shard is rejected with
//! a message naming it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/sweep_compare.rs"]
mod sweep_compare;
use sweep_compare::{comparable, comparable_json};

fn seedfall(args: &[&str]) -> (Option<i32>, String, String) {
    let out: Output = std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn kvlog(config: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog").join(config).display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_shards(dir: &Path, config: &str, seeds: &str, count: u64) -> Vec<String> {
    (0..count)
        .map(|i| {
            let json = dir.join(format!("shard-{i}.json")).display().to_string();
            let shard = format!("{i}/{count}");
            let (code, out, err) =
                seedfall(&["run", "-c", config, "-seeds", seeds, "-j", "1", "--shard", &shard, "--json", &json]);
            assert!(matches!(code, Some(0 | 1)), "shard {shard}: {out}{err}");
            json
        })
        .collect()
}

#[test]
fn four_merged_shards_report_what_one_sweep_does() {
    let dir = scratch("shard-merge");
    let config = kvlog("seedfall.json");
    let whole = dir.join("whole.json");
    let (code, whole_out, err) = seedfall(&["run", "-c", &config, "-seeds", "1-14", "--json", whole.to_str().unwrap()]);
    assert_eq!(code, Some(1), "the buggy store fails some seeds: {whole_out}{err}");
    let shards = run_shards(&dir, &config, "1-14", 4);
    let merged = dir.join("merged.json");
    // Given out of order: the order of files does not matter.
    let mut args = vec!["report", "merge", &shards[2], &shards[0], &shards[3], &shards[1]];
    args.extend(["--json", merged.to_str().unwrap()]);
    let (code, merged_out, err) = seedfall(&args);
    assert_eq!(code, Some(1), "a merged sweep with failures exits 1: {merged_out}{err}");
    assert_eq!(comparable(&merged_out), comparable(&whole_out));
    assert!(merged_out.contains("lowest failing seed: 1"), "{merged_out}");
    assert!(merged_out.contains("sometimes "), "the property table is there: {merged_out}");
    assert!(merged_out.starts_with("FAIL seed 1 at t="), "FAIL blocks first, in seed order: {merged_out}");
    let (whole_doc, merged_doc) = (comparable_json(&whole), comparable_json(&merged));
    assert_eq!(whole_doc["trace_digest"], merged_doc["trace_digest"]);
    assert_eq!(whole_doc, merged_doc);
}

#[test]
fn merge_rejects_anything_but_the_shards_of_one_sweep() {
    let dir = scratch("shard-reject");
    let config = kvlog("seedfall.fixed.json");
    let shards = run_shards(&dir, &config, "1-6", 3);
    let merge = |files: &[&str]| {
        let mut args = vec!["report", "merge"];
        args.extend(files);
        let (code, out, err) = seedfall(&args);
        assert_eq!(code, Some(2), "{out}{err}");
        err
    };
    let (code, out, _) = seedfall(&["report", "merge", &shards[0], &shards[1], &shards[2]]);
    assert_eq!(code, Some(0), "all three shards pass: {out}");
    assert!(merge(&[&shards[0], &shards[2]]).contains("missing shard 1/3"));
    assert!(merge(&[&shards[0], &shards[1], &shards[1], &shards[2]]).contains("shard 1/3 is given twice"));

    let other_seeds = run_shards(&scratch("shard-reject-seeds"), &config, "1-7", 3);
    let err = merge(&[&shards[0], &other_seeds[1], &shards[2]]);
    assert!(err.contains("not shards of one sweep: seed list \"1-6\" vs \"1-7\""), "{err}");

    let other_config = run_shards(&scratch("shard-reject-config"), &kvlog("no-dir-fsync.json"), "1-6", 3);
    let err = merge(&[&shards[0], &other_config[1], &shards[2]]);
    assert!(err.contains("not shards of one sweep: config (its hash)"), "{err}");

    let edit = |name: &str, change: &dyn Fn(&mut Value)| {
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&shards[1]).unwrap()).unwrap();
        change(&mut doc);
        let path = dir.join(name);
        std::fs::write(&path, doc.to_string()).unwrap();
        path.display().to_string()
    };
    let interrupted = edit("interrupted.json", &|d| d["interrupted"] = Value::Bool(true));
    assert!(merge(&[&shards[0], &interrupted, &shards[2]]).contains("shard 1/3 was interrupted"));
    let version = edit("version.json", &|d| d["seedfall_version"] = "0.0.1".into());
    assert!(merge(&[&shards[0], &version, &shards[2]]).contains("seedfall version"));
    let short = edit("short.json", &|d| d["trace_hashes"].as_array_mut().unwrap().truncate(1));
    assert!(merge(&[&shards[0], &short, &shards[2]]).contains("should hold its 2 seeds of \"1-6\""));
    let unsharded = edit("unsharded.json", &|d| d["shard"] = Value::Null);
    assert!(merge(&[&unsharded]).contains("not a shard (it was run without --shard I/N)"));
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"seeds\": 3").unwrap();
    assert!(merge(&[garbage.to_str().unwrap()]).contains("not a seedfall sweep report"));
    assert!(merge(&[dir.join("absent.json").to_str().unwrap()]).contains("absent.json"));

    let (code, _, err) = seedfall(&["run", "-c", &config, "-seeds", "1-6", "--shard", "3/3"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--shard \"3/3\": expected I/N with 0 <= I < N"), "{err}");
}
