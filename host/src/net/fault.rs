//! Network faults: crashes and resets of a live node's connections
//! (contract rule 13) and partitions as rules on directed links (rules
//! 5-7). *When* a fault happens is decided elsewhere
//! (the run's fault schedule); this file only applies it.

use super::pipe::Payload;
use super::{Binding, ConnId, Life, Net, NetEvent, NodeId, Phase, Side};
use crate::vtime::{SimDuration, SimTime};

impl Net {
    /// The node crashed at `now`: its listeners vanish, every connection
    /// it has an end of is reset, all its ports are free.
    pub fn crash(&mut self, node: NodeId, now: SimTime) {
        self.advance(now);
        let _ = self.node(node);
        let listeners: Vec<_> = self.listeners.iter().filter(|(_, l)| l.addr.node == node).map(|(&id, _)| id).collect();
        let listener_count = listeners.len() as u32;
        // Queued connections stay open ends of this node: the sweep below
        // resets them, so closing the listeners must not (it would mark them
        // closed and count them twice).
        for id in listeners {
            let l = self.listeners.remove(&id).expect("listed above");
            let removed = self.bindings.remove(&l.addr);
            assert_eq!(removed, Some(Binding::Listener(id)), "listener binding out of step");
            self.events.push(NetEvent::ListenerClosed { at: now, listener: id, reset: 0 });
        }
        let ends: Vec<(ConnId, Side)> = self
            .conns
            .iter()
            .flat_map(|(&id, c)| [Side::Client, Side::Server].map(|side| (id, side, c.end(side))))
            .filter(|(_, _, end)| end.addr.node == node && matches!(end.life, Life::Open | Life::Closed))
            .map(|(id, side, _)| (id, side))
            .collect();
        let mut reset = 0;
        let mut rsts = Vec::new();
        for &(conn, side) in &ends {
            let end = self.conns.get_mut(&conn).expect("listed above").end_mut(side);
            if end.life == Life::Open && side == Side::Client {
                let addr = end.addr;
                self.unbind_client(addr, conn);
            }
            let end = self.conns.get_mut(&conn).expect("listed above").end_mut(side);
            end.life = Life::Dead;
            if end.phase != Phase::Refused && !end.rst_out {
                end.rst_out = true;
                reset += 1;
                rsts.push((conn, side));
            }
        }
        self.events.push(NetEvent::Crash { at: now, node, reset, listeners: listener_count });
        self.udp_crash(node, now);
        for (conn, side) in rsts {
            self.send(conn, side.peer(), Payload::Rst, now);
        }
        for (conn, _) in ends {
            self.collect(conn);
        }
        assert!(self.bindings.keys().all(|a| a.node != node), "a crashed node kept a port");
    }

    /// Every established connection of live `node` is reset at `now`
    /// (contract rule 13): its own end reads ECONNRESET at once, as if an RST
    /// had just arrived, and an RST goes to the peer. Listeners, connections
    /// still connecting and ports stay; the node's sockets stay open.
    pub fn reset(&mut self, node: NodeId, now: SimTime) -> u32 {
        self.advance(now);
        let ends: Vec<(ConnId, Side)> = self
            .conns
            .iter()
            .flat_map(|(&id, c)| [Side::Client, Side::Server].map(|side| (id, side, c.end(side))))
            .filter(|(_, _, end)| {
                end.addr.node == node && end.life == Life::Open && end.phase == Phase::Established && !end.rst_in
            })
            .map(|(id, side, _)| (id, side))
            .collect();
        let mut rsts = Vec::new();
        for &(conn, side) in &ends {
            let end = self.conns.get_mut(&conn).expect("listed above").end_mut(side);
            end.rst_in = true;
            end.recv.clear();
            if !end.rst_out {
                end.rst_out = true;
                rsts.push((conn, side));
            }
        }
        let reset = ends.len() as u32;
        self.events.push(NetEvent::Reset { at: now, node, reset });
        for (conn, side) in rsts {
            self.send(conn, side.peer(), Payload::Rst, now);
        }
        reset
    }

    /// Node `node` is slow from now on: `extra` more latency on every
    /// segment sent from or to it (zero: no longer slow). What is in flight
    /// keeps its delivery time (contract rule 3).
    pub fn set_slow(&mut self, node: NodeId, extra: SimDuration, now: SimTime) {
        self.advance(now);
        if extra == SimDuration::ZERO {
            self.slow.remove(&node);
        } else {
            self.slow.insert(node, extra);
        }
    }

