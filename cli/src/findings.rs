//! Findings: a sweep's failing seeds grouped by what failed, by the rule
//! shrink uses for "fails the same way" (`Failure::signature` of a seed's
//! first failure: class, node, property, message with numbers left out),
//! the node named by its config name (`n` for `n2`, the second node of a
//! `count`). A finding's id is derived from that signature alone, so it is
//! the same in every run, on every machine. Status across runs is
//! `finding_history.rs`'s business; this file only groups one tally.

use crate::report::Tally;
use seedfall_host::world::Failure;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One distinct failure of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// `f` and the first 8 hex digits of blake3(signature).
    pub id: String,
    pub signature: String,
    pub class: String,
    /// The node's config name, without `#k` or a `count` index.
    pub node: String,
    /// The first failure of the lowest failing seed, as printed.
    pub message: String,
    /// In seed order.
    pub failing_seeds: Vec<u64>,
    /// The failing seed with the fewest scheduler steps (the lowest on a
    /// tie): steps, never real time, so shards merged give the same seed.
    pub fastest_seed: u64,
}

impl Finding {
    pub fn lowest_seed(&self) -> u64 {
        self.failing_seeds[0]
    }
}

/// The id of a finding of `signature`.
pub fn id(signature: &str) -> String {
    format!("f{}", &blake3::hash(signature.as_bytes()).to_hex()[..8])
}

/// The findings of `tally`, in the order of their lowest seeds; `group`
/// names a node by its config name.
pub fn group(tally: &Tally, group: impl Fn(&str) -> String) -> Vec<Finding> {
    let mut found: Vec<Finding> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (seed, (failures, _, steps, _)) in &tally.failed {
        let Some(first) = failures.first() else { continue };
        let node = group(&first.node);
        let signature = Failure { node: node.clone(), ..first.clone() }.signature();
        match index.get(&signature) {
            Some(&i) => {
                let finding = &mut found[i];
                finding.failing_seeds.push(*seed);
                let fastest_steps = tally.failed[&finding.fastest_seed].2;
                if *steps < fastest_steps {
                    finding.fastest_seed = *seed;
                }
            }
            None => {
                index.insert(signature.clone(), found.len());
                found.push(Finding {
                    id: id(&signature),
                    class: first.class.name().to_string(),
                    node,
                    message: first.to_string(),
                    signature,
                    failing_seeds: vec![*seed],
                    fastest_seed: *seed,
                });
            }
        }
    }
    found
}

/// `seedfall replay` of `seed` of the config at `config` (shell-quoted).
pub fn replay_command(config: &str, seed: u64) -> String {
    crate::shell::replay(config, seed, None)
}

/// The findings table: one line per finding (id, status, seeds failing of
/// those run, lowest seed, message), then its replay command. `status`
/// gives each finding's status word ("" when no history was kept).
pub fn table(findings: &[Finding], seeds: u64, config: &str, status: impl Fn(&Finding) -> String) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut out = format!("findings: {}\n", findings.len());
    out.push_str(&format!("  {:<10} {:<10} {:>9}  {:>7}  message\n", "id", "status", "seeds", "lowest"));
    for f in findings {
        let share = format!("{}/{seeds}", f.failing_seeds.len());
        let message = crate::terminal::escape(&f.message);
        out.push_str(&format!("  {:<10} {:<10} {share:>9}  {:>7}  {message}\n", f.id, status(f), f.lowest_seed()));
        out.push_str(&format!("  {:<10} replay: {}\n", "", replay_command(config, f.lowest_seed())));
    }
    out
}

/// A finding as the `--json` document and the report list it (DESIGN.md §1's
/// names); `status` and `history` come from the findings history.
pub fn json(finding: &Finding, config: &str, status: Option<&str>, history: Value) -> Value {
    json!({
        "id": finding.id,
        "status": status,
        "class": finding.class,
        "node": finding.node,
        "message": finding.message,
        "signature": finding.signature,
        "count": finding.failing_seeds.len(),
        "failing_seeds": finding.failing_seeds,
        "lowest_seed": finding.lowest_seed(),
        "fastest_seed": finding.fastest_seed,
        "replay": replay_command(config, finding.lowest_seed()),
        "history": history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::Class;
    use std::time::Duration;

    fn failure(node: &str, message: &str) -> Failure {
        Failure {
            class: Class::Property,
            node: node.into(),
            incarnation: 3,
            property: None,
            message: message.into(),
            at_ns: None,
        }
    }

    fn tally(seeds: &[(u64, Failure, u64)]) -> Tally {
        let mut tally = Tally::default();
        for (seed, failure, steps) in seeds {
            tally.failed.insert(*seed, (vec![failure.clone()], 0, *steps, Duration::ZERO));
        }
        tally
    }

    /// A count's nodes are one node to a finding.
    fn by_base(node: &str) -> String {
        node.trim_end_matches(|c: char| c.is_ascii_digit()).to_string()
    }

    #[test]
    fn seeds_failing_the_same_way_are_one_finding_numbers_and_count_indexes_aside() {
        let lost = |n: u32| failure(&format!("n{n}"), &format!("entry {n} lost"));
        let t = tally(&[
            (4, lost(2), 90),
            (7, failure("client", "stale read"), 50),
            (9, lost(3), 40),
            (12, lost(1), 40),
            (15, failure("client", "stale read of 7"), 60),
        ]);
        let found = group(&t, by_base);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].failing_seeds, [4, 9, 12], "entry N lost on any n");
        assert_eq!((found[0].node.as_str(), found[0].lowest_seed()), ("n", 4));
        assert_eq!(found[0].fastest_seed, 9, "the fewest steps, the lower seed on a tie");
        assert_eq!(found[0].message, "n2#3: entry 2 lost", "the lowest seed's failure");
        assert_eq!((found[1].failing_seeds.as_slice(), found[2].failing_seeds.as_slice()), (&[7][..], &[15][..]));
        assert_ne!(found[1].id, found[2].id, "\"stale read\" and \"stale read of N\" differ");
        assert_eq!(found[0].id, group(&tally(&[(1, lost(5), 1)]), by_base)[0].id, "the id is the signature's");
    }

    #[test]
    fn the_table_names_each_finding_once_with_its_replay() {
        let t = tally(&[(3, failure("client", "lost 1"), 5), (8, failure("client", "lost 2"), 5)]);
        let found = group(&t, by_base);
        let text = table(&found, 20, "kv.json", |_| "new".into());
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(
            text.contains(&format!("  {:<10} new             2/20        3  client#3: lost 1", found[0].id)),
            "{text}"
        );
        assert!(text.contains("replay: seedfall replay -c kv.json -seed 3"), "{text}");
        assert_eq!(table(&[], 20, "kv.json", |_| String::new()), "", "nothing failed: no table");
    }
}
