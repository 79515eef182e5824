//! `seedfall trace view FILE`: a `replay --save-trace` file as a readable
//! timeline, one line per event: its index in the file, scheduler step,
//! virtual time (Go duration), node#k, goroutine (`g7`, Go nodes' own
//! events), the event, and what the node parked on after it. Also the
//! reading of such files that `trace diff` and `trace stats` share
//! (`load`: a clear error for a missing, empty or foreign file) and one
//! event's JSON. It runs nothing and reads nothing but the file; the file
//! format is `seedfall_host::world::divergence`'s (docs/trace-tools.md).

use seedfall_host::trace::LogEntry;
use seedfall_host::vtime::go_duration;
use seedfall_host::world::divergence::from_text;
use serde_json::{Value, json};
use std::fmt::{self, Write};
use std::path::{Path, PathBuf};

/// The events of trace file `path`. Errors say which file and, for a
/// line that is not an event, which line; an empty file is an error too.
pub fn load(path: &Path) -> Result<Vec<LogEntry>, TraceFileError> {
    let file = || path.to_path_buf();
    let text = crate::input::read_text(path, crate::input::TRACE_MAX_BYTES)
        .map_err(|error| TraceFileError::Read { file: file(), error })?;
    let entries = from_text(&text).map_err(|e| TraceFileError::Invalid { file: file(), message: e.to_string() })?;
    if entries.is_empty() {
        return Err(TraceFileError::Empty(file()));
    }
    Ok(entries)
}

/// Why a trace file could not be read (the trace tools' error, exit 2).
#[derive(Debug)]
pub enum TraceFileError {
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// A line that is not an event; the message names it.
    Invalid {
        file: PathBuf,
        message: String,
    },
    Empty(PathBuf),
}

impl fmt::Display for TraceFileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TraceFileError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            TraceFileError::Invalid { file, message } => write!(f, "{}: {message}", file.display()),
            TraceFileError::Empty(file) => {
                write!(f, "{}: empty: no events (write one with `seedfall replay --save-trace FILE`)", file.display())
            }
        }
    }
}

impl std::error::Error for TraceFileError {}

/// Whether `entry` happened on `node`: `node#k` exactly, a name (any
/// incarnation), or `world`.
pub fn on_node(entry: &LogEntry, node: &str) -> bool {
    let at = entry.position.node.as_str();
    at == node || at.split('#').next() == Some(node)
}

/// `g7`, or `-` for an event without a goroutine (world events, non-Go nodes).
pub fn goroutine(entry: &LogEntry) -> String {
    entry.goroutine.map_or("-".into(), |g| format!("g{g}"))
}

/// One event as JSON (docs/json.md, `trace view`'s `entries`).
pub fn entry_json(index: usize, e: &LogEntry) -> Value {
    json!({
        "index": index,
        "step": e.position.step,
        "at": go_duration(e.position.at_ns),
        "at_ns": e.position.at_ns,
        "node": e.position.node,
        "goroutine": e.goroutine,
        "what": e.what,
        "digest": format!("{:016x}", e.digest),
        "block": e.block,
    })
}

/// One event as a timeline line (no newline): index, step, time, node,
/// goroutine, event, and `[parks: …]` when the node parked after it.
pub fn line(index: usize, e: &LogEntry) -> String {
    format!("{index:>7} {}", columns(e))
}

/// `line` without the index.
pub fn columns(e: &LogEntry) -> String {
    let mut out = format!(
        "{:>7} {:>12} {:<14} {:<5} {}",
        e.position.step,
        go_duration(e.position.at_ns),
        e.position.node,
        goroutine(e),
        e.what
    );
    if let Some(block) = &e.block {
        let _ = write!(out, "  [parks: {block}]");
    }
    out
}

/// The header over `line`'s columns.
pub fn header() -> String {
    format!("{:>7} {:>7} {:>12} {:<14} {:<5} event", "index", "step", "time", "node", "g")
}

/// Which events to show: an index range (`to` excluded) and a node.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub node: Option<String>,
    pub from: Option<usize>,
    pub to: Option<usize>,
}

