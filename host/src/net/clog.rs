//! Clogs (contract rule 5b): a rule on one directed link that holds its
//! traffic until the clog ends (`Stop`), holds it and then delivers it in
//! one burst (`Jam`), or slows it (`Slow`). Partitions are rules on links
//! too (`fault.rs`); a link is held while either holds it. *When* a clog
//! starts and ends is the run's fault schedule's business.

use super::{Net, NetEvent, NodeId};
use crate::vtime::{SimDuration, SimTime};

/// How a clog treats the traffic on its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clog {
    /// Held until the clog ends, then delivered as after a heal.
    Stop,
    /// Held until the clog ends, then delivered all at once.
    Jam,
    /// Delivered this much later than it would be.
    Slow(SimDuration),
}

impl Clog {
    pub(super) fn holds(self) -> bool {
        matches!(self, Clog::Stop | Clog::Jam)
    }
}

impl Net {
    /// Clogs the link `from` → `to` at `now`, replacing a clog already
    /// on it (whose held traffic stays held if the new one holds too).
    pub fn clog(&mut self, from: NodeId, to: NodeId, clog: Clog, now: SimTime) {
        self.unclog(from, to, now);
        let was_held = self.holds((from, to));
        self.clogged.insert((from, to), clog);
        let held = if clog.holds() && !was_held { self.hold_link(from, to, now) } else { 0 };
        self.events.push(NetEvent::Clog { at: now, from, to, clog, held });
    }

    /// Ends the clog on `from` → `to`: what it held is released (in a burst
    /// for a `Jam`) unless a partition still holds the link. Unclogging a
    /// link without a clog does nothing.
    pub fn unclog(&mut self, from: NodeId, to: NodeId, now: SimTime) {
        self.advance(now);
        let Some(clog) = self.clogged.remove(&(from, to)) else { return };
        let released = if clog.holds() && !self.holds((from, to)) {
            self.release_link(from, to, now, clog == Clog::Jam)
        } else {
            0
        };
        self.events.push(NetEvent::Unclog { at: now, from, to, released });
    }

    /// The latency a `Slow` clog on the link adds.
    pub(super) fn clog_latency(&self, link: (NodeId, NodeId)) -> SimDuration {
        match self.clogged.get(&link) {
            Some(Clog::Slow(extra)) => *extra,
            _ => SimDuration::ZERO,
        }
    }
}
