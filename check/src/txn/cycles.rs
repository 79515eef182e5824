//! Finds the cycle an anomaly needs in the dependency graph: one edge of a given kind closed by a path
//! over allowed kinds (G-single: one rw edge, then ww and wr only). Among all such cycles it returns a
//! shortest, and among those the lexicographically smallest when rotated to start at its smallest
//! transaction, so the reported cycle depends only on the history.

use std::collections::VecDeque;

use super::graph::Graph;
use super::{DepKind, Dependency};

/// A cycle: `txns[i]` → `txns[i + 1]` (wrapping) by `deps[i]`.
pub(crate) struct Cycle {
    pub(crate) txns: Vec<usize>,
    pub(crate) deps: Vec<Dependency>,
}

/// The best cycle that starts with an edge of kind `first` and continues over edges of kinds `rest`.
pub(crate) fn find(graph: &Graph, first: DepKind, rest: &[DepKind]) -> Option<Cycle> {
    // A cycle lies inside one strongly connected component of the edges it may use. A history without
    // anomalies has only trivial components, so this skips every search there.
    let mut kinds = rest.to_vec();
    kinds.push(first);
    let component = components(graph, &kinds);
    // (rotated, as found): compared by length, then rotated.
    let mut best: Option<(Vec<usize>, Vec<usize>)> = None;
    for (&(a, b), labels) in &graph.edges {
        if component[a] != component[b] || !labels.iter().any(|(kind, _)| *kind == first) {
            continue;
        }
        let Some(path) = shortest_path(graph, b, a, rest) else { continue };
        let mut cycle = vec![a];
        cycle.extend(&path[..path.len() - 1]);
        let mut rotated = cycle.clone();
        rotated.rotate_left(smallest(&cycle));
        if best.as_ref().is_none_or(|(r, _)| (rotated.len(), &rotated) < (r.len(), r)) {
            best = Some((rotated, cycle));
        }
    }
    let (_, mut txns) = best?;
    let mut deps: Vec<Dependency> = (0..txns.len())
        .map(|i| {
            let (from, to) = (txns[i], txns[(i + 1) % txns.len()]);
            let kinds = if i == 0 { std::slice::from_ref(&first) } else { rest };
            let (kind, key) = graph.label(from, to, kinds).expect("the cycle's edges exist").clone();
            Dependency { kind, key }
        })
        .collect();
    let at = smallest(&txns);
    txns.rotate_left(at);
    deps.rotate_left(at);
    Some(Cycle { txns, deps })
}

/// The position of the smallest transaction of a cycle.
fn smallest(cycle: &[usize]) -> usize {
    (0..cycle.len()).min_by_key(|&i| cycle[i]).expect("a cycle has a transaction")
}

/// A shortest path `from` →* `to` over edges of `kinds`, lexicographically smallest among the shortest:
/// breadth first, successors in ascending order. Both ends included.
fn shortest_path(graph: &Graph, from: usize, to: usize, kinds: &[DepKind]) -> Option<Vec<usize>> {
    let mut parent = vec![usize::MAX; graph.out.len()];
    parent[from] = from;
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![to];
            while *path.last().expect("not empty") != from {
                path.push(parent[*path.last().expect("not empty")]);
            }
            path.reverse();
            return Some(path);
        }
        for &next in &graph.out[node] {
            if parent[next] == usize::MAX && graph.label(node, next, kinds).is_some() {
                parent[next] = node;
                queue.push_back(next);
            }
        }
    }
    None
}

/// Each transaction's strongly connected component over edges of `kinds` (Tarjan's algorithm, iterative
/// so a long chain of transactions cannot overflow the stack).
fn components(graph: &Graph, kinds: &[DepKind]) -> Vec<usize> {
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
            if let Some(&next) = successors.get(*done) {
                *done += 1;
                if graph.label(node, next, kinds).is_none() {
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
