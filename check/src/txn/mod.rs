//! Transactional isolation of a `sim.Txn` history, after Elle (Kingsbury & Alvaro, VLDB 2020) on its
//! list-append model: infer each key's version order from the reads (`versions.rs`), build the dependency
//! graph (`graph.rs`), and look for Adya's anomalies, each with a deterministically chosen witness
//! (`cycles.rs`).
//!
//! Found: G0 (a ww cycle), G1a (aborted read), G1b (intermediate read), G1c (a ww/wr cycle with a wr edge),
//! G-single (a cycle with exactly one rw edge), G-nonadjacent (two or more rw edges, no two adjacent),
//! G2-item (a cycle with rw edges when neither of those exists: then every such cycle has two adjacent rw
//! edges, write skew), lost update (two committed transactions read one version of a key and both
//! appended to it), and three that break the model itself: incompatible orders (reads of a key that are
//! not prefixes of one list, repeat an element, or hold one transaction's appends out of order or with
//! gaps), garbage reads (an element nobody appended) and internal inconsistency (a read without the
//! transaction's own earlier appends). Not checked: real-time order (strict serializability).

mod cycles;
mod graph;
mod history;
mod unordered;
mod versions;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use history::{MicroOp, Status, Txn};

use crate::HistoryError;
use cycles::Shape;
use graph::Graph;
use versions::Versions;

/// The config's `isolation` level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isolation {
    /// Adya's PL-3: forbids every anomaly found here.
    Serializable,
    /// Snapshot isolation: forbids all but G2-item (write skew, adjacent rw edges, is allowed).
    Snapshot,
    /// Adya's PL-2: forbids G0, G1a, G1b and G1c.
    ReadCommitted,
}

impl Isolation {
    pub const ALL: [Isolation; 3] = [Isolation::Serializable, Isolation::Snapshot, Isolation::ReadCommitted];

    /// The name the config uses.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Serializable => "serializable",
            Isolation::Snapshot => "snapshot",
            Isolation::ReadCommitted => "read_committed",
        }
    }

    /// Whether a history with this anomaly violates the level. Incompatible orders, garbage reads and
    /// internal inconsistencies break every level: no database state explains them.
    pub fn forbids(self, kind: AnomalyKind) -> bool {
        use AnomalyKind::*;
        match self {
            Isolation::Serializable => true,
            Isolation::Snapshot => kind != G2Item,
            Isolation::ReadCommitted => matches!(kind, G0 | G1a | G1b | G1c | IncompatibleOrder | Garbage | Internal),
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Isolation {
    type Err = String;

    fn from_str(s: &str) -> Result<Isolation, String> {
        crate::names::parse(&Isolation::ALL, Isolation::name, s, "isolation level")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum AnomalyKind {
    G0,
    G1a,
    G1b,
    G1c,
    #[serde(rename = "G-single")]
    GSingle,
    #[serde(rename = "G-nonadjacent")]
    GNonadjacent,
    #[serde(rename = "G2-item")]
    G2Item,
    #[serde(rename = "lost-update")]
    LostUpdate,
    #[serde(rename = "incompatible-order")]
    IncompatibleOrder,
    #[serde(rename = "garbage-read")]
    Garbage,
    Internal,
}

impl AnomalyKind {
    /// Elle's name.
    pub fn name(self) -> &'static str {
        match self {
            AnomalyKind::G0 => "G0",
            AnomalyKind::G1a => "G1a",
            AnomalyKind::G1b => "G1b",
            AnomalyKind::G1c => "G1c",
            AnomalyKind::GSingle => "G-single",
            AnomalyKind::GNonadjacent => "G-nonadjacent",
            AnomalyKind::G2Item => "G2-item",
            AnomalyKind::LostUpdate => "lost-update",
            AnomalyKind::IncompatibleOrder => "incompatible-order",
            AnomalyKind::Garbage => "garbage-read",
            AnomalyKind::Internal => "internal",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DepKind {
    /// Write-write: the second appended right after the first.
    Ww,
    /// Write-read: the second read the first's append.
    Wr,
    /// Read-write (anti-dependency): the second appended right after what the first read.
    Rw,
}

/// One edge of a cycle, on the key that gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub kind: DepKind,
    pub key: String,
}

/// An anomaly and its witnesses. Transactions are named by their index in the history (`T3` in messages).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Anomaly {
    pub kind: AnomalyKind,
    /// For a cycle, its transactions in order, starting at the smallest; otherwise the ones involved.
    pub txns: Vec<usize>,
    /// For a cycle, `cycle[i]` is the edge from `txns[i]` to the next (wrapping); empty otherwise.
    pub cycle: Vec<Dependency>,
    pub message: String,
}

impl Anomaly {
    fn direct(kind: AnomalyKind, txns: Vec<usize>, message: String) -> Anomaly {
        Anomaly { kind, txns, cycle: Vec::new(), message }
    }
}

/// Every anomaly in `history`: internal inconsistencies, the other direct ones (in the order of
/// `versions.rs`), then the first G0, G1c, G-single, G-nonadjacent and G2-item cycle. G2-item is looked
/// for only when neither G-single nor G-nonadjacent was found: then every cycle with rw edges has two
/// adjacent ones, which snapshot isolation allows (write skew).
pub fn anomalies(history: &[Txn]) -> Result<Vec<Anomaly>, HistoryError> {
    use DepKind::*;
    let versions = Versions::new(history)?;
    let mut found = Versions::internal(history);
    found.extend(versions.anomalies(history));
    let graph = Graph::new(history, &versions);
    let searches = [
        (AnomalyKind::G0, Shape::Edges(Ww, &[Ww])),
        (AnomalyKind::G1c, Shape::Edges(Wr, &[Ww, Wr])),
        (AnomalyKind::GSingle, Shape::Edges(Rw, &[Ww, Wr])),
        (AnomalyKind::GNonadjacent, Shape::NonadjacentRw),
        (AnomalyKind::G2Item, Shape::Edges(Rw, &[Ww, Wr, Rw])),
    ];
    for (kind, shape) in searches {
        let stronger = |a: &Anomaly| matches!(a.kind, AnomalyKind::GSingle | AnomalyKind::GNonadjacent);
        if kind == AnomalyKind::G2Item && found.iter().any(stronger) {
            continue;
        }
        if let Some(cycle) = cycles::find(&graph, shape) {
            let steps: Vec<String> = (0..cycle.txns.len())
                .map(|i| format!("T{} -{} {}->", cycle.txns[i], dep_name(cycle.deps[i].kind), cycle.deps[i].key))
                .collect();
            let message = format!("{} T{}", steps.join(" "), cycle.txns[0]);
            found.push(Anomaly { kind, txns: cycle.txns, cycle: cycle.deps, message });
        }
        if kind == AnomalyKind::GNonadjacent && !found.iter().any(stronger) {
            found.extend(unordered::conflicts(&graph, &versions));
        }
    }
    Ok(found)
}

/// The anomalies of `history` that `level` forbids: empty when the history satisfies it.
pub fn check(history: &[Txn], level: Isolation) -> Result<Vec<Anomaly>, HistoryError> {
    Ok(anomalies(history)?.into_iter().filter(|a| level.forbids(a.kind)).collect())
}

fn dep_name(kind: DepKind) -> &'static str {
    match kind {
        DepKind::Ww => "ww",
        DepKind::Wr => "wr",
        DepKind::Rw => "rw",
    }
}
