//! `report merge`: the shards of one sweep (`run --shard I/N --json …` on
//! N machines) back into the summary the unsharded sweep would have
//! printed: the same counts, failures, property table and trace digest;
//! only real-time figures differ. Refuses (naming the file) anything that
//! is not exactly the N shards of one sweep: a shard missing or given
//! twice, an interrupted shard, or a different seedfall version, config,
//! compiled programs, seed list or `-check`. It does not re-run anything,
//! nor print: the caller prints the tally's FAIL blocks, then the summary.

use crate::report::Tally;
use crate::seeds::parse_seeds;
use crate::shard::Shard;
use crate::summary::{FailOn, Identity, Summary};
use seedfall_host::node::PropertyKind;
use seedfall_host::world::{Class, Failure, RunTimings};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `run --json` wrote, as far as merging needs it.
#[derive(Deserialize)]
struct Doc {
    seedfall_version: String,
    config: String,
    config_hash: String,
    programs_hash: String,
    seed_list: String,
    check: bool,
    shard: Option<ShardDoc>,
    interrupted: bool,
    seeds: u64,
    passed: u64,
    horizon: u64,
    /// Absent from older documents, like the two below.
    #[serde(default)]
    lowest_horizon_seed: Option<u64>,
    #[serde(default)]
    fault_seeds: BTreeMap<String, u64>,
    #[serde(default)]
    expect: ExpectDoc,
    #[serde(default)]
    linearizability_unknown: u64,
    /// The config's `linearizable` model (absent from older documents).
    #[serde(default)]
    linearizable: Option<String>,
    failures: Vec<FailedSeed>,
    diverged: Vec<u64>,
    errors: Vec<SeedError>,
    properties: Vec<PropertyRow>,
    trace_hashes: Vec<(u64, String)>,
    totals: Totals,
    workers: usize,
    elapsed_ms: u64,
}

#[derive(Deserialize, Default)]
struct ExpectDoc {
    horizon: bool,
}

#[derive(Deserialize)]
struct ShardDoc {
    index: u64,
    count: u64,
}

#[derive(Deserialize)]
struct FailedSeed {
    seed: u64,
    virtual_ns: u64,
    steps: u64,
    real_ms: u64,
    failures: Vec<FailureDoc>,
}

#[derive(Deserialize)]
struct FailureDoc {
    class: String,
    node: String,
    incarnation: u32,
    property: Option<String>,
    message: String,
    #[serde(default)]
    at_ns: Option<u64>,
}

#[derive(Deserialize)]
struct SeedError {
    seed: u64,
    error: String,
}

#[derive(Deserialize)]
struct PropertyRow {
    kind: String,
    message: String,
    seeds_reached: u64,
    seeds_true: u64,
    /// Absent from documents of older builds.
    #[serde(default)]
    optional: bool,
}

#[derive(Deserialize)]
struct Totals {
    steps: u64,
    virtual_ns: u64,
    real_ms: u64,
    boot_ms: u64,
    boots: u32,
    guest_ms: u64,
    /// Absent in summaries written before it was added.
    #[serde(default)]
    init_ms: u64,
    host_calls: u64,
    build_ms: u64,
    load_ms: u64,
}

/// One shard's file, read and checked on its own.
struct Part {
    file: String,
    doc: Doc,
    shard: Shard,
}

/// The shards' reports, merged.
pub struct Merged {
    pub tally: Tally,
    /// What the unsharded sweep's summary says besides the tally.
    pub summary: Summary,
    /// The slowest shard's real time: the shards ran side by side.
    pub elapsed: Duration,
}

