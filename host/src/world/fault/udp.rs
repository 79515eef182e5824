//! The datagram kinds, as data: `udp_loss` (a datagram vanishes when sent)
//! and `udp_dup` (it is sent twice, the copy with a latency of its own;
//! the net contract is `net/udp.rs`, rule U7). Both are probabilities of
//! the `faults` config, decided for every datagram sent between two
//! distinct nodes (the workload included: they are rules on one direction
//! of a link, like partitions and clogs) from streams of that link
//! (`net/udp_fault.rs`), and only while faults may act (the phases gate).
//!
//! Each occurrence is recorded in the schedule with its link and the
//! datagram's number on it, counted from 1 for the run (`op`, "datagram
//! n"; `at` is for people), and a duplicate with its copy's `latency`; a
//! schedule's entries are handed back to the network to inject at the same
//! numbers, so they replay exactly and shrink by removal (nothing else to
//! simplify: the datagram is the fault). In schedules: `"node"` (the
//! sender), `"to"`, `"op"`, and for `udp_dup` `"latency"`.

use super::{
    Fault, FaultConfig, FaultJsonError, FaultKind, Kind, Knob, PlanContext, Planned, Simplify, Target, Trigger,
};
use crate::net::{DatagramFault, DatagramFaultKind, DatagramFaults, udp_fault};
use crate::node_id::PerNode;
use crate::vtime::SimDuration;
use serde_json::{Map, Value, json};

/// One datagram kind.
pub struct Datagram {
    name: &'static str,
    dup: bool,
    /// Its one knob, its probability.
    knobs: &'static [&'static Knob],
}

pub static LOSS: Knob = Knob::probability("udp_loss", "per datagram between two nodes: the probability it is lost");
pub static DUP: Knob = Knob::probability("udp_dup", "per datagram between two nodes: the probability it is sent twice");

pub static UDP_LOSS: Datagram = Datagram { name: udp_fault::LOSS, dup: false, knobs: &[&LOSS] };
pub static UDP_DUP: Datagram = Datagram { name: udp_fault::DUP, dup: true, knobs: &[&DUP] };

/// Nothing to plan: the network draws, the world records (`recorded`).
struct Drawn;
impl Planned for Drawn {}

impl FaultKind for Datagram {
    fn name(&self) -> &'static str {
        self.name
    }

    fn trigger(&self) -> Trigger {
        Trigger::Datagram
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        self.knobs
    }

    /// The network's datagram policy draws these, fixed when the run begins.
    fn boostable(&self) -> bool {
        false
    }

    fn plan(&self, _ctx: &PlanContext, _replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        Box::new(Drawn)
    }

    fn amount_field(&self) -> Option<&'static str> {
        self.dup.then_some("latency")
    }

    fn detail(&self, fault: &Fault) -> String {
        match fault.amount {
            Some(ns) if self.dup => format!("copy after {}", crate::vtime::go_signed_duration(ns)),
            _ => String::new(),
        }
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["to"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let Target::Link { from, to } = &fault.target {
            o.insert("node".into(), json!(from));
            o.insert("to".into(), json!(to));
        }
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        let Target::Node(from) = fault.target.clone() else { unreachable!("read_common gives a node") };
        let needs = |field, hint| FaultJsonError::needs(format!("{} fault", self.name), field, hint);
        let to = o.get("to").and_then(Value::as_str).ok_or_else(|| needs("to", ", the receiving node"))?;
        if from.is_empty() {
            return Err(needs("node", ", the sending node"));
        }
        if self.dup && fault.amount.is_none_or(|ns| ns < 0) {
            return Err(FaultJsonError::Rule("a udp_dup fault needs a `latency` of at least 0s"));
        }
        fault.target = Target::Link { from, to: to.to_string() };
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify::default()
    }
}

