//! `seedfall run -report FILE.html`: the sweep as a self-contained page and
//! `FILE.json` beside it (DESIGN.md §1's fields): per finding its status and
//! history row, counts, failing seeds, the lowest and fastest seed with
//! their replay commands, the fault kinds in its failing seeds against the
//! passing ones, and the last lines of its lowest seed's trace (one replay
//! per finding), and with `--shrink-new` its shrunk schedule; the property
//! table; what ran, when and at which commit.
//! Not here: grouping (`findings.rs`), statuses (`finding_history.rs`).

use crate::cluster::Cluster;
use crate::finding_history::Record;
use crate::findings::{Finding, replay_command};
use crate::report::Tally;
use crate::timeline::escape;
use crate::write_error::WriteError;
use seedfall_host::world::{self, Class};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Trace lines kept per finding.
const TRACE_TAIL: usize = 20;

/// What the report says beyond the tally and the findings.
pub struct ReportRun<'a> {
    pub config: &'a str,
    pub seed_list: &'a str,
    pub run_at: &'a str,
    pub commit: Option<&'a str>,
    /// The config's `linearizable` model (None: no history is checked).
    pub linearizable: Option<&'a str>,
    /// `--shrink-new`: each shrunk finding's saved schedule, by id.
    pub schedules: &'a BTreeMap<String, PathBuf>,
}

/// `FILE.json` beside `FILE.html`.
pub fn json_path(html: &Path) -> PathBuf {
    html.with_extension("json")
}

/// Writes `page` and `FILE.json` beside it, replaying each finding's lowest
/// seed for its trace tail; returns the JSON file's path.
pub fn write(
    page: &Path,
    cluster: &Cluster,
    run: &ReportRun,
    tally: &Tally,
    found: &[Finding],
    records: &[Record],
) -> Result<PathBuf, WriteError> {
    let tails: Vec<Vec<String>> = found.iter().map(|f| trace_tail(cluster, f.lowest_seed())).collect();
    let doc = document(run, tally, found, records, &tails);
    let json_file = json_path(page);
    let json = serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n";
    crate::safe_write::replace_or_say(&json_file, json.as_bytes())?;
    crate::safe_write::replace_or_say(page, html(&doc).as_bytes())?;
    Ok(json_file)
}

/// The last lines of seed `seed`'s trace, replayed.
fn trace_tail(cluster: &Cluster, seed: u64) -> Vec<String> {
    let mut log = Vec::new();
    let lines = match world::run(&cluster.spec(seed), Some(&mut log)) {
        Ok(_) => String::from_utf8_lossy(&log).into_owned(),
        Err(e) => format!("the replay failed: {e}"),
    };
    let all: Vec<&str> = lines.lines().collect();
    all[all.len().saturating_sub(TRACE_TAIL)..].iter().map(|l| l.to_string()).collect()
}

/// Each fault kind seen in the sweep: in how many of `finding`'s failing
/// seeds, and in how many passing seeds, it occurred.
fn fault_kinds(tally: &Tally, finding: &Finding) -> Value {
    let passing: Vec<u64> = tally.fault_kinds.keys().filter(|s| !tally.failed.contains_key(s)).copied().collect();
    let mut counts: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for seed in &finding.failing_seeds {
        for kind in tally.fault_kinds.get(seed).into_iter().flatten() {
            counts.entry(kind).or_default().0 += 1;
        }
    }
    for seed in &passing {
        for kind in tally.fault_kinds.get(seed).into_iter().flatten() {
            counts.entry(kind).or_default().1 += 1;
        }
    }
    let rows: Vec<Value> = counts
        .iter()
        .map(|(kind, (failing, passed))| {
            json!({"kind": kind, "failing_seeds": failing, "of_failing": finding.failing_seeds.len(),
                   "passing_seeds": passed, "of_passing": passing.len()})
        })
        .collect();
    Value::Array(rows)
}

/// What `seedfall cause` found for one of `finding`'s failing seeds (the
/// first it ran for that fails the same way), if it ran for any: its seed,
/// its biggest jump and its curve.
fn cause_of(config: &str, finding: &Finding) -> Value {
    let found = finding.failing_seeds.iter().find_map(|&seed| {
        crate::cause_stats::saved_result(Path::new(config), seed)
            .filter(|doc| doc["finding"].as_str() == Some(finding.id.as_str()))
    });
    match found {
        Some(doc) => json!({"seed": doc["seed"], "biggest_jump": doc["biggest_jump"], "moments": doc["moments"]}),
        None => Value::Null,
    }
}