/// Reads and checks the shards' `files` and merges them; the merged summary
/// writes its JSON to `json`, if given, when reported.
pub fn merge(files: &[PathBuf], json: Option<PathBuf>) -> Result<Merged, MergeError> {
    let parts = files.iter().map(|f| read_part(f)).collect::<Result<Vec<_>, _>>()?;
    let first = parts.first().ok_or(MergeError::NoShards)?;
    for part in &parts[1..] {
        same_sweep(first, part)?;
    }
    let all_seeds = parse_seeds(&first.doc.seed_list).map_err(|e| in_file(&first.file, e))?;
    let mut by_index: BTreeMap<u64, &Part> = BTreeMap::new();
    for part in &parts {
        if let Some(other) = by_index.insert(part.shard.index, part) {
            return Err(MergeError::Twice { shard: part.shard, first: other.file.clone(), second: part.file.clone() });
        }
    }
    let count = first.shard.count;
    let missing: Vec<String> =
        (0..count).filter(|i| !by_index.contains_key(i)).map(|i| format!("{i}/{count}")).collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing(missing));
    }
    let mut tally = Tally::default();
    for part in by_index.values() {
        tally.absorb(part_tally(part, &all_seeds)?);
    }
    let max = |f: fn(&Doc) -> u64| Duration::from_millis(parts.iter().map(|p| f(&p.doc)).max().unwrap_or(0));
    let summary = Summary {
        total: all_seeds.len() as u64,
        workers: parts.iter().map(|p| p.doc.workers).sum(),
        config: PathBuf::from(&first.doc.config),
        json,
        // The shards ran side by side: the sweep took as long as the slowest.
        build_time: max(|d| d.totals.build_ms),
        load_time: max(|d| d.totals.load_ms),
        // Not in the shards' documents: the timing line leaves it out.
        lazy_compiles: None,
        identity: Identity { shard: None, ..identity(&first.doc) },
        // The shards' documents do not say how `count` nodes group.
        groups: Vec::new(),
        fail_on: FailOn::default(),
        linearizable: first.doc.linearizable.clone(),
        // One config (its hash is checked): the shards expect alike.
        expect_horizon: first.doc.expect.horizon,
    };
    Ok(Merged { tally, summary, elapsed: max(|d| d.elapsed_ms) })
}

fn read_part(path: &Path) -> Result<Part, MergeError> {
    let file = path.display().to_string();
    let text = crate::input::read_file(path, crate::input::TEXT_MAX_BYTES).map_err(|e| in_file(&file, e))?;
    let doc: Doc = serde_json::from_slice(&text)
        .map_err(|e| in_file(&file, format!("not a seedfall sweep report ({e}; written by `seedfall run --json`?)")))?;
    let Some(shard) = &doc.shard else {
        return Err(in_file(&file, "not a shard (it was run without --shard I/N)"));
    };
    let shard = Shard::parse(&format!("{}/{}", shard.index, shard.count)).map_err(|e| in_file(&file, e))?;
    if doc.interrupted {
        return Err(in_file(&file, format!("shard {shard} was interrupted after {} seeds; run it again", doc.seeds)));
    }
    Ok(Part { file, doc, shard })
}

fn identity(doc: &Doc) -> Identity {
    Identity {
        version: doc.seedfall_version.clone(),
        config_hash: doc.config_hash.clone(),
        programs_hash: doc.programs_hash.clone(),
        seed_list: doc.seed_list.clone(),
        check: doc.check,
        shard: None,
    }
}

/// Checks that `b` is another shard of `a`'s sweep, naming what differs.
fn same_sweep(a: &Part, b: &Part) -> Result<(), MergeError> {
    let (x, y) = (identity(&a.doc), identity(&b.doc));
    let differs = |what: &'static str, left: &str, right: &str| {
        Err(MergeError::NotOneSweep {
            files: (a.file.clone(), b.file.clone()),
            what,
            values: (left.to_string(), right.to_string()),
        })
    };
    if x.version != y.version {
        return differs("seedfall version", &x.version, &y.version);
    }
    if x.config_hash != y.config_hash {
        return differs("config (its hash)", &x.config_hash, &y.config_hash);
    }
    if x.programs_hash != y.programs_hash {
        return differs("compiled programs (other sources or toolchain)", &x.programs_hash, &y.programs_hash);
    }
    if x.seed_list != y.seed_list {
        return differs("seed list", &x.seed_list, &y.seed_list);
    }
    if x.check != y.check {
        return differs("-check", &x.check.to_string(), &y.check.to_string());
    }
    if a.shard.count != b.shard.count {
        return differs("shard count", &a.shard.count.to_string(), &b.shard.count.to_string());
    }
    Ok(())
}

