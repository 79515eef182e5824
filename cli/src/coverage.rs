//! What a run covered, as a set of feature numbers `seedfall explore`
//! compares across runs: each Go function a node group ran (the function
//! bitmap, docs/function-bitmap.md), each edge-map byte it set when its code
//! has one (`explore -edges`, docs/edge-coverage.md), each SDK property reached and each one
//! that held, and an abstract signature of what the world did to it: each
//! fault kind on each node group with its count in powers of two, which
//! kind followed which, and each kind with the host state it met
//! (`probes::FaultStates`: what a crash found pending on the disk, the
//! node's connections, whether it was cut off). A feature is a hash of its
//! description, so sets from forked children travel as numbers.

use seedfall_host::world::fault::Fault;
use seedfall_host::world::probes::{FaultState, FaultStates, FunctionsRan};
use seedfall_host::world::{NodeFunctions, Properties, RunResult, Target};
use std::collections::BTreeSet;

fn feature(parts: &[&[u8]]) -> u64 {
    let mut hasher = blake3::Hasher::new_derive_key("seedfall coverage feature v1");
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    u64::from_le_bytes(hasher.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
}

/// What of a run coverage reads: its own record and what its probes saw.
pub struct Observed<'r> {
    pub faults: &'r [Fault],
    pub properties: &'r Properties,
    pub functions: Vec<&'r NodeFunctions>,
    /// `probes::FaultStates`, in the order the faults were recorded.
    pub states: &'r [FaultState],
}

impl Observed<'_> {
    /// `run`, watched by `FunctionsRan` and `FaultStates` (without them it
    /// has no function, edge or state features).
    pub fn of(run: &RunResult) -> Observed<'_> {
        Observed {
            faults: &run.faults,
            properties: &run.properties,
            functions: FunctionsRan::of(&run.probes).collect(),
            states: FaultStates::of(&run.probes),
        }
    }
}

/// The features of `run`; `group` names a node by its config name (`n2` is `n`).
pub fn of(run: &Observed, group: impl Fn(&str) -> String) -> BTreeSet<u64> {
    let mut features = BTreeSet::new();
    for node in &run.functions {
        let name = group(&node.node);
        for (i, _) in node.ran.iter().enumerate().filter(|(_, ran)| **ran != 0) {
            features.insert(feature(&[b"fn", name.as_bytes(), &(i as u64).to_le_bytes()]));
        }
        for (i, _) in node.edges.iter().enumerate().filter(|(_, ran)| **ran != 0) {
            features.insert(feature(&[b"edge", name.as_bytes(), &(i as u64).to_le_bytes()]));
        }
    }
    for (message, seen) in run.properties {
        features.insert(feature(&[b"reached", message.as_bytes()]));
        if seen.ever_true {
            features.insert(feature(&[b"held", message.as_bytes()]));
        }
    }
    features.extend(of_faults(run, &group).into_iter().flatten());
    let mut per_target: std::collections::BTreeMap<(String, &str), u32> = Default::default();
    for f in run.faults {
        *per_target.entry((target(f, &group), f.kind.name())).or_default() += 1;
    }
    // Each kind on each node group, and how many times (1, 2, 3-4, 5-8, …).
    for ((target, kind), count) in per_target {
        let bucket = (32 - count.leading_zeros()).to_le_bytes();
        features.insert(feature(&[b"fault", kind.as_bytes(), target.as_bytes()]));
        features.insert(feature(&[b"faults", kind.as_bytes(), target.as_bytes(), &bucket]));
    }
    features
}

/// The features each fault of `run` brought, in the run's order: each part
/// of the host state it met, and the kind it followed. `explore` branches
/// just after the faults whose features are rarest.
pub fn of_faults(run: &Observed, group: impl Fn(&str) -> String) -> Vec<Vec<u64>> {
    run.faults
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let target = target(f, &group);
            // One feature per part of the state, not one per combination: the
            // combinations would keep a clean config from ever reaching a plateau.
            let mut features: Vec<u64> = run
                .states
                .get(i)
                .into_iter()
                .flat_map(FaultState::parts)
                .map(|part| feature(&[b"met", f.kind.name().as_bytes(), target.as_bytes(), part.as_bytes()]))
                .collect();
            if let Some(before) = i.checked_sub(1).map(|j| &run.faults[j]) {
                features.push(feature(&[b"then", before.kind.name().as_bytes(), f.kind.name().as_bytes()]));
            }
            features
        })
        .collect()
}

/// The node group a fault hit, or `cluster` for one on the network.
fn target(f: &Fault, group: impl Fn(&str) -> String) -> String {
    match &f.target {
        Target::Node(name) => group(name),
        Target::Groups { .. } | Target::Link { .. } => "cluster".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_host::world::probes::{CrashState, NetState};

    fn observed<'r>(faults: &'r [Fault], functions: Vec<&'r NodeFunctions>, states: &'r [FaultState]) -> Observed<'r> {
        static NONE: Properties = Properties::new();
        Observed { faults, properties: &NONE, functions, states }
    }

    #[test]
    fn functions_are_features_of_their_group() {
        let mut nodes = [
            NodeFunctions { node: "n1".into(), ran: vec![1, 0, 1], edges: vec![] },
            NodeFunctions { node: "n2".into(), ran: vec![1, 1, 0], edges: vec![] },
        ];
        let group = |n: &str| n.trim_end_matches(char::is_numeric).to_string();
        let features = of(&observed(&[], nodes.iter().collect(), &[]), group);
        assert_eq!(features.len(), 3, "functions 0, 1 and 2 of group n");
        let apart = of(&observed(&[], nodes.iter().collect(), &[]), |n: &str| n.to_string());
        assert_eq!(apart.len(), 4, "without groups, n1 and n2 are two programs");
        nodes[0].edges = vec![0, 1, 1, 0];
        nodes[1].edges = vec![0, 1, 0, 1];
        let with_edges = of(&observed(&[], nodes.iter().collect(), &[]), group);
        assert_eq!(with_edges.len(), 3 + 3, "edges 1, 2 and 3 of group n, apart from its functions");
    }

    #[test]
    fn each_part_of_the_state_a_fault_met_is_a_feature() {
        use seedfall_host::vtime::SimTime;
        use seedfall_host::world::fault::{Fault, Kind};
        let faults = [Fault::on_node(SimTime::ZERO, Kind::from_name("crash_io").expect("registered"), "server")];
        let met = |torn: Option<bool>| {
            let crash = CrashState { during: "write", pending_files: 1, torn: false, lost: false, vanished: 0 };
            let states: Vec<FaultState> = torn
                .map(|torn| FaultState {
                    crash: Some(CrashState { torn, ..crash }),
                    net: NetState::Node { conns: 2, cut: false },
                })
                .into_iter()
                .collect();
            of(&observed(&faults, vec![], &states), str::to_string)
        };
        let a = met(Some(false));
        let b = met(Some(true));
        assert_eq!(a.len(), b.len(), "the same parts, one different");
        assert_eq!(a.symmetric_difference(&b).count(), 2, "torn=false against torn=true, and nothing else");
        let unknown = met(None);
        assert_eq!(unknown.len() + 8, a.len(), "eight parts, eight features");
    }
}
