//! What earlier sweeps of a config found: `.seedfall/findings.json` beside
//! it (`.seedfall/X.findings.json` for a config `X.json`), one entry per
//! finding ever seen with a row per sweep since (when, commit, seeds run,
//! seeds failing), and each finding's status after the latest sweep:
//! - `new`: first seen now; `ongoing`: seen now and before;
//! - `regressed`: seen now after it was `resolved`;
//! - `resolved`: not seen, and enough seeds ran since it was last seen that
//!   it would have shown with 95% confidence at the rate it failed then
//!   (`p`, its share of that sweep's seeds): `(1-p)^n < 0.05` over the `n`
//!   seeds run since;
//! - `unseen`: not seen, too few seeds for that (the table says how many).
//!
//! The file is read, updated and replaced under an exclusive lock, through a
//! temporary file renamed over it, so two sweeps finishing at once both
//! land and a reader never sees half a file. A file that does not parse, or
//! that a newer seedfall wrote, is an error naming it: never reset.
//! Not here: grouping seeds into findings (`findings.rs`).

use crate::findings::Finding;
use crate::write_error::WriteError;
use serde_json::{Value, json};
use std::fmt;
use std::path::{Path, PathBuf};

/// The format this build reads and writes.
const FORMAT: u64 = 1;

/// The confidence a `resolved` needs: a finding still there would have
/// failed a seed with this probability at most.
const MISS_AT_MOST: f64 = 0.05;

/// Why the history could not be read or updated (the sweep's own result stands).
#[derive(Debug)]
pub enum HistoryError {
    Open {
        file: PathBuf,
        error: std::io::Error,
    },
    Lock {
        file: PathBuf,
        error: std::io::Error,
    },
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// Not a history this build reads; `why` says what is wrong.
    Unreadable {
        file: PathBuf,
        why: String,
    },
    /// Written by a newer seedfall, in `format`.
    Newer {
        file: PathBuf,
        format: u64,
    },
    Write(WriteError),
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            HistoryError::Open { file, error } => write!(f, "cannot open {}: {error}", file.display()),
            HistoryError::Lock { file, error } => write!(f, "cannot lock {}: {error}", file.display()),
            HistoryError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            HistoryError::Unreadable { file, why } => write!(
                f,
                "{}: not a findings history this seedfall can read ({why}); move it away to start a new one",
                file.display()
            ),
            HistoryError::Newer { file, format } => {
                write!(f, "{}: written by a newer seedfall (format {format}, this one reads {FORMAT})", file.display())
            }
            HistoryError::Write(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for HistoryError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    New,
    Ongoing,
    Regressed,
    Resolved,
    Unseen,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Ongoing => "ongoing",
            Status::Regressed => "regressed",
            Status::Resolved => "resolved",
            Status::Unseen => "unseen",
        }
    }

    fn from_name(name: &str) -> Option<Status> {
        [Status::New, Status::Ongoing, Status::Regressed, Status::Resolved, Status::Unseen]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// One sweep as a finding's history row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub run_at: String,
    pub commit: Option<String>,
    pub seeds: u64,
    pub failing: u64,
}

/// A finding as the history keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub id: String,
    pub class: String,
    pub node: String,
    pub message: String,
    pub signature: String,
    pub status: Status,
    /// A row per sweep since it was first seen, oldest first.
    pub rows: Vec<Row>,
}

impl Record {
    /// Seeds still to run without it before it counts as resolved (0 when
    /// it is seen now or already resolved).
    pub fn seeds_to_resolve(&self) -> u64 {
        match (self.status, last_rate(&self.rows)) {
            (Status::Unseen, Some((p, since))) => seeds_needed(p).saturating_sub(since),
            _ => 0,
        }
    }

    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| json!({"run_at": r.run_at, "commit": r.commit, "seeds": r.seeds, "failing": r.failing}))
            .collect();
        Value::Array(rows)
    }
}

/// `.seedfall/[X.]findings.json` of the config at `config_path`.
pub fn path(config_path: &Path) -> PathBuf {
    crate::config::state_file(config_path, "findings.json")
}

/// Adds one sweep (`seeds` run, `found` its findings) to the history of
/// `file`, under its lock, and returns every finding's record after it
/// (those found now first, in `found`'s order, then the others in the
/// order they were first seen).
pub fn record(
    file: &Path,
    found: &[Finding],
    seeds: u64,
    run_at: &str,
    commit: Option<&str>,
) -> Result<Vec<Record>, HistoryError> {
    let lock_path = file.with_extension("json.lock");
    let lock = crate::safe_write::open_lock(&lock_path)
        .map_err(|error| HistoryError::Open { file: lock_path.clone(), error })?;
    lock.lock().map_err(|error| HistoryError::Lock { file: lock_path.clone(), error })?;
    let mut records = load(file)?;
    update(&mut records, found, seeds, run_at, commit);
    save(file, &records).map_err(HistoryError::Write)?;
    // Unlocked when `lock` closes.
    let mut now: Vec<Record> = Vec::with_capacity(records.len());
    for finding in found {
        now.extend(records.iter().find(|r| r.id == finding.id).cloned());
    }
    now.extend(records.into_iter().filter(|r| !found.iter().any(|f| f.id == r.id)));
    Ok(now)
}

