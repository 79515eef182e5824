//! UDP on the simulated network: datagram sockets bound to (node, port),
//! datagrams with their own seeded latency, and what partitions, clogs,
//! crashes and the datagram faults do to them. Same clock and same rules on
//! directed links as TCP (`mod.rs`); every call advances the model first.
//!
//! # Contract (rules U1-U10; TCP's are `mod.rs`)
//!
//! U1. Sockets. `udp_bind(node, port)` binds a datagram socket; port 0
//!     takes a free port of the node's ephemeral range, round robin from a
//!     cursor of its own. UDP ports are a space apart from TCP's, as on
//!     Linux (a TCP listener and a UDP socket may share a number); a bound
//!     UDP port is EADDRINUSE. `udp_connect` gives the socket a default
//!     peer (again: replaces it): writes go there and only datagrams from it
//!     are queued, as for Linux's connected UDP sockets.
//! U2. Sending. One send is one datagram of at most `MAX_DATAGRAM_BYTES`
//!     (EMSGSIZE beyond); it never blocks and returns its length, whatever
//!     its fate. An IP that names no node is EHOSTUNREACH (as `connect_ip`).
//!     Every datagram draws one latency from the network's latency stream
//!     when sent, whatever then happens to it (so a loss or a partition
//!     never shifts another latency), plus what slow nodes and a slow clog
//!     add (TCP rule 3), and is delivered at send time + latency. There is
//!     no FIFO: a later datagram with a shorter latency overtakes, so
//!     datagrams reorder.
//! U3. Delivery. At its delivery time a datagram goes to the socket bound to
//!     its destination *then*: none drops it and answers port unreachable
//!     (rule U10); a connected socket drops
//!     datagrams not from its peer; a socket holding `RCVBUF_BYTES` of
//!     payload or more drops it (Linux's default receive buffer). The queue
//!     is in arrival order: (delivery time, send sequence).
//! U4. Receiving. `udp_recv_from` takes the first queued datagram, copies as
//!     much as the buffer holds and discards the rest (Linux truncation: the
//!     count is what was copied), and says where it came from; EAGAIN when
//!     the queue is empty. A zero-length datagram reads as 0 bytes.
//! U5. Held links drop. A datagram sent on a held link (partition in that
//!     direction, stop or jam clog) is dropped when sent; when a link starts
//!     being held, the datagrams in flight on it are dropped at once, so a
//!     heal never delivers old datagrams. TCP holds instead (rules 5-6).
//! U6. Crashes. A crash closes every UDP socket of the node (queues
//!     discarded, ports free at once) and drops the datagrams in flight to
//!     it; those it sent before crashing are on the wire and still arrive.
//! U7. Datagram faults. A datagram between two distinct nodes is number n
//!     of its link (from, to), counted from 1 for the whole run;
//!     `DatagramFaults` (`udp_fault.rs`) decides by link and number whether
//!     it is lost (dropped when sent) or duplicated (a second copy with its
//!     own latency, delivered on its own). A node's datagrams to itself are
//!     never numbered or faulted.
//! U8. Readiness. Readable while the queue is not empty; `udp_readable_at`
//!     is the delivery time of the first datagram in flight that the socket
//!     would queue if nothing else happens. Always writable.
//! U9. Trace. Every change appends one `NetEvent` (binds, connects, sends
//!     with their fate, deliveries with theirs, receives, drops, closes,
//!     port-unreachable errors and where they landed).
//! U10. Port unreachable. A datagram that finds no socket bound to its
//!     destination sends an ICMP port-unreachable back to its source, as a
//!     Linux host does (a crashed node counts as a host whose process died:
//!     its kernel still answers, like TCP's refusal). It flies back with the
//!     datagram's own latency (no draw, so no other latency moves), through
//!     the same held links (U5) and crashes (U6). At its source it sets a
//!     pending ECONNREFUSED on the socket still bound there if that socket
//!     is connected to the unreachable address; an unconnected socket never
//!     sees it (Linux without IP_RECVERR). The pending error makes the
//!     socket readable and is returned, once, by the next receive or send,
//!     before any queued datagram. This is what makes a lookup without a
//!     nameserver fail at once: Go's resolver, with no resolv.conf, asks
//!     127.0.0.1:53 and [::1]:53 over connected sockets.
//!
//! Known simplifications: no other ICMP errors and no ICMP rate limit
//! (Linux limits them only off loopback), no multicast or broadcast, no
//! fragmentation (a datagram is one unit up to 65,507 bytes), one socket
//! per (node, port) (no SO_REUSEPORT).

