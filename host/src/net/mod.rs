//! The simulated network: TCP-like connections and UDP datagrams
//! (`udp.rs`, its own rules U1-U9) between nodes on one virtual clock, with
//! seeded latency, partitions on directed links and resets on crash. A pure data structure: no real sockets, no real clock; time is the
//! `SimTime` every call passes, randomness is the one latency stream handed to
//! `Net::new`. It knows nothing of WASI, fds or memory layouts; the WASI layer
//! maps fds onto `EndpointId`/`ListenerId` (see "Wiring" below).
//!
//! # Fault-model contract
//!
//! Time.
//! 1. Every call that takes `now` first *advances* the model to `now`:
//!    every segment whose delivery time is `<= now` is delivered, in order
//!    of (delivery time, connection id, receiving side). `now` must never
//!    go backwards (asserted). Work caused by a delivery (a SYN's answer, the
//!    RST for data sent to a closed socket) happens at the delivery time, not
//!    at the time of the call that noticed it, so how often a caller polls
//!    never changes what happens or which latencies are drawn.
//!
//! Links and latency.
//! 2. A connection is two one-way pipes. Each pipe carries segments (SYN,
//!    SYN-ACK, refusal, data, FIN, RST) from one node to another in FIFO order:
//!    nothing overtakes anything on the same pipe, ever.
//! 3. One write is one data segment (the chunk it was written as; reads may
//!    coalesce or split chunks, as TCP does). A segment sent at `now` gets
//!    a latency drawn *once, when it is sent*, uniformly in
//!    `[latency_min, latency_max]` from the latency stream, and is
//!    delivered at `max(delivery time of the previous segment on its pipe,
//!    now + latency)`. Two exceptions, both still one draw per segment:
//!    a SYN's answer has its latency drawn together with the SYN (so a
//!    dialer's wake-up time is exact while the SYN flies), and the RST that
//!    answers data reaching a closed socket is drawn when that data arrives.
//!    A slow node (`set_slow`) adds its extra latency to every segment sent
//!    from or to it while it is slow (both ends' when both are), on top of
//!    the drawn one; it draws nothing.
//! 4. Buffers are unbounded: a write never blocks and never returns EAGAIN
//!    once the connection is established. Writes of zero bytes send nothing.
//!
//! Partitions (rules on directed links).
//! 5. The rule set is a set of blocked directed links `(from, to)`. While
//!    `(from, to)` is blocked nothing sent from `from` to `to` is delivered:
//!    segments already in flight when the block starts, and segments sent
//!    during it, are held at the link in order. The other direction is
//!    unaffected (asymmetric partitions are the default case).
//! 6. `heal(from, to, now)` releases the held segments in order: each is
//!    delivered at `max(previous delivery on its pipe, heal time + its own
//!    latency drawn at send time)`. Healing draws nothing, so adding or
//!    removing a partition never shifts the latencies of other traffic.
//! 5b. A clog is a rule on one directed link too (`clog`, `unclog`):
//!    `Stop` holds its traffic as a block does and releases it as a heal
//!    does; `Jam` holds it and releases everything held in one burst, each
//!    segment delivered at the release time (after whatever its pipe
//!    delivered before); `Slow(extra)` holds nothing and adds `extra` to the
//!    latency of every segment sent on the link while it lasts. A link is
//!    held while a partition or a holding clog is on it, and released only
//!    when neither is.
//! 7. A connect across a blocked link stays pending until healed (Go's dial
//!    has its own timeout through deadlines).
//!
//! Connections.
//! 8. `connect` allocates the client's ephemeral port and sends a SYN. When
//!    the SYN is delivered: if a listener is bound to the target (node, port)
//!    *at that time* the server end joins the listener's accept queue and a
//!    SYN-ACK goes back; otherwise a refusal goes back. The client is
//!    Connected or Refused when that answer is delivered (one round trip: a
//!    blocked return link keeps the client pending, as real TCP would).
//! 9. Accept queues are unbounded and FIFO in order of SYN delivery. A
//!    queued connection can already receive data; if its peer resets it,
//!    accept still returns it and its reads fail with ECONNRESET.
//! 10. Reads return delivered bytes only: EAGAIN when none are delivered yet,
//!     0 (EOF) only after the peer's FIN (shutdown(write) or close) has been
//!     delivered, after all data sent before it.
//! 11. `close` sends a FIN, or an RST if delivered bytes were left unread
//!     (Linux). After close the socket's kernel state lingers: data or a
//!     SYN-ACK that later arrives for it is dropped and answered with one
//!     RST. `shutdown(read)` makes reads return EOF and drops later data.
//! 12. An RST, once delivered, discards unread data: reads return
//!     ECONNRESET from then on; the first write after it returns ECONNRESET
//!     (unless a read reported it already) and later writes EPIPE. Writing
//!     after one's own shutdown(write) returns EPIPE.
//!
//! Crashes.
//! 13. `crash(node, now)` closes every listener of the node (later SYNs to
//!     those ports are refused; queued connections are reset), and sends an
//!     RST on every connection the node has an end of (including pending
//!     connects and sockets closed but lingering), unless that end already
//!     sent one. The peer learns when the RST is delivered (one latency, or
//!     after a heal). Everything still in flight towards the crashed node is
//!     dropped silently. All its ports are free at once. A new incarnation
//!     reuses the `NodeId`; a SYN still in flight to it is accepted if the
//!     new incarnation listens on the port before the SYN arrives.
//!     `reset(node, now)` (a live node's connections reset, the
//!     `net_reset` fault) resets every established connection the node has
//!     an open end of: its own end reads ECONNRESET at once, an RST goes to
//!     the peer; listeners, pending connects and ports stay.
//!
//! Addresses.
//! 14. Ports are per node. `listen` on a bound port is EADDRINUSE. Port 0 and
//!     client ports come from the node's ephemeral range 49152..=65535, handed
//!     out round robin from a per-node cursor that skips bound ports (never
//!     random, never reset by a crash). A client port is bound until its
//!     socket is closed or the node crashes (no TIME_WAIT).
//!
//! Trace.
//! 15. Every state change appends one `NetEvent` (sends with their delivery
//!     time or "held", deliveries with what they did, accepts, reads that
//!     consumed bytes, closes, crashes, blocks, heals). The log is a pure
//!     function of the seed and the sequence of calls, so two runs can be
//!     compared byte for byte (`NetEvent`'s `Display` is the stable form).
//!
//! Known simplifications (warts): no flow control or window (unbounded
//! buffers), no Nagle or MSS splitting, no TIME_WAIT, no keepalive, no
//! timeouts inside the model (deadlines are the guest's), a crashed node
//! answers with an RST after one latency instead of going silent.
//!
//! # Wiring (for the WASI layer)
//!
//! An fd of a listening socket holds a `ListenerId`; an fd of a connection
//! holds an `EndpointId`. `sock_accept` = `accept`; `fd_read` = `read`;
//! `fd_write` = `write` (EAGAIN only while a connect is pending);
//! `sock_shutdown` = `shutdown`; `fd_close` = `close`/`close_listener`.
//! `poll_oneoff` asks `readable`/`writable`/`acceptable` for what is ready
//! now and `readable_at`/`writable_at`/`acceptable_at` for when a
//! subscription would become ready; the scheduler wakes a node at the minimum
//! of those and its timers, and calls `advance` whenever virtual time jumps.
//! `next_event_any` is the next time the network changes at all (so the
//! scheduler never declares deadlock while something is in flight).

