//! `seedfall trace stats FILE`: counts over a `replay --save-trace` file:
//! events and scheduler steps per node#k and per goroutine of each node#k,
//! what nodes parked on (counts by block reason, the time in `timer until
//! 1.2s` left out so waits of one kind count together), and the ten
//! biggest virtual-time jumps between one event and the next. A step counts
//! for a node (or goroutine) when at least one of its events is in it.
//! It reads only the entries it is given; `trace_view::load` reads files.

use crate::trace_view::{entry_json, line};
use seedfall_host::trace::LogEntry;
use seedfall_host::vtime::go_duration;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// The jumps listed.
pub const TOP_JUMPS: usize = 10;

/// Events and steps of one node or goroutine.
#[derive(Default)]
struct Count {
    events: u64,
    steps: BTreeSet<u64>,
}

impl Count {
    fn add(&mut self, e: &LogEntry) {
        self.events += 1;
        self.steps.insert(e.position.step);
    }
}

/// A block reason without its time: `timer until 1.2s` is `timer`,
/// `read fd 5, timer until 3s` is `read fd 5, timer`.
pub fn reason_kind(block: &str) -> String {
    block
        .split(", ")
        .map(|part| part.split_once(" until ").map_or(part, |(kind, _)| kind))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The ten biggest forward jumps of virtual time between consecutive
/// events, biggest first (earlier first among equals): `(i, by_ns)` means
/// from event `i - 1` to event `i`.
pub fn jumps(entries: &[LogEntry]) -> Vec<(usize, u64)> {
    let mut all: Vec<(usize, u64)> = (1..entries.len())
        .map(|i| (i, entries[i].position.at_ns.saturating_sub(entries[i - 1].position.at_ns)))
        .filter(|&(_, by)| by > 0)
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(TOP_JUMPS);
    all
}

/// The stats text and its JSON document for `entries` read from `file`.
pub fn stats(file: &Path, entries: &[LogEntry]) -> (String, Value) {
    let mut nodes: BTreeMap<&str, Count> = BTreeMap::new();
    let mut goroutines: BTreeMap<(&str, u64), Count> = BTreeMap::new();
    let mut blocked: BTreeMap<(&str, String), u64> = BTreeMap::new();
    let mut parks: BTreeMap<&str, u64> = BTreeMap::new();
    for e in entries {
        let node = e.position.node.as_str();
        nodes.entry(node).or_default().add(e);
        if let Some(g) = e.goroutine {
            goroutines.entry((node, g)).or_default().add(e);
        }
        if let Some(block) = &e.block {
            *blocked.entry((node, reason_kind(block))).or_default() += 1;
            *parks.entry(node).or_default() += 1;
        }
    }
    let steps: BTreeSet<u64> = entries.iter().map(|e| e.position.step).filter(|&s| s > 0).collect();
    let end = entries.last().map_or(0, |e| e.position.at_ns);
    let mut text = format!(
        "trace {}: {} events, {} scheduler steps, t=0s to {}\n",
        file.display(),
        entries.len(),
        steps.len(),
        go_duration(end)
    );
    text.push_str("\nper node:\n");
    let _ = writeln!(text, "  {:<16} {:>10} {:>8} {:>8}", "node", "events", "steps", "parks");
    for (node, c) in &nodes {
        let _ = writeln!(
            text,
            "  {node:<16} {:>10} {:>8} {:>8}",
            c.events,
            c.steps.len(),
            parks.get(node).copied().unwrap_or(0)
        );
    }
    if !goroutines.is_empty() {
        text.push_str("\nper goroutine:\n");
        let _ = writeln!(text, "  {:<16} {:<6} {:>10} {:>8}", "node", "g", "events", "steps");
        for ((node, g), c) in &goroutines {
            let _ = writeln!(text, "  {node:<16} {:<6} {:>10} {:>8}", format!("g{g}"), c.events, c.steps.len());
        }
    }
    if !blocked.is_empty() {
        text.push_str("\nparked on:\n");
        let _ = writeln!(text, "  {:<16} {:>8}  reason", "node", "count");
        for ((node, reason), count) in &blocked {
            let _ = writeln!(text, "  {node:<16} {count:>8}  {reason}");
        }
    }
    let jumps = jumps(entries);
    if !jumps.is_empty() {
        let _ = writeln!(text, "\nbiggest virtual-time jumps (top {TOP_JUMPS}):");
        for &(i, by) in &jumps {
            let _ = writeln!(text, "  +{} from event {} to event {i}:", go_duration(by), i - 1);
            let _ = writeln!(text, "    {}", line(i - 1, &entries[i - 1]));
            let _ = writeln!(text, "    {}", line(i, &entries[i]));
        }
    }
    let doc = json!({
        "file": file.display().to_string(),
        "events": entries.len(),
        "steps": steps.len(),
        "end": go_duration(end),
        "nodes": nodes.iter().map(|(node, c)| json!({
            "node": node, "events": c.events, "steps": c.steps.len(), "parks": parks.get(node).copied().unwrap_or(0),
        })).collect::<Vec<_>>(),
        "goroutines": goroutines.iter().map(|((node, g), c)| json!({
            "node": node, "goroutine": g, "events": c.events, "steps": c.steps.len(),
        })).collect::<Vec<_>>(),
        "blocked": blocked.iter().map(|((node, reason), count)| json!({
            "node": node, "reason": reason, "count": count,
        })).collect::<Vec<_>>(),
        "jumps": jumps.iter().map(|&(i, by)| json!({
            "by": go_duration(by), "by_ns": by, "from": entry_json(i - 1, &entries[i - 1]), "to": entry_json(i, &entries[i]),
        })).collect::<Vec<_>>(),
    });
    (text, doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::divergence::from_text;

    const TRACE: &str = "0\t0\tworld\t00000000000000aa\tboot [0, 1, 0]\n\
        1\t0\tserver#1\t00000000000000ab\tstep [0, 1, 0, 1]\n\
        1\t0\tserver#1\t00000000000000ac\thost call poll_oneoff(1, 2, 1, 3) = 0\tg1\tread fd 5, timer until 1s\n\
        2\t1000000\tclient#1\t00000000000000ad\tstep [1, 1, 1000000, 2]\n\
        2\t1000000\tclient#1\t00000000000000ae\thost call fd_write(3, 8, 1) = 0\tg1\ttimer until 3s\n\
        3\t1000000\tserver#1\t00000000000000af\thost call fd_read(5, 8, 1) = 6\tg7\n\
        3\t1000000\tserver#1\t00000000000000b0\thost call poll_oneoff(1, 2, 1, 3) = 0\tg7\tread fd 5, timer until 2s\n\
        4\t3000000000\tclient#1\t00000000000000b1\tstep [1, 1, 3000000000, 4]\n";

    #[test]
    fn counts_per_node_goroutine_and_reason_and_the_biggest_jumps() {
        let entries = from_text(TRACE).unwrap();
        let (text, doc) = stats(Path::new("t.log"), &entries);
        assert!(text.starts_with("trace t.log: 8 events, 4 scheduler steps, t=0s to 3s\n"), "{text}");
        assert!(text.contains("\n  server#1                  4        2        2\n"), "{text}");
        assert!(text.contains("\n  server#1         g7              2        1\n"), "{text}");
        assert!(text.contains("\n  server#1                2  read fd 5, timer\n"), "{text}");
        assert!(text.contains("\n  client#1                1  timer\n"), "{text}");
        assert!(text.contains("  +2.999s from event 6 to event 7:\n"), "{text}");
        assert_eq!(doc["nodes"][1]["node"], "server#1");
        assert_eq!((doc["nodes"][1]["events"].as_u64(), doc["nodes"][1]["steps"].as_u64()), (Some(4), Some(2)));
        let jumps = doc["jumps"].as_array().unwrap();
        assert_eq!(jumps.len(), 2);
        assert_eq!((&jumps[0]["by"], &jumps[0]["to"]["index"]), (&json!("2.999s"), &json!(7)));
        assert_eq!((&jumps[1]["by"], &jumps[1]["from"]["index"]), (&json!("1ms"), &json!(2)));
        assert_eq!(reason_kind("preempted until 1.01s"), "preempted");
    }
}
