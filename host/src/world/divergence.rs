//! Finding where two runs of one seed part: their per-event hash logs
//! (`RunSpec::hash_log`) compared entry by entry, the first difference named
//! by scheduler step, virtual time, node#incarnation and the event (a host
//! call with its arguments and result, bytes the host wrote, a world event),
//! like madsim's "non-determinism detected at" or TigerBeetle's hash log.
//! The log's file form (`replay --save-trace`) is one tab-separated line
//! per event, so logs from two machines compare with `replay --against`.

use super::RunResult;
use crate::trace::{LogEntry, Position};
use crate::vtime::go_duration;
use std::fmt;

/// The first event at which two logs differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// Its index in both logs.
    pub index: usize,
    /// The event in each log (None: that log ended there).
    pub first: Option<LogEntry>,
    pub second: Option<LogEntry>,
}

pub fn first_divergence(first: &[LogEntry], second: &[LogEntry]) -> Option<Divergence> {
    let index = first
        .iter()
        .zip(second)
        .position(|(a, b)| !a.same_event(b))
        .or_else(|| (first.len() != second.len()).then_some(first.len().min(second.len())))?;
    Some(Divergence { index, first: first.get(index).cloned(), second: second.get(index).cloned() })
}

fn describe(entry: &Option<LogEntry>) -> String {
    match entry {
        Some(e) => format!("{} (digest {:016x})", e.what, e.digest),
        None => "(the log ends here)".into(),
    }
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.first.as_ref().or(self.second.as_ref()).map(|e| &e.position);
        match at {
            Some(p) => write!(
                f,
                "first divergence at event {}: scheduler step {}, t={}, {}\n  run 1: {}\n  run 2: {}",
                self.index,
                p.step,
                go_duration(p.at_ns),
                p.node,
                describe(&self.first),
                describe(&self.second)
            ),
            None => write!(f, "first divergence at event {}", self.index),
        }
    }
}

/// How two runs of one seed differ: their trace hashes, and where their
/// event logs part (None: they do not differ).
pub fn compare_runs(first: &RunResult, second: &RunResult) -> Option<String> {
    if first.trace_hash == second.trace_hash {
        return None;
    }
    let hashes = format!("trace hash {} then {}", first.trace_hash, second.trace_hash);
    let (Some(a), Some(b)) = (&first.hash_log, &second.hash_log) else { return Some(hashes) };
    Some(match first_divergence(a, b) {
        Some(d) => format!("{hashes}\n{d}"),
        None => format!("{hashes} (the event logs agree: a final memory differs)"),
    })
}

/// The file form of a log: `step \t at_ns \t node#k \t digest \t what`,
/// then, when there is one, `\t g7` (the goroutine; `-`: none) and
/// `\t block` (what the node parked on after it). The two extra columns are
/// observations, never hashed or compared; a five-column file (written
/// before they existed) reads as events without them.
pub fn to_text(entries: &[LogEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        let what = e.what.replace(['\t', '\n'], " ");
        out.push_str(&format!(
            "{}\t{}\t{}\t{:016x}\t{what}",
            e.position.step, e.position.at_ns, e.position.node, e.digest
        ));
        if e.goroutine.is_some() || e.block.is_some() {
            match e.goroutine {
                Some(g) => out.push_str(&format!("\tg{g}")),
                None => out.push_str("\t-"),
            }
        }
        if let Some(block) = &e.block {
            out.push('\t');
            out.push_str(&block.replace(['\t', '\n'], " "));
        }
        out.push('\n');
    }
    out
}

/// Why a trace log does not read: the line (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceLogError {
    /// Fewer than five columns, or one that does not parse.
    NotALogLine(usize),
    /// The goroutine column is neither `gN` nor `-`.
    BadGoroutine { line: usize, text: String },
}