use super::udp_fault::{DatagramFaultKind, DatagramFaults};
use super::{Errno, Net, NetEvent, NodeId, SockAddr, ip};
use crate::vtime::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

/// The largest IPv4 UDP payload (65,535 - 8 - 20).
pub const MAX_DATAGRAM_BYTES: usize = 65_507;
/// Payload bytes a socket queues before it drops (Linux's rmem_default).
pub const RCVBUF_BYTES: usize = 212_992;

/// A UDP socket, numbered in order of `udp_bind` calls (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UdpId(pub u64);

/// Why a datagram vanished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdpDrop {
    /// Its link is held by a partition or a stop/jam clog (rule U5).
    Held,
    /// `udp_loss` (rule U7).
    Lost,
    /// Its destination crashed while it was in flight (rule U6).
    Crashed,
    /// No socket was bound to its destination when it arrived (rule U3).
    NoSocket,
    /// The socket is connected to someone else (rule U3).
    NotFromPeer,
    /// The socket's queue was full (rule U3).
    BufferFull,
}

/// One datagram, or the port-unreachable error about one, on its way.
pub(super) struct Flight {
    from: SockAddr,
    to: SockAddr,
    what: Carried,
}

enum Carried {
    Datagram {
        bytes: Vec<u8>,
        latency: SimDuration,
    },
    /// ICMP port unreachable: `from` had no socket (rule U10).
    Unreachable,
}

struct Queued {
    from: SockAddr,
    bytes: Vec<u8>,
}

struct UdpSocket {
    addr: SockAddr,
    peer: Option<SockAddr>,
    queue: VecDeque<Queued>,
    queued_bytes: usize,
    /// ECONNREFUSED from a port-unreachable, until a receive or send takes it (rule U10).
    refused: bool,
}

/// The UDP side of a `Net`.
#[derive(Default)]
pub(super) struct Udp {
    sockets: BTreeMap<UdpId, UdpSocket>,
    bindings: BTreeMap<SockAddr, UdpId>,
    /// Datagrams in flight by (delivery time, send sequence).
    flights: BTreeMap<(SimTime, u64), Flight>,
    /// Each node's next ephemeral port, as an offset (rule U1).
    cursors: BTreeMap<NodeId, u32>,
    next_socket: u64,
    next_seq: u64,
    pub(super) faults: DatagramFaults,
}

impl Udp {
    /// When the next datagram is delivered.
    pub(super) fn next_due(&self) -> Option<SimTime> {
        self.flights.keys().next().map(|&(at, _)| at)
    }
}

impl Net {
    /// The datagram fault policy from now on (rule U7).
    pub fn set_datagram_faults(&mut self, faults: DatagramFaults) {
        self.udp.faults = faults;
    }

    pub fn datagram_faults(&self) -> &DatagramFaults {
        &self.udp.faults
    }

    /// Binds a UDP socket to `port` of `node` (0: an ephemeral port).
    pub fn udp_bind(&mut self, node: NodeId, port: u16, now: SimTime) -> Result<UdpId, Errno> {
        self.advance(now);
        let _ = self.node(node);
        let port = if port == 0 { self.udp_ephemeral(node)? } else { port };
        let addr = SockAddr { node, port };
        if self.udp.bindings.contains_key(&addr) {
            return Err(Errno::ADDRINUSE);
        }
        let id = UdpId(self.udp.next_socket);
        self.udp.next_socket += 1;
        self.udp.bindings.insert(addr, id);
        self.udp
            .sockets
            .insert(id, UdpSocket { addr, peer: None, queue: VecDeque::new(), queued_bytes: 0, refused: false });
        self.events.push(NetEvent::UdpBind { at: now, sock: id, addr });
        Ok(id)
    }

    fn udp_ephemeral(&mut self, node: NodeId) -> Result<u16, Errno> {
        let cursor = self.udp.cursors.get(&node).copied().unwrap_or(0);
        for i in 0..super::EPHEMERAL_PORT_COUNT {
            let offset = (cursor + i) % super::EPHEMERAL_PORT_COUNT;
            let port = super::EPHEMERAL_PORT_FIRST + offset as u16;
            if !self.udp.bindings.contains_key(&SockAddr { node, port }) {
                self.udp.cursors.insert(node, (offset + 1) % super::EPHEMERAL_PORT_COUNT);
                return Ok(port);
            }
        }
        Err(Errno::ADDRNOTAVAIL)
    }

