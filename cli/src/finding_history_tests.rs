//! The findings history: statuses across sweeps, the 95% rule, and a file
//! that is corrupt, newer or written by two sweeps at once.

use super::*;
use crate::findings::{self, Finding};

fn finding(name: &str, seeds: &[u64]) -> Finding {
    let signature = format!("property|client||{name}");
    Finding {
        id: findings::id(&signature),
        signature,
        class: "property".into(),
        node: "client".into(),
        message: format!("client#1: {name}"),
        failing_seeds: seeds.to_vec(),
        fastest_seed: seeds[0],
    }
}

fn statuses(records: &[Record]) -> Vec<(String, &'static str)> {
    records.iter().map(|r| (r.message.clone(), r.status.name())).collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../target/tmp/finding-history-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join(".seedfall/findings.json")
}

#[test]
fn new_ongoing_unseen_resolved_and_regressed() {
    let file = scratch("statuses");
    // A fails 6 of 20 seeds (p = 0.3), B 10 of 20.
    let (a, b) = (finding("bug a", &[1, 4, 7, 10, 13, 16]), finding("bug b", &[2, 3, 5, 8, 9, 11, 12, 14, 15, 17]));
    let first = record(&file, &[a.clone(), b.clone()], 20, "t1", Some("c1")).unwrap();
    assert_eq!(statuses(&first), [("client#1: bug a".into(), "new"), ("client#1: bug b".into(), "new")]);
    // A fixed; 3 seeds: 0.7^3 = 0.34, too few to say.
    let few = record(&file, &[finding("bug b", &[2, 3])], 3, "t2", None).unwrap();
    assert_eq!(statuses(&few), [("client#1: bug b".into(), "ongoing"), ("client#1: bug a".into(), "unseen")]);
    assert_eq!(few[1].seeds_to_resolve(), 9 - 3, "0.7^9 < 0.05 <= 0.7^8");
    // 20 more: 0.7^23 is well under 0.05.
    let enough = record(&file, &[finding("bug b", &[2, 3, 5])], 20, "t3", None).unwrap();
    assert_eq!(statuses(&enough)[1], ("client#1: bug a".into(), "resolved"));
    let still = record(&file, &[], 1, "t4", None).unwrap();
    assert_eq!(still.iter().find(|r| r.id == a.id).map(|r| r.status), Some(Status::Resolved), "stays resolved");
    assert_eq!(still.iter().find(|r| r.id == b.id).map(|r| r.status), Some(Status::Unseen));
    let back = record(&file, std::slice::from_ref(&a), 20, "t5", None).unwrap();
    assert_eq!(statuses(&back)[0], ("client#1: bug a".into(), "regressed"));
    let rows = &back[0].rows;
    assert_eq!(rows.len(), 5, "a row per sweep since first seen");
    assert_eq!((rows[0].commit.as_deref(), rows[0].failing, rows[1].failing), (Some("c1"), 6, 0));
}

#[test]
fn the_rule_is_95_percent_at_the_last_rate_seen() {
    assert_eq!(seeds_needed(0.3), 9);
    assert_eq!(seeds_needed(0.5), 5, "0.5^5 = 0.03, 0.5^4 = 0.06");
    assert_eq!(seeds_needed(1.0), 1);
    assert!(seeds_needed(0.001) > 2900, "a rare failure needs thousands of clean seeds");
}

#[test]
fn a_corrupt_truncated_or_newer_file_is_an_error_and_is_kept() {
    let file = scratch("corrupt");
    record(&file, &[finding("bug a", &[1])], 10, "t1", None).unwrap();
    let good = std::fs::read_to_string(&file).unwrap();
    for (text, says) in [
        (&good[..good.len() / 2], "not a findings history"),
        ("{\"format\": 2, \"findings\": []}", "newer seedfall (format 2"),
        ("{\"format\": 1, \"findings\": [{\"id\": \"f1\"}]}", "lacks a field"),
        ("[]", "no known `format`"),
    ] {
        std::fs::write(&file, text).unwrap();
        let e = record(&file, &[], 10, "t2", None).unwrap_err().to_string();
        assert!(e.starts_with(&file.display().to_string()) && e.contains(says), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "never reset");
    }
}

#[test]
fn two_sweeps_recording_at_once_both_land() {
    let file = scratch("concurrent");
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let file = file.clone();
            std::thread::spawn(move || record(&file, &[finding(&format!("bug {i}"), &[1])], 10, "t", None).unwrap())
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let records = record(&file, &[], 10, "t", None).unwrap();
    assert_eq!(records.len(), 8, "every sweep's finding is there");
    assert!(records.iter().all(|r| r.rows.len() >= 2), "and each later sweep added its row");
}

#[test]
fn run_times_are_rfc3339_utc() {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_440_730);
    assert_eq!(rfc3339(at), "2026-12-05T03:18:50Z");
    assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
}
