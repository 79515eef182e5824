//! Finds the cycle an anomaly needs in the dependency graph: one edge of a given kind closed by a path
//! over allowed kinds (G-single: one rw edge, then ww and wr only), or a cycle whose rw edges are never
//! adjacent (G-nonadjacent). Among all such cycles it returns a shortest, and among those the
//! lexicographically smallest when rotated to start at its smallest transaction, so the reported cycle
//! depends only on the history.

use std::collections::VecDeque;

use super::graph::{self, Graph};
use super::{DepKind, Dependency};

/// A cycle: `txns[i]` → `txns[i + 1]` (wrapping) by `deps[i]`.
pub(crate) struct Cycle {
    pub(crate) txns: Vec<usize>,
    pub(crate) deps: Vec<Dependency>,
}

/// A cycle as found: each transaction with the kind of the edge that leaves it.
type Steps = Vec<(usize, DepKind)>;

/// What a cycle may be made of.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// One edge of the first kind, then edges of the other kinds only (G0, G1c, G-single, G2-item).
    Edges(DepKind, &'static [DepKind]),
    /// Two or more rw edges, no two of them adjacent, with any other edges (G-nonadjacent, which snapshot
    /// isolation forbids while it allows write skew's adjacent ones).
    NonadjacentRw,
}

/// The best cycle of `shape`.
pub(crate) fn find(graph: &Graph, shape: Shape) -> Option<Cycle> {
    let (first, kinds): (DepKind, &[DepKind]) = match shape {
        Shape::Edges(first, rest) => (first, rest),
        Shape::NonadjacentRw => (DepKind::Rw, &[DepKind::Ww, DepKind::Wr, DepKind::Rw]),
    };
    // A cycle lies inside one strongly connected component of the edges it may use. A history without
    // anomalies has only trivial components, so this skips every search there.
    let mut all = kinds.to_vec();
    all.push(first);
    let component = components(graph, graph::kinds(&all));
    // (rotated, as found): compared by length, then rotated.
    let mut best: Option<(Vec<usize>, Steps)> = None;
    for (&(a, b), labels) in &graph.edges {
        if component[a] != component[b] || !labels.iter().any(|(kind, _)| *kind == first) {
            continue;
        }
        // Only as long as the best so far: equal ones still compete on their order.
        let limit = best.as_ref().map_or(usize::MAX, |(r, _)| r.len() - 1);
        let path = match shape {
            Shape::Edges(_, rest) => shortest_path(graph, b, a, graph::kinds(rest), limit),
            Shape::NonadjacentRw => nonadjacent_path(graph, b, a, limit),
        };
        let Some(path) = path else { continue };
        let mut steps: Steps = vec![(a, first)];
        steps.extend(path.windows(2).map(|w| (w[0].0, w[1].1)));
        let nodes: Vec<usize> = steps.iter().map(|&(t, _)| t).collect();
        let mut rotated = nodes.clone();
        rotated.rotate_left(smallest(&nodes));
        if best.as_ref().is_none_or(|(r, _)| (rotated.len(), &rotated) < (r.len(), r)) {
            best = Some((rotated, steps));
        }
    }
    let (_, mut steps) = best?;
    let at = smallest(&steps.iter().map(|&(t, _)| t).collect::<Vec<_>>());
    steps.rotate_left(at);
    let txns: Vec<usize> = steps.iter().map(|&(t, _)| t).collect();
    let deps = (0..steps.len())
        .map(|i| {
            let (from, kind) = steps[i];
            let to = txns[(i + 1) % txns.len()];
            let (kind, key) = graph.label(from, to, &[kind]).expect("the cycle's edges exist").clone();
            Dependency { kind, key }
        })
        .collect();
    Some(Cycle { txns, deps })
}

/// The position of the smallest transaction of a cycle.
fn smallest(cycle: &[usize]) -> usize {
    (0..cycle.len()).min_by_key(|&i| cycle[i]).expect("a cycle has a transaction")
}

