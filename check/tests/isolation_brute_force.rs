//! The isolation checker against brute-force oracles on thousands of small random list-append histories,
//! for serializability (every serial order of the committed transactions, with or without each
//! indeterminate one), snapshot isolation (every interleaving of their starts and commits, reads from
//! the snapshot at the start, first committer wins), each executed with the oracle's own list-append
//! semantics, and read committed by Adya's definition (every version order of every key, looking for one
//! without a ww/wr cycle or an intermediate read), independent of the crate. The checker must report an anomaly the level forbids exactly
//! when the oracle finds no execution. Histories come from a fixed-seed generator.

use std::collections::BTreeMap;

use seedfall_check::txn::{self, Isolation, MicroOp, Status, Txn};

/// splitmix64, as in `brute_force.rs`.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// Runs `order` serially; whether every committed transaction's reads return what they did.
fn executes(history: &[Txn], order: &[usize]) -> bool {
    let mut lists: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for &t in order {
        for op in &history[t].ops {
            match op {
                MicroOp::Append { key, value } => lists.entry(key).or_default().push(*value),
                MicroOp::Read { key, values } => {
                    let list = lists.get(key.as_str()).map_or(&[][..], |l| &l[..]);
                    if history[t].status == Status::Committed && list != values.as_slice() {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn permutations(history: &[Txn], prefix: &mut Vec<usize>, rest: &[usize]) -> bool {
    if rest.is_empty() {
        return executes(history, prefix);
    }
    for i in 0..rest.len() {
        prefix.push(rest[i]);
        let others: Vec<usize> = rest.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &t)| t).collect();
        let found = permutations(history, prefix, &others);
        prefix.pop();
        if found {
            return true;
        }
    }
    false
}

/// Whether `executes` accepts the committed transactions with some subset of the indeterminate ones.
fn with_some_indeterminate(history: &[Txn], mut executes: impl FnMut(&[usize]) -> bool) -> bool {
    let committed: Vec<usize> = (0..history.len()).filter(|&t| history[t].status == Status::Committed).collect();
    let optional: Vec<usize> = (0..history.len()).filter(|&t| history[t].status == Status::Indeterminate).collect();
    (0..1u32 << optional.len()).any(|mask| {
        let mut chosen = committed.clone();
        chosen.extend(optional.iter().enumerate().filter(|&(i, _)| mask & (1 << i) != 0).map(|(_, &t)| t));
        executes(&chosen)
    })
}

fn serializable(history: &[Txn]) -> bool {
    with_some_indeterminate(history, |chosen| permutations(history, &mut Vec::new(), chosen))
}

fn snapshot(history: &[Txn]) -> bool {
    with_some_indeterminate(history, |chosen| snapshot_executes(history, chosen))
}

/// Checks `cases` random histories at `level` against `oracle`; returns how many it accepted.
fn agree(level: Isolation, oracle: fn(&[Txn]) -> bool, seed: u64, cases: usize) -> usize {
    let mut rng = Rng(seed);
    let mut accepted = 0;
    for case in 0..cases {
        let history = random_history(&mut rng);
        let found = txn::check(&history, level).unwrap();
        let expected = oracle(&history);
        assert_eq!(found.is_empty(), expected, "case {case}: {found:#?}\n{}", serde_json::to_string(&history).unwrap());
        accepted += usize::from(expected);
    }
    accepted
}

fn random_history(rng: &mut Rng) -> Vec<Txn> {
    let keys = ["x", "y"];
    let mut next_value = 1;
    let mut appended: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    (0..2 + rng.below(4))
        .map(|client| {
            let ops = (0..1 + rng.below(3))
                .map(|_| {
                    let key = keys[rng.below(2) as usize];
                    if rng.below(2) == 0 {
                        next_value += 1;
                        appended.entry(key).or_default().push(next_value);
                        MicroOp::Append { key: key.into(), value: next_value }
                    } else {
                        // A prefix of the appends so far, sometimes reordered: plausible and implausible reads.
                        let mut values = appended.get(key).cloned().unwrap_or_default();
                        if values.len() > 1 && rng.below(4) == 0 {
                            values.swap(0, 1);
                        }
                        values.truncate(rng.below(values.len() as u64 + 1) as usize);
                        MicroOp::Read { key: key.into(), values }
                    }
                })
                .collect();
            let status = match rng.below(10) {
                0 => Status::Aborted,
                1 => Status::Indeterminate,
                _ => Status::Committed,
            };
            Txn { client: client as u32, invoke_ns: 0, complete_ns: None, status, ops }
        })
        .collect()
}

#[test]
fn serializable_verdicts_agree_with_brute_force() {
    // 22,978 of 40,000 serializable: both outcomes are common, so the comparison means something.
    let accepted = agree(Isolation::Serializable, serializable, 11, 40_000);
    assert!((10_000..30_000).contains(&accepted), "{accepted}");
}

/// Whether the chosen transactions can run under snapshot isolation: some interleaving of their starts and
/// commits where each reads the state committed at its start plus its own appends, and no two
/// concurrent ones append to the same key (first committer wins).
fn snapshot_executes(history: &[Txn], chosen: &[usize]) -> bool {
    fn go(
        history: &[Txn],
        chosen: &[usize],
        started: &mut Vec<Option<usize>>,
        done: &mut Vec<bool>,
        log: &mut Vec<usize>,
        lists: &mut BTreeMap<String, Vec<i64>>,
    ) -> bool {
        if done.iter().all(|&d| d) {
            return true;
        }
        for i in 0..chosen.len() {
            let txn = &history[chosen[i]];
            match started[i] {
                None => {
                    // Start: every read is decided now, from this snapshot and the transaction's own appends.
                    let mut view = lists.clone();
                    let mut reads_ok = true;
                    for op in &txn.ops {
                        match op {
                            MicroOp::Append { key, value } => view.entry(key.clone()).or_default().push(*value),
                            MicroOp::Read { key, values } => {
                                let seen = view.get(key).map_or(&[][..], |l| &l[..]);
                                reads_ok &= txn.status != Status::Committed || seen == values.as_slice();
                            }
                        }
                    }
                    if !reads_ok {
                        continue;
                    }
                    started[i] = Some(log.len());
                    if go(history, chosen, started, done, log, lists) {
                        return true;
                    }
                    started[i] = None;
                }
                Some(start) if !done[i] => {
                    // Commit: no transaction that committed since this one started appended to a key it appends to.
                    let keys = |t: &Txn| {
                        t.ops
                            .iter()
                            .filter_map(|op| match op {
                                MicroOp::Append { key, .. } => Some(key.clone()),
                                _ => None,
                            })
                            .collect::<Vec<_>>()
                    };
                    let mine = keys(txn);
                    if log[start..].iter().any(|&j| keys(&history[chosen[j]]).iter().any(|k| mine.contains(k))) {
                        continue;
                    }
                    let before = lists.clone();
                    for op in &txn.ops {
                        if let MicroOp::Append { key, value } = op {
                            lists.entry(key.clone()).or_default().push(*value);
                        }
                    }
                    done[i] = true;
                    log.push(i);
                    if go(history, chosen, started, done, log, lists) {
                        return true;
                    }
                    log.pop();
                    done[i] = false;
                    *lists = before;
                }
                Some(_) => {}
            }
        }
        false
    }
    let n = chosen.len();
    go(history, chosen, &mut vec![None; n], &mut vec![false; n], &mut Vec::new(), &mut BTreeMap::new())
}

#[test]
fn snapshot_verdicts_agree_with_brute_force() {
    // 11,709 of 20,000.
    let accepted = agree(Isolation::Snapshot, snapshot, 13, 20_000);
    assert!((5_000..15_000).contains(&accepted), "{accepted}");
}

/// Every order of `appends` (transaction, value) that keeps each transaction's appends in program order
/// and of which every read in `reads` is a prefix, or is extended by it.
fn orders(appends: &[(usize, i64)], reads: &[&[i64]]) -> Vec<Vec<(usize, i64)>> {
    fn go(left: &[(usize, i64)], reads: &[&[i64]], order: &mut Vec<(usize, i64)>, out: &mut Vec<Vec<(usize, i64)>>) {
        if left.is_empty() {
            if reads.iter().all(|r| r.len() <= order.len()) {
                out.push(order.clone());
            }
            return;
        }
        for i in 0..left.len() {
            // Program order: no earlier append of the same transaction may still be left.
            if left[..i].iter().any(|&(t, _)| t == left[i].0) {
                continue;
            }
            order.push(left[i]);
            let at = order.len() - 1;
            if reads.iter().all(|r| r.len() <= at || r[at] == left[i].1) {
                let rest: Vec<(usize, i64)> =
                    left.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &a)| a).collect();
                go(&rest, reads, order, out);
            }
            order.pop();
        }
    }
    let mut out = Vec::new();
    go(appends, reads, &mut Vec::new(), &mut out);
    out
}

/// Read committed as Adya's PL-2, by definition: some version order of each key (over the appends of the
/// transactions taken as committed) in which every committed read is a version, every transaction reads
/// its own appends, no read sees an intermediate state, and the ww and wr edges have no cycle. `None`:
/// more than 20,000 combinations of orders, not tried.
fn read_committed(history: &[Txn]) -> Option<bool> {
    let mut too_many = false;
    let accepted = with_some_indeterminate(history, |chosen| {
        let live = |t: usize| chosen.contains(&t);
        let mut per_key: BTreeMap<&str, Vec<Vec<(usize, i64)>>> = BTreeMap::new();
        let mut keys: Vec<&str> = Vec::new();
        for txn in history {
            for op in &txn.ops {
                let key = match op {
                    MicroOp::Append { key, .. } | MicroOp::Read { key, .. } => key.as_str(),
                };
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        for &key in &keys {
            let appends: Vec<(usize, i64)> = chosen
                .iter()
                .flat_map(|&t| history[t].ops.iter().map(move |op| (t, op)))
                .filter_map(|(t, op)| match op {
                    MicroOp::Append { key: k, value } if k == key => Some((t, *value)),
                    _ => None,
                })
                .collect();
            let reads: Vec<&[i64]> = chosen
                .iter()
                .filter(|&&t| history[t].status == Status::Committed)
                .flat_map(|&t| history[t].ops.iter())
                .filter_map(|op| match op {
                    MicroOp::Read { key: k, values } if k == key => Some(values.as_slice()),
                    _ => None,
                })
                .collect();
            per_key.insert(key, orders(&appends, &reads));
        }
        let combinations: usize = per_key.values().map(Vec::len).product();
        if combinations > 20_000 {
            too_many = true;
            return false;
        }
        // Each transaction reads its own appends, and never another's intermediate state.
        for &t in chosen.iter().filter(|&&t| history[t].status == Status::Committed) {
            let mut own: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
            for op in &history[t].ops {
                match op {
                    MicroOp::Append { key, value } => own.entry(key).or_default().push(*value),
                    MicroOp::Read { key, values } => {
                        let mine = own.get(key.as_str()).cloned().unwrap_or_default();
                        let mut rest = values.iter();
                        if !mine.iter().all(|v| rest.any(|r| r == v)) {
                            return false;
                        }
                        if let Some(&last) = values.last() {
                            let writer = (0..history.len()).find(|&w| {
                                history[w].ops.iter().any(
                                    |o| matches!(o, MicroOp::Append { key: k, value } if k == key && *value == last),
                                )
                            });
                            let Some(w) = writer.filter(|&w| live(w)) else { return false };
                            let later = history[w]
                                .ops
                                .iter()
                                .skip_while(
                                    |o| !matches!(o, MicroOp::Append { key: k, value } if k == key && *value == last),
                                )
                                .skip(1);
                            if w != t && later.clone().any(|o| matches!(o, MicroOp::Append { key: k, .. } if k == key))
                            {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        let lists: Vec<&Vec<Vec<(usize, i64)>>> = per_key.values().collect();
        let mut pick = vec![0; lists.len()];
        loop {
            if lists.iter().any(|l| l.is_empty()) {
                return false;
            }
            let mut edges: Vec<(usize, usize)> = Vec::new();
            for (k, list) in lists.iter().enumerate() {
                let order = &list[pick[k]];
                edges.extend(order.windows(2).filter(|w| w[0].0 != w[1].0).map(|w| (w[0].0, w[1].0)));
                let key = per_key.keys().nth(k).unwrap();
                for &t in chosen.iter().filter(|&&t| history[t].status == Status::Committed) {
                    for op in &history[t].ops {
                        if let MicroOp::Read { key: rk, values } = op
                            && rk == key
                            && !values.is_empty()
                            && order[values.len() - 1].0 != t
                        {
                            edges.push((order[values.len() - 1].0, t));
                        }
                    }
                }
            }
            if acyclic(history.len(), &edges) {
                return true;
            }
            // Next combination.
            let mut k = 0;
            while k < lists.len() {
                pick[k] += 1;
                if pick[k] < lists[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
            if k == lists.len() {
                return false;
            }
        }
    });
    if accepted {
        Some(true)
    } else if too_many {
        None
    } else {
        Some(false)
    }
}

fn acyclic(n: usize, edges: &[(usize, usize)]) -> bool {
    // Repeatedly remove nodes without incoming edges.
    let mut indegree = vec![0; n];
    for &(_, b) in edges {
        indegree[b] += 1;
    }
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut removed = 0;
    while let Some(v) = ready.pop() {
        removed += 1;
        for &(a, b) in edges {
            if a == v {
                indegree[b] -= 1;
                if indegree[b] == 0 {
                    ready.push(b);
                }
            }
        }
    }
    removed == n
}

#[test]
fn read_committed_verdicts_agree_with_brute_force() {
    let mut rng = Rng(17);
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    for case in 0..20_000 {
        let history = random_history(&mut rng);
        let Some(expected) = read_committed(&history) else {
            skipped += 1;
            continue;
        };
        let found = txn::check(&history, Isolation::ReadCommitted).unwrap();
        assert_eq!(found.is_empty(), expected, "case {case}: {found:#?}\n{}", serde_json::to_string(&history).unwrap());
        if expected { accepted += 1 } else { rejected += 1 }
    }
    // 13,449 read committed, 6,550 not, 1 skipped.
    assert!(accepted > 5_000 && rejected > 5_000 && skipped < 100, "{accepted}, {rejected}, {skipped}");
}