/// The shard's document as a tally, after checking that it holds exactly
/// its share of the seed list.
fn part_tally(part: &Part, all_seeds: &[u64]) -> Result<Tally, MergeError> {
    let (doc, file) = (&part.doc, &part.file);
    let expected: BTreeSet<u64> = part.shard.select(all_seeds).into_iter().collect();
    let ran: BTreeSet<u64> =
        doc.trace_hashes.iter().map(|(s, _)| *s).chain(doc.errors.iter().map(|e| e.seed)).collect();
    if ran != expected || doc.seeds != expected.len() as u64 {
        return Err(in_file(
            file,
            format!(
                "shard {} should hold its {} seeds of {:?}, it reports {} ({} with a result)",
                part.shard,
                expected.len(),
                doc.seed_list,
                doc.seeds,
                ran.len()
            ),
        ));
    }
    let mut tally = Tally {
        seeds: doc.seeds,
        passed: doc.passed,
        horizon: doc.horizon,
        lowest_horizon: doc.lowest_horizon_seed,
        fault_seeds: doc.fault_seeds.clone(),
        lin_unknown: doc.linearizability_unknown,
        diverged: doc.diverged.iter().copied().collect(),
        errors: doc.errors.iter().map(|e| (e.seed, e.error.clone())).collect(),
        trace_hashes: doc.trace_hashes.iter().cloned().collect(),
        steps: doc.totals.steps,
        virtual_ns: doc.totals.virtual_ns,
        timings: RunTimings {
            boot: Duration::from_millis(doc.totals.boot_ms),
            guest: Duration::from_millis(doc.totals.guest_ms),
            init: Duration::from_millis(doc.totals.init_ms),
            total: Duration::from_millis(doc.totals.real_ms),
            boots: doc.totals.boots,
            host_calls: doc.totals.host_calls,
        },
        ..Tally::default()
    };
    for seed in &doc.failures {
        let failures = seed.failures.iter().map(|f| failure(f, file)).collect::<Result<Vec<_>, _>>()?;
        let real = Duration::from_millis(seed.real_ms);
        tally.failed.insert(seed.seed, (failures, seed.virtual_ns, seed.steps, real));
    }
    for row in &doc.properties {
        let kind = property_kind(&row.kind, file)?;
        tally.properties.add_counts(&row.message, kind, row.seeds_reached, row.seeds_true);
        if row.optional {
            tally.properties.make_optional(std::slice::from_ref(&row.message));
        }
    }
    Ok(tally)
}

fn failure(f: &FailureDoc, file: &str) -> Result<Failure, MergeError> {
    let class =
        Class::from_name(&f.class).ok_or_else(|| in_file(file, format!("unknown failure class {:?}", f.class)))?;
    let property = f.property.as_deref().map(|p| property_kind(p, file)).transpose()?;
    let (node, message) = (f.node.clone(), f.message.clone());
    Ok(Failure { class, node, incarnation: f.incarnation, property, message, at_ns: f.at_ns })
}

fn property_kind(name: &str, file: &str) -> Result<PropertyKind, MergeError> {
    PropertyKind::from_name(name).ok_or_else(|| in_file(file, format!("unknown property kind {name:?}")))
}

/// Why shard reports could not be merged (exit 2).
#[derive(Debug)]
pub enum MergeError {
    NoShards,
    /// What is wrong with one shard's file.
    InFile {
        file: String,
        problem: String,
    },
    Twice {
        shard: Shard,
        first: String,
        second: String,
    },
    /// The shards `I/N` no file holds.
    Missing(Vec<String>),
    /// Two files whose sweeps differ in `what`: their two values.
    NotOneSweep {
        files: (String, String),
        what: &'static str,
        values: (String, String),
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MergeError::NoShards => f.write_str("no shards to merge"),
            MergeError::InFile { file, problem } => write!(f, "{file}: {problem}"),
            MergeError::Twice { shard, first, second } => {
                write!(f, "shard {shard} is given twice: {first} and {second}")
            }
            MergeError::Missing(missing) => {
                write!(f, "missing shard{} {}", if missing.len() > 1 { "s" } else { "" }, missing.join(", "))
            }
            MergeError::NotOneSweep { files: (a, b), what, values: (left, right) } => {
                write!(f, "{a} and {b} are not shards of one sweep: {what} {left:?} vs {right:?}")
            }
        }
    }
}

impl std::error::Error for MergeError {}

