//! Appends no read saw have no known order among themselves (`graph.rs` places them all after the known
//! order, with no edges between them). When two committed transactions both made such appends to one key,
//! one of them came first: a ww edge one way or the other. This finds the pairs for which either way
//! closes a cycle that snapshot isolation forbids (at most one rw edge, or no two adjacent), which the
//! graph, lacking that edge, cannot show.

use std::collections::VecDeque;

use super::cycles;
use super::graph::{self, Graph};
use super::versions::Versions;
use super::{Anomaly, AnomalyKind, DepKind};

pub(crate) fn conflicts(graph: &Graph, versions: &Versions<'_>) -> Option<Anomaly> {
    // Each must reach the other, so both lie in one strongly connected component.
    let component = cycles::components(graph, graph::kinds(&[DepKind::Ww, DepKind::Wr, DepKind::Rw]));
    for (key, txns) in &versions.unseen {
        for (i, &a) in txns.iter().enumerate() {
            for &b in txns[i + 1..].iter().filter(|&&b| component[b] == component[a]) {
                // a before b closes a cycle if b reaches a; b before a, if a reaches b.
                let (Some((ab, ab_rw)), Some((ba, ba_rw))) = (reach(graph, b, a), reach(graph, a, b)) else { continue };
                let kind = if ab_rw.max(ba_rw) <= 1 { AnomalyKind::GSingle } else { AnomalyKind::GNonadjacent };
                let message = format!(
                    "T{a} and T{b} both appended to {key}, and no read saw either: with T{a} first, {} closes a \
                     cycle; with T{b} first, {} does",
                    path_text(&ab),
                    path_text(&ba)
                );
                return Some(Anomaly { kind, txns: vec![a, b], cycle: Vec::new(), message });
            }
        }
    }
    None
}

/// A shortest path `from` →* `to` with no two rw edges in a row (closed by a ww edge, a cycle then has
/// non-adjacent rw edges, or at most one), and how many rw edges it takes. Breadth first over
/// (transaction, whether the last edge was rw).
fn reach(graph: &Graph, from: usize, to: usize) -> Option<(Vec<usize>, usize)> {
    let n = graph.out.len();
    let state = |node: usize, rw: bool| usize::from(rw) * n + node;
    let mut parent = vec![usize::MAX; 2 * n];
    parent[state(from, false)] = state(from, false);
    let mut queue = VecDeque::from([(from, false)]);
    while let Some((node, last_rw)) = queue.pop_front() {
        if node == to {
            let (mut path, mut rw) = (vec![to], 0);
            let mut at = state(to, last_rw);
            while at != state(from, false) {
                rw += usize::from(at >= n);
                at = parent[at];
                path.push(at % n);
            }
            path.reverse();
            return Some((path, rw));
        }
        for &(next, bits) in &graph.out[node] {
            for (kinds, rw) in [(&[DepKind::Ww, DepKind::Wr][..], false), (&[DepKind::Rw][..], true)] {
                let reached = state(next, rw);
                if !(rw && last_rw) && parent[reached] == usize::MAX && bits & graph::kinds(kinds) != 0 {
                    parent[reached] = state(node, last_rw);
                    queue.push_back((next, rw));
                }
            }
        }
    }
    None
}

fn path_text(path: &[usize]) -> String {
    let names: Vec<String> = path.iter().map(|t| format!("T{t}")).collect();
    names.join(" -> ")
}