    /// The destination of a simulated IP seen from `from` (rule U2).
    fn udp_dest(&self, from: NodeId, ip: u32, port: u16) -> Result<SockAddr, Errno> {
        let node = ip::ip_node(ip, from, self.nodes.len()).ok_or(Errno::HOSTUNREACH)?;
        Ok(SockAddr { node, port })
    }

    /// Connects `sock` to a simulated IP and port (rule U1); port 0 is EINVAL.
    pub fn udp_connect(&mut self, sock: UdpId, ip: u32, port: u16, now: SimTime) -> Result<(), Errno> {
        self.advance(now);
        let node = self.udp_socket(sock)?.addr.node;
        if port == 0 {
            return Err(Errno::INVAL);
        }
        let peer = self.udp_dest(node, ip, port)?;
        self.udp.sockets.get_mut(&sock).expect("checked above").peer = Some(peer);
        self.events.push(NetEvent::UdpConnect { at: now, sock, peer });
        Ok(())
    }

    /// Sends `data` as one datagram to a simulated IP and port (rules U2,
    /// U5, U7).
    pub fn udp_send_to(&mut self, sock: UdpId, ip: u32, port: u16, data: &[u8], now: SimTime) -> Result<usize, Errno> {
        self.advance(now);
        let node = self.udp_socket(sock)?.addr.node;
        let to = self.udp_dest(node, ip, port)?;
        self.udp_send(sock, to, data, now)
    }

    /// Sends `data` to the connected peer (`fd_write`); EDESTADDRREQ when
    /// not connected, as on Linux.
    pub fn udp_send(&mut self, sock: UdpId, to: SockAddr, data: &[u8], now: SimTime) -> Result<usize, Errno> {
        self.advance(now);
        let from = self.udp_socket(sock)?.addr;
        if data.len() > MAX_DATAGRAM_BYTES {
            return Err(Errno::MSGSIZE);
        }
        self.udp_take_refused(sock)?;
        let latency = self.draw_latency();
        let link = (from.node, to.node);
        let fault = if link.0 == link.1 {
            None
        } else {
            let names = (self.node(link.0).name.clone(), self.node(link.1).name.clone());
            self.udp.faults.decide((link.0, &names.0), (link.1, &names.1), now)
        };
        let drop = if self.holds(link) {
            Some(UdpDrop::Held)
        } else if fault == Some(DatagramFaultKind::Loss) {
            Some(UdpDrop::Lost)
        } else {
            None
        };
        self.udp_launch(from, to, data, now, latency, drop, false);
        if let (None, Some(DatagramFaultKind::Dup { latency })) = (drop, fault) {
            self.udp_launch(from, to, data, now, latency, None, true);
        }
        Ok(data.len())
    }

    /// The connected peer of `sock`, for `fd_write`.
    pub fn udp_peer(&self, sock: UdpId) -> Result<SockAddr, Errno> {
        self.udp_socket(sock)?.peer.ok_or(Errno::NOTCONN)
    }

    /// Puts one datagram in flight (or logs its drop).
    #[allow(clippy::too_many_arguments)]
    fn udp_launch(
        &mut self,
        from: SockAddr,
        to: SockAddr,
        data: &[u8],
        now: SimTime,
        latency: SimDuration,
        drop: Option<UdpDrop>,
        dup: bool,
    ) {
        let link = (from.node, to.node);
        let slowed =
            [link.0, link.1].iter().filter_map(|n| self.slow.get(n)).fold(SimDuration::ZERO, |a, b| a.plus(*b));
        let latency = latency.plus(slowed).plus(self.clog_latency(link));
        let seq = self.udp.next_seq;
        self.udp.next_seq += 1;
        let deliver_at = match drop {
            Some(_) => None,
            None => {
                let at = now.plus(latency);
                let what = Carried::Datagram { bytes: data.to_vec(), latency };
                self.udp.flights.insert((at, seq), Flight { from, to, what });
                Some(at)
            }
        };
        let len = data.len() as u64;
        self.events.push(NetEvent::UdpSend { at: now, seq, from, to, len, latency, deliver_at, drop, dup });
    }