mod clog;
mod event;
mod fault;
pub mod ip;
pub mod knobs;
mod pipe;
mod ready;
mod socket;
#[cfg(test)]
mod tests;
pub mod udp;
pub mod udp_fault;
#[cfg(test)]
mod udp_tests;

pub use crate::fs::Errno;
pub use clog::Clog;
pub use event::{Delivery, NetEvent, SegmentKind};
pub use udp::{UdpDrop, UdpId};
pub use udp_fault::{DatagramFault, DatagramFaultKind, DatagramFaults};

use crate::node_id::NodeId;
use crate::random::RandomStream;
use crate::vtime::{SimDuration, SimTime};
use pipe::{Payload, Pipe, Segment};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

/// A socket address: a node and a port on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SockAddr {
    pub node: NodeId,
    pub port: u16,
}

/// A connection, numbered in order of `connect` calls (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnId(pub u64);

/// Which end of a connection: the one that connected, or the accepted one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Client = 0,
    Server = 1,
}

impl Side {
    pub fn peer(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// One end of a connection: what a connected socket fd holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EndpointId {
    pub conn: ConnId,
    pub side: Side,
}

/// A listening socket, numbered in order of `listen` calls (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListenerId(pub u64);

/// What `connect_status` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectStatus {
    /// The SYN or its answer is still in flight (or held by a partition).
    Pending,
    /// The SYN-ACK was delivered. A later reset does not change this.
    Connected,
    /// No listener was bound when the SYN arrived (ECONNREFUSED).
    Refused,
}