impl fmt::Display for TraceLogError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TraceLogError::NotALogLine(line) => {
                write!(f, "line {line}: not a trace log line (step, time, node, digest, event)")
            }
            TraceLogError::BadGoroutine { line, text } => {
                write!(f, "line {line}: `{text}` is not a goroutine (g7, or - for none)")
            }
        }
    }
}

impl std::error::Error for TraceLogError {}

/// Reads a log written by `to_text` (five columns or more); errors name the line.
pub fn from_text(text: &str) -> Result<Vec<LogEntry>, TraceLogError> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let bad = || TraceLogError::NotALogLine(i + 1);
            let mut parts = line.splitn(7, '\t');
            let mut next = || parts.next().ok_or_else(bad);
            let step = next()?.parse().map_err(|_| bad())?;
            let at_ns = next()?.parse().map_err(|_| bad())?;
            let node = next()?.to_string();
            let digest = u64::from_str_radix(next()?, 16).map_err(|_| bad())?;
            let what = next()?.to_string();
            let goroutine = match parts.next() {
                None | Some("-") => None,
                Some(g) => Some(
                    g.strip_prefix('g')
                        .and_then(|id| id.parse().ok())
                        .ok_or_else(|| TraceLogError::BadGoroutine { line: i + 1, text: g.to_string() })?,
                ),
            };
            let block = parts.next().filter(|b| !b.is_empty()).map(str::to_string);
            Ok(LogEntry { position: Position { step, at_ns, node }, what, digest, goroutine, block })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64, what: &str, digest: u64) -> LogEntry {
        LogEntry {
            position: Position { step, at_ns: step * 1000, node: "n#1".into() },
            what: what.into(),
            digest,
            goroutine: None,
            block: None,
        }
    }

    #[test]
    fn names_the_first_difference_and_round_trips() {
        let a = vec![entry(1, "host call a() = 0", 1), entry(2, "host call b() = 0", 2), entry(3, "c", 3)];
        let mut b = a.clone();
        assert_eq!(first_divergence(&a, &b), None);
        b[1].digest = 9;
        let d = first_divergence(&a, &b).unwrap();
        assert_eq!(d.index, 1);
        let text = d.to_string();
        assert!(text.contains("scheduler step 2, t=2µs, n#1"), "{text}");
        assert!(text.contains("host call b() = 0"), "{text}");
        assert_eq!(first_divergence(&a, &a[..2]).unwrap().index, 2, "a log that ends early diverges where it ends");
        assert_eq!(from_text(&to_text(&a)).unwrap(), a);
        assert!(from_text("1\tx\tn\t0\tw").unwrap_err().to_string().contains("line 1"));
    }

    /// The goroutine and block columns round-trip, a five-column line (a
    /// file written before them) reads without them, and neither counts
    /// when two logs are compared.
    #[test]
    fn goroutine_and_block_columns_are_optional_and_not_compared() {
        let mut a = vec![entry(1, "host call a() = 0", 1), entry(2, "host call b() = 0", 2), entry(3, "c", 3)];
        a[0].goroutine = Some(7);
        a[1].goroutine = Some(0);
        a[1].block = Some("read fd 5".into());
        a[2].block = Some("timer until 1s".into());
        let text = to_text(&a);
        assert!(text.lines().next().unwrap().ends_with("host call a() = 0\tg7"), "{text}");
        assert!(text.lines().nth(2).unwrap().ends_with("\tc\t-\ttimer until 1s"), "{text}");
        assert_eq!(from_text(&text).unwrap(), a);
        let old = "1\t1000\tn#1\t0000000000000001\thost call a() = 0\n";
        let read = from_text(old).unwrap();
        assert_eq!((read[0].goroutine, read[0].block.as_deref()), (None, None));
        assert_eq!(first_divergence(&read, &a[..1]), None, "observations are not compared");
        assert!(from_text("1\t1000\tn#1\t01\tw\tx7").unwrap_err().to_string().contains("line 1"));
    }
}
