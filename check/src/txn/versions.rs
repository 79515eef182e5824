//! What the reads of a list-append history say directly: each key's version order, who appended each
//! element, and the anomalies visible without a graph. In list-append every read returns the whole list,
//! so every read of a key must be a prefix of one order; the longest read is that order. Committed
//! elements nobody read come after it, in an unknown order (`unseen`; `graph.rs`, `unordered.rs`).
//!
//! Only committed transactions' reads are evidence: an indeterminate or aborted transaction may have read
//! anything. Appends of every transaction are kept, so reading an aborted one's element is seen (G1a).

use std::collections::{BTreeMap, BTreeSet};

use super::{Anomaly, AnomalyKind, MicroOp, Status, Txn};
use crate::HistoryError;

/// The transaction that appended an element, and whether it was that transaction's last append to the key.
pub(crate) struct Writer {
    pub(crate) txn: usize,
    /// How many appends to the key the transaction made before this one: a list that holds this one holds
    /// those, in order, right before it among the transaction's elements.
    pub(crate) nth: usize,
    pub(crate) last: bool,
}

/// A committed transaction's read.
pub(crate) struct Read<'a> {
    pub(crate) txn: usize,
    pub(crate) key: &'a str,
    pub(crate) values: &'a [i64],
    /// Whether the transaction appended to the key after this read (a read-modify-write).
    pub(crate) then_appended: bool,
}

impl Read<'_> {
    /// `T3 read x = [1, 2]`, for messages.
    fn shown(&self) -> String {
        format!("T{} read {} = {:?}", self.txn, self.key, self.values)
    }
}

pub(crate) struct Versions<'a> {
    /// Each read key's version order: its longest committed read (the first of that length).
    pub(crate) orders: BTreeMap<&'a str, &'a [i64]>,
    pub(crate) writers: BTreeMap<(&'a str, i64), Writer>,
    pub(crate) reads: Vec<Read<'a>>,
    /// Per key, the transactions that certainly committed (they did, or they are indeterminate and a
    /// committed read saw one of their appends) with an append to it that no read saw, ascending.
    pub(crate) unseen: BTreeMap<&'a str, Vec<usize>>,
}

