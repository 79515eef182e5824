//! One direction of a connection: a FIFO of segments in flight. Either every
//! segment in a pipe is timed (its link is open) or every one is held (its
//! link is blocked); `Net` keeps that invariant and asserts it.

use super::SegmentKind;
use crate::vtime::{SimDuration, SimTime};
use std::collections::VecDeque;

pub(super) enum Payload {
    /// Carries the latency of its answer (SYN-ACK or refusal), drawn with
    /// it so the dialer's wake-up time is known while the SYN is in flight.
    Syn {
        reply_latency: SimDuration,
    },
    SynAck,
    /// The answer to a SYN that found no listener (an RST on the wire).
    Refuse,
    Data(Vec<u8>),
    Fin,
    Rst,
}

impl Payload {
    pub(super) fn kind(&self) -> SegmentKind {
        match self {
            Payload::Syn { .. } => SegmentKind::Syn,
            Payload::SynAck => SegmentKind::SynAck,
            Payload::Refuse => SegmentKind::Refuse,
            Payload::Data(bytes) => SegmentKind::Data { len: bytes.len() as u64 },
            Payload::Fin => SegmentKind::Fin,
            Payload::Rst => SegmentKind::Rst,
        }
    }
}

pub(super) struct Segment {
    pub(super) payload: Payload,
    /// Drawn once when sent; a heal reuses it (contract rule 6).
    pub(super) latency: SimDuration,
    /// `None` while held by a blocked link.
    pub(super) deliver_at: Option<SimTime>,
}

#[derive(Default)]
pub(super) struct Pipe {
    pub(super) segments: VecDeque<Segment>,
    /// When the last segment was delivered (0 before the first).
    pub(super) last_delivered: SimTime,
}

impl Pipe {
    /// The time no later segment may be delivered before: the delivery time
    /// of the last timed segment, or of the last delivered one.
    pub(super) fn tail(&self) -> SimTime {
        self.segments.back().and_then(|s| s.deliver_at).unwrap_or(self.last_delivered)
    }

    pub(super) fn is_held(&self) -> bool {
        self.segments.front().is_some_and(|s| s.deliver_at.is_none())
    }
}
