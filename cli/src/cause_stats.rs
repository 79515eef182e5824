//! What `cause`'s futures say: the probability of failing per moment, the
//! biggest jump between two moments and the fault just before it, the Go
//! functions that most separate failing from passing futures, the failing
//! futures' schedules saved where `replay -faults` takes them, and all of
//! it as text, as JSON (DESIGN.md §1 `cause`) and as an SVG curve for the
//! report. It runs nothing (`cause.rs` does).

use crate::cause::{Cause, Moment};
use crate::config::state_file;
use crate::schedule_error::ScheduleError;
use crate::write_error::WriteError;
use seedfall_host::world::Fault;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One moment's tally.
#[derive(Clone, Debug)]
pub struct Point {
    pub moment: Moment,
    pub futures: u32,
    pub failing: u32,
}

impl Point {
    pub fn p_fail(&self) -> f64 {
        f64::from(self.failing) / f64::from(self.futures.max(1))
    }
}

/// The largest rise of P(fail) from one moment to the next.
#[derive(Clone, Debug)]
pub struct Jump {
    pub from: f64,
    pub to: f64,
    /// The moment it rose at.
    pub moment: Moment,
    /// The last fault of the failing run at or before that moment.
    pub after: Option<Fault>,
}

/// How a Go function's running relates to failing, across the futures.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionScore {
    pub name: String,
    pub p_fail_given_ran: f64,
    pub p_ran_given_fail: f64,
    /// P(fail | ran) - P(fail | did not run): the ranking.
    pub separation: f64,
}

/// How many functions the table shows.
pub const FUNCTIONS_SHOWN: usize = 10;

pub fn curve(cause: &Cause) -> Vec<Point> {
    cause
        .moments
        .iter()
        .zip(&cause.outcomes)
        .map(|(moment, outcomes)| Point {
            moment: moment.clone(),
            futures: outcomes.len() as u32,
            failing: outcomes.iter().filter(|o| o.fails).count() as u32,
        })
        .collect()
}

/// The biggest rise between consecutive moments (the first on a tie);
/// None if P(fail) never rises.
pub fn biggest_jump(cause: &Cause, points: &[Point]) -> Option<Jump> {
    let mut best: Option<(f64, usize)> = None;
    for i in 1..points.len() {
        let rise = points[i].p_fail() - points[i - 1].p_fail();
        if rise > 0.0 && best.is_none_or(|(b, _)| rise > b) {
            best = Some((rise, i));
        }
    }
    let (_, i) = best?;
    let moment = points[i].moment.clone();
    let after = last_fault_by(cause, moment.step);
    Some(Jump { from: points[i - 1].p_fail(), to: points[i].p_fail(), moment, after })
}

/// The failing run's last fault taken at or before `step`.
fn last_fault_by(cause: &Cause, step: u64) -> Option<Fault> {
    cause.moments.iter().rev().filter(|m| m.step <= step).find_map(|m| m.after.clone())
}

