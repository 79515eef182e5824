//! `disk_latency`: every fsync of a service node takes a while, as a real
//! disk's flush does: the node waits a latency uniform in the configured
//! range, drawn from its own stream per incarnation, before the call
//! returns. It is a condition of the disk like `net_latency` of the
//! network, not a fault of the schedule: it holds in every phase and in
//! replays alike, and shrink leaves it alone. It does not slow writes,
//! reads or O_SYNC writes.

use crate::random::{Purpose, RandomStream};
use crate::vtime::SimDuration;

pub struct DiskLatency {
    min: SimDuration,
    max: SimDuration,
    stream: RandomStream,
}

impl DiskLatency {
    /// None when the range is zero (no latency).
    pub fn new(seed: u64, node: &str, incarnation: u32, (min, max): (SimDuration, SimDuration)) -> Option<DiskLatency> {
        let stream = RandomStream::new(seed, Purpose::DiskLatency, node, incarnation);
        (max > SimDuration::ZERO).then_some(DiskLatency { min, max, stream })
    }

    /// The next fsync's wait.
    pub fn draw(&mut self) -> SimDuration {
        SimDuration::from_ns(self.stream.between(self.min.ns(), self.max.ns()))
    }
}
