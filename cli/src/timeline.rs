//! The history timeline `seedfall replay` writes for a config with `linearizable`
//! (`.seedfall/[X.]seed-N.history.html`): one self-contained static page, no script and nothing fetched,
//! with a section per key, a lane per client, and a bar per operation (`<div class="op" data-op="I">`,
//! I its index in the run's history) from its invocation to its completion, like Porcupine's visualizer.
//! On the failing key the longest linearizable prefix the search reached is marked in its order, the
//! operations it could not place are highlighted, those of the minimal sub-history are outlined, and a
//! line marks when the history was already failing.
//!
//! The horizontal axis is event order, not time to scale: each distinct invocation or completion instant
//! of a section is one step, so operations microseconds apart stay readable in a run of minutes (the
//! virtual times are in each bar's tooltip). It renders what the host recorded and checked; it decides
//! nothing.

use seedfall_host::history::{Completion, History};
use seedfall_host::vtime::go_duration;
use seedfall_host::world::history_check::LinOutcome;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Pixels per event step, per client lane, and left of the first step (the lane labels).
const STEP_PX: u64 = 44;
const LANE_PX: u64 = 30;
const LABEL_PX: u64 = 60;

const STYLE: &str = "body{font:13px sans-serif;margin:16px;color:#222}\
h1{font-size:18px}h2{font-size:15px;margin:18px 0 4px}\
.lanes{position:relative;border-top:1px solid #ccc;overflow-x:auto}\
.lane{position:absolute;left:0;font:12px monospace;color:#555}\
.op{position:absolute;height:20px;box-sizing:border-box;border-radius:3px;font:11px monospace;\
padding:2px 3px;white-space:nowrap;overflow:hidden;background:#cfe3ff;border:1px solid #6a9be0}\
.op.lin{background:#c8efc8;border-color:#4a9a4a}.op.unplaced{background:#ffc9c9;border-color:#d03030}\
.op.minimal{outline:2px solid #111}.op.open{border-style:dashed;background:#eee}\
.op.failed{opacity:.4;border-style:dotted}.order{font-weight:bold;margin-right:3px}\
.failing{position:absolute;top:0;width:0;border-left:2px dashed #d03030}\
.legend span{display:inline-block;margin-right:14px}.legend .op{position:static;display:inline-block}";

/// The page for one run's history and its linearizability outcome.
pub fn render(seed: u64, model: &str, history: &History, outcome: Option<&LinOutcome>) -> String {
    let violation = match outcome {
        Some(LinOutcome::NotLinearizable(v)) => Some(v),
        _ => None,
    };
    let verdict = match outcome {
        Some(LinOutcome::Linearizable { steps }) => format!("linearizable ({steps} search steps)"),
        Some(LinOutcome::NotLinearizable(v)) => {
            format!("{} is not linearizable; failing by t={}", key_name(v.key.as_deref()), go_duration(v.fails_by_ns))
        }
        Some(LinOutcome::Unknown { keys }) => format!("unknown: the search budget ran out on {keys:?}"),
        Some(LinOutcome::Invalid(e)) => format!("cannot be checked: {e}"),
        None => "not checked".to_string(),
    };
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>seed {seed} history</title>\
         <style>{STYLE}</style></head><body>\n<h1>seed {seed}: {} operations, model {}: {}</h1>\n",
        history.ops.len(),
        escape(model),
        escape(&verdict)
    );
    page.push_str(
        "<p class=\"legend\"><span><span class=\"op\">op</span> linearizable key</span>\
         <span><span class=\"op lin\"><span class=\"order\">1</span>op</span> longest linearizable prefix, in order</span>\
         <span><span class=\"op unplaced\">op</span> cannot be placed</span>\
         <span><span class=\"op minimal\">op</span> in the minimal failing sub-history</span>\
         <span><span class=\"op open\">op</span> never completed</span>\
         <span><span class=\"op failed\">op</span> failed (not checked)</span></p>\n",
    );
    let mut by_key: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.ops.iter().enumerate() {
        by_key.entry(op.key.as_deref()).or_default().push(i);
    }
    // The failing key first: it is what the page is for.
    let failing = violation.map(|v| v.key.as_deref());
    let mut keys: Vec<Option<&str>> = by_key.keys().copied().collect();
    keys.sort_by_key(|k| Some(*k) != failing);
    for key in keys {
        let marks = violation.filter(|v| v.key.as_deref() == key).map(Marks::new);
        section(&mut page, history, key, &by_key[&key], marks.as_ref());
    }
    page.push_str("</body></html>\n");
    page
}

/// How the failing key's operations are marked.
struct Marks {
    /// Position (from 1) in the longest linearizable prefix.
    order: BTreeMap<usize, usize>,
    searched: BTreeSet<usize>,
    minimal: BTreeSet<usize>,
    fails_by_ns: u64,
}

impl Marks {
    fn new(v: &seedfall_check::Violation) -> Marks {
        Marks {
            order: v.longest.iter().enumerate().map(|(n, &i)| (i, n + 1)).collect(),
            searched: v.ops.iter().copied().collect(),
            minimal: v.minimal.iter().copied().collect(),
            fails_by_ns: v.fails_by_ns,
        }
    }
}