/// `sock_shutdown`'s `how`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShutdownHow {
    Read,
    Write,
    Both,
}

/// The network options of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// Smallest one-way latency of a segment.
    pub latency_min: SimDuration,
    /// Largest one-way latency of a segment (inclusive).
    pub latency_max: SimDuration,
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig { latency_min: SimDuration::from_ns(50_000), latency_max: SimDuration::from_ns(2_000_000) }
    }
}

/// The first and last ephemeral port (IANA's dynamic range).
pub const EPHEMERAL_PORT_FIRST: u16 = 49152;
pub const EPHEMERAL_PORT_LAST: u16 = 65535;
const EPHEMERAL_PORT_COUNT: u32 = (EPHEMERAL_PORT_LAST - EPHEMERAL_PORT_FIRST) as u32 + 1;

/// The lifetime of one end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// A server end whose SYN has not been delivered yet.
    Unborn,
    /// Held by the guest, or by a listener's accept queue.
    Open,
    /// The guest closed it; the kernel state lingers to answer with an RST.
    Closed,
    /// Its node crashed, or its SYN was refused: it answers nothing.
    Dead,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Established,
    Refused,
}

struct End {
    addr: SockAddr,
    life: Life,
    phase: Phase,
    /// Delivered bytes not read yet.
    recv: VecDeque<u8>,
    fin_in: bool,
    rst_in: bool,
    shut_rd: bool,
    fin_out: bool,
    rst_out: bool,
    /// A read or write has returned ECONNRESET for `rst_in`.
    reset_reported: bool,
}

impl End {
    fn new(addr: SockAddr, life: Life, phase: Phase) -> End {
        End {
            addr,
            life,
            phase,
            recv: VecDeque::new(),
            fin_in: false,
            rst_in: false,
            shut_rd: false,
            fin_out: false,
            rst_out: false,
            reset_reported: false,
        }
    }
}

struct Conn {
    /// Indexed by `Side::index`.
    ends: [End; 2],
    /// `inbox[side]` carries segments towards `ends[side]`.
    inbox: [Pipe; 2],
}

impl Conn {
    fn end(&self, side: Side) -> &End {
        &self.ends[side.index()]
    }

    fn end_mut(&mut self, side: Side) -> &mut End {
        &mut self.ends[side.index()]
    }

    fn inbox(&self, side: Side) -> &Pipe {
        &self.inbox[side.index()]
    }

    /// Nothing will ever happen on this connection again.
    fn finished(&self) -> bool {
        self.ends.iter().all(|e| e.life != Life::Open) && self.inbox.iter().all(|p| p.segments.is_empty())
    }
}

