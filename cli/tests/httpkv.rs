//! examples/httpkv, a plain net/http service and workload with no seedfall
//! import run through net_overlay: the variant that acknowledges before
//! fsync fails under crashes, shrinks to at most 3 faults that replay the
//! same failure, and the fixed one passes seeds 1-300 with `-check`
//! (`SEEDFALL_FINDINGS=full`; 1-100 by default).

use std::path::{Path, PathBuf};
use std::process::Command;

fn httpkv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/httpkv")
}

fn seedfall(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// The first failure line after `FAIL seed`, its numbers left out.
fn failure(out: &str) -> Option<String> {
    let mut lines = out.lines().skip_while(|l| !l.starts_with("FAIL seed"));
    lines.next()?;
    lines.next().map(|l| l.trim().chars().filter(|c| !c.is_ascii_digit()).collect())
}

fn faults_in(out: &str, label: &str) -> usize {
    let line = out.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("no {label} in {out}"));
    line.trim_start()[label.len()..].trim().split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn ack_before_fsync_loses_acknowledged_writes_and_shrinks() {
    let config = httpkv().join("seedfall.json");
    let config = config.to_str().unwrap();
    // The lowest failing seed lies in the first 20 (so within 1-500).
    let (code, sweep) = seedfall(&["run", "-c", config, "-seeds", "1-20"]);
    assert_eq!(code, 1, "{sweep}");
    let seed = sweep
        .lines()
        .find_map(|l| l.strip_prefix("lowest failing seed: "))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("{sweep}"))
        .to_string();
    let (_, original) = seedfall(&["replay", "-c", config, "-seed", &seed]);
    let original = failure(&original).unwrap_or_else(|| panic!("{original}"));
    assert!(original.starts_with("client#: exited with status : acknowledged write lost"), "{original}");

    let (code, report) = seedfall(&["shrink", "-c", config, "-seed", &seed]);
    assert_eq!(code, 0, "{report}");
    assert!(faults_in(&report, "to ") <= 3, "{report}");
    let schedule = httpkv().join(format!(".seedfall/seed-{seed}.faults.json"));
    let (code, replayed) = seedfall(&["replay", "-c", config, "-seed", &seed, "-faults", schedule.to_str().unwrap()]);
    assert_eq!(code, 1, "{replayed}");
    assert_eq!(failure(&replayed), Some(original), "{replayed}");
}

/// Seeds 1-300 with `SEEDFALL_FINDINGS=full` (as cli/tests/findings.rs), 1-100 by default.
#[test]
fn the_fixed_service_passes_300_seeds_twice_each() {
    let config = httpkv().join("seedfall.fixed.json");
    let seeds = if std::env::var("SEEDFALL_FINDINGS").as_deref() == Ok("full") { "1-300" } else { "1-100" };
    let (code, sweep) = seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", seeds, "-check"]);
    assert_eq!(code, 0, "{sweep}");
}
