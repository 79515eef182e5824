//! `seedfall explore -report FILE.html`: the exploration's `--json`
//! document as a self-contained page: how it ended, coverage over runs as
//! an SVG plot, and each finding with the run that found it and its replay
//! command. It runs nothing.

use crate::timeline::escape;
use serde_json::Value;

/// Coverage (features) against completed runs, as a small SVG.
pub fn coverage_svg(doc: &Value) -> String {
    let (w, h, pad) = (600.0, 180.0, 30.0);
    let points: Vec<(f64, f64)> = doc["coverage"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (p["runs"].as_f64().unwrap_or(0.0), p["features"].as_f64().unwrap_or(0.0)))
        .collect();
    let max_runs = points.iter().map(|p| p.0).fold(1.0, f64::max);
    let (low, high) = points.iter().fold((f64::MAX, 0.0f64), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let span = (high - low).max(1.0);
    let xy = |(runs, features): (f64, f64)| {
        (pad + (w - 2.0 * pad) * runs / max_runs, h - pad - (h - 2.0 * pad) * (features - low.min(high)) / span)
    };
    let path: String = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (x, y) = xy(*p);
            format!("{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" })
        })
        .collect();
    format!(
        "<svg class=\"coverage\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\">\
<text x=\"2\" y=\"{top}\" font-size=\"10\">{high}</text><text x=\"2\" y=\"{bottom}\" font-size=\"10\">{low}</text>\
<text x=\"{right}\" y=\"{h}\" font-size=\"10\" text-anchor=\"end\">{max_runs} runs</text>\
<path d=\"{}\" fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.5\"/></svg>",
        path.trim_end(),
        top = pad,
        bottom = h - pad,
        right = w - pad,
        low = if points.is_empty() { 0.0 } else { low },
    )
}

/// The page.
pub fn html(doc: &Value) -> String {
    let text = |v: &Value| escape(&v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let mut out = String::from(concat!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>seedfall explore</title><style>\n",
        "body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}\n",
        "section.finding{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0}\n",
        "pre{background:#f6f6f6;padding:.5em;overflow-x:auto}\n</style></head><body>\n"
    ));
    out.push_str(&format!(
        "<h1>seedfall explore of {}</h1>\n<p>starting seeds {}: {} runs in {} generations; {}</p>\n",
        text(&doc["config"]),
        text(&doc["seeds"]),
        text(&doc["runs"]),
        text(&doc["generations"]),
        text(&doc["stopped"]),
    ));
    out.push_str("<h2>Coverage</h2>\n");
    out.push_str(&coverage_svg(doc));
    let findings: Vec<&Value> = doc["findings"].as_array().into_iter().flatten().collect();
    out.push_str(&format!("\n<h2>Findings ({})</h2>\n", findings.len()));
    for f in findings {
        out.push_str(&format!(
            "<section class=\"finding\" id=\"{}\"><h3>{}</h3><p>{} runs failed this way; first at run {} (seed {}, {} branches)</p><pre>{}</pre></section>\n",
            text(&f["id"]),
            text(&f["failure"]),
            text(&f["runs"]),
            text(&f["found_at_run"]),
            text(&f["seed"]),
            f["branches"].as_array().map_or(0, Vec::len),
            text(&f["replay"]),
        ));
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_page_has_the_plot_and_every_finding() {
        let doc = json!({
            "config": "kv.json", "seeds": "1-3", "runs": 40, "generations": 2, "stopped": "the budget is spent",
            "coverage": [{"runs": 3, "features": 100}, {"runs": 40, "features": 120}],
            "findings": [{"id": "fabc", "failure": "client#1: lost <13>", "runs": 2, "found_at_run": 9, "seed": 2,
                          "branches": [[5, 7]], "replay": "seedfall replay -c kv.json -seed 2 -faults x"}],
        });
        let page = html(&doc);
        assert!(page.contains("<svg class=\"coverage\"") && page.contains("M70.5,150.0 L570.0,30.0"), "{page}");
        assert!(page.contains("client#1: lost &lt;13&gt;") && page.contains("first at run 9 (seed 2, 1 branches)"));
        assert!(page.contains("seedfall replay -c kv.json -seed 2 -faults x"));
    }
}