/// A shortest path `from` →* `to` over edges of `kinds` with at most `limit` edges, lexicographically
/// smallest among the shortest: breadth first, successors in ascending order. Each node with the kind of
/// the edge into it (the first node's is unused).
fn shortest_path(graph: &Graph, from: usize, to: usize, kinds: u8, limit: usize) -> Option<Vec<(usize, DepKind)>> {
    let mut parent: Vec<Option<(usize, DepKind)>> = vec![None; graph.out.len()];
    let mut depth = vec![0; graph.out.len()];
    parent[from] = Some((from, DepKind::Ww));
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![];
            let mut at = to;
            while at != from {
                let (prev, kind) = parent[at].expect("visited");
                path.push((at, kind));
                at = prev;
            }
            path.push((from, DepKind::Ww));
            path.reverse();
            return Some(path);
        }
        if depth[node] >= limit {
            break;
        }
        for &(next, bits) in &graph.out[node] {
            if parent[next].is_some() {
                continue;
            }
            if let Some(kind) = graph::first_kind(bits & kinds) {
                parent[next] = Some((node, kind));
                depth[next] = depth[node] + 1;
                queue.push_back(next);
            }
        }
    }
    None
}

/// A shortest path `from` →* `to` of at most `limit` edges that, after an rw edge into `from`, takes no rw
/// edge right after another, ends with an edge other than rw (the cycle goes on with the rw edge out of
/// `to`), and takes at least one rw edge. Breadth first over (transaction, whether the last edge was rw,
/// whether an rw edge was taken).
fn nonadjacent_path(graph: &Graph, from: usize, to: usize, limit: usize) -> Option<Vec<(usize, DepKind)>> {
    type State = (usize, bool, bool);
    let index = |(node, last_rw, taken): State| node * 4 + usize::from(last_rw) * 2 + usize::from(taken);
    let mut parent: Vec<Option<(State, DepKind)>> = vec![None; graph.out.len() * 4];
    let mut depth = vec![0; graph.out.len() * 4];
    let start: State = (from, true, false);
    parent[index(start)] = Some((start, DepKind::Rw));
    let mut queue = VecDeque::from([start]);
    while let Some(state) = queue.pop_front() {
        let (node, last_rw, taken) = state;
        if depth[index(state)] >= limit {
            break;
        }
        for &(next, bits) in &graph.out[node] {
            for kind in [DepKind::Ww, DepKind::Wr, DepKind::Rw] {
                let rw = kind == DepKind::Rw;
                if (rw && last_rw) || bits & graph::kinds(&[kind]) == 0 {
                    continue;
                }
                let reached: State = (next, rw, taken || rw);
                if parent[index(reached)].is_some() {
                    continue;
                }
                if next == to && (rw || !reached.2) {
                    continue; // a cycle must close on a non-rw edge, with an rw edge inside
                }
                parent[index(reached)] = Some((state, kind));
                depth[index(reached)] = depth[index(state)] + 1;
                if next == to {
                    let mut path = vec![];
                    let mut at = reached;
                    while at != start {
                        let (prev, kind) = parent[index(at)].expect("visited");
                        path.push((at.0, kind));
                        at = prev;
                    }
                    path.push((from, DepKind::Rw));
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(reached);
            }
        }
    }
    None
}

/// Each transaction's strongly connected component over edges of `kinds` (Tarjan's algorithm, iterative
/// so a long chain of transactions cannot overflow the stack).
pub(crate) fn components(graph: &Graph, kinds: u8) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = graph.out.len();
    let (mut index, mut low, mut component) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut stack, mut on_stack, mut next_index, mut next_component) = (Vec::new(), vec![false; n], 0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, how many of its successors are done)
        let mut calls = vec![(root, 0)];
        while let Some(&mut (node, ref mut done)) = calls.last_mut() {
            if *done == 0 {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            let successors = &graph.out[node];
            if let Some(&(next, bits)) = successors.get(*done) {
                *done += 1;
                if bits & kinds == 0 {
                    continue;
                }
                if index[next] == UNSEEN {
                    calls.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}