/// The functions that most separate failing from passing futures, best
/// first (at most `FUNCTIONS_SHOWN`): the service's own packages (and
/// other modules') before Go's standard library and runtime, whose
/// functions are mostly where a failure shows rather than where it starts;
/// `names(node, index)` names a node's function. A function is counted
/// once per future whichever node ran it; one that ran in every future or
/// in none separates nothing.
pub fn functions(cause: &Cause, names: &dyn Fn(&str, usize) -> Option<String>) -> Vec<FunctionScore> {
    let all: Vec<&crate::cause::Outcome> = cause.outcomes.iter().flatten().collect();
    let total_fail = all.iter().filter(|o| o.fails).count();
    // Every name once, numbered; each node's function index to its name's number, made once per node.
    let mut numbers: BTreeMap<String, usize> = BTreeMap::new();
    let mut tables: BTreeMap<&str, Vec<Option<usize>>> = BTreeMap::new();
    // Per name number: (futures it ran in, failing futures it ran in).
    let mut tally: Vec<(usize, usize)> = Vec::new();
    for outcome in &all {
        let mut ran: Vec<usize> = Vec::new();
        for (node, bits) in &outcome.ran {
            let table = tables.entry(node).or_insert_with(|| {
                (0..bits.len() * 8)
                    .map(|i| {
                        let name = names(node, i)?;
                        let next = numbers.len();
                        Some(*numbers.entry(name).or_insert(next))
                    })
                    .collect()
            });
            let set = (0..bits.len() * 8).filter(|i| bits[i / 8] & (1 << (i % 8)) != 0);
            ran.extend(set.filter_map(|i| table.get(i).copied().flatten()));
        }
        ran.sort_unstable();
        ran.dedup();
        tally.resize(numbers.len(), (0, 0));
        for number in ran {
            tally[number].0 += 1;
            tally[number].1 += usize::from(outcome.fails);
        }
    }
    let mut scores: Vec<FunctionScore> = numbers
        .into_iter()
        .map(|(name, number)| (name, tally.get(number).copied().unwrap_or_default()))
        .filter(|(_, (ran, ran_fail))| *ran < all.len() && *ran_fail > 0)
        .map(|(name, (ran, ran_fail))| {
            let p_fail_given_ran = ran_fail as f64 / ran as f64;
            let p_fail_given_not = (total_fail - ran_fail) as f64 / (all.len() - ran) as f64;
            FunctionScore {
                name,
                p_fail_given_ran,
                p_ran_given_fail: ran_fail as f64 / total_fail.max(1) as f64,
                separation: p_fail_given_ran - p_fail_given_not,
            }
        })
        .filter(|s| s.separation > 0.0)
        .collect();
    scores.sort_by(|a, b| {
        standard_library(&a.name)
            .cmp(&standard_library(&b.name))
            .then(b.separation.total_cmp(&a.separation))
            .then(b.p_ran_given_fail.total_cmp(&a.p_ran_given_fail))
            .then(a.name.cmp(&b.name))
    });
    scores.truncate(FUNCTIONS_SHOWN);
    scores
}

/// Whether Go function `name` (`net/http.(*conn).serve`) is the standard
/// library's or the toolchain's: its package path's first element has no
/// dot (`example.com/kv.Put` and `main.run` are not), or it is generated
/// code (`type:.eq.main.T`, `go:buildid`).
pub fn standard_library(name: &str) -> bool {
    if name.starts_with("type:") || name.starts_with("go:") {
        return true;
    }
    let first = match name.split_once('/') {
        Some((first, _)) => first,
        None => name.split('.').next().unwrap_or(name),
    };
    first != "main" && !first.contains('.')
}

/// A failing future saved for `replay -faults`.
#[derive(Clone, Debug)]
pub struct SavedFuture {
    pub moment: usize,
    pub future: usize,
    pub path: PathBuf,
}

/// Where `cause` keeps its futures and its result for `seed`:
/// `.seedfall/[X.]cause/seed-N/`, or for the run of a schedule file `F.json`
/// (`-faults`) `.seedfall/[X.]cause/seed-N-F/` (`seed-N-F-next/` if the file
/// is in that very folder), so explaining a future never replaces the
/// schedule it explains or the futures it came from.
pub fn folder(config_path: &Path, seed: u64, schedule: Option<&Path>) -> PathBuf {
    let Some(file) = schedule.and_then(Path::file_name) else {
        return state_file(config_path, "cause").join(format!("seed-{seed}"));
    };
    let name = format!("seed-{seed}-{}", file.to_string_lossy().trim_end_matches(".json"));
    let dir = state_file(config_path, "cause").join(&name);
    let inside =
        |d: &Path| schedule.and_then(Path::parent).and_then(|p| p.canonicalize().ok()) == d.canonicalize().ok();
    if dir.exists() && inside(&dir) { dir.with_file_name(format!("{name}-next")) } else { dir }
}