    /// Delivers the first datagram or port-unreachable in flight (due by
    /// now, rules U3 and U10).
    pub(super) fn udp_deliver_next(&mut self) {
        let ((at, seq), flight) = self.udp.flights.pop_first().expect("a datagram is due");
        let Carried::Datagram { bytes, latency } = flight.what else {
            let refused = self.udp.bindings.get(&flight.to).copied().filter(|&id| self.udp_wants(id, &flight));
            if let Some(id) = refused {
                self.udp.sockets.get_mut(&id).expect("a bound socket exists").refused = true;
            }
            self.events.push(NetEvent::UdpUnreachableArrive { at, seq, to: flight.to, refused });
            return;
        };
        let outcome = match self.udp.bindings.get(&flight.to) {
            None => Err(UdpDrop::NoSocket),
            Some(&id) => {
                let s = self.udp.sockets.get_mut(&id).expect("a bound socket exists");
                if s.peer.is_some_and(|p| p != flight.from) {
                    Err(UdpDrop::NotFromPeer)
                } else if s.queued_bytes >= RCVBUF_BYTES {
                    Err(UdpDrop::BufferFull)
                } else {
                    s.queued_bytes += bytes.len();
                    s.queue.push_back(Queued { from: flight.from, bytes });
                    Ok(id)
                }
            }
        };
        self.events.push(NetEvent::UdpDeliver { at, seq, to: flight.to, outcome });
        if outcome == Err(UdpDrop::NoSocket) {
            self.udp_port_unreachable(flight.to, flight.from, at, latency);
        }
    }

    /// Sends the port-unreachable for a datagram `about` found no socket at
    /// (rule U10): back to `source` with the datagram's latency, unless the
    /// way back is held.
    fn udp_port_unreachable(&mut self, about: SockAddr, source: SockAddr, now: SimTime, latency: SimDuration) {
        let seq = self.udp.next_seq;
        self.udp.next_seq += 1;
        let deliver_at = (!self.holds((about.node, source.node))).then(|| now.plus(latency));
        if let Some(at) = deliver_at {
            self.udp.flights.insert((at, seq), Flight { from: about, to: source, what: Carried::Unreachable });
        }
        self.events.push(NetEvent::UdpUnreachable { at: now, seq, from: about, to: source, deliver_at });
    }

    /// Whether socket `id` takes `flight` (rules U3, U10): a datagram when
    /// unconnected or from its peer; a port-unreachable only when connected
    /// to the address that had no socket.
    fn udp_wants(&self, id: UdpId, flight: &Flight) -> bool {
        let peer = self.udp.sockets.get(&id).and_then(|s| s.peer);
        match flight.what {
            Carried::Datagram { .. } => peer.is_none_or(|p| p == flight.from),
            Carried::Unreachable => peer == Some(flight.from),
        }
    }

    /// Returns a pending ECONNREFUSED, once (rule U10).
    fn udp_take_refused(&mut self, sock: UdpId) -> Result<(), Errno> {
        let s = self.udp.sockets.get_mut(&sock).ok_or(Errno::BADF)?;
        if std::mem::take(&mut s.refused) {
            self.events.push(NetEvent::UdpRefused { at: self.now, sock });
            return Err(Errno::CONNREFUSED);
        }
        Ok(())
    }

    /// Receives one datagram into `buf` (rule U4): the bytes copied and
    /// where it came from; EAGAIN when none is queued.
    pub fn udp_recv_from(&mut self, sock: UdpId, buf: &mut [u8], now: SimTime) -> Result<(usize, SockAddr), Errno> {
        self.advance(now);
        self.udp_take_refused(sock)?;
        let s = self.udp.sockets.get_mut(&sock).ok_or(Errno::BADF)?;
        let d = s.queue.pop_front().ok_or(Errno::AGAIN)?;
        s.queued_bytes -= d.bytes.len();
        let n = buf.len().min(d.bytes.len());
        buf[..n].copy_from_slice(&d.bytes[..n]);
        self.events.push(NetEvent::UdpRecv { at: now, sock, len: d.bytes.len() as u64, copied: n as u64 });
        Ok((n, d.from))
    }

    /// Closes `sock`: its port is free at once, its queue discarded.
    pub fn udp_close(&mut self, sock: UdpId, now: SimTime) -> Result<(), Errno> {
        self.advance(now);
        self.udp_remove(sock, now).ok_or(Errno::BADF)
    }

    fn udp_remove(&mut self, sock: UdpId, now: SimTime) -> Option<()> {
        let s = self.udp.sockets.remove(&sock)?;
        let removed = self.udp.bindings.remove(&s.addr);
        assert_eq!(removed, Some(sock), "UDP binding out of step");
        self.events.push(NetEvent::UdpClose { at: now, sock, discarded: s.queue.len() as u32 });
        Some(())
    }

