//! The datagram fault policy of a run (UDP contract rule U7 in `udp.rs`):
//! which datagrams are lost (`udp_loss`) and which are duplicated
//! (`udp_dup`), decided per datagram by its link (from, to) and its number
//! on that link, drawn from seeded streams or replayed from a list; and the
//! log of every fault injected, so the world can record it in the run's
//! schedule (`world/fault/udp.rs`). *What* a lost or duplicated datagram
//! does is `udp.rs`'s business; this file only decides.
//!
//! Streams are per link and per kind (DESIGN.md §5): the decision streams
//! draw exactly once per datagram whatever the other kind decided, so the
//! n-th draw always belongs to datagram n, and switching one kind off or
//! removing traffic on another link never shifts a decision. A duplicate's
//! latency comes from a stream of its own (one draw per duplicate), not the
//! network's latency stream, so removing a duplicate while shrinking leaves
//! every other latency alone; it is recorded with the fault, so a replay
//! needs no stream at all.

use super::NodeId;
use crate::random::{Draw, Purpose, RandomStream};
use crate::vtime::{SimDuration, SimTime};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The schedule names of the two kinds (also their streams' labels).
pub const LOSS: &str = "udp_loss";
pub const DUP: &str = "udp_dup";

/// What happens to one datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagramFaultKind {
    /// Dropped when sent.
    Loss,
    /// Sent twice; the copy is delivered `latency` after the send (plus
    /// whatever a slow node or a slow clog adds), independently of the first.
    Dup { latency: SimDuration },
}

/// One injected fault: the datagram it hit, by link and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DatagramFault {
    pub from: NodeId,
    pub to: NodeId,
    /// The datagram's number on its link, from 1.
    pub n: u64,
    /// When it was sent (for people: replay looks at the link and `n`).
    pub at: SimTime,
    pub kind: DatagramFaultKind,
}

/// The streams of one link.
struct LinkStreams {
    loss: RandomStream,
    dup: RandomStream,
    dup_latency: RandomStream,
}

enum Source {
    /// Drawn with these probabilities; streams made per link on first use.
    Drawn {
        seed: u64,
        loss: f64,
        dup: f64,
        latency: (SimDuration, SimDuration),
        links: BTreeMap<(NodeId, NodeId), LinkStreams>,
    },
    /// Exactly these, by (from, to, n).
    Replay(BTreeMap<(NodeId, NodeId, u64), DatagramFaultKind>),
}

pub struct DatagramFaults {
    source: Source,
    /// Datagrams sent so far on each link, faulted or not.
    sent: BTreeMap<(NodeId, NodeId), u64>,
    log: Vec<DatagramFault>,
    /// When set, faults are injected only while it is open (the world's
    /// phases); decisions are drawn either way, so a quiet window never
    /// shifts a later one.
    gate: Option<Rc<Cell<bool>>>,
}

impl Default for DatagramFaults {
    fn default() -> DatagramFaults {
        DatagramFaults::replay(&[])
    }
}

impl DatagramFaults {
    /// Drawn: loss with probability `loss`, duplication with `dup`, a
    /// duplicate's latency uniform in `latency`; streams of `seed`.
    pub fn drawn(seed: u64, loss: f64, dup: f64, latency: (SimDuration, SimDuration)) -> DatagramFaults {
        DatagramFaults::with(Source::Drawn { seed, loss, dup, latency, links: BTreeMap::new() })
    }

    /// Exactly `faults` (a log from an earlier run, or a shrunk schedule);
    /// a datagram listed as both lost and duplicated is lost.
    pub fn replay(faults: &[DatagramFault]) -> DatagramFaults {
        let mut by_key = BTreeMap::new();
        for f in faults {
            let slot = by_key.entry((f.from, f.to, f.n)).or_insert(f.kind);
            if f.kind == DatagramFaultKind::Loss {
                *slot = f.kind;
            }
        }
        DatagramFaults::with(Source::Replay(by_key))
    }

    fn with(source: Source) -> DatagramFaults {
        DatagramFaults { source, sent: BTreeMap::new(), log: Vec::new(), gate: None }
    }

    /// Injects faults only while `gate` is open.
    pub fn gated(mut self, gate: Rc<Cell<bool>>) -> DatagramFaults {
        self.gate = Some(gate);
        self
    }

    /// Every fault injected so far, in order.
    pub fn log(&self) -> &[DatagramFault] {
        &self.log
    }

