//! `seedfall cause` on examples/kvlog's `cause.json` (the torn-tail store:
//! a crash in the middle of a write leaves a torn record that recovery
//! appends after, and the next crash's recovery loses what came after it;
//! partitions between client and server are bystanders). Seed 1's curve
//! jumps at its crash in the middle of a write and no partition raises it; forked futures are the runs a full replay of the
//! same future gives; every failing future's saved schedule replays it;
//! the function that runs only in failing futures tops the function table;
//! the sweep report shows the curve.

#[path = "support/chromium.rs"]
mod chromium;
// Only `example` and `seedfall` of the shared helpers are needed here.
#[allow(dead_code)]
mod example_finding;

use example_finding::{example, seedfall};
use seedfall::cause::{CauseOptions, Outcome, cause, replay_schedule};
use seedfall::cluster::Cluster;
use seedfall::schedule::Schedule;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

fn cause_json(extra: &[&str]) -> Value {
    let config = example("kvlog").join("cause.json");
    let mut args = vec!["cause", "-c", config.to_str().unwrap(), "-seed", "1", "--json", "-"];
    args.extend_from_slice(extra);
    let (code, out) = seedfall(&args);
    assert_eq!(code, 0, "{out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn p(moment: &Value) -> f64 {
    moment["p_fail"].as_f64().unwrap()
}

#[test]
fn seed_1_jumps_at_the_torn_write_stays_flat_across_partitions_and_names_sim_fail() {
    let doc = cause_json(&[]);
    let moments = doc["moments"].as_array().unwrap();
    assert!(moments.iter().all(|m| m["futures"] == 20), "20 futures from every moment");
    // The biggest jump comes right after the run's first crash in a disk
    // operation, the one that tore a write (some bytes of it applied).
    let jump = &doc["biggest_jump"];
    let first_crash_io =
        moments.iter().map(|m| &m["event"]).find(|e| e["kind"] == "crash_io").expect("a crash in a disk operation");
    assert_eq!(jump["after"], *first_crash_io, "{jump}");
    let text = first_crash_io["text"].as_str().unwrap();
    assert!(text.ends_with(" bytes") && !text.ends_with("+ 0 bytes"), "a torn write: {text}");
    let (from, to) = (jump["from"].as_f64().unwrap(), jump["to"].as_f64().unwrap());
    assert!(to >= 0.9 && to - from >= 0.3, "{jump}");
    // Each fault has a moment just before it and one just after. A bystander
    // never looks like a cause: no partition raises P(fail) by more than
    // the noise of 20 futures (one sd is about 11 points).
    let mut partitions = 0;
    for pair in moments.windows(2) {
        if pair[1]["event"]["kind"] == "partition" {
            partitions += 1;
            let rise = p(&pair[1]) - p(&pair[0]);
            assert!(rise <= 0.1, "a bystander partition raises the curve by {rise}: {pair:?}");
        }
    }
    assert!(partitions >= 2, "{moments:?}");

    // sim.Fail runs only in the futures that fail (they all fail through
    // it): it ranks first, tied with the formatting of the failure message,
    // which runs only there too. Names are Go's, and the service's and the
    // SDK's packages come before the standard library's.
    let functions = doc["functions"].as_array().unwrap();
    let score = |f: &Value| (f["p_fail_given_ran"].as_f64().unwrap(), f["p_ran_given_fail"].as_f64().unwrap());
    assert_eq!(score(&functions[0]), (1.0, 1.0), "{functions:?}");
    let fail = functions.iter().find(|f| f["name"] == "seedfall.dev/sdk/sim.fail").expect("sim.Fail in the table");
    assert_eq!(score(fail), (1.0, 1.0), "{functions:?}");
    assert!(functions.len() <= 10);
    let standard: Vec<bool> =
        functions.iter().map(|f| seedfall::cause_stats::standard_library(f["name"].as_str().unwrap())).collect();
    assert!(!standard[0] && standard.windows(2).all(|w| w[0] <= w[1]), "{functions:?}");

    // A failing future replays exactly: it fails the same way.
    let failing = doc["failing_futures"].as_array().unwrap();
    assert!(!failing.is_empty());
    let schedule = failing.last().unwrap()["schedule"].as_str().unwrap();
    assert!(std::fs::read_to_string(schedule).unwrap().contains("\"branches\""));
    let config = example("kvlog").join("cause.json");
    let (code, replay) = seedfall(&["replay", "-c", config.to_str().unwrap(), "-seed", "1", "-faults", schedule]);
    assert_eq!(code, 1, "{replay}");
    assert!(replay.contains("acknowledged entry") && replay.contains("branch: new randomness"), "{replay}");

    // The sweep report shows the curve with the finding seed 1 belongs to.
    let page = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cause-report.html");
    let (code, out) =
        seedfall(&["run", "-c", config.to_str().unwrap(), "-seeds", "1-4", "-report", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(page.with_extension("json")).unwrap()).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["cause"]["seed"], 1, "{finding}");
    assert_eq!(finding["cause"]["biggest_jump"], doc["biggest_jump"]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<svg class=\"cause-curve\"") && html.contains("biggest jump"), "{html}");
    // Chromium renders it: the curve's path and a dot per moment.
    let dom = chromium::chromium(&page, &["--dump-dom"]);
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("<circle ").count(), moments.len(), "{dom}");
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cause-report.png");
    let out = chromium::chromium(&page, &[&format!("--screenshot={}", shot.display()), "--window-size=1000,1400"]);
    assert!(out.status.success() && std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 1000);
}