fn section(page: &mut String, history: &History, key: Option<&str>, ops: &[usize], marks: Option<&Marks>) {
    let end = |i: usize| history.ops[i].completed.as_ref().map(|(at, _)| *at);
    let mut instants: BTreeSet<u64> = BTreeSet::new();
    for &i in ops {
        instants.insert(history.ops[i].invoke_ns);
        instants.extend(end(i));
    }
    instants.extend(marks.map(|m| m.fails_by_ns));
    let step: BTreeMap<u64, u64> = instants.iter().enumerate().map(|(n, &t)| (t, n as u64)).collect();
    let last = instants.len() as u64;
    let x = |t: u64| LABEL_PX + step[&t] * STEP_PX;
    let clients: BTreeSet<u32> = ops.iter().map(|&i| history.ops[i].client).collect();
    let lane: BTreeMap<u32, u64> = clients.iter().enumerate().map(|(n, &c)| (c, n as u64)).collect();
    let height = clients.len() as u64 * LANE_PX;
    let width = LABEL_PX + (last + 1) * STEP_PX;
    let _ = writeln!(page, "<h2>{}</h2>", escape(&key_name(key)));
    let _ = write!(page, "<div class=\"lanes\" style=\"height:{height}px;width:{width}px\">");
    for (&client, &n) in &lane {
        let _ = write!(page, "<div class=\"lane\" style=\"top:{}px\">c{client}</div>", n * LANE_PX + 4);
    }
    for &i in ops {
        let op = &history.ops[i];
        let left = x(op.invoke_ns);
        let right = end(i).map_or(LABEL_PX + last * STEP_PX, x);
        let mut class = String::from("op");
        let mut order = String::new();
        match &op.completed {
            None => class.push_str(" open"),
            Some((_, Completion::Failed)) => class.push_str(" failed"),
            Some(_) => {}
        }
        if let Some(m) = marks {
            if let Some(n) = m.order.get(&i) {
                class.push_str(" lin");
                order = format!("<span class=\"order\">{n}</span>");
            } else if m.searched.contains(&i) {
                class.push_str(" unplaced");
            }
            if m.minimal.contains(&i) {
                class.push_str(" minimal");
            }
        }
        let _ = write!(
            page,
            "<div class=\"{class}\" data-op=\"{i}\" style=\"left:{left}px;width:{}px;top:{}px\" title=\"{}\">{order}{}</div>",
            (right - left).max(STEP_PX / 2),
            lane[&op.client] * LANE_PX + 4,
            escape(&history.describe_op(i)),
            escape(&label(history, i)),
        );
    }
    if let Some(m) = marks {
        let _ = write!(
            page,
            "<div class=\"failing\" style=\"left:{}px;height:{height}px\" title=\"failing by {}\"></div>",
            x(m.fails_by_ns),
            go_duration(m.fails_by_ns)
        );
    }
    page.push_str("</div>\n");
}

/// What a bar says: the call and its result, without the client and times (the lane and tooltip say them).
fn label(history: &History, i: usize) -> String {
    let op = &history.ops[i];
    let call = match &op.call {
        seedfall_host::history::Call::Put(v) => format!("put {v}"),
        seedfall_host::history::Call::Get => "get".to_string(),
        seedfall_host::history::Call::Invoke(input) => input.clone(),
    };
    match &op.completed {
        Some((_, Completion::Returned(v))) => format!("{call} → {v}"),
        Some((_, Completion::Missing)) => format!("{call} → missing"),
        _ => call,
    }
}

fn key_name(key: Option<&str>) -> String {
    key.map_or("the object".to_string(), |k| format!("key {k:?}"))
}

/// `text` safe inside HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::history::Call;
    use seedfall_host::world::history_check;

    #[test]
    fn a_stale_read_marks_the_prefix_the_unplaced_read_and_the_failure_point() {
        let mut h = History::default();
        let put = h.invoke(1, Some("x".into()), Call::Put("1".into()), 10);
        h.complete(put, Completion::Ok, 20).unwrap();
        let get = h.invoke(2, Some("x".into()), Call::Get, 30);
        h.complete(get, Completion::Missing, 31).unwrap();
        let open = h.invoke(3, Some("<y>".into()), Call::Put("2".into()), 40);
        let (lin, _) = history_check::check(&h, Some(seedfall_check::Model::Kv), None);
        let page = render(7, "kv", &h, lin.as_ref());
        assert_eq!(page.matches("class=\"op").count() - 6, 3, "one element per op besides the legend's six");
        assert!(page.contains(&format!("class=\"op lin minimal\" data-op=\"{put}\"")), "{page}");
        assert!(page.contains(&format!("class=\"op unplaced minimal\" data-op=\"{get}\"")), "{page}");
        assert!(page.contains(&format!("class=\"op open\" data-op=\"{open}\"")), "{page}");
        assert!(page.contains("key &quot;&lt;y&gt;&quot;") && page.contains("class=\"failing\""), "{page}");
        assert!(page.find("key &quot;x&quot;") < page.find("key &quot;&lt;y&gt;&quot;"), "the failing key comes first");
        assert!(!page.contains("<script") && !page.contains("http"), "self-contained");
    }
}