/// The result `cause` saved for `seed`'s drawn run (its `--json`
/// document), if any: the sweep report embeds its curve.
pub fn saved_result(config_path: &Path, seed: u64) -> Option<Value> {
    let file = folder(config_path, seed, None).join("cause.json");
    let text = crate::input::read_text(&file, crate::input::TEXT_MAX_BYTES).ok()?;
    serde_json::from_str(&text).ok()
}

/// Saves `doc` (the `--json` document) in `dir`, beside the futures.
pub fn save_result(dir: &Path, doc: &Value) -> Result<(), WriteError> {
    let text = serde_json::to_string_pretty(doc).expect("JSON values serialize") + "\n";
    crate::safe_write::replace_or_say(&dir.join("cause.json"), text.as_bytes())
}

/// Saves every failing future's schedule in `dir` (`folder`) as
/// `m<moment>-f<future>.faults.json`. The schedules an earlier `cause` left
/// there are removed first, so the folder holds this run's futures only.
pub fn save_failing(cause: &Cause, dir: &Path) -> Result<Vec<SavedFuture>, ScheduleError> {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".faults.json")) {
            std::fs::remove_file(&path).map_err(|error| ScheduleError::Remove { file: path.clone(), error })?;
        }
    }
    let mut saved = Vec::new();
    for (m, outcomes) in cause.outcomes.iter().enumerate() {
        for (f, outcome) in outcomes.iter().enumerate() {
            let Some(schedule) = &outcome.schedule else { continue };
            let path = dir.join(format!("m{m}-f{f}.faults.json"));
            crate::safe_write::replace_or_say(&path, schedule.as_bytes())?;
            saved.push(SavedFuture { moment: m, future: f, path });
        }
    }
    Ok(saved)
}

fn fault_json(fault: &Fault) -> Value {
    json!({
        "at": fault.at.to_string(),
        "kind": fault.kind.name(),
        "node": fault.target.to_string(),
        "op": fault.op,
        "text": fault.describe().trim(),
    })
}

/// The `--json` document (DESIGN.md §1).
pub fn to_json(
    cause: &Cause,
    points: &[Point],
    jump: Option<&Jump>,
    functions: &[FunctionScore],
    saved: &[SavedFuture],
) -> Value {
    json!({
        "seed": cause.seed,
        "failure": cause.failure,
        "finding": cause.finding,
        "shared_prefix": cause.shared_prefix,
        "interrupted": cause.interrupted,
        "moments": points.iter().map(|p| json!({
            "at": p.moment.at.to_string(),
            "step": p.moment.step,
            "event": p.moment.after.as_ref().map(fault_json),
            "futures": p.futures,
            "failing": p.failing,
            "p_fail": p.p_fail(),
        })).collect::<Vec<_>>(),
        "biggest_jump": jump.map(|j| json!({
            "from": j.from,
            "to": j.to,
            "at": j.moment.at.to_string(),
            "after": j.after.as_ref().map(fault_json),
        })),
        "functions": functions.iter().map(|f| json!({
            "name": f.name,
            "p_fail_given_ran": f.p_fail_given_ran,
            "p_ran_given_fail": f.p_ran_given_fail,
        })).collect::<Vec<_>>(),
        "failing_futures": saved.iter().map(|s| json!({
            "moment": s.moment,
            "future": s.future,
            "schedule": s.path.display().to_string(),
        })).collect::<Vec<_>>(),
    })
}

fn percent(p: f64) -> String {
    format!("{:.0}%", p * 100.0)
}

/// The curve as text: one line per moment, a bar of P(fail), and the fault
/// the moment follows.
pub fn chart(points: &[Point]) -> String {
    const WIDTH: f64 = 30.0;
    let mut out = String::new();
    for p in points {
        let bar = "█".repeat((p.p_fail() * WIDTH).round() as usize);
        let event = p.moment.after.as_ref().map_or(String::new(), |f| format!("  <- {}", short(f)));
        out.push_str(&format!("{:>14} {:>4} {bar:<30}{event}\n", p.moment.at.to_string(), percent(p.p_fail())));
    }
    out
}