/// `finding`'s shrunk schedule: the one `--shrink-new` saved in this run,
/// else one an earlier `shrink` saved for one of its failing seeds.
fn schedule_of(run: &ReportRun, finding: &Finding) -> Option<String> {
    let saved = || {
        let config = Path::new(run.config);
        finding.failing_seeds.iter().map(|&seed| crate::config::schedule_path(config, seed)).find(|p| p.is_file())
    };
    run.schedules.get(&finding.id).cloned().or_else(saved).map(|p| p.display().to_string())
}

/// The report's JSON document.
fn document(run: &ReportRun, tally: &Tally, found: &[Finding], records: &[Record], tails: &[Vec<String>]) -> Value {
    let findings: Vec<Value> = found
        .iter()
        .zip(tails)
        .map(|(f, tail)| {
            let record = records.iter().find(|r| r.id == f.id);
            json!({
                "id": f.id, "status": record.map(|r| r.status.name()), "class": f.class, "node": f.node,
                "message": f.message, "signature": f.signature, "count": f.failing_seeds.len(),
                "failing_seeds": f.failing_seeds, "lowest_seed": f.lowest_seed(), "fastest_seed": f.fastest_seed,
                "replay": replay_command(run.config, f.lowest_seed()),
                "fastest_replay": replay_command(run.config, f.fastest_seed),
                "fault_kinds": fault_kinds(tally, f), "schedule": schedule_of(run, f), "trace_tail": tail,
                "history": record.map_or(Value::Array(Vec::new()), Record::json),
                "cause": cause_of(run.config, f),
            })
        })
        .collect();
    let gone: Vec<Value> = records
        .iter()
        .filter(|r| !found.iter().any(|f| f.id == r.id))
        .map(|r| {
            json!({"id": r.id, "status": r.status.name(), "class": r.class, "node": r.node, "message": r.message,
                   "signature": r.signature, "count": 0, "seeds_to_resolve": r.seeds_to_resolve(),
                   "history": r.json()})
        })
        .collect();
    json!({
        "seedfall_version": env!("CARGO_PKG_VERSION"),
        "config": run.config,
        "seeds": run.seed_list,
        "run_at": run.run_at,
        "commit": run.commit,
        "summary": {"seeds": tally.seeds, "passed": tally.passed, "failed": tally.failed.len(),
                    "horizon": tally.horizon, "crash_loops": tally.seeds_failing_as(Class::CrashLoop),
                    "no_progress": tally.seeds_failing_as(Class::NoProgress), "fault_seeds": tally.fault_seeds,
                    "linearizability_unknown": tally.lin_unknown, "linearizable": run.linearizable},
        "findings": findings.into_iter().chain(gone).collect::<Vec<_>>(),
        "properties": tally.properties.json(),
    })
}

