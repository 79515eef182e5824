//! A finished sweep as `seedfall_status` and `seedfall_run` answer it: the
//! `run --json` document (docs/json.md) with its per-seed arrays
//! (`failures`, `errors`, `trace_hashes`, `diverged`) cut to one page of
//! seeds (`offset`, `limit`; none by default), each finding's
//! `failing_seeds` cut to its lowest `SHOWN`, and the lowest failing seeds
//! beside the counts; `page` says how many of each there are and where the
//! next page starts. So an answer stays small however many seeds ran.

use serde_json::{Value, json};

/// The per-seed arrays of a `run` document, paged together.
const PER_SEED: &[&str] = &["failures", "errors", "trace_hashes", "diverged"];

/// Failing seeds listed in the summary (lowest first) and per finding.
pub const SHOWN: usize = 10;

/// Which seeds' detail to return.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

/// `doc` (a `run` document) with its per-seed detail cut to `page`.
pub fn paged(doc: &Value, page: Page) -> Value {
    let mut out = doc.clone();
    let mut totals = serde_json::Map::new();
    let mut more = false;
    for key in PER_SEED {
        let Some(all) = doc.get(*key).and_then(Value::as_array) else { continue };
        totals.insert(key.to_string(), json!(all.len()));
        more |= all.len() > page.offset + page.limit;
        out[*key] = json!(all.iter().skip(page.offset).take(page.limit).collect::<Vec<_>>());
    }
    let failing = doc["failures"].as_array().map_or(&[][..], Vec::as_slice);
    out["lowest_failing_seeds"] = json!(failing.iter().take(SHOWN).map(|f| &f["seed"]).collect::<Vec<_>>());
    for finding in out["findings"].as_array_mut().into_iter().flatten() {
        if let Some(seeds) = finding["failing_seeds"].as_array_mut() {
            seeds.truncate(SHOWN);
        }
    }
    let next = more.then_some(page.offset + page.limit);
    out["page"] = json!({"offset": page.offset, "limit": page.limit, "totals": totals, "next_offset": next});
    out
}

/// Text lines for the failing seeds of `page` (nothing for an empty page).
pub fn failure_lines(doc: &Value, page: Page) -> String {
    let mut text = String::new();
    for seed in doc["failures"].as_array().into_iter().flatten().skip(page.offset).take(page.limit) {
        for failure in seed["failures"].as_array().into_iter().flatten() {
            text += &format!(
                "\nseed {}: {}#{}: {}",
                seed["seed"],
                failure["node"].as_str().unwrap_or("?"),
                failure["incarnation"],
                failure["message"].as_str().unwrap_or("")
            );
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(failing: u64) -> Value {
        let failures: Vec<Value> = (1..=failing)
            .map(|s| json!({"seed": s, "failures": [{"node": "n", "incarnation": 1, "message": "lost"}]}))
            .collect();
        let hashes: Vec<Value> = (1..=2 * failing).map(|s| json!([s, "h"])).collect();
        json!({"seeds": 2 * failing, "failed": failing, "failures": failures, "errors": [], "trace_hashes": hashes,
               "diverged": [], "findings": [{"id": "f", "failing_seeds": (1..=failing).collect::<Vec<_>>()}]})
    }

    #[test]
    fn the_summary_carries_no_per_seed_detail_and_pages_walk_it() {
        let summary = paged(&doc(30), Page::default());
        assert_eq!(summary["failures"], json!([]));
        assert_eq!(summary["trace_hashes"], json!([]));
        assert_eq!(summary["lowest_failing_seeds"], json!((1..=10).collect::<Vec<_>>()));
        assert_eq!(summary["findings"][0]["failing_seeds"].as_array().unwrap().len(), SHOWN);
        assert_eq!(summary["page"]["totals"], json!({"failures": 30, "errors": 0, "trace_hashes": 60, "diverged": 0}));
        assert_eq!(summary["page"]["next_offset"], 0);

        let second = paged(&doc(30), Page { offset: 25, limit: 10 });
        let seeds: Vec<u64> =
            second["failures"].as_array().unwrap().iter().map(|f| f["seed"].as_u64().unwrap()).collect();
        assert_eq!(seeds, [26, 27, 28, 29, 30]);
        assert_eq!(second["trace_hashes"].as_array().unwrap().len(), 10);
        assert_eq!(second["page"]["next_offset"], 35);
        assert_eq!(paged(&doc(30), Page { offset: 55, limit: 10 })["page"]["next_offset"], Value::Null);
        assert_eq!(failure_lines(&doc(3), Page { offset: 1, limit: 1 }), "\nseed 2: n#1: lost");
    }
}