    /// Starts holding everything sent from `from` to `to`, including what
    /// is already in flight (contract rule 5). Blocking a blocked link does
    /// nothing.
    pub fn block(&mut self, from: NodeId, to: NodeId, now: SimTime) {
        self.advance(now);
        let was_held = self.holds((from, to));
        if !self.blocked.insert((from, to)) {
            return;
        }
        let held = if was_held { 0 } else { self.hold_link(from, to, now) };
        self.events.push(NetEvent::Block { at: now, from, to, held });
    }

    /// Stops holding traffic from `from` to `to`: held segments are
    /// delivered in order from `now` plus their latency (contract rule
    /// 6), unless a clog still holds the link. Healing an open link does
    /// nothing.
    pub fn heal(&mut self, from: NodeId, to: NodeId, now: SimTime) {
        self.advance(now);
        if !self.blocked.remove(&(from, to)) {
            return;
        }
        let released = if self.holds((from, to)) { 0 } else { self.release_link(from, to, now, false) };
        self.events.push(NetEvent::Heal { at: now, from, to, released });
    }

    /// Whether anything holds the link: a partition or a holding clog.
    pub(super) fn holds(&self, link: (NodeId, NodeId)) -> bool {
        self.blocked.contains(&link) || self.clogged.get(&link).is_some_and(|c| c.holds())
    }

    /// Untimes every segment on the link (it starts being held); returns
    /// how many. Datagrams in flight on it are dropped instead (UDP rule U5).
    pub(super) fn hold_link(&mut self, from: NodeId, to: NodeId, now: SimTime) -> u32 {
        self.udp_link_held(from, to, now);
        let mut held = 0;
        for (&id, c) in self.conns.iter_mut() {
            for side in [Side::Client, Side::Server] {
                if (c.end(side.peer()).addr.node, c.end(side).addr.node) != (from, to) {
                    continue;
                }
                let pipe = &mut c.inbox[side.index()];
                if let Some(front) = pipe.segments.front() {
                    let at = front.deliver_at.expect("an open link's pipe is timed");
                    assert!(at > now, "advance left a due segment");
                    assert!(self.heads.remove(&(at, id, side)), "a timed pipe has a head");
                }
                for segment in pipe.segments.iter_mut() {
                    segment.deliver_at = None;
                    held += 1;
                }
            }
        }
        held
    }

    /// Times every held segment on the link again, from `now` plus its
    /// own latency, or all at `now` for a `burst`; returns how many.
    pub(super) fn release_link(&mut self, from: NodeId, to: NodeId, now: SimTime, burst: bool) -> u32 {
        let mut released = 0;
        for (&id, c) in self.conns.iter_mut() {
            for side in [Side::Client, Side::Server] {
                if (c.end(side.peer()).addr.node, c.end(side).addr.node) != (from, to) {
                    continue;
                }
                let pipe = &mut c.inbox[side.index()];
                assert!(pipe.segments.is_empty() || pipe.is_held(), "a held link's pipe is held");
                let mut tail = pipe.last_delivered;
                for segment in pipe.segments.iter_mut() {
                    let latency = if burst { SimDuration::ZERO } else { segment.latency };
                    tail = tail.max(now.plus(latency));
                    segment.deliver_at = Some(tail);
                    released += 1;
                }
                if let Some(front) = pipe.segments.front() {
                    self.heads.insert((front.deliver_at.expect("just timed"), id, side));
                }
            }
        }
        released
    }

    pub fn is_blocked(&self, from: NodeId, to: NodeId) -> bool {
        self.blocked.contains(&(from, to))
    }

    /// Whether a blocked link starts or ends at `node`.
    pub fn cut_off(&self, node: NodeId) -> bool {
        self.blocked.iter().any(|&(from, to)| from == node || to == node)
    }

    /// The blocked links, in order.
    pub fn blocked_links(&self) -> Vec<(NodeId, NodeId)> {
        self.blocked.iter().copied().collect()
    }

    /// A symmetric partition: blocks both directions of every link between
    /// a node of `side` and a node not in it.
    pub fn partition(&mut self, side: &[NodeId], now: SimTime) {
        let others: Vec<NodeId> = NodeId::all(self.nodes.len()).filter(|n| !side.contains(n)).collect();
        for &a in side {
            for &b in &others {
                self.block(a, b, now);
                self.block(b, a, now);
            }
        }
    }

    /// Heals every blocked link, in order (for `QuietFor` and the end of a
    /// partition).
    pub fn heal_all(&mut self, now: SimTime) {
        for (from, to) in self.blocked_links() {
            self.heal(from, to, now);
        }
    }
}
