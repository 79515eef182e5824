//! The end of a sweep: the summary lines (counts, fault coverage,
//! divergences, `Sometimes` never true, the lowest failing seed, the
//! property table, the horizon warning, where the real time went, and a
//! passing sweep's `ok` line), the exit code, and the `--json` document with what identifies
//! the sweep (seedfall version, config and programs hashes, seed list, shard),
//! so `report merge` can tell shards of one sweep from anything else. Shared
//! by `run` and `report merge`, which must print the same thing.

use crate::finding_history::{self, Record, Status};
use crate::findings::{self, Finding};
use crate::reach;
use crate::report::{Tally, timing_line};
use crate::shard::Shard;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a summary decided, for the report page.
pub struct Reported {
    pub code: u8,
    pub found: Vec<Finding>,
    /// Every finding the history knows after this sweep (none without one).
    pub records: Vec<Record>,
    pub run_at: String,
    pub commit: Option<String>,
    /// The `--json` document (docs/json.md `run`), whether or not a file was asked for.
    pub doc: Value,
}

/// What makes a sweep exit 1 besides divergences and properties never
/// reached or never true, which always do (`--fail-on`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A finding that is new or regressed.
    New,
    /// A finding that is back after it was resolved.
    Regressed,
    /// Any failing seed.
    #[default]
    Any,
}

/// What makes two sweep documents parts of one sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub version: String,
    /// blake3 of the config file's bytes.
    pub config_hash: String,
    /// `Cluster::programs_hash`: the compiled code that ran.
    pub programs_hash: String,
    /// The whole seed list as given (before sharding).
    pub seed_list: String,
    pub check: bool,
    pub shard: Option<Shard>,
}

/// Everything the summary says besides the tally; cloned into the handler
/// of a second signal, which reports from another thread.
#[derive(Clone)]
pub struct Summary {
    /// Seeds the sweep was to run.
    pub total: u64,
    pub workers: usize,
    pub config: PathBuf,
    pub json: Option<PathBuf>,
    pub build_time: Duration,
    pub load_time: Duration,
    /// Functions compiled lazily during the sweep, and how long that took
    /// (`Cluster::lazy_compiles`, read when it ends).
    pub lazy_compiles: Option<(u32, Duration)>,
    pub identity: Identity,
    /// Each node's group (`NodeSpec::group`) by name; a node not listed is its own.
    pub groups: Vec<(String, String)>,
    pub fail_on: FailOn,
    /// The config's `linearizable` model, by name (None: no history is
    /// checked, so no seed can be unknown and the summary says nothing of it).
    pub linearizable: Option<String>,
    /// The config's `expect.horizon`: seeds hitting the horizon are meant, not warned of.
    pub expect_horizon: bool,
}

impl Summary {
    /// The summary of a sweep of `total` seeds (`seed_list` as given) of
    /// `cluster`, its config at `config` with contents hashing to
    /// `config_hash`: no `-check`, no shard, no JSON file, `--fail-on any`
    /// (callers set those they have).
    pub fn of(
        cluster: &crate::cluster::Cluster,
        config: PathBuf,
        config_hash: String,
        seed_list: String,
        total: u64,
        workers: usize,
    ) -> Summary {
        Summary {
            total,
            workers,
            config,
            json: None,
            build_time: cluster.build_time,
            load_time: cluster.load_time,
            lazy_compiles: None,
            identity: Identity {
                version: env!("CARGO_PKG_VERSION").to_string(),
                config_hash,
                programs_hash: cluster.programs_hash.clone(),
                seed_list,
                check: false,
                shard: None,
            },
            groups: cluster.config.node_groups(),
            fail_on: FailOn::Any,
            linearizable: cluster.config.linearizable.map(|m| m.name().to_string()),
            expect_horizon: cluster.config.expect.horizon,
        }
    }

    /// Prints the summary, records the sweep's findings in `history` (the
    /// findings history file; None: keep none, as for a shard), writes the
    /// JSON if asked, and returns the exit code with what the report page needs.
    pub fn report(&self, tally: &Tally, interrupted: bool, elapsed: Duration, history: Option<&Path>) -> Reported {
        let reported = self.report_to(&mut std::io::stdout(), tally, interrupted, elapsed, history);
        // The handler of a second signal exits the process right after.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        reported
    }

