//! The network's event log (contract rule 15). `Display` is the stable,
//! hashable form: one line per event, numbers only (node ids, not names;
//! times in nanoseconds since the start), so it does not depend on
//! anything but the model.

use super::udp::{UdpDrop, UdpId};
use super::{ConnId, ListenerId, NodeId, ShutdownHow, Side, SockAddr};
use crate::vtime::{SimDuration, SimTime};
use std::fmt;

/// What a segment carries (data by length only: the bytes come from guest
/// writes, which the host-call trace already covers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    Syn,
    SynAck,
    Refuse,
    Data { len: u64 },
    Fin,
    Rst,
}

/// What a delivery did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Changed the receiving end (data buffered, FIN/RST noted, connected).
    Applied,
    /// A SYN joined the accept queue of this listener; a SYN-ACK goes back.
    Queued(ListenerId),
    /// A SYN found no listener; a refusal goes back.
    Refused,
    /// The receiving end is closed, crashed, shut for reading or already
    /// reset: the segment vanished.
    Dropped,
    /// The receiving end is closed: the segment vanished and an RST goes back.
    DroppedAndReset,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetEvent {
    Listen {
        at: SimTime,
        listener: ListenerId,
        addr: SockAddr,
    },
    /// A listener closed (by the guest or a crash); `reset` queued
    /// connections were reset.
    ListenerClosed {
        at: SimTime,
        listener: ListenerId,
        reset: u32,
    },
    Connect {
        at: SimTime,
        conn: ConnId,
        from: SockAddr,
        to: SockAddr,
    },
    Accept {
        at: SimTime,
        listener: ListenerId,
        conn: ConnId,
    },
    /// A segment left towards `to`; `deliver_at` is `None` when it is held
    /// by a partition.
    Send {
        at: SimTime,
        conn: ConnId,
        to: Side,
        kind: SegmentKind,
        latency: SimDuration,
        deliver_at: Option<SimTime>,
    },
    Deliver {
        at: SimTime,
        conn: ConnId,
        to: Side,
        kind: SegmentKind,
        outcome: Delivery,
    },
    /// A read consumed `bytes` (> 0) bytes.
    Read {
        at: SimTime,
        conn: ConnId,
        side: Side,
        bytes: u64,
    },
    Shutdown {
        at: SimTime,
        conn: ConnId,
        side: Side,
        how: ShutdownHow,
    },
    Close {
        at: SimTime,
        conn: ConnId,
        side: Side,
    },
    /// `reset` connection ends and `listeners` listeners of `node` went away.
    Crash {
        at: SimTime,
        node: NodeId,
        reset: u32,
        listeners: u32,
    },
    /// `reset` established connections of live `node` were reset.
    Reset {
        at: SimTime,
        node: NodeId,
        reset: u32,
    },
    /// The link started holding traffic; `held` segments in flight were held.
    Block {
        at: SimTime,
        from: NodeId,
        to: NodeId,
        held: u32,
    },
    /// The link was healed; `released` held segments were rescheduled.
    Heal {
        at: SimTime,
        from: NodeId,
        to: NodeId,
        released: u32,
    },
    /// A clog started on the link; `held` segments in flight were held.
    Clog {
        at: SimTime,
        from: NodeId,
        to: NodeId,
        clog: super::Clog,
        held: u32,
    },
    /// The clog on the link ended; `released` held segments were rescheduled.
    Unclog {
        at: SimTime,
        from: NodeId,
        to: NodeId,
        released: u32,
    },
    UdpBind {
        at: SimTime,
        sock: UdpId,
        addr: SockAddr,
    },
    UdpConnect {
        at: SimTime,
        sock: UdpId,
        peer: SockAddr,
    },
    /// A datagram (`dup`: the copy `udp_dup` made) left; `deliver_at` is
    /// `None` when it was dropped at once, for `drop`.
    UdpSend {
        at: SimTime,
        seq: u64,
        from: SockAddr,
        to: SockAddr,
        len: u64,
        latency: SimDuration,
        deliver_at: Option<SimTime>,
        drop: Option<UdpDrop>,
        dup: bool,
    },
    /// Datagram `seq` arrived: queued at a socket, or dropped.
    UdpDeliver {
        at: SimTime,
        seq: u64,
        to: SockAddr,
        outcome: Result<UdpId, UdpDrop>,
    },
    /// A receive took a datagram of `len` bytes and copied `copied` of them.
    UdpRecv {
        at: SimTime,
        sock: UdpId,
        len: u64,
        copied: u64,
    },
    /// `count` datagrams in flight on the link vanished.
    UdpDrop {
        at: SimTime,
        from: NodeId,
        to: NodeId,
        count: u32,
        why: UdpDrop,
    },
    /// Datagram `seq` found no socket at `from`: a port-unreachable goes
    /// back to `to` (`deliver_at` `None`: the way back is held).
    UdpUnreachable {
        at: SimTime,
        seq: u64,
        from: SockAddr,
        to: SockAddr,
        deliver_at: Option<SimTime>,
    },
    /// Port-unreachable `seq` arrived; `refused` is the connected socket
    /// it set ECONNREFUSED on, if any.
    UdpUnreachableArrive {
        at: SimTime,
        seq: u64,
        to: SockAddr,
        refused: Option<UdpId>,
    },
    /// A receive or send returned the pending ECONNREFUSED.
    UdpRefused {
        at: SimTime,
        sock: UdpId,
    },
    /// A socket closed (by the guest or a crash) with `discarded` datagrams unread.
    UdpClose {
        at: SimTime,
        sock: UdpId,
        discarded: u32,
    },
}

