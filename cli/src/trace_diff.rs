//! `seedfall trace diff A B`: which events two `replay --save-trace` files
//! share and where they part, for an original failing run beside its
//! shrunk one (fewer faults, fewer preemptions). Events match on node#k and
//! their text; digests are not compared (a step's digest holds its time,
//! which a shrunk run shifts), and neither are the numbers of world records
//! (`step [0, 1, 1500, 7]` matches any `step` of that node#k): host calls
//! and writes match with their arguments and results.
//!
//! The alignment: the common prefix and suffix are trimmed, then Myers'
//! diff (shortest edit script) aligns the middle, giving up past
//! `MAX_EDITS` differences (its memory grows with their square) and then
//! saying so: the listing shows where they part and the counts, but not
//! which of the middle events correspond. Output: the shared prefix, the
//! first events where they part, a unified listing (`  ` kept, `- ` only in
//! A, `+ ` only in B) with `context` kept events around each change, and a
//! summary line with the counts.

use crate::trace_view::{columns, entry_json};
use seedfall_host::trace::LogEntry;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// The most differences the middle is aligned with.
pub const MAX_EDITS: usize = 4000;

/// One step of an alignment (indices into A and B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Keep(usize, usize),
    /// Only in A.
    Drop(usize),
    /// Only in B.
    Add(usize),
}

/// How two traces line up.
#[derive(Debug, PartialEq, Eq)]
pub struct Alignment {
    /// Events both start with.
    pub prefix: usize,
    /// Events both end with (after the prefix).
    pub suffix: usize,
    /// The middle's edit script (None: more than `MAX_EDITS` differences).
    pub middle: Option<Vec<Op>>,
}

/// What an event is matched on: node#k and its text, the number list of a
/// world record (`step [..]`, `boot [..]`) left out.
fn key(e: &LogEntry) -> (&str, &str) {
    let what = e.what.as_str();
    let what = if what.starts_with("host ") { what } else { what.rfind(" [").map_or(what, |i| &what[..i]) };
    (e.position.node.as_str(), what)
}

/// Aligns `a` and `b` with at most `max_edits` differences in the middle.
pub fn align(a: &[LogEntry], b: &[LogEntry], max_edits: usize) -> Alignment {
    // Keys as small numbers, so comparing events is comparing integers.
    let mut ids: HashMap<(&str, &str), u32> = HashMap::new();
    let mut ka = Vec::with_capacity(a.len());
    let mut kb = Vec::with_capacity(b.len());
    for (entries, keys) in [(a, &mut ka), (b, &mut kb)] {
        for e in entries {
            let next = ids.len() as u32;
            keys.push(*ids.entry(key(e)).or_insert(next));
        }
    }
    let prefix = ka.iter().zip(&kb).take_while(|(x, y)| x == y).count();
    let suffix = ka[prefix..].iter().rev().zip(kb[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&ka[prefix..ka.len() - suffix], &kb[prefix..kb.len() - suffix]);
    let middle = myers(ma, mb, max_edits).map(|ops| {
        ops.into_iter()
            .map(|op| match op {
                Op::Keep(x, y) => Op::Keep(x + prefix, y + prefix),
                Op::Drop(x) => Op::Drop(x + prefix),
                Op::Add(y) => Op::Add(y + prefix),
            })
            .collect()
    });
    Alignment { prefix, suffix, middle }
}

/// Myers' greedy shortest edit script of `a` into `b`, or None past
/// `max_edits` edits. Keeps the furthest-reaching x of every diagonal for
/// each edit count, to walk back from the end.
fn myers(a: &[u32], b: &[u32], max_edits: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as i64, b.len() as i64);
    if n.abs_diff(m) > max_edits as u64 {
        return None; // every script has at least |n - m| edits
    }
    let max = (n + m).min(max_edits as i64);
    let offset = max + 1;
    let mut v = vec![0i64; 2 * offset as usize + 1];
    // history[d]: v over diagonals -d..=d after d edits (u32: half the memory).
    let mut history: Vec<Vec<u32>> = Vec::new();
    for d in 0..=max {
        for k in (-d..=d).step_by(2) {
            let down = k == -d || (k != d && v[(offset + k - 1) as usize] < v[(offset + k + 1) as usize]);
            let mut x = if down { v[(offset + k + 1) as usize] } else { v[(offset + k - 1) as usize] + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(offset + k) as usize] = x;
            if x >= n && y >= m {
                history.push(snapshot(&v, offset, d));
                return Some(backtrack(&history, n, m));
            }
        }
        history.push(snapshot(&v, offset, d));
    }
    None
}

