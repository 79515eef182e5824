//! The network's event log (contract rule 15). `Display` is the stable,
//! hashable form: one line per event, numbers only (node ids, not names), so
//! it does not depend on anything but the model.

use super::udp::{UdpDrop, UdpId};
use super::{ConnId, ListenerId, NodeId, ShutdownHow, Side, SockAddr};
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
        at_ns: u64,
        listener: ListenerId,
        addr: SockAddr,
    },
    /// A listener closed (by the guest or a crash); `reset` queued
    /// connections were reset.
    ListenerClosed {
        at_ns: u64,
        listener: ListenerId,
        reset: u32,
    },
    Connect {
        at_ns: u64,
        conn: ConnId,
        from: SockAddr,
        to: SockAddr,
    },
    Accept {
        at_ns: u64,
        listener: ListenerId,
        conn: ConnId,
    },
    /// A segment left towards `to`; `deliver_ns` is `None` when it is held
    /// by a partition.
    Send {
        at_ns: u64,
        conn: ConnId,
        to: Side,
        kind: SegmentKind,
        latency_ns: u64,
        deliver_ns: Option<u64>,
    },
    Deliver {
        at_ns: u64,
        conn: ConnId,
        to: Side,
        kind: SegmentKind,
        outcome: Delivery,
    },
    /// A read consumed `bytes` (> 0) bytes.
    Read {
        at_ns: u64,
        conn: ConnId,
        side: Side,
        bytes: u64,
    },
    Shutdown {
        at_ns: u64,
        conn: ConnId,
        side: Side,
        how: ShutdownHow,
    },
    Close {
        at_ns: u64,
        conn: ConnId,
        side: Side,
    },
    /// `reset` connection ends and `listeners` listeners of `node` went away.
    Crash {
        at_ns: u64,
        node: NodeId,
        reset: u32,
        listeners: u32,
    },
    /// `reset` established connections of live `node` were reset.
    Reset {
        at_ns: u64,
        node: NodeId,
        reset: u32,
    },
    /// The link started holding traffic; `held` segments in flight were held.
    Block {
        at_ns: u64,
        from: NodeId,
        to: NodeId,
        held: u32,
    },
    /// The link was healed; `released` held segments were rescheduled.
    Heal {
        at_ns: u64,
        from: NodeId,
        to: NodeId,
        released: u32,
    },
    /// A clog started on the link; `held` segments in flight were held.
    Clog {
        at_ns: u64,
        from: NodeId,
        to: NodeId,
        clog: super::Clog,
        held: u32,
    },
    /// The clog on the link ended; `released` held segments were rescheduled.
    Unclog {
        at_ns: u64,
        from: NodeId,
        to: NodeId,
        released: u32,
    },
    UdpBind {
        at_ns: u64,
        sock: UdpId,
        addr: SockAddr,
    },
    UdpConnect {
        at_ns: u64,
        sock: UdpId,
        peer: SockAddr,
    },
    /// A datagram (`dup`: the copy `udp_dup` made) left; `deliver_ns` is
    /// `None` when it was dropped at once, for `drop`.
    UdpSend {
        at_ns: u64,
        seq: u64,
        from: SockAddr,
        to: SockAddr,
        len: u64,
        latency_ns: u64,
        deliver_ns: Option<u64>,
        drop: Option<UdpDrop>,
        dup: bool,
    },
    /// Datagram `seq` arrived: queued at a socket, or dropped.
    UdpDeliver {
        at_ns: u64,
        seq: u64,
        to: SockAddr,
        outcome: Result<UdpId, UdpDrop>,
    },
    /// A receive took a datagram of `len` bytes and copied `copied` of them.
    UdpRecv {
        at_ns: u64,
        sock: UdpId,
        len: u64,
        copied: u64,
    },
    /// `count` datagrams in flight on the link vanished.
    UdpDrop {
        at_ns: u64,
        from: NodeId,
        to: NodeId,
        count: u32,
        why: UdpDrop,
    },
    /// Datagram `seq` found no socket at `from`: a port-unreachable goes
    /// back to `to` (`deliver_ns` `None`: the way back is held).
    UdpUnreachable {
        at_ns: u64,
        seq: u64,
        from: SockAddr,
        to: SockAddr,
        deliver_ns: Option<u64>,
    },
    /// Port-unreachable `seq` arrived; `refused` is the connected socket
    /// it set ECONNREFUSED on, if any.
    UdpUnreachableArrive {
        at_ns: u64,
        seq: u64,
        to: SockAddr,
        refused: Option<UdpId>,
    },
    /// A receive or send returned the pending ECONNREFUSED.
    UdpRefused {
        at_ns: u64,
        sock: UdpId,
    },
    /// A socket closed (by the guest or a crash) with `discarded` datagrams unread.
    UdpClose {
        at_ns: u64,
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
            NetEvent::Listen { at_ns, listener, addr } => write!(f, "{at_ns} listen l{} {addr}", listener.0),
            NetEvent::ListenerClosed { at_ns, listener, reset } => {
                write!(f, "{at_ns} close-listener l{} reset={reset}", listener.0)
            }
            NetEvent::Connect { at_ns, conn, from, to } => write!(f, "{at_ns} connect c{} {from}->{to}", conn.0),
            NetEvent::Accept { at_ns, listener, conn } => write!(f, "{at_ns} accept l{} c{}", listener.0, conn.0),
            NetEvent::Send { at_ns, conn, to, kind, latency_ns, deliver_ns } => {
                write!(f, "{at_ns} send c{}->{} {kind} latency={latency_ns} ", conn.0, to.name())?;
                match deliver_ns {
                    Some(t) => write!(f, "deliver={t}"),
                    None => write!(f, "held"),
                }
            }
            NetEvent::Deliver { at_ns, conn, to, kind, outcome } => {
                write!(f, "{at_ns} deliver c{}->{} {kind} {outcome}", conn.0, to.name())
            }
            NetEvent::Read { at_ns, conn, side, bytes } => {
                write!(f, "{at_ns} read c{}/{} {bytes}", conn.0, side.name())
            }
            NetEvent::Shutdown { at_ns, conn, side, how } => {
                write!(f, "{at_ns} shutdown c{}/{} {how:?}", conn.0, side.name())
            }
            NetEvent::Close { at_ns, conn, side } => write!(f, "{at_ns} close c{}/{}", conn.0, side.name()),
            NetEvent::Crash { at_ns, node, reset, listeners } => {
                write!(f, "{at_ns} crash {node} reset={reset} listeners={listeners}")
            }
            NetEvent::Reset { at_ns, node, reset } => write!(f, "{at_ns} reset {node} connections={reset}"),
            NetEvent::Block { at_ns, from, to, held } => write!(f, "{at_ns} block {from}->{to} held={held}"),
            NetEvent::Clog { at_ns, from, to, clog, held } => {
                write!(f, "{at_ns} clog {from}->{to} {clog:?} held={held}")
            }
            NetEvent::Unclog { at_ns, from, to, released } => {
                write!(f, "{at_ns} unclog {from}->{to} released={released}")
            }
            NetEvent::Heal { at_ns, from, to, released } => {
                write!(f, "{at_ns} heal {from}->{to} released={released}")
            }
            NetEvent::UdpBind { at_ns, sock, addr } => write!(f, "{at_ns} udp-bind u{} {addr}", sock.0),
            NetEvent::UdpConnect { at_ns, sock, peer } => write!(f, "{at_ns} udp-connect u{} {peer}", sock.0),
            NetEvent::UdpSend { at_ns, seq, from, to, len, latency_ns, deliver_ns, drop, dup } => {
                let copy = if *dup { " dup" } else { "" };
                write!(f, "{at_ns} udp-send d{seq}{copy} {from}->{to} len={len} latency={latency_ns} ")?;
                match (deliver_ns, drop) {
                    (Some(t), _) => write!(f, "deliver={t}"),
                    (None, why) => write!(f, "dropped {why:?}"),
                }
            }
            NetEvent::UdpDeliver { at_ns, seq, to, outcome } => match outcome {
                Ok(sock) => write!(f, "{at_ns} udp-deliver d{seq} {to} queued u{}", sock.0),
                Err(why) => write!(f, "{at_ns} udp-deliver d{seq} {to} dropped {why:?}"),
            },
            NetEvent::UdpRecv { at_ns, sock, len, copied } => {
                write!(f, "{at_ns} udp-recv u{} {copied}/{len}", sock.0)
            }
            NetEvent::UdpDrop { at_ns, from, to, count, why } => {
                write!(f, "{at_ns} udp-drop {from}->{to} {count} {why:?}")
            }
            NetEvent::UdpUnreachable { at_ns, seq, from, to, deliver_ns } => {
                write!(f, "{at_ns} udp-unreachable i{seq} {from}->{to} ")?;
                match deliver_ns {
                    Some(t) => write!(f, "deliver={t}"),
                    None => write!(f, "dropped Held"),
                }
            }
            NetEvent::UdpUnreachableArrive { at_ns, seq, to, refused } => match refused {
                Some(sock) => write!(f, "{at_ns} udp-unreachable-arrive i{seq} {to} refused u{}", sock.0),
                None => write!(f, "{at_ns} udp-unreachable-arrive i{seq} {to} ignored"),
            },
            NetEvent::UdpRefused { at_ns, sock } => write!(f, "{at_ns} udp-refused u{}", sock.0),
            NetEvent::UdpClose { at_ns, sock, discarded } => {
                write!(f, "{at_ns} udp-close u{} discarded={discarded}", sock.0)
            }
        }
    }
}