/// The network's datagram fault policy for one run: exactly the
/// schedule's entries when replaying, else drawn with the (post-swarm)
/// probabilities, a duplicate's latency uniform in `latency` (the
/// network's `net_latency`, so a copy travels like any datagram).
pub fn policy(
    seed: u64,
    config: &FaultConfig,
    latency: (SimDuration, SimDuration),
    names: &PerNode<&str>,
    schedule: Option<&[Fault]>,
) -> DatagramFaults {
    match schedule {
        Some(schedule) => DatagramFaults::replay(&replayed(schedule, names)),
        // Nothing to draw: skip the per-datagram draws altogether.
        None if config.number(&LOSS) == 0.0 && config.number(&DUP) == 0.0 => DatagramFaults::replay(&[]),
        None => DatagramFaults::drawn(seed, config.number(&LOSS), config.number(&DUP), latency),
    }
}

/// What a recorded datagram fault did, for the replay log.
pub fn effect(fault: &Fault) -> String {
    let n = fault.op.unwrap_or(0);
    match fault.amount {
        Some(ns) if fault.kind == Kind::of(&UDP_DUP) => {
            format!("datagram {n} sent twice, the copy after {}", crate::vtime::go_signed_duration(ns))
        }
        _ => format!("datagram {n} lost"),
    }
}

/// The schedule entry of a datagram fault the network injected.
pub fn recorded(f: &DatagramFault, names: &PerNode<&str>) -> Fault {
    let (kind, amount) = match f.kind {
        DatagramFaultKind::Loss => (Kind::of(&UDP_LOSS), None),
        DatagramFaultKind::Dup { latency } => (Kind::of(&UDP_DUP), Some(latency.ns() as i64)),
    };
    let mut fault = Fault::on_node(f.at, kind, "");
    fault.target = Target::Link { from: names[f.from].into(), to: names[f.to].into() };
    fault.op = Some(f.n);
    fault.amount = amount;
    fault
}

/// What a schedule's datagram faults are to the network: each with its
/// link by `NodeId` (a name the cluster lacks drops the entry).
pub fn replayed(schedule: &[Fault], names: &PerNode<&str>) -> Vec<DatagramFault> {
    let id = |name: &str| names.position(|n| *n == name);
    schedule
        .iter()
        .filter_map(|f| {
            let Target::Link { from, to } = &f.target else { return None };
            let kind = match f.kind.name() {
                udp_fault::LOSS => DatagramFaultKind::Loss,
                udp_fault::DUP => DatagramFaultKind::Dup { latency: SimDuration::from_ns(f.amount?.max(0) as u64) },
                _ => return None,
            };
            Some(DatagramFault { from: id(from)?, to: id(to)?, n: f.op?, at: f.at, kind })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node_id::NodeId;
    use crate::vtime::SimTime;

    #[test]
    fn a_recorded_datagram_fault_round_trips_through_the_schedule_file() {
        let names: PerNode<&str> = ["a", "b"].into_iter().collect();
        for kind in [DatagramFaultKind::Loss, DatagramFaultKind::Dup { latency: SimDuration::from_ns(1_500_000) }] {
            let f = DatagramFault {
                from: NodeId::new(1),
                to: NodeId::new(0),
                n: 7,
                at: SimTime::from_ns(1_000_000_000),
                kind,
            };
            let fault = recorded(&f, &names);
            let back = Fault::from_json(&fault.to_json()).unwrap();
            assert_eq!(back, fault);
            assert_eq!(replayed(&[back], &names), [f]);
        }
        let line = recorded(
            &DatagramFault {
                from: NodeId::new(0),
                to: NodeId::new(1),
                n: 3,
                at: SimTime::ZERO,
                kind: DatagramFaultKind::Loss,
            },
            &names,
        )
        .describe();
        assert!(line.contains("udp_loss") && line.contains("a -> b") && line.ends_with("at datagram 3"), "{line}");
    }

    #[test]
    fn schedule_entries_say_what_is_wrong_with_them() {
        let err = |text: &str| Fault::from_json(&serde_json::from_str(text).unwrap()).unwrap_err().to_string();
        assert!(err(r#"{"kind": "udp_loss", "node": "a", "op": 1}"#).contains("`to`"));
        assert!(err(r#"{"kind": "udp_loss", "node": "a", "to": "b"}"#).contains("`op`"));
        assert!(err(r#"{"kind": "udp_dup", "node": "a", "to": "b", "op": 2}"#).contains("`latency`"));
    }
}