/// The records of `file` (none when it does not exist).
pub fn load(file: &Path) -> Result<Vec<Record>, HistoryError> {
    let text = match crate::input::read_text(file, crate::input::TEXT_MAX_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(HistoryError::Read { file: file.to_path_buf(), error }),
    };
    let bad = |why: &str| HistoryError::Unreadable { file: file.to_path_buf(), why: why.to_string() };
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    match doc["format"].as_u64() {
        Some(FORMAT) => {}
        Some(newer) if newer > FORMAT => {
            return Err(HistoryError::Newer { file: file.to_path_buf(), format: newer });
        }
        _ => return Err(bad("no known `format`")),
    }
    let items = doc["findings"].as_array().ok_or_else(|| bad("no `findings` list"))?;
    items.iter().map(|item| read_record(item).ok_or_else(|| bad("a finding lacks a field"))).collect()
}

fn read_record(v: &Value) -> Option<Record> {
    let text = |name: &str| v[name].as_str().map(str::to_string);
    let rows = v["history"].as_array()?.iter().map(read_row).collect::<Option<Vec<Row>>>()?;
    Some(Record {
        id: text("id")?,
        class: text("class")?,
        node: text("node")?,
        message: text("message")?,
        signature: text("signature")?,
        status: Status::from_name(v["status"].as_str()?)?,
        rows,
    })
}

fn read_row(v: &Value) -> Option<Row> {
    Some(Row {
        run_at: v["run_at"].as_str()?.to_string(),
        commit: v["commit"].as_str().map(str::to_string),
        seeds: v["seeds"].as_u64()?,
        failing: v["failing"].as_u64()?,
    })
}

fn save(file: &Path, records: &[Record]) -> Result<(), WriteError> {
    let findings: Vec<Value> = records
        .iter()
        .map(|r| {
            json!({"id": r.id, "status": r.status.name(), "class": r.class, "node": r.node, "message": r.message,
                   "signature": r.signature, "history": r.json()})
        })
        .collect();
    let text = serde_json::to_string_pretty(&json!({"format": FORMAT, "findings": findings})).expect("JSON values");
    crate::safe_write::replace_or_say(file, (text + "\n").as_bytes())
}

/// Adds a row for this sweep to every record (new ones for findings never
/// seen) and sets each status.
fn update(records: &mut Vec<Record>, found: &[Finding], seeds: u64, run_at: &str, commit: Option<&str>) {
    for finding in found {
        if !records.iter().any(|r| r.id == finding.id) {
            records.push(Record {
                id: finding.id.clone(),
                class: finding.class.clone(),
                node: finding.node.clone(),
                message: finding.message.clone(),
                signature: finding.signature.clone(),
                status: Status::New,
                rows: Vec::new(),
            });
        }
    }
    for record in records.iter_mut() {
        let now = found.iter().find(|f| f.id == record.id);
        let failing = now.map_or(0, |f| f.failing_seeds.len() as u64);
        let first = record.rows.is_empty();
        record.rows.push(Row { run_at: run_at.into(), commit: commit.map(str::to_string), seeds, failing });
        if let Some(f) = now {
            record.message = f.message.clone();
        }
        record.status = status(record.status, first, &record.rows);
    }
}

/// A finding's status after its latest row.
fn status(before: Status, first: bool, rows: &[Row]) -> Status {
    let seen_now = rows.last().is_some_and(|r| r.failing > 0);
    match (seen_now, before) {
        (true, _) if first => Status::New,
        (true, Status::Resolved) => Status::Regressed,
        (true, _) => Status::Ongoing,
        (false, Status::Resolved) => Status::Resolved,
        (false, _) => match last_rate(rows) {
            Some((p, since)) if (1.0 - p).powf(since as f64) < MISS_AT_MOST => Status::Resolved,
            _ => Status::Unseen,
        },
    }
}

/// The share of seeds the finding failed in the last sweep that saw it, and
/// the seeds run since.
fn last_rate(rows: &[Row]) -> Option<(f64, u64)> {
    let last = rows.iter().rposition(|r| r.failing > 0)?;
    let seen = &rows[last];
    let since = rows[last + 1..].iter().map(|r| r.seeds).sum();
    Some((seen.failing as f64 / seen.seeds.max(1) as f64, since))
}

/// Seeds without a failure that make a finding failing at rate `p` resolved.
fn seeds_needed(p: f64) -> u64 {
    if p >= 1.0 {
        return 1;
    }
    (MISS_AT_MOST.ln() / (1.0 - p).ln()).floor() as u64 + 1
}

/// The git commit of the checkout holding `dir`, if it is one.
pub fn commit(dir: &Path) -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "HEAD"]).current_dir(dir).output().ok()?;
    let hash = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !hash.is_empty()).then_some(hash)
}

/// `now` as an RFC 3339 UTC time (`2026-12-05T03:18:50Z`).
pub fn rfc3339(now: std::time::SystemTime) -> String {
    let secs = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
#[path = "finding_history_tests.rs"]
mod tests;
