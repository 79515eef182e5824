//! What of a sweep's output two runs of the same seeds share (a sharded
//! sweep and its merge, a Slurm array job and its merge): the summary and
//! JSON without real-time figures, and without a finding's status and
//! history (the whole sweep and the merge are two runs of the config's
//! history). Shared by cli/tests/shard.rs and cli/tests/slurm.rs.

use serde_json::Value;
use std::path::Path;

/// The summary lines without the FAIL blocks (printed in completion order
/// during a sweep), the seeds/s line's figures, the real-time line and the
/// `report:` line only a `-report` prints.
pub fn comparable(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            !l.starts_with("FAIL seed")
                && !l.starts_with("  ")
                && !l.starts_with("real time:")
                && !l.starts_with("report: ")
        })
        .map(|l| match l.split_once(" in ") {
            Some((count, rest)) if l.contains("seeds/s") => format!("{count}{}", &rest[rest.find(':').unwrap()..]),
            _ => l.to_string(),
        })
        .collect()
}

/// The `--json` document at `path` without real-time figures and without a
/// finding's status and history.
pub fn comparable_json(path: &Path) -> Value {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let doc_map = doc.as_object_mut().unwrap();
    for key in ["elapsed_ms", "workers"] {
        doc_map.remove(key);
    }
    let totals = doc_map["totals"].as_object_mut().unwrap();
    for key in ["real_ms", "boot_ms", "guest_ms", "init_ms", "build_ms", "load_ms"] {
        totals.remove(key);
    }
    for failure in doc_map["failures"].as_array_mut().unwrap() {
        failure.as_object_mut().unwrap().remove("real_ms");
    }
    for finding in doc_map["findings"].as_array_mut().unwrap() {
        let finding = finding.as_object_mut().unwrap();
        finding.remove("status");
        finding.remove("history");
    }
    doc
}