/// The page: everything of `doc`, readable, with no outside resource.
fn html(doc: &Value) -> String {
    let text = |v: &Value| escape(&v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let mut out = String::from(concat!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>seedfall sweep</title><style>\n",
        "body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}\n",
        "section.finding{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0}\n",
        ".status{font-weight:bold;padding:0 .4em;border-radius:4px}\n",
        ".new,.regressed{background:#fdd}.ongoing,.unseen{background:#ffd}.resolved{background:#dfd}\n",
        ".history span{display:inline-block;width:1.2em;height:1.2em;margin-right:2px;border-radius:2px}\n",
        ".history .failing{background:#d33}.history .clean{background:#3a3}\n",
        "pre{background:#f6f6f6;padding:.5em;overflow-x:auto}table{border-collapse:collapse}\n",
        "td,th{padding:.1em .6em;text-align:left}\n</style></head><body>\n"
    ));
    let summary = &doc["summary"];
    let commit = match doc["commit"].as_str() {
        Some(hash) => format!("commit {}", escape(hash)),
        None => "not a git checkout".into(),
    };
    out.push_str(&format!(
        "<h1>seedfall sweep of {}</h1>\n<p>seeds {} at {} ({commit}, seedfall {}): {} seeds, {} passed, {} failed</p>\n",
        text(&doc["config"]),
        text(&doc["seeds"]),
        text(&doc["run_at"]),
        text(&doc["seedfall_version"]),
        text(&summary["seeds"]),
        text(&summary["passed"]),
        text(&summary["failed"])
    ));
    if !summary["linearizable"].is_null() {
        let unknown = summary["linearizability_unknown"].as_u64().unwrap_or(0);
        out.push_str(&format!(
            "<p class=\"lin-unknown\">{} (model {})</p>\n",
            escape(&crate::summary::lin_unknown_line(unknown)),
            text(&summary["linearizable"])
        ));
    }
    let fault_seeds: BTreeMap<String, u64> = serde_json::from_value(summary["fault_seeds"].clone()).unwrap_or_default();
    if let Some(line) = crate::reach::fault_line(&fault_seeds, summary["seeds"].as_u64().unwrap_or(0)) {
        out.push_str(&format!("<p class=\"faults\">{}</p>\n", escape(&line)));
    }
    for f in doc["findings"].as_array().into_iter().flatten() {
        let status = escape(f["status"].as_str().unwrap_or(""));
        out.push_str(&format!(
            "<section class=\"finding\" id=\"{}\" data-status=\"{status}\">\n<h2>{} <span class=\"status {status}\">{status}</span></h2>\n<p>{}</p>\n",
            text(&f["id"]),
            text(&f["id"]),
            text(&f["message"])
        ));
        out.push_str("<div class=\"history\">");
        for row in f["history"].as_array().into_iter().flatten() {
            let failing = row["failing"].as_u64().unwrap_or(0);
            let class = if failing > 0 { "failing" } else { "clean" };
            out.push_str(&format!(
                "<span class=\"{class}\" title=\"{}: {failing} of {} seeds failed\"></span>",
                text(&row["run_at"]),
                text(&row["seeds"])
            ));
        }
        out.push_str("</div>\n");
        if f["count"].as_u64().unwrap_or(0) == 0 {
            out.push_str("<p>not seen in this sweep</p>\n</section>\n");
            continue;
        }
        out.push_str(&format!(
            "<p>{} failing seeds, lowest {} (<code>{}</code>), fastest {} (<code>{}</code>)</p>\n",
            text(&f["count"]),
            text(&f["lowest_seed"]),
            text(&f["replay"]),
            text(&f["fastest_seed"]),
            text(&f["fastest_replay"])
        ));
        out.push_str(
            "<table class=\"kinds\"><tr><th>fault kind</th><th>in its failing seeds</th><th>in passing seeds</th></tr>",
        );
        for k in f["fault_kinds"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{} of {}</td><td>{} of {}</td></tr>",
                text(&k["kind"]),
                text(&k["failing_seeds"]),
                text(&k["of_failing"]),
                text(&k["passing_seeds"]),
                text(&k["of_passing"])
            ));
        }
        out.push_str("</table>\n");
        if let Some(schedule) = f["schedule"].as_str() {
            let replay = format!("seedfall replay -c {} -faults {schedule}", doc["config"].as_str().unwrap_or(""));
            out.push_str(&format!(
                "<p>shrunk schedule: <a class=\"schedule\" href=\"{}\"><code>{}</code></a> (<code>{}</code>)</p>\n",
                escape(&file_href(schedule)),
                escape(schedule),
                escape(&replay)
            ));
        }
        if !f["cause"].is_null() {
            let jump = &f["cause"]["biggest_jump"];
            let after = jump["after"]["text"].as_str().map_or("the start".to_string(), str::to_string);
            out.push_str(&format!(
                "<p>cause (seed {}): P(fail) over the run; biggest jump {:.0}% &rarr; {:.0}% after {}</p>\n{}\n",
                text(&f["cause"]["seed"]),
                jump["from"].as_f64().unwrap_or(0.0) * 100.0,
                jump["to"].as_f64().unwrap_or(0.0) * 100.0,
                escape(&after),
                crate::cause_stats::svg(&f["cause"])
            ));
        }
        out.push_str("<pre>");
        for line in f["trace_tail"].as_array().into_iter().flatten() {
            out.push_str(&text(line));
            out.push('\n');
        }
        out.push_str("</pre>\n</section>\n");
    }
    out.push_str("<h2>Properties</h2>\n");
    let properties = doc["properties"].as_array().map_or(&[][..], Vec::as_slice);
    if properties.is_empty() {
        out.push_str("<p>No property: the programs assert none (docs/sdk.md).</p>\n</body></html>\n");
        return out;
    }
    out.push_str("<table><tr><th>kind</th><th>seeds reached</th><th>seeds true</th><th>message</th></tr>");
    for p in properties {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            text(&p["kind"]),
            text(&p["seeds_reached"]),
            text(&p["seeds_true"]),
            text(&p["message"])
        ));
    }
    out.push_str("</table>\n</body></html>\n");
    out
}