/// A fault in a few words: "crash_io server at disk op 56".
pub fn short(fault: &Fault) -> String {
    let mut text = format!("{} {}", fault.kind.name(), fault.target);
    if let Some(op) = fault.op {
        text.push_str(&format!(" at {} {op}", fault.kind.trigger().op_unit()));
    }
    text
}

pub fn jump_line(jump: Option<&Jump>) -> String {
    match jump {
        None => "biggest jump: none (P(fail) never rises from one moment to the next)".into(),
        Some(j) => {
            let after = j.after.as_ref().map_or("the start".to_string(), |f| format!("{} ({})", short(f), f.at));
            format!("biggest jump: {} -> {} after {after}", percent(j.from), percent(j.to))
        }
    }
}

/// The curve of a `--json` document as a small self-contained SVG (the
/// report embeds it): a dot per moment, red where a fault came just before.
pub fn svg(doc: &Value) -> String {
    let (w, h, pad) = (600.0, 160.0, 24.0);
    let moments: Vec<&Value> = doc["moments"].as_array().into_iter().flatten().collect();
    let n = moments.len().max(2) as f64 - 1.0;
    let xy = |i: usize, m: &Value| {
        let p = m["p_fail"].as_f64().unwrap_or(0.0);
        (pad + (w - 2.0 * pad) * i as f64 / n, h - pad - (h - 2.0 * pad) * p)
    };
    let mut path = String::new();
    let mut dots = String::new();
    for (i, m) in moments.iter().enumerate() {
        let (x, y) = xy(i, m);
        path.push_str(&format!("{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" }));
        let event = m["event"]["text"].as_str().map_or(String::new(), |t| format!(" after {t}"));
        let title =
            format!("{} {}{event}", m["at"].as_str().unwrap_or(""), percent(m["p_fail"].as_f64().unwrap_or(0.0)));
        let fill = if m["event"].is_null() { "#2c3e50" } else { "#c0392b" };
        dots.push_str(&format!(
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{fill}\"><title>{}</title></circle>",
            crate::timeline::escape(&title)
        ));
    }
    format!(
        "<svg class=\"cause-curve\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\">\
<text x=\"2\" y=\"{top}\" font-size=\"10\">100%</text><text x=\"2\" y=\"{bottom}\" font-size=\"10\">0%</text>\
<path d=\"{}\" fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.5\"/>{dots}</svg>",
        path.trim_end(),
        top = pad + 3.0,
        bottom = h - pad + 3.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_library_is_told_from_the_services_packages() {
        for std in ["fmt.(*fmt).fmtQ", "runtime.gopark", "net/http.(*conn).serve", "type:.eq.example.com/kv.T"] {
            assert!(standard_library(std), "{std}");
        }
        for own in ["main.(*Bank).Transfer", "example.com/kv.(*Store).Put", "gopkg.in/yaml.v3.Unmarshal"] {
            assert!(!standard_library(own), "{own}");
        }
    }

    #[test]
    fn explaining_a_saved_future_never_writes_over_it() {
        let root = std::env::temp_dir().join(format!("seedfall-cause-folder-{}", std::process::id()));
        let config = root.join("kv.json");
        let seed_run = folder(&config, 7, None);
        assert_eq!(seed_run, root.join(".seedfall/kv.cause/seed-7"));
        let future = seed_run.join("m3-f1.faults.json");
        let of_future = folder(&config, 7, Some(&future));
        assert_eq!(of_future, root.join(".seedfall/kv.cause/seed-7-m3-f1.faults"));
        // A future of that future, saved in the folder its own futures would go to.
        std::fs::create_dir_all(&of_future).unwrap();
        let inner = of_future.join("m3-f1.faults.json");
        std::fs::write(&inner, "{}").unwrap();
        assert_eq!(folder(&config, 7, Some(&inner)), root.join(".seedfall/kv.cause/seed-7-m3-f1.faults-next"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
