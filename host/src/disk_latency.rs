//! `disk_latency`: every fsync of a service node takes a while, as a real
//! disk's flush does: the node waits a latency uniform in the configured
//! range, drawn from its own stream per incarnation, before the call
//! returns. It is a condition of the disk like `net_latency` of the
//! network, not a fault of the schedule: it holds in every phase and in
//! replays alike, and shrink leaves it alone. It does not slow writes,
//! reads or O_SYNC writes.

use crate::random::{Purpose, RandomStream};

pub struct DiskLatency {
    min_ns: u64,
    max_ns: u64,
    stream: RandomStream,
}

impl DiskLatency {
    /// None when the range is zero (no latency).
    pub fn new(seed: u64, node: &str, incarnation: u32, (min_ns, max_ns): (u64, u64)) -> Option<DiskLatency> {
        let stream = RandomStream::new(seed, Purpose::DiskLatency, node, incarnation);
        (max_ns > 0).then_some(DiskLatency { min_ns, max_ns, stream })
    }

    /// The next fsync's wait, in nanoseconds.
    pub fn draw(&mut self) -> u64 {
        self.stream.between(self.min_ns, self.max_ns)
    }
}
