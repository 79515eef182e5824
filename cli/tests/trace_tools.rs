//! `seedfall trace view|diff|stats` (issue 37, docs/trace-tools.md): exact
//! output on a small trace written by hand; on real traces of
//! examples/kvlog (seed 1 against itself and against seed 2); the goroutine
//! and block columns a replay now writes; a five-column file (as written
//! before them) still read and still matched by `replay --against`; and a
//! missing, empty or foreign file refused with exit 2.

// Only `example` and `seedfall` of the shared helpers are needed here.
#[allow(dead_code)]
mod example_finding;

use example_finding::{example, seedfall};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace-tools");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A trace by hand: a boot, two steps of a server that parks on a read,
/// one of a client that sleeps.
const SMALL: &str = "0\t0\tworld\t00000000000000aa\tboot [0, 1, 0]\n\
    1\t0\tserver#1\t00000000000000ab\tstep [0, 1, 0, 1]\n\
    1\t0\tserver#1\t00000000000000ac\thost call fd_read(5, 8, 1) = 6\tg7\tread fd 5\n\
    2\t2000000\tclient#1\t00000000000000ad\tstep [1, 1, 2000000, 2]\n\
    2\t2000000\tclient#1\t00000000000000ae\thost call poll_oneoff(1, 2, 1, 3) = 0\tg1\ttimer until 1s\n";

