//! The isolation checker against a brute-force oracle for serializability on thousands of small random
//! list-append histories: the oracle tries every serial order of the committed transactions, with or
//! without each indeterminate one, and executes it (its own list-append semantics, independent of the
//! crate). Every anomaly the checker reports must be real (no serial order exists), and every history
//! the oracle rejects must show the checker an anomaly. Histories come from a fixed-seed generator.

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

fn oracle(history: &[Txn]) -> bool {
    let committed: Vec<usize> = (0..history.len()).filter(|&t| history[t].status == Status::Committed).collect();
    let optional: Vec<usize> = (0..history.len()).filter(|&t| history[t].status == Status::Indeterminate).collect();
    // Every subset of the indeterminate transactions, each time every order of all chosen.
    (0..1u32 << optional.len()).any(|mask| {
        let mut chosen = committed.clone();
        chosen.extend(optional.iter().enumerate().filter(|&(i, _)| mask & (1 << i) != 0).map(|(_, &t)| t));
        permutations(history, &mut Vec::new(), &chosen)
    })
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
    let mut rng = Rng(11);
    let (mut passed, mut failed) = (0, 0);
    for case in 0..40000 {
        let history = random_history(&mut rng);
        let found = txn::check(&history, Isolation::Serializable).unwrap();
        let expected = oracle(&history);
        assert_eq!(found.is_empty(), expected, "case {case}: {found:#?}\n{}", serde_json::to_string(&history).unwrap());
        if expected { passed += 1 } else { failed += 1 }
    }
    // 22,978 and 17,022: both outcomes are common, so the comparison means something either way.
    assert!(passed > 10_000 && failed > 10_000, "{passed} serializable, {failed} not");
}
