//! How chatty each node is: per node, its host calls (preemption hooks
//! included) and how many of its scheduler steps made 0, 1, 2-3, 4-7, …
//! of them. `seedfall replay` prints it after the run: a node whose steps
//! make thousands of calls is where a run's time goes, and one that makes
//! none is spinning or parked. Counted from the watchdog's running total,
//! which only the running node moves.

use crate::world::event::Who;
use crate::world::probe::{Probe, Probes, View};
use std::collections::BTreeMap;

/// One node's count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeCalls {
    pub calls: u64,
    pub steps: u64,
    /// `per_step[b]`: the steps that made a count in bucket `b` (0, 1, 2-3, 4-7, …).
    pub per_step: Vec<u64>,
}

/// The probe: per node name, its calls.
#[derive(Default)]
pub struct HostCalls {
    nodes: BTreeMap<String, NodeCalls>,
    seen: u64,
}

impl HostCalls {
    /// What `probes`' `HostCalls` counted (nothing when it is not installed).
    pub fn of(probes: &Probes) -> impl Iterator<Item = (&str, &NodeCalls)> {
        probes.get::<HostCalls>().into_iter().flat_map(|p| p.nodes.iter().map(|(n, c)| (n.as_str(), c)))
    }
}

/// 0, 1, 2-3, 4-7, …: a count's power-of-two bucket.
fn bucket(n: u64) -> usize {
    (u64::BITS - n.leading_zeros()) as usize
}

fn bucket_name(b: usize) -> String {
    match b {
        0 | 1 => b.to_string(),
        _ => format!("{}-{}", 1u64 << (b - 1), (1u64 << b) - 1),
    }
}

impl Probe for HostCalls {
    fn ran(&mut self, world: &View, who: &Who, _stdout: &[u8], _stderr: &[u8]) {
        let total = world.host_calls();
        let made = total - self.seen;
        self.seen = total;
        let node = self.nodes.entry(who.name.clone()).or_default();
        node.calls += made;
        node.steps += 1;
        let b = bucket(made);
        if node.per_step.len() <= b {
            node.per_step.resize(b + 1, 0);
        }
        node.per_step[b] += 1;
    }

    fn summary(&self) -> Vec<String> {
        let line = |(name, c): (&String, &NodeCalls)| {
            let buckets: Vec<String> = (c.per_step.iter().enumerate())
                .filter(|(_, n)| **n > 0)
                .map(|(b, n)| format!("{}:{n}", bucket_name(b)))
                .collect();
            format!(
                "host calls: {name} made {} in {} steps; steps by calls made {}",
                c.calls,
                c.steps,
                buckets.join(" ")
            )
        };
        self.nodes.iter().map(line).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::tests::{sleeper, spec, workload};
    use crate::world::{probes, run_probed};

    #[test]
    fn buckets_are_powers_of_two() {
        let names: Vec<String> = [0, 1, 2, 3, 4, 7, 8].iter().map(|&n| bucket_name(bucket(n))).collect();
        assert_eq!(names, ["0", "1", "2-3", "2-3", "4-7", "4-7", "8-15"]);
    }

    #[test]
    fn every_step_of_a_node_is_counted_with_its_calls() {
        let s = spec(1, vec![workload(sleeper(3, 10))]);
        let run = run_probed(&s, None, probes::all()).expect("no engine error");
        let counted: Vec<(&str, &NodeCalls)> = HostCalls::of(&run.probes).collect();
        assert_eq!(counted.len(), 1, "{counted:?}");
        let (name, calls) = counted[0];
        assert_eq!(name, "client");
        assert_eq!(calls.steps, run.steps, "the only node made every step");
        assert_eq!(calls.calls, run.timings.host_calls, "and every call");
        assert_eq!(calls.per_step.iter().sum::<u64>(), calls.steps);
        let summary = run.probes.summaries();
        assert!(summary.iter().any(|l| l.starts_with("host calls: client made ")), "{summary:?}");
    }
}