    /// `report`, its text written to `out` (the MCP server's stdout is the protocol's).
    pub fn report_to(
        &self,
        out: &mut dyn Write,
        tally: &Tally,
        interrupted: bool,
        elapsed: Duration,
        history: Option<&Path>,
    ) -> Reported {
        let found = findings::group(tally, |node| self.group_of(node));
        let commit = finding_history::commit(&crate::config::real_dir(&self.config));
        let run_at = finding_history::rfc3339(std::time::SystemTime::now());
        let recorded =
            history.map(|file| finding_history::record(file, &found, tally.seeds, &run_at, commit.as_deref()));
        let (records, history_error) = match recorded {
            Some(Ok(records)) => (Some(records), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let code = match history_error {
            Some(_) => 2,
            None => exit_code(tally, interrupted, &found, records.as_deref(), self.fail_on),
        };
        let rate = tally.seeds as f64 / elapsed.as_secs_f64().max(1e-9);
        if interrupted {
            let _ = writeln!(out, "interrupted after {} of {} seeds (the rest were not run)", tally.seeds, self.total);
        }
        let _ = writeln!(
            out,
            "{} seeds in {:.1}s ({rate:.1} seeds/s on {} workers): {} passed, {} failed{}",
            tally.seeds,
            elapsed.as_secs_f64(),
            self.workers,
            tally.passed,
            tally.failed.len(),
            if tally.horizon > 0 { format!(" ({} seeds hit the time horizon)", tally.horizon) } else { String::new() },
        );
        if self.linearizable.is_some() {
            let _ = writeln!(out, "{}", lin_unknown_line(tally.lin_unknown));
        }
        if let Some(line) = reach::fault_line(&tally.fault_seeds, tally.seeds) {
            let _ = writeln!(out, "{line}");
        }
        if !tally.diverged.is_empty() {
            let _ = writeln!(out, "not deterministic: seeds {:?}", tally.diverged.iter().collect::<Vec<_>>());
        }
        for message in tally.properties.never_true() {
            let _ = writeln!(out, "FAIL sometimes never true in any seed: {message}");
        }
        for (kind, message) in tally.properties.never_reached() {
            let _ = writeln!(out, "FAIL {} never reached in any seed: {message}", kind.name());
        }
        if let Some(seed) = tally.lowest_failing() {
            let _ = writeln!(
                out,
                "lowest failing seed: {seed} (replay: {})",
                crate::shell::replay(&self.config.display().to_string(), seed, None)
            );
        }
        let config = self.config.display().to_string();
        let _ =
            write!(out, "{}", findings::table(&found, tally.seeds, &config, |f| status_text(records.as_deref(), f)));
        if let Some(records) = &records {
            for record in records.iter().filter(|r| !found.iter().any(|f| f.id == r.id)) {
                let _ = writeln!(out, "  {:<10} {:<10} {}", record.id, record.status.name(), unseen_text(record));
            }
        }
        let _ = write!(out, "{}", tally.properties.render());
        let warnings = [
            reach::never_fired_warning(&tally.fault_seeds, tally.seeds),
            reach::horizon_warning(tally.horizon, tally.seeds, tally.lowest_horizon, &config, self.expect_horizon),
        ];
        for warning in warnings.into_iter().flatten() {
            let _ = writeln!(out, "{warning}");
        }
        let _ = writeln!(out, "{}", timing_line(self.build_time, self.load_time, self.lazy_compiles, &tally.timings));
        if code == 0 && !interrupted && tally.failed.is_empty() {
            let _ = writeln!(out, "{}", reach::ok_line(tally.passed, tally.horizon));
        }
        if let Some(e) = &history_error {
            eprintln!("seedfall: {e}");
        }
        let doc = self.json(tally, code, interrupted, elapsed, &found, records.as_deref());
        if let Some(json_path) = &self.json {
            let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
            if let Err(e) = crate::safe_write::replace_or_say(json_path, (text + "\n").as_bytes()) {
                eprintln!("seedfall: {e}");
                return Reported { code: 2, found, records: records.unwrap_or_default(), run_at, commit, doc };
            }
        }
        Reported { code, found, records: records.unwrap_or_default(), run_at, commit, doc }
    }

    fn group_of(&self, node: &str) -> String {
        self.groups.iter().find(|(name, _)| name == node).map_or(node, |(_, group)| group.as_str()).to_string()
    }

    fn json(
        &self,
        tally: &Tally,
        code: u8,
        interrupted: bool,
        elapsed: Duration,
        found: &[Finding],
        records: Option<&[Record]>,
    ) -> Value {
        let id = &self.identity;
        let config = self.config.display().to_string();
        let mut doc = tally.json(&config, code);
        let listed: Vec<Value> = found
            .iter()
            .map(|f| {
                let record = record_of(records, f);
                findings::json(f, &config, record.map(|r| r.status.name()), record.map_or(Value::Null, Record::json))
            })
            .collect();
        doc["findings"] = Value::Array(listed);
        doc["fail_on"] = json!(format!("{:?}", self.fail_on).to_lowercase());
        doc["interrupted"] = Value::Bool(interrupted);
        doc["seedfall_version"] = json!(id.version);
        doc["config_hash"] = json!(id.config_hash);
        doc["programs_hash"] = json!(id.programs_hash);
        doc["seed_list"] = json!(id.seed_list);
        doc["check"] = json!(id.check);
        doc["linearizable"] = json!(self.linearizable);
        doc["expect"] = json!({"horizon": self.expect_horizon});
        doc["shard"] = id.shard.map_or(Value::Null, |s| json!({"index": s.index, "count": s.count}));
        doc["workers"] = json!(self.workers);
        doc["elapsed_ms"] = json!(elapsed.as_millis() as u64);
        doc["totals"]["build_ms"] = json!(self.build_time.as_millis() as u64);
        doc["totals"]["load_ms"] = json!(self.load_time.as_millis() as u64);
        doc
    }
}

/// The line every summary of a config with `linearizable` prints, even at 0:
/// seeds whose linearizability search ran out of budget pass, but prove nothing.
pub fn lin_unknown_line(seeds: u64) -> String {
    let why = if seeds > 0 { " (the search budget ran out: these seeds passed but prove nothing)" } else { "" };
    format!("linearizability unknown: {seeds} seeds{why}")
}

/// The history's record of `finding` (None: no history kept).
fn record_of<'a>(records: Option<&'a [Record]>, finding: &Finding) -> Option<&'a Record> {
    records.and_then(|all| all.iter().find(|r| r.id == finding.id))
}

