//! The end of a sweep: the summary lines (counts, divergences, `Sometimes`
//! never true, the lowest failing seed, the property table, where the real
//! time went), the exit code, and the `--json` document with what identifies
//! the sweep (seedfall version, config and programs hashes, seed list, shard),
//! so `report merge` can tell shards of one sweep from anything else. Shared
//! by `run` and `report merge`, which must print the same thing.

use crate::report::{Tally, timing_line};
use crate::shard::Shard;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

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
    pub identity: Identity,
}

impl Summary {
    /// Prints the summary, writes the JSON if asked, and returns the exit code.
    pub fn report(&self, tally: &Tally, interrupted: bool, elapsed: Duration) -> u8 {
        let code = exit_code(tally, interrupted);
        let rate = tally.seeds as f64 / elapsed.as_secs_f64().max(1e-9);
        if interrupted {
            println!("interrupted after {} of {} seeds (the rest were not run)", tally.seeds, self.total);
        }
        println!(
            "{} seeds in {:.1}s ({rate:.1} seeds/s on {} workers): {} passed, {} failed{}{}",
            tally.seeds,
            elapsed.as_secs_f64(),
            self.workers,
            tally.passed,
            tally.failed.len(),
            if tally.horizon > 0 { format!(" ({} seeds hit the time horizon)", tally.horizon) } else { String::new() },
            if tally.lin_unknown > 0 {
                format!(" ({} seeds' linearizability unknown: the search budget ran out)", tally.lin_unknown)
            } else {
                String::new()
            },
        );
        if !tally.diverged.is_empty() {
            println!("not deterministic: seeds {:?}", tally.diverged.iter().collect::<Vec<_>>());
        }
        for message in tally.properties.never_true() {
            println!("FAIL sometimes never true in any seed: {message}");
        }
        for (kind, message) in tally.properties.never_reached() {
            println!("FAIL {} never reached in any seed: {message}", kind.name());
        }
        if let Some(seed) = tally.lowest_failing() {
            println!("lowest failing seed: {seed} (replay: seedfall replay -c {} -seed {seed})", self.config.display());
        }
        print!("{}", tally.properties.render());
        println!("{}", timing_line(self.build_time, self.load_time, &tally.timings));
        if let Some(json_path) = &self.json {
            let text = serde_json::to_string_pretty(&self.json(tally, code, interrupted, elapsed))
                .expect("JSON values serialize");
            if let Err(e) = std::fs::write(json_path, text + "\n") {
                eprintln!("seedfall: cannot write {}: {e}", json_path.display());
                return 2;
            }
        }
        // The handler of a second signal exits the process right after.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    }

    fn json(&self, tally: &Tally, code: u8, interrupted: bool, elapsed: Duration) -> Value {
        let id = &self.identity;
        let mut doc = tally.json(&self.config.display().to_string(), code);
        doc["interrupted"] = Value::Bool(interrupted);
        doc["seedfall_version"] = json!(id.version);
        doc["config_hash"] = json!(id.config_hash);
        doc["programs_hash"] = json!(id.programs_hash);
        doc["seed_list"] = json!(id.seed_list);
        doc["check"] = json!(id.check);
        doc["shard"] = id.shard.map_or(Value::Null, |s| json!({"index": s.index, "count": s.count}));
        doc["workers"] = json!(self.workers);
        doc["elapsed_ms"] = json!(elapsed.as_millis() as u64);
        doc["totals"]["build_ms"] = json!(self.build_time.as_millis() as u64);
        doc["totals"]["load_ms"] = json!(self.load_time.as_millis() as u64);
        doc
    }
}

/// 2 on an internal error, 1 on a finding, 2 when interrupted (the seeds
/// not run prove nothing), else 0.
fn exit_code(tally: &Tally, interrupted: bool) -> u8 {
    if !tally.errors.is_empty() {
        2
    } else if tally.found_something() {
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