    /// Drops every datagram in flight for which `doomed(from, to)` holds;
    /// logs one event per link with how many (rules U5, U6).
    fn udp_drop_flying(&mut self, now: SimTime, why: UdpDrop, doomed: impl Fn(SockAddr, SockAddr) -> bool) {
        let mut dropped: BTreeMap<(NodeId, NodeId), u32> = BTreeMap::new();
        self.udp.flights.retain(|_, f| {
            let gone = doomed(f.from, f.to);
            if gone {
                *dropped.entry((f.from.node, f.to.node)).or_default() += 1;
            }
            !gone
        });
        for ((from, to), count) in dropped {
            self.events.push(NetEvent::UdpDrop { at: now, from, to, count, why });
        }
    }

    /// The link `from` → `to` started being held (rule U5).
    pub(super) fn udp_link_held(&mut self, from: NodeId, to: NodeId, now: SimTime) {
        self.udp_drop_flying(now, UdpDrop::Held, |a, b| (a.node, b.node) == (from, to));
    }

    /// `node` crashed (rule U6).
    pub(super) fn udp_crash(&mut self, node: NodeId, now: SimTime) {
        let mine: Vec<UdpId> =
            self.udp.sockets.iter().filter(|(_, s)| s.addr.node == node).map(|(&id, _)| id).collect();
        for id in mine {
            self.udp_remove(id, now);
        }
        self.udp_drop_flying(now, UdpDrop::Crashed, |_, to| to.node == node);
    }

    fn udp_socket(&self, sock: UdpId) -> Result<&UdpSocket, Errno> {
        self.udp.sockets.get(&sock).ok_or(Errno::BADF)
    }

    pub fn udp_local_addr(&self, sock: UdpId) -> Result<SockAddr, Errno> {
        Ok(self.udp_socket(sock)?.addr)
    }

    /// A receive would not return EAGAIN (rule U8).
    pub fn udp_readable(&mut self, sock: UdpId, now: SimTime) -> Result<bool, Errno> {
        self.advance(now);
        let s = self.udp_socket(sock)?;
        Ok(s.refused || !s.queue.is_empty())
    }

    /// When `udp_readable` turns true if nothing else happens (rule U8):
    /// the first datagram in flight to the socket's address that it would
    /// queue, or the first port-unreachable it would take (U10). A full
    /// queue is readable already, so fullness never matters.
    pub fn udp_readable_at(&mut self, sock: UdpId, now: SimTime) -> Result<Option<SimTime>, Errno> {
        self.advance(now);
        let s = self.udp_socket(sock)?;
        if s.refused || !s.queue.is_empty() {
            return Ok(Some(now));
        }
        let wanted = |f: &Flight| f.to == s.addr && self.udp_wants(sock, f);
        let arriving = self.udp.flights.iter().find(|(_, f)| wanted(f)).map(|(&(at, _), _)| at);
        Ok(arriving.into_iter().chain(self.udp_refusal(sock)).min())
    }

    /// When a port-unreachable for a datagram `sock` sent and still in
    /// flight would set its error, if nothing binds the destination first
    /// (rule U10: the error is not in flight until the datagram arrives).
    fn udp_refusal(&self, sock: UdpId) -> Option<SimTime> {
        let s = self.udp.sockets.get(&sock)?;
        let peer = s.peer?;
        let unanswered = |f: &Flight| f.from == s.addr && f.to == peer && !self.udp.bindings.contains_key(&f.to);
        let back_open = !self.holds((peer.node, s.addr.node));
        self.udp.flights.iter().filter(|(_, f)| back_open && unanswered(f)).find_map(|(&(at, _), f)| match f.what {
            Carried::Datagram { latency, .. } => Some(at.plus(latency)),
            Carried::Unreachable => None,
        })
    }

    /// The first delivery to one of `node`'s UDP sockets that it takes (for
    /// `next_event`).
    pub(super) fn udp_next_event(&self, node: NodeId) -> Option<SimTime> {
        let taken =
            |f: &Flight| f.to.node == node && self.udp.bindings.get(&f.to).is_some_and(|&id| self.udp_wants(id, f));
        let arriving = self.udp.flights.iter().find(|(_, f)| taken(f)).map(|(&(at, _), _)| at);
        let mine = self.udp.sockets.iter().filter(|(_, s)| s.addr.node == node);
        arriving.into_iter().chain(mine.filter_map(|(&id, _)| self.udp_refusal(id))).min()
    }
}