fn in_file(file: &str, problem: impl fmt::Display) -> MergeError {
    MergeError::InFile { file: file.to_string(), problem: problem.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::tests::summary;

    /// Two shards of seeds 1-4 of a `kv` config, written as `run --shard I/2 --json` writes them;
    /// the first with `unknown` seeds whose linearizability search ran out of budget.
    fn shards(dir: &Path, unknown: u64) -> Vec<PathBuf> {
        (0..2u64)
            .map(|index| {
                let shard = Shard::parse(&format!("{index}/2")).unwrap();
                let seeds = shard.select(&[1, 2, 3, 4]);
                let n = seeds.len() as u64;
                let tally = Tally {
                    seeds: n,
                    passed: n,
                    lin_unknown: if index == 0 { unknown } else { 0 },
                    trace_hashes: seeds.iter().map(|s| (*s, format!("h{s}"))).collect(),
                    ..Tally::default()
                };
                let mut summary = summary(dir, Some("kv"));
                summary.identity.shard = Some(shard);
                let file = dir.join(format!("shard-{index}-{unknown}.json"));
                summary.json = Some(file.clone());
                summary.report_to(&mut Vec::new(), &tally, false, Duration::from_secs(1), None);
                file
            })
            .collect()
    }

    #[test]
    fn a_merged_summary_says_how_many_seeds_linearizability_is_unknown_even_at_zero() {
        let dir = std::env::temp_dir().join(format!("seedfall-merge-lin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for unknown in [0, 2] {
            let merged = merge(&shards(&dir, unknown), None).unwrap();
            assert_eq!(merged.tally.lin_unknown, unknown);
            assert_eq!(merged.summary.linearizable.as_deref(), Some("kv"));
            let mut out = Vec::new();
            let reported = merged.summary.report_to(&mut out, &merged.tally, false, merged.elapsed, None);
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains(&format!("linearizability unknown: {unknown} seeds")), "{text}");
            assert_eq!(reported.doc["linearizability_unknown"], unknown);
            assert_eq!(reported.doc["linearizable"], "kv");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn merged_shards_add_up_horizons_crash_loops_no_progress_and_fault_seeds() {
        let dir = std::env::temp_dir().join(format!("seedfall-merge-silent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Shard 0 holds seeds 1 and 3, shard 1 seeds 2 and 4: 1 and 2 fail, 3 and 4 hit the horizon.
        let files: Vec<PathBuf> = [(0u64, Class::CrashLoop), (1, Class::NoProgress)]
            .into_iter()
            .map(|(index, class)| {
                let shard = Shard::parse(&format!("{index}/2")).unwrap();
                let [failing, horizon] = shard.select(&[1, 2, 3, 4])[..] else { panic!() };
                let failure = Failure {
                    class,
                    node: "server".into(),
                    incarnation: 5,
                    property: None,
                    message: "m".into(),
                    at_ns: None,
                };
                let mut tally = Tally {
                    seeds: 2,
                    passed: 1,
                    horizon: 1,
                    lowest_horizon: Some(horizon),
                    failed: [(failing, (vec![failure], 1, 1, Duration::ZERO))].into(),
                    trace_hashes: [failing, horizon].iter().map(|s| (*s, format!("h{s}"))).collect(),
                    ..Tally::default()
                };
                tally.expect_faults(&["crash", "pause"]);
                tally.fault_seeds.insert("crash".into(), index + 1);
                let mut summary = summary(&dir, None);
                summary.identity.shard = Some(shard);
                let file = dir.join(format!("silent-{index}.json"));
                summary.json = Some(file.clone());
                summary.report_to(&mut Vec::new(), &tally, false, Duration::from_secs(1), None);
                file
            })
            .collect();
        let merged = merge(&files, None).unwrap();
        let mut out = Vec::new();
        let doc = merged.summary.report_to(&mut out, &merged.tally, false, merged.elapsed, None).doc;
        assert_eq!((doc["horizon"].as_u64(), doc["lowest_horizon_seed"].as_u64()), (Some(2), Some(3)));
        assert_eq!((doc["crash_loops"].as_u64(), doc["no_progress"].as_u64()), (Some(1), Some(1)));
        assert_eq!(doc["fault_seeds"], serde_json::json!({"crash": 3, "pause": 0}));
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("faults: crash in 3 of 4 seeds, pause in 0 of 4 seeds\n"), "{text}");
        assert!(text.contains("warning: enabled but fired in none of 4 seeds: pause"), "{text}");
        assert!(text.contains("warning: 2 of 4 seeds hit the time horizon before the workload exited, lowest 3"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