struct Listener {
    addr: SockAddr,
    /// Connections whose server end waits for `accept`, in SYN delivery order.
    queue: VecDeque<ConnId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binding {
    Listener(ListenerId),
    Client(ConnId),
}

struct NodeState {
    name: String,
    /// The next ephemeral port to try, as an offset from EPHEMERAL_PORT_FIRST.
    ephemeral_cursor: u32,
}

/// The whole network of one run.
pub struct Net {
    config: NetConfig,
    latency_rng: RandomStream,
    now: SimTime,
    nodes: Vec<NodeState>,
    names: BTreeMap<String, NodeId>,
    conns: BTreeMap<ConnId, Conn>,
    listeners: BTreeMap<ListenerId, Listener>,
    bindings: BTreeMap<SockAddr, Binding>,
    /// Blocked directed links (from, to): partitions.
    blocked: BTreeSet<(NodeId, NodeId)>,
    /// Clogged directed links and how (rule 5b); a link is held while a
    /// partition or a holding clog is on it.
    clogged: BTreeMap<(NodeId, NodeId), Clog>,
    /// Slow nodes: latency added to every segment sent from or to them.
    slow: BTreeMap<NodeId, SimDuration>,
    /// The delivery time of the first segment of every pipe whose segments
    /// are timed (not held): the agenda `advance` works through.
    heads: BTreeSet<(SimTime, ConnId, Side)>,
    next_conn: u64,
    next_listener: u64,
    events: Vec<NetEvent>,
    /// Datagram sockets and datagrams in flight (`udp.rs`).
    udp: udp::Udp,
}

impl Net {
    /// An empty network. `latency_rng` is the run's latency stream (e.g.
    /// `RandomStream::new(seed, Purpose::NetLatency, "", 0)`).
    pub fn new(config: NetConfig, latency_rng: RandomStream) -> Net {
        assert!(config.latency_min <= config.latency_max, "latency_min > latency_max: {config:?}");
        Net {
            config,
            latency_rng,
            now: SimTime::ZERO,
            nodes: Vec::new(),
            names: BTreeMap::new(),
            conns: BTreeMap::new(),
            listeners: BTreeMap::new(),
            bindings: BTreeMap::new(),
            blocked: BTreeSet::new(),
            clogged: BTreeMap::new(),
            slow: BTreeMap::new(),
            heads: BTreeSet::new(),
            next_conn: 0,
            next_listener: 0,
            events: Vec::new(),
            udp: udp::Udp::default(),
        }
    }

    pub fn config(&self) -> NetConfig {
        self.config
    }

    /// Adds a node named `name` (unique); ids follow the order of calls.
    /// How many connection ends on `node` are open.
    pub fn open_ends(&self, node: NodeId) -> usize {
        let ends = self.conns.values().flat_map(|c| c.ends.iter());
        ends.filter(|e| e.addr.node == node && e.life == Life::Open).count()
    }

    pub fn add_node(&mut self, name: &str) -> NodeId {
        assert!(!self.names.contains_key(name), "duplicate node name {name:?}");
        let id = NodeId::new(self.nodes.len());
        self.nodes.push(NodeState { name: name.to_string(), ephemeral_cursor: 0 });
        self.names.insert(name.to_string(), id);
        id
    }

    pub fn node_name(&self, node: NodeId) -> &str {
        &self.node(node).name
    }

    /// The node called `name`, if any.
    pub fn resolve(&self, name: &str) -> Option<NodeId> {
        self.names.get(name).copied()
    }

    /// `"name:port"`, as the SDK's `sim.Addr` prints it.
    pub fn addr_string(&self, addr: SockAddr) -> String {
        format!("{}:{}", self.node_name(addr.node), addr.port)
    }

    /// The virtual time the model has advanced to.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Every event so far, in order.
    pub fn events(&self) -> &[NetEvent] {
        &self.events
    }

    /// Takes the events logged since the last call (for a trace that hashes
    /// as it goes).
    pub fn drain_events(&mut self) -> Vec<NetEvent> {
        std::mem::take(&mut self.events)
    }