/// A finding's status word in the table ("" when no history is kept).
fn status_text(records: Option<&[Record]>, finding: &Finding) -> String {
    record_of(records, finding).map_or(String::new(), |r| r.status.name().into())
}

/// A known finding this sweep did not see, after its id and status.
fn unseen_text(record: &Record) -> String {
    match record.seeds_to_resolve() {
        0 => format!("not seen: {}", crate::terminal::escape(&record.message)),
        more => format!(
            "not seen, {more} more clean seeds to call it resolved: {}",
            crate::terminal::escape(&record.message)
        ),
    }
}

/// 2 on an internal error; 1 on a divergence or a property never reached
/// or never true, or on a finding `fail_on` counts (without a history every
/// finding is new and none regressed); 2 when interrupted (the seeds not
/// run prove nothing); else 0.
fn exit_code(tally: &Tally, interrupted: bool, found: &[Finding], records: Option<&[Record]>, fail_on: FailOn) -> u8 {
    let status = |f: &Finding| record_of(records, f).map_or(Status::New, |r| r.status);
    let counted = match fail_on {
        FailOn::Any => !tally.failed.is_empty(),
        FailOn::New => found.iter().any(|f| matches!(status(f), Status::New | Status::Regressed)),
        FailOn::Regressed => found.iter().any(|f| status(f) == Status::Regressed),
    };
    let always = !tally.diverged.is_empty()
        || !tally.properties.never_true().is_empty()
        || !tally.properties.never_reached().is_empty();
    if !tally.errors.is_empty() {
        2
    } else if always || counted {
        1
    } else if interrupted {
        2
    } else {
        0
    }
}

