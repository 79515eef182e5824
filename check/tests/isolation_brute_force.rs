//! The isolation checker against brute-force oracles on thousands of small random list-append histories,
//! for serializability (every serial order of the committed transactions, with or without each
//! indeterminate one) and snapshot isolation (every interleaving of their starts and commits, reads from
//! the snapshot at the start, first committer wins), each executed with the oracle's own list-append
//! semantics, independent of the crate. The checker must report an anomaly the level forbids exactly
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
fn with_some_indeterminate(history: &[Txn], executes: impl Fn(&[usize]) -> bool) -> bool {
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