    /// Delivers everything due at or before `now` (contract rule 1):
    /// segments and datagrams in time order, a segment first on a tie.
    pub fn advance(&mut self, now: SimTime) {
        assert!(now >= self.now, "network time went backwards: {now} < {}", self.now);
        self.now = now;
        loop {
            let segment = self.heads.first().map(|&(at, _, _)| at).filter(|&t| t <= now);
            let datagram = self.udp.next_due().filter(|&t| t <= now);
            match (segment, datagram) {
                (Some(s), d) if d.is_none_or(|d| s <= d) => self.deliver_next_segment(),
                (_, Some(_)) => self.udp_deliver_next(),
                _ => break,
            }
        }
    }

    /// Delivers the segment at the head of the agenda.
    fn deliver_next_segment(&mut self) {
        let (at, conn, side) = self.heads.pop_first().expect("a segment is due");
        let c = self.conns.get_mut(&conn).expect("a head belongs to a live connection");
        let pipe = &mut c.inbox[side.index()];
        let segment = pipe.segments.pop_front().expect("a head has a segment");
        assert_eq!(segment.deliver_at, Some(at), "head out of step with its pipe");
        pipe.last_delivered = at;
        if let Some(next) = pipe.segments.front() {
            let next_at = next.deliver_at.expect("a timed pipe is timed throughout");
            assert!(next_at >= at, "FIFO order broken on {conn:?}/{side:?}");
            self.heads.insert((next_at, conn, side));
        }
        self.deliver(conn, side, segment.payload, at);
    }

    fn node(&self, node: NodeId) -> &NodeState {
        self.nodes.get(node.index()).unwrap_or_else(|| panic!("unknown node {node:?}"))
    }

    fn draw_latency(&mut self) -> SimDuration {
        SimDuration::from_ns(self.latency_rng.between(self.config.latency_min.ns(), self.config.latency_max.ns()))
    }

    /// Sends `payload` from the peer of `to` towards `to` at `now`
    /// (contract rules 3 and 5).
    fn send(&mut self, conn: ConnId, to: Side, payload: Payload, now: SimTime) {
        let latency = self.draw_latency();
        self.send_with_latency(conn, to, payload, now, latency);
    }

    /// `send` with a latency drawn earlier (a SYN's answer, rule 8).
    fn send_with_latency(&mut self, conn: ConnId, to: Side, payload: Payload, now: SimTime, latency: SimDuration) {
        let c = self.conns.get_mut(&conn).expect("send on a live connection");
        let link = (c.end(to.peer()).addr.node, c.end(to).addr.node);
        let slowed =
            [link.0, link.1].iter().filter_map(|n| self.slow.get(n)).fold(SimDuration::ZERO, |a, b| a.plus(*b));
        let latency = latency.plus(slowed).plus(self.clog_latency(link));
        let held = self.holds(link);
        let c = self.conns.get_mut(&conn).expect("send on a live connection");
        let pipe = &mut c.inbox[to.index()];
        let kind = payload.kind();
        let deliver_at = if held {
            assert!(pipe.segments.back().is_none_or(|s| s.deliver_at.is_none()), "a blocked link has timed segments");
            None
        } else {
            assert!(pipe.segments.back().is_none_or(|s| s.deliver_at.is_some()), "an open link has held segments");
            let at = pipe.tail().max(now.plus(latency));
            if pipe.segments.is_empty() {
                self.heads.insert((at, conn, to));
            }
            Some(at)
        };
        pipe.segments.push_back(Segment { payload, latency, deliver_at });
        self.events.push(NetEvent::Send { at: now, conn, to, kind, latency, deliver_at });
    }