impl Filter {
    /// The indices of `entries` it keeps, in order.
    pub fn indices(&self, entries: &[LogEntry]) -> Vec<usize> {
        let from = self.from.unwrap_or(0).min(entries.len());
        let to = self.to.unwrap_or(entries.len()).clamp(from, entries.len());
        (from..to).filter(|&i| self.node.as_deref().is_none_or(|n| on_node(&entries[i], n))).collect()
    }
}

/// The timeline text and its JSON document for `entries` read from `file`.
pub fn view(file: &Path, entries: &[LogEntry], filter: &Filter) -> (String, Value) {
    let shown = filter.indices(entries);
    let end = entries.last().map_or(0, |e| e.position.at_ns);
    let steps = entries.last().map_or(0, |e| e.position.step);
    let mut text = format!(
        "trace {}: {} events, {steps} scheduler steps, t=0s to {}",
        file.display(),
        entries.len(),
        go_duration(end)
    );
    if shown.len() != entries.len() {
        let _ = write!(text, "; showing {}", shown.len());
    }
    text.push('\n');
    text.push_str(&header());
    text.push('\n');
    for &i in &shown {
        text.push_str(&line(i, &entries[i]));
        text.push('\n');
    }
    let doc = json!({
        "file": file.display().to_string(),
        "events": entries.len(),
        "from": filter.from,
        "to": filter.to,
        "node": filter.node,
        "entries": shown.iter().map(|&i| entry_json(i, &entries[i])).collect::<Vec<_>>(),
    });
    (text, doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::divergence::from_text;

    const TRACE: &str = "0\t0\tworld\t00000000000000aa\tboot [0, 1, 0]\n\
        1\t0\tserver#1\t00000000000000ab\tstep [0, 1, 0, 1]\n\
        1\t0\tserver#1\t00000000000000ac\thost call fd_read(5, 8, 1) = 6\tg7\tread fd 5\n\
        2\t1500000\tclient#1\t00000000000000ad\thost call fd_write(3, 8, 1) = 0\tg1\n";

    #[test]
    fn a_timeline_line_per_event_filtered_by_node_and_range() {
        let entries = from_text(TRACE).unwrap();
        let (text, doc) = view(Path::new("t.log"), &entries, &Filter::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "trace t.log: 4 events, 2 scheduler steps, t=0s to 1.5ms");
        assert_eq!(lines[1], "  index    step         time node           g     event");
        assert_eq!(
            lines[4],
            "      2       1           0s server#1       g7    host call fd_read(5, 8, 1) = 6  [parks: read fd 5]"
        );
        assert_eq!(lines[5], "      3       2        1.5ms client#1       g1    host call fd_write(3, 8, 1) = 0");
        assert_eq!(doc["entries"][2]["block"], "read fd 5");
        assert_eq!(doc["entries"][3]["goroutine"], 1);
        let server = Filter { node: Some("server".into()), ..Filter::default() };
        assert_eq!(server.indices(&entries), [1, 2]);
        let range = Filter { from: Some(1), to: Some(3), node: Some("server#1".into()) };
        assert_eq!(range.indices(&entries), [1, 2]);
        assert_eq!(Filter { from: Some(9), to: Some(2), node: None }.indices(&entries), Vec::<usize>::new());
    }

    #[test]
    fn a_missing_an_empty_and_a_foreign_file_are_errors_naming_them() {
        let dir = std::env::temp_dir().join(format!("seedfall-trace-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = load(&dir.join("missing.log")).unwrap_err().to_string();
        assert!(missing.starts_with("cannot read ") && missing.contains("missing.log"), "{missing}");
        std::fs::write(dir.join("empty.log"), "").unwrap();
        assert!(load(&dir.join("empty.log")).unwrap_err().to_string().contains("empty"));
        std::fs::write(dir.join("foreign.log"), format!("{TRACE}{{\"seed\": 1}}\n")).unwrap();
        let foreign = load(&dir.join("foreign.log")).unwrap_err().to_string();
        assert!(foreign.contains("foreign.log: line 5: not a trace log line"), "{foreign}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