    /// Numbers one datagram sent on `(from, to)` at `now` and decides
    /// its fate (None: delivered as usual). Each end comes with its node's
    /// name, the label of the link's streams.
    pub(super) fn decide(
        &mut self,
        from: (NodeId, &str),
        to: (NodeId, &str),
        now: SimTime,
    ) -> Option<DatagramFaultKind> {
        let link = (from.0, to.0);
        let n = {
            let count = self.sent.entry(link).or_insert(0);
            *count += 1;
            *count
        };
        let kind = match &mut self.source {
            Source::Drawn { seed, loss, dup, latency, links } => {
                let streams = links.entry(link).or_insert_with(|| {
                    let label = format!("{}->{}", from.1, to.1);
                    let stream = |kind| RandomStream::new(*seed, Purpose::Fault(kind, Draw::Datagrams), &label, 0);
                    LinkStreams {
                        loss: stream(LOSS),
                        dup: stream(DUP),
                        dup_latency: RandomStream::new(*seed, Purpose::Fault(DUP, Draw::Amounts), &label, 0),
                    }
                });
                let lost = streams.loss.chance(*loss);
                let doubled = streams.dup.chance(*dup);
                if lost {
                    Some(DatagramFaultKind::Loss)
                } else if doubled {
                    {
                        let drawn = streams.dup_latency.between(latency.0.ns(), latency.1.ns());
                        Some(DatagramFaultKind::Dup { latency: SimDuration::from_ns(drawn) })
                    }
                } else {
                    None
                }
            }
            Source::Replay(faults) => faults.get(&(link.0, link.1, n)).copied(),
        };
        let kind = kind.filter(|_| self.gate.as_ref().is_none_or(|g| g.get()))?;
        self.log.push(DatagramFault { from: link.0, to: link.1, n, at: now, kind });
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: (NodeId, &str) = (NodeId::new(0), "a");
    const B: (NodeId, &str) = (NodeId::new(1), "b");

    fn fates(faults: &mut DatagramFaults, count: usize) -> Vec<Option<DatagramFaultKind>> {
        (0..count).map(|i| faults.decide(A, B, SimTime::from_ns(i as u64))).collect()
    }

    #[test]
    fn drawn_decisions_are_per_link_and_number_and_replay_exactly() {
        let mut drawn = DatagramFaults::drawn(4, 0.2, 0.2, (SimDuration::from_ns(10), SimDuration::from_ns(20)));
        let seen = fates(&mut drawn, 200);
        assert!(seen.contains(&Some(DatagramFaultKind::Loss)));
        assert!(
            seen.iter()
                .any(|f| matches!(f, Some(DatagramFaultKind::Dup { latency }) if (10..=20).contains(&latency.ns())))
        );
        assert_eq!(
            fates(&mut DatagramFaults::drawn(4, 0.2, 0.2, (SimDuration::from_ns(10), SimDuration::from_ns(20))), 200),
            seen,
            "same seed, same fates"
        );
        let mut replayed = DatagramFaults::replay(drawn.log());
        assert_eq!(fates(&mut replayed, 200), seen, "the log replays exactly");
        assert_eq!(replayed.log(), drawn.log());
    }

    #[test]
    fn switching_duplication_off_leaves_every_loss_where_it_was() {
        let losses = |dup| {
            let mut f = DatagramFaults::drawn(9, 0.3, dup, (SimDuration::from_ns(1), SimDuration::from_ns(1)));
            fates(&mut f, 100).iter().map(|k| *k == Some(DatagramFaultKind::Loss)).collect::<Vec<_>>()
        };
        assert_eq!(losses(0.0), losses(0.5));
    }

    #[test]
    fn a_closed_gate_injects_nothing_but_keeps_counting() {
        let gate = Rc::new(Cell::new(false));
        let loss = DatagramFault { from: A.0, to: B.0, n: 2, at: SimTime::ZERO, kind: DatagramFaultKind::Loss };
        let mut f = DatagramFaults::replay(&[loss]).gated(gate.clone());
        assert_eq!(f.decide(A, B, SimTime::ZERO), None);
        assert_eq!(f.decide(A, B, SimTime::ZERO), None, "datagram 2 falls in the closed gate");
        gate.set(true);
        let mut f = DatagramFaults::replay(&[loss]).gated(gate);
        assert_eq!(fates(&mut f, 3), [None, Some(DatagramFaultKind::Loss), None]);
        assert_eq!(f.log()[0].n, 2);
    }
}
