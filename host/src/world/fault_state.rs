//! The abstract host state a fault met, for `seedfall explore`'s coverage
//! (issue 41): a short description made of coarse buckets, so that "a crash
//! while two files had pending writes, one of them torn" and "a crash with
//! everything synced" are different features while the exact sizes are not.
//! Never hashed into the trace: it only steers where explore branches.
//!
//! A crash's part comes from its `CrashReport` (what the disk had pending
//! when it hit); every fault's network part is read right after the step it
//! came in (for a crash, after its connections were reset).

use crate::fs::CrashReport;
use crate::net::Net;
use crate::node_id::NodeId;

/// 0, 1, 2-3, 4-7, 8+: a count as a power-of-two bucket.
fn bucket(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).min(4)
}

/// What the disk had pending when a crash hit it.
pub fn of_crash(report: &CrashReport) -> String {
    let during = report.during.as_ref().map_or("planned", |d| d.on.name());
    let torn = report.files.iter().any(|f| f.kept.bytes > 0);
    let lost = report.files.iter().any(|f| f.kept.ops < f.pending);
    format!(
        "crash during={during} pending_files={} torn={torn} lost={lost} vanished={}",
        bucket(report.files.len()),
        bucket(report.vanished.len())
    )
}

/// The network around `node` (None: the cluster as a whole).
pub fn of_net(net: &Net, node: Option<NodeId>) -> String {
    match node {
        Some(node) => format!("conns={} cut={}", bucket(net.open_ends(node)), net.cut_off(node)),
        None => format!("blocked_links={}", bucket(net.blocked_links().len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{DiskFault, DiskFaultKind, DiskOp, FileCrash, Prefix};

    fn file(pending: usize, kept: Prefix) -> FileCrash {
        FileCrash { path: "/data/log".into(), pending, sizes: vec![10; pending], kept, reordered: None }
    }

    #[test]
    fn a_crash_says_what_it_interrupted_and_what_was_pending() {
        let mut report = CrashReport {
            during: None,
            vanished: vec![],
            restored: vec![],
            files: vec![],
            corrupted: None,
            choices: vec![],
        };
        assert_eq!(of_crash(&report), "crash during=planned pending_files=0 torn=false lost=false vanished=0");
        let applied = Prefix { ops: 0, bytes: 3 };
        report.during = Some(DiskFault { op: 7, on: DiskOp::Write, kind: DiskFaultKind::Crash { applied } });
        report.files = vec![file(2, Prefix { ops: 1, bytes: 4 }), file(1, Prefix { ops: 1, bytes: 0 })];
        report.vanished = vec!["/data/new".into()];
        assert_eq!(of_crash(&report), "crash during=write pending_files=2 torn=true lost=true vanished=1");
    }

    #[test]
    fn counts_fall_in_power_of_two_buckets() {
        let buckets: Vec<u32> = [0, 1, 2, 3, 4, 7, 8, 1000].iter().map(|&n| bucket(n)).collect();
        assert_eq!(buckets, [0, 1, 2, 2, 3, 3, 4, 4]);
    }
}