/// The cluster, prepared once for the tests of this file (they would
/// otherwise build into one folder at once).
fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        // Compiled into the example's own `.seedfall/cache` (unless
        // SEEDFALL_CACHE_DIR says otherwise), as `seedfall cause` would.
        let path = example("kvlog").join("cause.json");
        let config = seedfall::config::load(&path).unwrap();
        Cluster::prepare(config, &path, &seedfall::config::state_dir(&path)).unwrap()
    })
}

fn options(share_prefix: bool) -> CauseOptions {
    CauseOptions { seed: 1, schedule: None, futures: 3, moments: 4, jobs: 2, share_prefix }
}

fn hashes(outcomes: &[Vec<Outcome>]) -> Vec<(bool, String)> {
    outcomes.iter().flatten().map(|o| (o.fails, o.trace_hash.clone())).collect()
}

#[test]
fn a_forked_future_is_the_run_a_full_replay_of_it_gives() {
    let cluster = cluster();
    let forked = cause(cluster, &options(true)).unwrap();
    assert!(forked.shared_prefix, "this machine has fork()");
    let replayed = cause(cluster, &options(false)).unwrap();
    assert!(!replayed.shared_prefix);
    assert_eq!(hashes(&forked.outcomes), hashes(&replayed.outcomes), "same futures, same trace hashes");
    let failing: Vec<&Outcome> = forked.outcomes.iter().flatten().filter(|o| o.fails).collect();
    assert!(!failing.is_empty(), "some future fails");
    for outcome in failing {
        let schedule = Schedule::parse(outcome.schedule.as_deref().unwrap()).unwrap();
        assert_eq!(schedule.branches.len(), 1);
        let run = replay_schedule(cluster, &schedule, 1).unwrap();
        assert_eq!(run.trace_hash.to_string(), outcome.trace_hash, "the saved schedule replays the future");
    }
}

#[test]
fn a_passing_seed_or_zero_futures_is_a_clear_error() {
    let cluster = cluster();
    let mut passing = options(true);
    passing.seed = 2;
    let err = cause(cluster, &passing).err().expect("seed 2 passes").to_string();
    assert!(err.contains("seed 2 passes"), "{err}");
    let mut none = options(true);
    none.futures = 0;
    assert!(cause(cluster, &none).err().unwrap().to_string().contains("at least 1"));
}

/// The function table's names are Go's: the `name` section's mangled
/// `__T_` is `(*T)` again.
#[test]
fn functions_are_named_as_go_writes_them() {
    let cluster = cluster();
    let code = cluster.node_code("server").expect("a server node");
    let mangled = (0..code.num_defined_functions())
        .find(|&i| code.function_name(i).is_some_and(|n| n.starts_with("os.__File_.")))
        .expect("the server calls a method of *os.File");
    let name = cluster.function_name("server", mangled).unwrap();
    assert!(name.starts_with("os.(*File)."), "{name}");
    assert_eq!(name.replace("(*File)", "__File_"), code.function_name(mangled).unwrap());
}
