//! The dependency graph of a list-append history (Adya's direct serialization graph, as Elle infers it):
//! nodes are the transactions that may have committed, and an edge T1 → T2 says T1 must precede T2.
//!
//! - ww (key): T2 appended the element right after T1's in the key's version order.
//! - wr (key): T2 read a list whose last element T1 appended.
//! - rw (key): T1 read a list, and T2 appended the element that comes next in the key's order.
//!
//! Version orders come from `versions.rs`; a read that is not a prefix of its key's order gives no edges.
//! A committed append no read saw is placed after the whole order, since reads return whole lists.
//! There are no real-time or process edges: strict serializability is not checked.

use std::collections::{BTreeMap, BTreeSet};

use super::versions::Versions;
use super::{DepKind, Status, Txn};

pub(crate) struct Graph {
    /// (from, to) -> the labels of the edge: every kind and key that gives it.
    pub(crate) edges: BTreeMap<(usize, usize), BTreeSet<(DepKind, String)>>,
    /// Successors of each transaction, ascending, so searches visit them in a fixed order, each with the
    /// kinds of the edge (`kinds`), so a search looks no label up.
    pub(crate) out: Vec<Vec<(usize, u8)>>,
}

/// The set of `kinds` as bits, as `Graph::out` holds them.
pub(crate) fn kinds(kinds: &[DepKind]) -> u8 {
    kinds.iter().fold(0, |bits, &k| bits | 1 << k as u8)
}

/// The first of Ww, Wr, Rw in `bits`.
pub(crate) fn first_kind(bits: u8) -> Option<DepKind> {
    [DepKind::Ww, DepKind::Wr, DepKind::Rw].into_iter().find(|&k| bits & kinds(&[k]) != 0)
}

impl Graph {
    pub(crate) fn new(history: &[Txn], versions: &Versions<'_>) -> Graph {
        let mut edges: BTreeMap<(usize, usize), BTreeSet<(DepKind, String)>> = BTreeMap::new();
        let live = |t: usize| history[t].status != Status::Aborted;
        let mut add = |from: usize, to: usize, kind: DepKind, key: &str| {
            if from != to && live(from) && live(to) {
                edges.entry((from, to)).or_default().insert((kind, key.to_owned()));
            }
        };
        for (&key, &order) in &versions.orders {
            let writer = |value: i64| versions.writers.get(&(key, value)).map(|w| w.txn);
            for pair in order.windows(2) {
                if let (Some(a), Some(b)) = (writer(pair[0]), writer(pair[1])) {
                    add(a, b, DepKind::Ww, key);
                }
            }
            // Appends of committed transactions (`Versions::unseen`) that no read saw come after the whole
            // known order: a read returns the whole list, so an append before its version would be in it.
            // Their order among themselves is unknown, so each gets the edges its unknown predecessor would
            // have; an edge to a later one stands for a path through the earlier ones with the same number of
            // rw edges, so no cycle changes its class (`unordered.rs` handles what the unknown order hides).
            let unseen = versions.unseen.get(key).map_or(&[][..], |t| &t[..]);
            for &w in unseen {
                if let Some(last) = order.last().and_then(|&v| writer(v)) {
                    add(last, w, DepKind::Ww, key);
                }
            }
            for read in versions.reads.iter().filter(|r| r.key == key && order.starts_with(r.values)) {
                if let Some(w) = read.values.last().and_then(|&v| writer(v)) {
                    add(w, read.txn, DepKind::Wr, key);
                }
                match order.get(read.values.len()) {
                    Some(&next) => {
                        if let Some(w) = writer(next) {
                            add(read.txn, w, DepKind::Rw, key);
                        }
                    }
                    None => {
                        for &w in unseen {
                            add(read.txn, w, DepKind::Rw, key);
                        }
                    }
                }
            }
        }
        let mut out = vec![Vec::new(); history.len()];
        for (&(from, to), labels) in &edges {
            out[from].push((to, labels.iter().fold(0, |bits, (k, _)| bits | kinds(&[*k]))));
        }
        Graph { edges, out }
    }

    /// The first label of edge `from → to` among `kinds`.
    pub(crate) fn label(&self, from: usize, to: usize, kinds: &[DepKind]) -> Option<&(DepKind, String)> {
        self.edges.get(&(from, to))?.iter().find(|(kind, _)| kinds.contains(kind))
    }
}