/// blake3 of a file's bytes, for `Identity::config_hash`.
pub fn file_hash(path: &std::path::Path) -> std::io::Result<String> {
    Ok(blake3::hash(&std::fs::read(path)?).to_hex().to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::Tally;

    /// The summary of a config at `dir/c.json`, `linearizable` as given.
    pub(crate) fn summary(dir: &Path, linearizable: Option<&str>) -> Summary {
        Summary {
            total: 4,
            workers: 1,
            config: dir.join("c.json"),
            json: None,
            build_time: Duration::ZERO,
            load_time: Duration::ZERO,
            lazy_compiles: None,
            identity: Identity {
                version: "0".into(),
                config_hash: "c".into(),
                programs_hash: "p".into(),
                seed_list: "1-4".into(),
                check: false,
                shard: None,
            },
            groups: Vec::new(),
            fail_on: FailOn::Any,
            linearizable: linearizable.map(str::to_string),
            expect_horizon: false,
        }
    }

    fn printed(summary: &Summary, tally: &Tally) -> (String, Value) {
        let mut out = Vec::new();
        let reported = summary.report_to(&mut out, tally, false, Duration::from_secs(1), None);
        (String::from_utf8(out).unwrap(), reported.doc)
    }

    #[test]
    fn the_linearizability_unknown_line_is_there_even_at_zero_for_a_linearizable_config() {
        let dir = std::env::temp_dir();
        let tally = Tally { seeds: 4, passed: 4, lin_unknown: 3, ..Tally::default() };
        let (text, doc) = printed(&summary(&dir, Some("kv")), &tally);
        assert!(text.contains("\nlinearizability unknown: 3 seeds (the search budget ran out"), "{text}");
        assert_eq!((doc["linearizability_unknown"].as_u64(), doc["linearizable"].as_str()), (Some(3), Some("kv")));
        let tally = Tally { seeds: 4, passed: 4, ..Tally::default() };
        let (text, doc) = printed(&summary(&dir, Some("kv")), &tally);
        assert!(text.lines().any(|l| l == "linearizability unknown: 0 seeds"), "{text}");
        assert_eq!(doc["linearizability_unknown"], 0);
        // Without `linearizable` no history is checked: the text says nothing, the JSON says null.
        let (text, doc) = printed(&summary(&dir, None), &tally);
        assert!(!text.contains("linearizability"), "{text}");
        assert_eq!((doc["linearizability_unknown"].as_u64(), doc["linearizable"].is_null()), (Some(0), true));
    }

    #[test]
    fn a_passing_sweep_ends_with_the_ok_line_and_warns_of_the_horizon_unless_expected() {
        let dir = std::env::temp_dir();
        let tally = Tally { seeds: 4, passed: 4, horizon: 1, lowest_horizon: Some(2), ..Tally::default() };
        let (text, doc) = printed(&summary(&dir, None), &tally);
        assert_eq!(text.lines().last(), Some("ok 4 seeds passed (1 hit the time horizon)"), "{text}");
        assert!(text.contains("warning: 1 of 4 seeds hit the time horizon before the workload exited, lowest 2"));
        assert_eq!((doc["lowest_horizon_seed"].as_u64(), doc["expect"]["horizon"].as_bool()), (Some(2), Some(false)));
        let expecting = Summary { expect_horizon: true, ..summary(&dir, None) };
        let (text, doc) = printed(&expecting, &tally);
        assert!(!text.contains("warning"), "{text}");
        assert_eq!(text.lines().last(), Some("ok 4 seeds passed (1 hit the time horizon)"), "{text}");
        assert_eq!(doc["expect"]["horizon"], true);
        let failure = seedfall_host::world::Failure {
            class: seedfall_host::world::Class::CrashLoop,
            node: "server".into(),
            incarnation: 5,
            property: None,
            message: "crash loop".into(),
            at_ns: None,
        };
        let failed = Tally {
            seeds: 4,
            passed: 3,
            failed: [(1, (vec![failure], 1, 1, Duration::ZERO))].into(),
            ..Tally::default()
        };
        let (text, doc) = printed(&summary(&dir, None), &failed);
        assert!(!text.contains("\nok "), "{text}");
        assert_eq!(doc["crash_loops"], 1);
    }
}
