//! Clogs (contract rule 5b): a rule on one directed link that holds its
//! traffic until the clog ends (`Stop`), holds it and then delivers it in
//! one burst (`Jam`), or slows it (`Slow`). Partitions are rules on links
//! too (`fault.rs`); a link is held while either holds it. *When* a clog
//! starts and ends is the run's fault schedule's business.

use super::{Net, NetEvent, NodeId};

/// How a clog treats the traffic on its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clog {
    /// Held until the clog ends, then delivered as after a heal.
    Stop,
    /// Held until the clog ends, then delivered all at once.
    Jam,
    /// Delivered this many nanoseconds later than it would be.
    Slow(u64),
}

impl Clog {
    pub(super) fn holds(self) -> bool {
        matches!(self, Clog::Stop | Clog::Jam)
    }
}

impl Net {
    /// Clogs the link `from` → `to` at `now_ns`, replacing a clog already
    /// on it (whose held traffic stays held if the new one holds too).
    pub fn clog(&mut self, from: NodeId, to: NodeId, clog: Clog, now_ns: u64) {
        self.unclog(from, to, now_ns);
        let was_held = self.holds((from, to));
        self.clogged.insert((from, to), clog);
        let held = if clog.holds() && !was_held { self.hold_link(from, to, now_ns) } else { 0 };
        self.events.push(NetEvent::Clog { at_ns: now_ns, from, to, clog, held });
    }

    /// Ends the clog on `from` → `to`: what it held is released (in a burst
    /// for a `Jam`) unless a partition still holds the link. Unclogging a
    /// link without a clog does nothing.
    pub fn unclog(&mut self, from: NodeId, to: NodeId, now_ns: u64) {
        self.advance(now_ns);
        let Some(clog) = self.clogged.remove(&(from, to)) else { return };
        let released = if clog.holds() && !self.holds((from, to)) {
            self.release_link(from, to, now_ns, clog == Clog::Jam)
        } else {
            0
        };
        self.events.push(NetEvent::Unclog { at_ns: now_ns, from, to, released });
    }

    /// The latency a `Slow` clog on the link adds.
    pub(super) fn clog_latency_ns(&self, link: (NodeId, NodeId)) -> u64 {
        match self.clogged.get(&link) {
            Some(Clog::Slow(extra_ns)) => *extra_ns,
            _ => 0,
        }
    }
}