fn snapshot(v: &[i64], offset: i64, d: i64) -> Vec<u32> {
    v[(offset - d) as usize..=(offset + d) as usize].iter().map(|&x| x as u32).collect()
}

fn backtrack(history: &[Vec<u32>], n: i64, m: i64) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    let at = |d: i64, k: i64| history[d as usize][(k + d) as usize] as i64;
    for d in (1..history.len() as i64).rev() {
        let k = x - y;
        let down = k == -d || (k != d && at(d - 1, k - 1) < at(d - 1, k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = at(d - 1, prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            ops.push(Op::Keep(x as usize, y as usize));
        }
        if down {
            ops.push(Op::Add(prev_y as usize));
        } else {
            ops.push(Op::Drop(prev_x as usize));
        }
        (x, y) = (prev_x, prev_y);
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        ops.push(Op::Keep(x as usize, y as usize));
    }
    ops.reverse();
    ops
}

/// The line standing for `n` kept events not listed.
fn shared(n: usize) -> String {
    format!("  … {n} shared event{} …\n", if n == 1 { "" } else { "s" })
}

/// A listing line: mark, A's index, B's index, then the event.
fn listed(mark: &str, ia: Option<usize>, ib: Option<usize>, e: &LogEntry) -> String {
    let index = |i: Option<usize>| i.map_or(String::new(), |i| i.to_string());
    format!("{mark}{:>7} {:>7} {}\n", index(ia), index(ib), columns(e))
}

fn describe(e: Option<&LogEntry>) -> String {
    e.map_or("(the trace ends here)".into(), |e| {
        format!(
            "step {}, t={}, {}: {}",
            e.position.step,
            seedfall_host::vtime::go_duration(e.position.at_ns),
            e.position.node,
            e.what
        )
    })
}

/// The diff text and its JSON document for `a` (from `file_a`) and `b`,
/// with `context` kept events shown around each change.
pub fn diff(file_a: &Path, a: &[LogEntry], file_b: &Path, b: &[LogEntry], context: usize) -> (String, Value) {
    let alignment = align(a, b, MAX_EDITS);
    let Alignment { prefix, suffix, ref middle } = alignment;
    let mut text =
        format!("A: {} ({} events)\nB: {} ({} events)\n", file_a.display(), a.len(), file_b.display(), b.len());
    let same = prefix == a.len() && prefix == b.len();
    let _ = writeln!(text, "shared prefix: {prefix} events");
    if same {
        text.push_str("the traces share every event\n");
    } else {
        let _ = writeln!(
            text,
            "they part at event {prefix}:\n  A: {}\n  B: {}",
            describe(a.get(prefix)),
            describe(b.get(prefix))
        );
    }
    // Every op in order, the middle's or (unaligned) none.
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Keep(i, i)).collect();
    if let Some(middle) = middle {
        ops.extend(middle.iter().copied());
    }
    let suffix_ops: Vec<Op> = (0..suffix).map(|j| Op::Keep(a.len() - suffix + j, b.len() - suffix + j)).collect();
    let (mut kept, mut dropped, mut added) = (0usize, 0usize, 0usize);
    let mut changes = Vec::new();
    let mut listing = String::new();
    let changed: Vec<bool> = ops.iter().map(|op| !matches!(op, Op::Keep(..))).collect();
    // Index of the nearest change at or after each op, for context.
    let mut next_change = vec![usize::MAX; ops.len() + 1];
    if middle.is_none() {
        next_change[ops.len()] = ops.len();
    }
    for i in (0..ops.len()).rev() {
        next_change[i] = if changed[i] { i } else { next_change[i + 1] };
    }
    let mut last_change: Option<usize> = None;
    let mut skipped = 0usize;
    for (i, op) in ops.iter().enumerate() {
        let near = last_change.is_some_and(|c| i - c <= context) || next_change[i].saturating_sub(i) <= context;
        match *op {
            Op::Keep(x, y) => {
                kept += 1;
                if near {
                    if skipped > 0 {
                        listing.push_str(&shared(skipped));
                        skipped = 0;
                    }
                    listing.push_str(&listed("  ", Some(x), Some(y), &a[x]));
                } else {
                    skipped += 1;
                }
                continue;
            }
            Op::Drop(x) => {
                dropped += 1;
                changes.push(json!({"op": "-", "a": x, "b": null, "event": entry_json(x, &a[x])}));
            }
            Op::Add(y) => {
                added += 1;
                changes.push(json!({"op": "+", "a": null, "b": y, "event": entry_json(y, &b[y])}));
            }
        }
        if skipped > 0 {
            listing.push_str(&shared(skipped));
            skipped = 0;
        }
        last_change = Some(i);
        match *op {
            Op::Drop(x) => listing.push_str(&listed("- ", Some(x), None, &a[x])),
            Op::Add(y) => listing.push_str(&listed("+ ", None, Some(y), &b[y])),
            Op::Keep(..) => unreachable!("kept events continue above"),
        }
    }
    if skipped > 0 {
        listing.push_str(&shared(skipped));
    }
    let (rest_a, rest_b) = (a.len() - prefix - suffix, b.len() - prefix - suffix);
    if middle.is_none() {
        let _ = writeln!(
            listing,
            "~ not aligned: {rest_a} events of A ({prefix}..{}) and {rest_b} of B ({prefix}..{}) differ in more than {MAX_EDITS} places; their first events:",
            prefix + rest_a,
            prefix + rest_b
        );
        let shown = context.max(1);
        for (x, e) in a.iter().enumerate().skip(prefix).take(rest_a.min(shown)) {
            listing.push_str(&listed("- ", Some(x), None, e));
        }
        for (y, e) in b.iter().enumerate().skip(prefix).take(rest_b.min(shown)) {
            listing.push_str(&listed("+ ", None, Some(y), e));
        }
    }
    let mut skipped = 0usize;
    for (j, op) in suffix_ops.iter().enumerate() {
        kept += 1;
        let Op::Keep(x, y) = *op else { unreachable!("the suffix is kept") };
        let near = (last_change.is_some() || middle.is_none()) && j < context && !same;
        if near {
            listing.push_str(&listed("  ", Some(x), Some(y), &a[x]));
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 && !same {
        listing.push_str(&shared(skipped));
    }
    if !same {
        text.push_str(&listing);
    }
    let summary = match middle {
        Some(_) => format!("{kept} kept, {dropped} dropped (only in A), {added} added (only in B)"),
        None => format!("{kept} kept (shared prefix and suffix), not aligned: {rest_a} in A, {rest_b} in B"),
    };
    let _ = writeln!(text, "{summary}");
    let doc = json!({
        "a": file_a.display().to_string(),
        "b": file_b.display().to_string(),
        "events_a": a.len(),
        "events_b": b.len(),
        "shared_prefix": prefix,
        "shared_suffix": suffix,
        "parts_at": (!same).then(|| json!({
            "index": prefix,
            "a": a.get(prefix).map(|e| entry_json(prefix, e)),
            "b": b.get(prefix).map(|e| entry_json(prefix, e)),
        })),
        "aligned": middle.is_some(),
        "kept": kept,
        "dropped": middle.as_ref().map(|_| dropped),
        "added": middle.as_ref().map(|_| added),
        "changes": changes,
    });
    (text, doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::divergence::from_text;

    fn trace(events: &[&str]) -> Vec<LogEntry> {
        let text: String =
            events.iter().enumerate().map(|(i, what)| format!("{i}\t{}\tn#1\t{i:016x}\t{what}\n", i * 1000)).collect();
        from_text(&text).unwrap()
    }

    fn script(a: &[&str], b: &[&str], max: usize) -> Option<Vec<Op>> {
        let (a, b) = (trace(a), trace(b));
        let Alignment { prefix, suffix, middle } = align(&a, &b, max);
        let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Keep(i, i)).collect();
        ops.extend(middle?);
        ops.extend((0..suffix).map(|j| Op::Keep(a.len() - suffix + j, b.len() - suffix + j)));
        Some(ops)
    }

    #[test]
    fn a_shortest_edit_script_ignoring_digests_and_world_numbers() {
        use Op::*;
        assert_eq!(script(&["a", "b"], &["a", "b"], 10), Some(vec![Keep(0, 0), Keep(1, 1)]));
        // Digests and times differ (each line's index), and a step's numbers: still kept.
        assert_eq!(script(&["x", "step [1]"], &["y", "x", "step [2]"], 10), Some(vec![Add(0), Keep(0, 1), Keep(1, 2)]));
        assert_eq!(
            script(&["a", "b", "c", "a", "b", "b", "a"], &["c", "b", "a", "b", "a", "c"], 10).unwrap().len(),
            // Myers' classic example: 5 edits, 4 kept.
            9
        );
        assert_eq!(script(&["a", "b", "c"], &["a", "c"], 10), Some(vec![Keep(0, 0), Drop(1), Keep(2, 1)]));
        assert_eq!(script(&[], &["a"], 10), Some(vec![Add(0)]));
        assert_eq!(script(&["a", "x", "y", "b"], &["a", "p", "q", "b"], 3), None, "4 edits past a cap of 3");
        assert!(script(&["a", "x", "y", "b"], &["a", "p", "q", "b"], 4).is_some());
        assert_eq!(script(&["a"], &["a", "b", "c", "d"], 2), None, "3 more events in B: at least 3 edits");
    }

    #[test]
    fn the_listing_marks_kept_dropped_and_added_events() {
        let a =
            trace(&["boot [0]", "host call a() = 0", "host call b() = 0", "host call c() = 0", "host call d() = 0"]);
        let b =
            trace(&["boot [0]", "host call a() = 0", "host call c() = 0", "host call e() = 0", "host call d() = 0"]);
        let (text, doc) = diff(Path::new("a.log"), &a, Path::new("b.log"), &b, 1);
        let expected = "A: a.log (5 events)\nB: b.log (5 events)\nshared prefix: 2 events\n\
            they part at event 2:\n  A: step 2, t=2µs, n#1: host call b() = 0\n  B: step 2, t=2µs, n#1: host call c() = 0\n\
            \x20 … 1 shared event …\n\
            \x20       1       1       1          1µs n#1            -     host call a() = 0\n\
            -       2               2          2µs n#1            -     host call b() = 0\n\
            \x20       3       2       3          3µs n#1            -     host call c() = 0\n\
            +               3       3          3µs n#1            -     host call e() = 0\n\
            \x20       4       4       4          4µs n#1            -     host call d() = 0\n\
            4 kept, 1 dropped (only in A), 1 added (only in B)\n";
        assert_eq!(text, expected);
        assert_eq!((&doc["shared_prefix"], &doc["kept"], &doc["dropped"]), (&json!(2), &json!(4), &json!(1)));
        assert_eq!(doc["changes"][1]["op"], "+");
        let (same, doc) = diff(Path::new("a.log"), &a, Path::new("a.log"), &a, 3);
        assert!(same.contains("the traces share every event\n5 kept, 0 dropped"), "{same}");
        assert_eq!(doc["parts_at"], Value::Null);
    }

    /// A long pair with scattered differences aligns fast (prefix and
    /// suffix trimmed, Myers on the rest), and exactly.
    #[test]
    fn a_long_pair_with_few_differences_aligns() {
        let a: Vec<String> = (0..200_000).map(|i| format!("host call f({}) = 0", i % 1000)).collect();
        let mut b = a.clone();
        for i in (1..20).map(|i| i * 9_000) {
            b[i] = "host call g() = 0".into();
        }
        b.remove(150_001);
        let (a, b) =
            (a.iter().map(String::as_str).collect::<Vec<_>>(), b.iter().map(String::as_str).collect::<Vec<_>>());
        let ops = script(&a, &b, MAX_EDITS).expect("within the cap");
        let count = |f: fn(&Op) -> bool| ops.iter().filter(|op| f(op)).count();
        assert_eq!(count(|op| matches!(op, Op::Drop(_))), 20);
        assert_eq!(count(|op| matches!(op, Op::Add(_))), 19);
        assert_eq!(count(|op| matches!(op, Op::Keep(..))), 200_000 - 20);
    }
}