/// A link to the local file `path`: a `file://` URL of its absolute path,
/// so it opens from the page wherever the page is moved on this machine.
fn file_href(path: &str) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| PathBuf::from(path));
    let mut href = String::from("file://");
    for byte in absolute.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => href.push(byte as char),
            _ => href.push_str(&format!("%{byte:02X}")),
        }
    }
    href
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(linearizable: Option<&str>, unknown: u64) -> (Value, String) {
        let schedules = BTreeMap::new();
        let run = ReportRun {
            config: "c.json",
            seed_list: "1-4",
            run_at: "2026-01-01T00:00:00Z",
            commit: None,
            linearizable,
            schedules: &schedules,
        };
        let tally = Tally { seeds: 4, passed: 4, lin_unknown: unknown, ..Tally::default() };
        let doc = document(&run, &tally, &[], &[], &[]);
        let page = html(&doc);
        (doc, page)
    }

    #[test]
    fn the_report_says_how_many_seeds_linearizability_is_unknown_even_at_zero() {
        for unknown in [0, 3] {
            let (doc, page) = page(Some("kv"), unknown);
            assert_eq!(doc["summary"]["linearizability_unknown"], unknown);
            assert_eq!(doc["summary"]["linearizable"], "kv");
            assert!(page.contains(&format!("linearizability unknown: {unknown} seeds")), "{page}");
        }
        let (doc, page) = page(None, 0);
        assert!(doc["summary"]["linearizable"].is_null());
        assert_eq!(doc["summary"]["linearizability_unknown"], 0);
        assert!(!page.contains("linearizability unknown"), "no history is checked: {page}");
    }
    #[test]
    fn outside_git_the_page_says_so_and_no_property_means_no_table() {
        let (doc, page) = page(None, 0);
        assert!(doc["commit"].is_null(), "the JSON keeps DESIGN's null");
        assert!(page.contains("(not a git checkout, seedfall "), "{page}");
        assert!(!page.contains("commit null"), "{page}");
        assert!(page.contains("<h2>Properties</h2>\n<p>No property:"), "{page}");
        assert!(!page.contains("<th>seeds reached</th>"), "no empty table: {page}");
    }

    #[test]
    fn a_finding_links_the_schedule_an_earlier_shrink_saved_for_one_of_its_seeds() {
        let dir = std::env::temp_dir().join(format!("seedfall-report-schedule-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".seedfall")).unwrap();
        let config = dir.join("kv.json").display().to_string();
        let saved = crate::config::schedule_path(Path::new(&config), 7);
        std::fs::write(&saved, "{}").unwrap();
        let finding = |seeds: Vec<u64>| Finding {
            id: "f1".into(),
            signature: "s".into(),
            class: "exit".into(),
            node: "server".into(),
            message: "m".into(),
            fastest_seed: seeds[0],
            failing_seeds: seeds,
        };
        let schedules = BTreeMap::new();
        let run = ReportRun {
            config: &config,
            seed_list: "1-9",
            run_at: "2026-01-01T00:00:00Z",
            commit: Some("abc123"),
            linearizable: None,
            schedules: &schedules,
        };
        let tally = Tally { seeds: 9, ..Tally::default() };
        let tails = [Vec::new()];
        let doc = document(&run, &tally, &[finding(vec![3, 7])], &[], &tails);
        assert_eq!(doc["findings"][0]["schedule"], saved.display().to_string());
        let page = html(&doc);
        assert!(page.contains("(commit abc123, seedfall "), "{page}");
        assert!(page.contains(&format!("<a class=\"schedule\" href=\"file://{}\">", saved.display())), "{page}");
        assert!(page.contains(&format!("seedfall replay -c {config} -faults {}", saved.display())), "{page}");
        let doc = document(&run, &tally, &[finding(vec![3, 8])], &[], &tails);
        assert!(doc["findings"][0]["schedule"].is_null(), "no schedule of its seeds: {doc}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