/// The JSON document `--json -` put on stdout (`seedfall` gives stdout, then stderr).
fn first_json(out: &str) -> Value {
    let mut values = serde_json::Deserializer::from_str(out).into_iter::<Value>();
    values.next().unwrap_or_else(|| panic!("no JSON: {out}")).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn write(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn view_diff_and_stats_of_a_trace_by_hand() {
    let small = write("small.log", SMALL);
    let (code, out) = seedfall(&["trace", "view", &small, "-node", "server"]);
    assert_eq!(code, 0, "{out}");
    let expected = format!(
        "trace {small}: 5 events, 2 scheduler steps, t=0s to 2ms; showing 2\n\
        \x20 index    step         time node           g     event\n\
        \x20     1       1           0s server#1       -     step [0, 1, 0, 1]\n\
        \x20     2       1           0s server#1       g7    host call fd_read(5, 8, 1) = 6  [parks: read fd 5]\n"
    );
    assert_eq!(out, expected);

    let (code, out) = seedfall(&["trace", "stats", &small]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\n  server#1                  2        1        1\n"), "{out}");
    assert!(out.contains("\n  client#1         g1              1        1\n"), "{out}");
    assert!(out.contains("\n  client#1                1  timer\n"), "{out}");
    assert!(out.contains("  +2ms from event 2 to event 3:\n"), "{out}");

    // The client's step comes later in B and it does one more call: kept, added.
    let later = SMALL.replace("2000000", "3000000")
        + "2\t3000000\tclient#1\t00000000000000af\thost call fd_write(1, 2, 1) = 0\tg1\n";
    let other = write("small-b.log", &later);
    let (code, out) = seedfall(&["trace", "diff", &small, &other, "--json", "-"]);
    assert_eq!(code, 0, "{out}");
    let doc = first_json(&out);
    assert_eq!(
        (&doc["shared_prefix"], &doc["kept"], &doc["added"], &doc["dropped"]),
        (&5.into(), &5.into(), &1.into(), &0.into())
    );
    assert_eq!(doc["changes"][0]["b"], 5);
    assert!(
        out.contains("\n+               5       2          3ms client#1       g1    host call fd_write(1, 2, 1) = 0\n"),
        "{out}"
    );
    assert!(out.contains("5 kept, 0 dropped (only in A), 1 added (only in B)"), "{out}");
}

#[test]
fn a_missing_an_empty_and_a_foreign_file_exit_2_naming_it() {
    let missing = dir().join("no-such.log");
    let (code, out) = seedfall(&["trace", "view", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.starts_with("seedfall trace view: cannot read ") && out.contains("no-such.log"), "{out}");
    let empty = write("empty.log", "");
    let (code, out) = seedfall(&["trace", "stats", &empty]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("empty.log: empty: no events"), "{out}");
    let foreign = write("foreign.log", &format!("{SMALL}not a trace\n"));
    let small = write("small-2.log", SMALL);
    let (code, out) = seedfall(&["trace", "diff", &small, &foreign]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("foreign.log: line 6: not a trace log line"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

/// Seed 1 (and 2) of examples/kvlog saved once.
fn saved(seed: u64) -> &'static str {
    static SAVED: [OnceLock<String>; 2] = [OnceLock::new(), OnceLock::new()];
    SAVED[seed as usize - 1].get_or_init(|| {
        let file = dir().join(format!("kvlog-seed-{seed}.log"));
        let config = example("kvlog").join("seedfall.json");
        let seed = seed.to_string();
        let args = ["replay", "-c", config.to_str().unwrap(), "-seed", &seed, "--save-trace", file.to_str().unwrap()];
        let (code, out) = seedfall(&args);
        assert!(code == 0 || code == 1, "{out}");
        assert!(out.contains("trace log: "), "{out}");
        file.to_str().unwrap().to_string()
    })
}

#[test]
fn real_traces_view_stats_and_diff() {
    let one = saved(1);
    let text = std::fs::read_to_string(one).unwrap();
    let events = text.lines().count();
    // Go nodes' events carry their goroutine, and nodes park on something.
    assert!(text.lines().any(|l| l.split('\t').nth(5).is_some_and(|g| g.starts_with('g'))), "a goroutine column");
    assert!(text.lines().any(|l| l.split('\t').nth(6).is_some_and(|b| b.starts_with("read fd "))), "a read block");
    assert!(text.lines().any(|l| l.split('\t').nth(6).is_some_and(|b| b.contains("timer until "))), "a timer");
    assert!(text.lines().any(|l| l.split('\t').nth(6).is_some_and(|b| b.starts_with("accept fd "))), "an accept");
    assert!(text.lines().any(|l| l.split('\t').nth(6) == Some("connect")), "a dial");

    let (code, out) = seedfall(&["trace", "view", one, "--from", "10", "--to", "20"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().count(), 12, "a header, the column names and 10 events: {out}");
    assert!(out.lines().nth(2).unwrap().trim_start().starts_with("10 "), "{out}");

    let (code, out) = seedfall(&["trace", "stats", one, "--json", "-"]);
    assert_eq!(code, 0, "{out}");
    let doc = first_json(&out);
    assert_eq!(doc["events"], events);
    assert!(doc["nodes"].as_array().unwrap().iter().any(|n| n["node"] == "server#1"));
    assert!(!doc["goroutines"].as_array().unwrap().is_empty());
    assert!(doc["blocked"].as_array().unwrap().iter().any(|b| b["reason"] == "timer"), "{}", doc["blocked"]);
    assert_eq!(doc["jumps"].as_array().unwrap().len(), 10);

    let (code, out) = seedfall(&["trace", "diff", one, one]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("shared prefix: {events} events\nthe traces share every event\n")), "{out}");

    let two = saved(2);
    let (code, out) = seedfall(&["trace", "diff", one, two, "--json", "-"]);
    assert_eq!(code, 0, "{out}");
    let doc = first_json(&out);
    let prefix = doc["shared_prefix"].as_u64().unwrap() as usize;
    assert!(prefix < events && doc["parts_at"]["index"] == prefix, "seeds 1 and 2 part: {}", doc["parts_at"]);
    assert!(out.contains(&format!("they part at event {prefix}:\n")), "{out}");

    // Seed 1 without its second crash (a shrunk run, say): the same run up
    // to that crash, then the dropped crash and what changed after it.
    let replayed = dir().join("kvlog-seed-1.json");
    let config = example("kvlog").join("seedfall.json");
    let (code, out) =
        seedfall(&["replay", "-c", config.to_str().unwrap(), "-seed", "1", "--json", replayed.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&replayed).unwrap()).unwrap();
    let faults = doc["faults"].as_array().unwrap();
    assert_eq!(faults.iter().filter(|f| f["kind"] == "crash").count(), 2, "{faults:?}");
    let first_crash_only = write("kvlog-seed-1.first-crash.json", &Value::from(faults[..1].to_vec()).to_string());
    let fewer = dir().join("kvlog-seed-1.first-crash.log");
    let (code, out) = seedfall(&[
        "replay",
        "-c",
        config.to_str().unwrap(),
        "-seed",
        "1",
        "-faults",
        &first_crash_only,
        "-save-trace",
        fewer.to_str().unwrap(),
    ]);
    assert!(code == 0 || code == 1, "{out}");
    let (code, out) = seedfall(&["trace", "diff", one, fewer.to_str().unwrap(), "--json", "-"]);
    assert_eq!(code, 0, "{out}");
    let doc = first_json(&out);
    let prefix = doc["shared_prefix"].as_u64().unwrap();
    assert!(prefix > events as u64 / 4, "they share the run up to the second crash: {prefix}");
    let parted = doc["parts_at"]["a"]["what"].as_str().unwrap();
    assert!(
        parted.starts_with("fault ") && parted.contains("\"kind\":\"crash\""),
        "A parts at its second crash: {parted}"
    );
    assert_eq!(doc["aligned"], true);
    assert!(doc["dropped"].as_u64().unwrap() > 0 && doc["added"].as_u64().unwrap() > 0, "{out}");
    assert!(doc["kept"].as_u64().unwrap() > prefix, "events after the crash line up again: {}", doc["kept"]);
    assert!(out.contains("\n-    ") && out.contains("\n+         "), "{out}");
}

/// A file in the five-column form (written before goroutines and blocks)
/// reads, shows `-` for goroutines, and `replay --against` it matches.
#[test]
fn a_five_column_file_still_reads_and_replays_against() {
    let one = saved(1);
    let old: String = std::fs::read_to_string(one)
        .unwrap()
        .lines()
        .map(|l| l.splitn(6, '\t').take(5).collect::<Vec<_>>().join("\t") + "\n")
        .collect();
    assert!(old.lines().all(|l| l.split('\t').count() == 5));
    let old_file = write("kvlog-seed-1.five-columns.log", &old);
    let (code, out) = seedfall(&["trace", "view", &old_file, "--to", "5"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains(" g0 ") && !out.contains("[parks:"), "{out}");
    let (code, out) = seedfall(&["trace", "stats", &old_file]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("per goroutine:") && !out.contains("parked on:"), "{out}");

    let config = example("kvlog").join("seedfall.json");
    let (code, out) = seedfall(&["replay", "-c", config.to_str().unwrap(), "-seed", "1", "--against", &old_file]);
    assert_eq!(code, 1, "seed 1 fails (a finding), and only that: {out}");
    let events = old.lines().count();
    assert!(out.contains(&format!("same {events} events as {old_file}")), "{out}");
    // The new file against the old one: the same events, observations aside.
    let (code, out) = seedfall(&["trace", "diff", &old_file, one]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("the traces share every event"), "{out}");
}