impl<'a> Versions<'a> {
    /// Fails when two appends to one key add the same value: reads could not say which one they saw.
    pub(crate) fn new(history: &'a [Txn]) -> Result<Versions<'a>, HistoryError> {
        let mut writers: BTreeMap<(&str, i64), Writer> = BTreeMap::new();
        let mut reads = Vec::new();
        for (t, txn) in history.iter().enumerate() {
            for (i, op) in txn.ops.iter().enumerate() {
                let appends_to = |ops: &[MicroOp], key: &str| {
                    ops.iter().filter(|o| matches!(o, MicroOp::Append { key: k, .. } if k == key)).count()
                };
                let later_appends = |key: &str| appends_to(&txn.ops[i + 1..], key) > 0;
                match op {
                    MicroOp::Append { key, value } => {
                        let writer = Writer { txn: t, nth: appends_to(&txn.ops[..i], key), last: !later_appends(key) };
                        if let Some(other) = writers.insert((key, *value), writer) {
                            let message = format!("appends {value} to {key:?} again (transaction {} did)", other.txn);
                            return Err(HistoryError { op: t, message });
                        }
                    }
                    MicroOp::Read { key, values } if txn.status == Status::Committed => {
                        reads.push(Read { txn: t, key, values, then_appended: later_appends(key) });
                    }
                    MicroOp::Read { .. } => {}
                }
            }
        }
        let mut orders: BTreeMap<&str, &[i64]> = BTreeMap::new();
        for read in &reads {
            let order = orders.entry(read.key).or_default();
            if read.values.len() > order.len() {
                *order = read.values;
            }
        }
        let mut committed: Vec<bool> = history.iter().map(|t| t.status == Status::Committed).collect();
        for read in &reads {
            for value in read.values {
                if let Some(w) =
                    writers.get(&(read.key, *value)).filter(|w| history[w.txn].status == Status::Indeterminate)
                {
                    committed[w.txn] = true;
                }
            }
        }
        let read: BTreeSet<(&str, i64)> =
            orders.iter().flat_map(|(&k, &order)| order.iter().map(move |&v| (k, v))).collect();
        let mut unseen: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for (&(key, value), w) in &writers {
            if committed[w.txn] && !read.contains(&(key, value)) {
                unseen.entry(key).or_default().insert(w.txn);
            }
        }
        let unseen = unseen.into_iter().map(|(key, txns)| (key, txns.into_iter().collect())).collect();
        Ok(Versions { orders, writers, reads, unseen })
    }

    /// Incompatible orders (reads that are not prefixes of one list, and lists that reorder one
    /// transaction's appends), garbage reads, aborted reads (G1a), intermediate reads (G1b) and lost
    /// updates, in that order; each kind in the order of the reads or keys that show it.
    pub(crate) fn anomalies(&self, history: &[Txn]) -> Vec<Anomaly> {
        let mut found = Vec::new();
        for read in &self.reads {
            let order = self.orders[read.key];
            if !order.starts_with(read.values) || has_duplicates(read.values) {
                let longest =
                    self.reads.iter().find(|r| r.key == read.key && r.values == order).expect("an order is a read");
                found.push(Anomaly::direct(
                    AnomalyKind::IncompatibleOrder,
                    vec![longest.txn, read.txn],
                    format!("{} and {}: not one order", longest.shown(), read.shown()),
                ));
            }
        }
        for (&key, &order) in &self.orders {
            // How many of each transaction's appends the order has shown so far.
            let mut shown: BTreeMap<usize, usize> = BTreeMap::new();
            for value in order {
                let Some(w) = self.writers.get(&(key, *value)) else { continue };
                let count = shown.entry(w.txn).or_default();
                if *count != w.nth {
                    let longest =
                        self.reads.iter().find(|r| r.key == key && r.values == order).expect("an order is a read");
                    found.push(Anomaly::direct(
                        AnomalyKind::IncompatibleOrder,
                        vec![w.txn, longest.txn],
                        format!(
                            "{}: not the order T{} appended them in, or without some of them",
                            longest.shown(),
                            w.txn
                        ),
                    ));
                    break;
                }
                *count += 1;
            }
        }
        let (mut garbage, mut aborted) = (Vec::new(), Vec::new());
        for read in &self.reads {
            for value in read.values {
                match self.writers.get(&(read.key, *value)) {
                    None => garbage.push(Anomaly::direct(
                        AnomalyKind::Garbage,
                        vec![read.txn],
                        format!("{}, and no transaction appended {value}", read.shown()),
                    )),
                    Some(w) if history[w.txn].status == Status::Aborted => aborted.push(Anomaly::direct(
                        AnomalyKind::G1a,
                        vec![w.txn, read.txn],
                        format!("{}, with {value} appended by aborted T{}", read.shown(), w.txn),
                    )),
                    Some(_) => {}
                }
            }
        }
        found.extend(garbage);
        found.extend(aborted);
        for read in &self.reads {
            let Some(&value) = read.values.last() else { continue };
            let Some(w) = self.writers.get(&(read.key, value)) else { continue };
            if w.txn != read.txn && !w.last && history[w.txn].status != Status::Aborted {
                found.push(Anomaly::direct(
                    AnomalyKind::G1b,
                    vec![w.txn, read.txn],
                    format!("{}, an intermediate state of T{}, which appended more", read.shown(), w.txn),
                ));
            }
        }
        found.extend(self.lost_updates());
        found
    }

    /// Committed transactions that did not read their own appends: every read of a key must contain the
    /// transaction's earlier appends to it, in order, whatever the isolation level (Elle's internal
    /// consistency). That later reads start with earlier ones is not asked here: read committed allows a
    /// read to see another version, and at stronger levels the graph shows it as a cycle.
    pub(crate) fn internal(history: &[Txn]) -> Vec<Anomaly> {
        let mut found = Vec::new();
        for (t, txn) in history.iter().enumerate().filter(|(_, txn)| txn.status == Status::Committed) {
            let mut appended: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
            for op in &txn.ops {
                match op {
                    MicroOp::Append { key, value } => appended.entry(key).or_default().push(*value),
                    MicroOp::Read { key, values } => {
                        let own = appended.get(key.as_str()).map_or(&[][..], |v| &v[..]);
                        let mut rest = values.iter();
                        if !own.iter().all(|v| rest.any(|r| r == v)) {
                            let message = format!("T{t} read {key} = {values:?} without its own appends {own:?}");
                            found.push(Anomaly::direct(AnomalyKind::Internal, vec![t], message));
                        }
                    }
                }
            }
        }
        found
    }

    /// Committed transactions that read the same version of a key and then both appended to it.
    fn lost_updates(&self) -> Vec<Anomaly> {
        let mut by_version: BTreeMap<(&str, &[i64]), Vec<usize>> = BTreeMap::new();
        for read in self.reads.iter().filter(|r| r.then_appended) {
            let txns = by_version.entry((read.key, read.values)).or_default();
            if txns.last() != Some(&read.txn) {
                txns.push(read.txn);
            }
        }
        by_version
            .into_iter()
            .filter(|(_, txns)| txns.len() > 1)
            .map(|((key, values), txns)| {
                let names: Vec<String> = txns.iter().map(|t| format!("T{t}")).collect();
                let message = format!("{} all read {key} = {values:?} and appended to it", names.join(", "));
                Anomaly::direct(AnomalyKind::LostUpdate, txns, message)
            })
            .collect()
    }
}

fn has_duplicates(values: &[i64]) -> bool {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).any(|w| w[0] == w[1])
}