    /// A segment reached `to` at `at`: apply it (contract rules 8-13).
    fn deliver(&mut self, conn: ConnId, to: Side, payload: Payload, at: SimTime) {
        let kind = payload.kind();
        let c = self.conns.get_mut(&conn).expect("deliver to a live connection");
        let end = &mut c.ends[to.index()];
        let mut answer = None;
        let outcome = match (end.life, payload) {
            (Life::Unborn, Payload::Syn { reply_latency }) => {
                let addr = end.addr;
                match self.bindings.get(&addr) {
                    Some(&Binding::Listener(listener)) => {
                        end.life = Life::Open;
                        self.listeners.get_mut(&listener).expect("a bound listener exists").queue.push_back(conn);
                        answer = Some((Payload::SynAck, Some(reply_latency)));
                        Delivery::Queued(listener)
                    }
                    _ => {
                        end.life = Life::Dead;
                        answer = Some((Payload::Refuse, Some(reply_latency)));
                        Delivery::Refused
                    }
                }
            }
            (Life::Unborn, other) => panic!("{:?} overtook the SYN on {conn:?}", other.kind()),
            (Life::Open, Payload::SynAck) if end.phase == Phase::Connecting => {
                end.phase = Phase::Established;
                Delivery::Applied
            }
            (Life::Open, Payload::Refuse) if end.phase == Phase::Connecting => {
                end.phase = Phase::Refused;
                Delivery::Applied
            }
            (Life::Open, Payload::Data(bytes)) if !end.shut_rd && !end.rst_in => {
                end.recv.extend(bytes);
                Delivery::Applied
            }
            (Life::Open, Payload::Fin) => {
                end.fin_in = true;
                Delivery::Applied
            }
            (Life::Open, Payload::Rst) => {
                end.rst_in = true;
                end.recv.clear();
                Delivery::Applied
            }
            (Life::Closed, Payload::Data(_) | Payload::SynAck) if !end.rst_out => {
                end.rst_out = true;
                answer = Some((Payload::Rst, None));
                Delivery::DroppedAndReset
            }
            _ => Delivery::Dropped,
        };
        self.events.push(NetEvent::Deliver { at, conn, to, kind, outcome });
        if let Some((payload, latency)) = answer {
            let latency = latency.unwrap_or_else(|| self.draw_latency());
            self.send_with_latency(conn, to.peer(), payload, at, latency);
        }
        self.collect(conn);
    }

    /// Forgets `conn` once nothing can happen on it any more.
    fn collect(&mut self, conn: ConnId) {
        if self.conns.get(&conn).is_some_and(Conn::finished) {
            self.conns.remove(&conn);
        }
    }

    /// Binds a free ephemeral port of `node` to `binding`.
    fn bind_ephemeral(&mut self, node: NodeId, binding: Binding) -> Result<u16, Errno> {
        let cursor = self.node(node).ephemeral_cursor;
        for i in 0..EPHEMERAL_PORT_COUNT {
            let offset = (cursor + i) % EPHEMERAL_PORT_COUNT;
            let port = EPHEMERAL_PORT_FIRST + offset as u16;
            let addr = SockAddr { node, port };
            if let Entry::Vacant(vacant) = self.bindings.entry(addr) {
                vacant.insert(binding);
                self.nodes[node.index()].ephemeral_cursor = (offset + 1) % EPHEMERAL_PORT_COUNT;
                return Ok(port);
            }
        }
        Err(Errno::ADDRNOTAVAIL)
    }

    /// The open end `ep` (BADF if it is not held by the guest).
    fn open_end(&self, ep: EndpointId) -> Result<&End, Errno> {
        let end = self.conns.get(&ep.conn).ok_or(Errno::BADF)?.end(ep.side);
        if end.life == Life::Open { Ok(end) } else { Err(Errno::BADF) }
    }

    fn open_end_mut(&mut self, ep: EndpointId) -> Result<&mut End, Errno> {
        let end = self.conns.get_mut(&ep.conn).ok_or(Errno::BADF)?.end_mut(ep.side);
        if end.life == Life::Open { Ok(end) } else { Err(Errno::BADF) }
    }
}

impl fmt::Display for SockAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.node, self.port)
    }
}
