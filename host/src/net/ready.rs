//! Readiness for `poll_oneoff` (level-triggered) and wake-up times for the
//! scheduler. "Ready" means the call would not return EAGAIN: an error or
//! EOF is ready. The `*_at` forms answer "when would this become ready if
//! nobody did anything": `Some(now)` if it is ready now, the delivery
//! time of the segment that makes it ready, or `None` if nothing in flight
//! can (a held segment waits for a heal, which the scheduler sees happen).
//! UDP sockets' readiness is `udp.rs` (rule U8).

use super::pipe::Payload;
use super::{Binding, End, EndpointId, Errno, Life, ListenerId, Net, NodeId, Phase, Side};
use crate::vtime::SimTime;

impl End {
    fn readable(&self) -> bool {
        match self.phase {
            Phase::Connecting => false,
            Phase::Refused => true,
            Phase::Established => self.rst_in || self.shut_rd || self.fin_in || !self.recv.is_empty(),
        }
    }

    fn writable(&self) -> bool {
        self.phase != Phase::Connecting
    }
}

impl Net {
    /// A read would not return EAGAIN: data, EOF, a reset or a refusal.
    pub fn readable(&mut self, ep: EndpointId, now: SimTime) -> Result<bool, Errno> {
        self.advance(now);
        Ok(self.open_end(ep)?.readable())
    }

    /// A write would not return EAGAIN: connected (or failed).
    pub fn writable(&mut self, ep: EndpointId, now: SimTime) -> Result<bool, Errno> {
        self.advance(now);
        Ok(self.open_end(ep)?.writable())
    }

    /// The accept queue is not empty.
    pub fn acceptable(&mut self, listener: ListenerId, now: SimTime) -> Result<bool, Errno> {
        self.advance(now);
        Ok(!self.listeners.get(&listener).ok_or(Errno::BADF)?.queue.is_empty())
    }

    /// The peer's FIN or RST has been delivered (for poll's hangup flag).
    pub fn peer_hung_up(&mut self, ep: EndpointId, now: SimTime) -> Result<bool, Errno> {
        self.advance(now);
        let end = self.open_end(ep)?;
        Ok(end.fin_in || end.rst_in)
    }

    /// When `readable` turns true, if nothing else happens.
    pub fn readable_at(&mut self, ep: EndpointId, now: SimTime) -> Result<Option<SimTime>, Errno> {
        self.advance(now);
        let end = self.open_end(ep)?;
        if end.readable() {
            return Ok(Some(now));
        }
        if end.phase == Phase::Connecting {
            // The SYN is still in flight: a refusal is readable, an accept
            // is not (data comes later, after a write nobody made yet).
            let server = self.conns[&ep.conn].end(Side::Server);
            if server.life == Life::Unborn {
                let refused = !matches!(self.bindings.get(&server.addr), Some(Binding::Listener(_)));
                return Ok(if refused { self.predicted_answer(ep) } else { None });
            }
        }
        // Not readable now: not shut for reading and not reset, so the next
        // data, FIN, RST or refusal makes it readable (a SYN-ACK alone does
        // not; data always follows it on the pipe).
        Ok(self.first_in_inbox(ep, |p| matches!(p, Payload::Data(_) | Payload::Fin | Payload::Rst | Payload::Refuse)))
    }

    /// When `writable` turns true, if nothing else happens.
    pub fn writable_at(&mut self, ep: EndpointId, now: SimTime) -> Result<Option<SimTime>, Errno> {
        self.advance(now);
        if self.open_end(ep)?.writable() {
            return Ok(Some(now));
        }
        let answered = self.first_in_inbox(ep, |p| matches!(p, Payload::SynAck | Payload::Refuse));
        Ok(answered.or_else(|| self.predicted_answer(ep)))
    }

    /// When `acceptable` turns true, if nothing else happens: the delivery
    /// of the first SYN in flight to the listener's port.
    pub fn acceptable_at(&mut self, listener: ListenerId, now: SimTime) -> Result<Option<SimTime>, Errno> {
        self.advance(now);
        let l = self.listeners.get(&listener).ok_or(Errno::BADF)?;
        if !l.queue.is_empty() {
            return Ok(Some(now));
        }
        let addr = l.addr;
        Ok(self.heads.iter().find_map(|&(at, conn, side)| {
            let c = &self.conns[&conn];
            let syn = side == Side::Server && c.end(side).life == Life::Unborn && c.end(side).addr == addr;
            syn.then_some(at)
        }))
    }

    /// The earliest time after `now` at which a delivery changes
    /// something `node` can observe: data, FIN, RST, SYN-ACK or refusal for
    /// one of its open ends, or a SYN for one of its listeners. Coarser than
    /// the `*_at` calls (it ignores what the node waits for).
    pub fn next_event(&mut self, node: NodeId, now: SimTime) -> Option<SimTime> {
        self.advance(now);
        let mut first: Option<SimTime> = None;
        for &(at, conn, side) in &self.heads {
            if first.is_some_and(|t| t <= at) {
                break; // heads are in time order; answers come later still
            }
            let end = self.conns[&conn].end(side);
            let observable = end.addr.node == node
                && match end.life {
                    Life::Open => true,
                    Life::Unborn => matches!(self.bindings.get(&end.addr), Some(Binding::Listener(_))),
                    Life::Closed | Life::Dead => false,
                };
            let candidate = if observable {
                Some(at)
            } else {
                // A SYN in flight from one of the node's dialers: its answer.
                let client = EndpointId { conn, side: Side::Client };
                let dialer = side == Side::Server && self.conns[&conn].end(Side::Client).addr.node == node;
                if dialer && self.open_end(client).is_ok() { self.predicted_answer(client) } else { None }
            };
            first = match (first, candidate) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        [first, self.udp_next_event(node)].into_iter().flatten().min()
    }

    /// The earliest time after `now` at which anything is delivered
    /// anywhere (including deliveries only the network sees, like data
    /// reaching a closed socket, which answers with an RST).
    pub fn next_event_any(&mut self, now: SimTime) -> Option<SimTime> {
        self.advance(now);
        [self.heads.first().map(|&(at, _, _)| at), self.udp.next_due()].into_iter().flatten().min()
    }

    /// When the answer to `ep`'s SYN will be delivered, while the SYN is in
    /// flight and both links stay open: the SYN's delivery plus the answer's
    /// latency, drawn with the SYN (the return pipe is empty until then).
    fn predicted_answer(&self, ep: EndpointId) -> Option<SimTime> {
        assert_eq!(ep.side, Side::Client);
        let c = &self.conns[&ep.conn];
        let syn = c.inbox(Side::Server).segments.front()?;
        let Payload::Syn { reply_latency } = syn.payload else { return None };
        let back = (c.end(Side::Server).addr.node, c.end(Side::Client).addr.node);
        if self.blocked.contains(&back) {
            return None;
        }
        let inbox = c.inbox(Side::Client);
        assert!(inbox.segments.is_empty(), "nothing travels back before the SYN arrives");
        Some(inbox.tail().max(syn.deliver_at?.plus(reply_latency)))
    }

    /// The delivery time of the first timed segment towards `ep` that
    /// `wanted` accepts (segments are in delivery order; a held pipe has
    /// none).
    fn first_in_inbox(&self, ep: EndpointId, wanted: impl Fn(&Payload) -> bool) -> Option<SimTime> {
        let pipe = self.conns[&ep.conn].inbox(ep.side);
        pipe.segments.iter().find(|s| wanted(&s.payload)).and_then(|s| s.deliver_at)
    }
}