impl fmt::Display for SegmentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentKind::Syn => write!(f, "syn"),
            SegmentKind::SynAck => write!(f, "synack"),
            SegmentKind::Refuse => write!(f, "refuse"),
            SegmentKind::Data { len } => write!(f, "data({len})"),
            SegmentKind::Fin => write!(f, "fin"),
            SegmentKind::Rst => write!(f, "rst"),
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delivery::Applied => write!(f, "applied"),
            Delivery::Queued(l) => write!(f, "queued l{}", l.0),
            Delivery::Refused => write!(f, "refused"),
            Delivery::Dropped => write!(f, "dropped"),
            Delivery::DroppedAndReset => write!(f, "dropped+rst"),
        }
    }
}

impl fmt::Display for NetEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetEvent::Listen { at, listener, addr } => write!(f, "{} listen l{} {addr}", at.ns(), listener.0),
            NetEvent::ListenerClosed { at, listener, reset } => {
                write!(f, "{} close-listener l{} reset={reset}", at.ns(), listener.0)
            }
            NetEvent::Connect { at, conn, from, to } => write!(f, "{} connect c{} {from}->{to}", at.ns(), conn.0),
            NetEvent::Accept { at, listener, conn } => write!(f, "{} accept l{} c{}", at.ns(), listener.0, conn.0),
            NetEvent::Send { at, conn, to, kind, latency, deliver_at } => {
                write!(f, "{} send c{}->{} {kind} latency={} ", at.ns(), conn.0, to.name(), latency.ns())?;
                match deliver_at {
                    Some(t) => write!(f, "deliver={}", t.ns()),
                    None => write!(f, "held"),
                }
            }
            NetEvent::Deliver { at, conn, to, kind, outcome } => {
                write!(f, "{} deliver c{}->{} {kind} {outcome}", at.ns(), conn.0, to.name())
            }
            NetEvent::Read { at, conn, side, bytes } => {
                write!(f, "{} read c{}/{} {bytes}", at.ns(), conn.0, side.name())
            }
            NetEvent::Shutdown { at, conn, side, how } => {
                write!(f, "{} shutdown c{}/{} {how:?}", at.ns(), conn.0, side.name())
            }
            NetEvent::Close { at, conn, side } => write!(f, "{} close c{}/{}", at.ns(), conn.0, side.name()),
            NetEvent::Crash { at, node, reset, listeners } => {
                write!(f, "{} crash {node} reset={reset} listeners={listeners}", at.ns())
            }
            NetEvent::Reset { at, node, reset } => write!(f, "{} reset {node} connections={reset}", at.ns()),
            NetEvent::Block { at, from, to, held } => write!(f, "{} block {from}->{to} held={held}", at.ns()),
            NetEvent::Clog { at, from, to, clog, held } => {
                write!(f, "{} clog {from}->{to} {clog:?} held={held}", at.ns())
            }
            NetEvent::Unclog { at, from, to, released } => {
                write!(f, "{} unclog {from}->{to} released={released}", at.ns())
            }
            NetEvent::Heal { at, from, to, released } => {
                write!(f, "{} heal {from}->{to} released={released}", at.ns())
            }
            NetEvent::UdpBind { at, sock, addr } => write!(f, "{} udp-bind u{} {addr}", at.ns(), sock.0),
            NetEvent::UdpConnect { at, sock, peer } => write!(f, "{} udp-connect u{} {peer}", at.ns(), sock.0),
            NetEvent::UdpSend { at, seq, from, to, len, latency, deliver_at, drop, dup } => {
                let copy = if *dup { " dup" } else { "" };
                write!(f, "{} udp-send d{seq}{copy} {from}->{to} len={len} latency={} ", at.ns(), latency.ns())?;
                match (deliver_at, drop) {
                    (Some(t), _) => write!(f, "deliver={}", t.ns()),
                    (None, why) => write!(f, "dropped {why:?}"),
                }
            }
            NetEvent::UdpDeliver { at, seq, to, outcome } => match outcome {
                Ok(sock) => write!(f, "{} udp-deliver d{seq} {to} queued u{}", at.ns(), sock.0),
                Err(why) => write!(f, "{} udp-deliver d{seq} {to} dropped {why:?}", at.ns()),
            },
            NetEvent::UdpRecv { at, sock, len, copied } => {
                write!(f, "{} udp-recv u{} {copied}/{len}", at.ns(), sock.0)
            }
            NetEvent::UdpDrop { at, from, to, count, why } => {
                write!(f, "{} udp-drop {from}->{to} {count} {why:?}", at.ns())
            }
            NetEvent::UdpUnreachable { at, seq, from, to, deliver_at } => {
                write!(f, "{} udp-unreachable i{seq} {from}->{to} ", at.ns())?;
                match deliver_at {
                    Some(t) => write!(f, "deliver={}", t.ns()),
                    None => write!(f, "dropped Held"),
                }
            }
            NetEvent::UdpUnreachableArrive { at, seq, to, refused } => match refused {
                Some(sock) => write!(f, "{} udp-unreachable-arrive i{seq} {to} refused u{}", at.ns(), sock.0),
                None => write!(f, "{} udp-unreachable-arrive i{seq} {to} ignored", at.ns()),
            },
            NetEvent::UdpRefused { at, sock } => write!(f, "{} udp-refused u{}", at.ns(), sock.0),
            NetEvent::UdpClose { at, sock, discarded } => {
                write!(f, "{} udp-close u{} discarded={discarded}", at.ns(), sock.0)
            }
        }
    }
}
