//! The virtual clock. Guest time never comes from the real clock: it starts at
//! a fixed instant, advances by one nanosecond on every read (so a program that
//! polls the clock in a loop still sees time move), and jumps forward when the
//! guest waits. A node's wall clock may be off by a signed offset (clock
//! skew and jumps, `wall_offset_ns`); the monotonic clock never is, so Go's
//! timers and `time.Since` behave while `time.Now()` lies.
//!
//! The rest of the host sees the clock as a `SimTime` (time since the run
//! started). Absolute monotonic readings, offset by `MONOTONIC_START_NS`,
//! exist only here and at the WASI boundary, where guests read and wait on
//! them as u64 by ABI; `instant` and `reading` convert between the two.

use crate::vtime::SimTime;

/// 2025-01-01T00:00:00Z: the wall-clock time at virtual monotonic zero.
pub const EPOCH_UNIX_NS: u64 = 1_735_689_600_000_000_000;
/// Monotonic time starts here, not at 0: Go's runtime throws if nanotime() is 0.
pub const MONOTONIC_START_NS: u64 = 1_000_000_000;

/// The instant of an absolute monotonic reading (one before the start is the start).
pub fn instant(monotonic_ns: u64) -> SimTime {
    SimTime::from_ns(monotonic_ns.saturating_sub(MONOTONIC_START_NS))
}

/// The absolute monotonic reading of an instant, saturating at u64::MAX.
pub fn reading(at: SimTime) -> u64 {
    MONOTONIC_START_NS.saturating_add(at.ns())
}

#[derive(Debug, Clone)]
pub struct VirtualClock {
    monotonic_ns: u64,
    /// What this node's wall clock adds to true time.
    wall_offset_ns: i64,
}

impl Default for VirtualClock {
    fn default() -> Self {
        VirtualClock { monotonic_ns: MONOTONIC_START_NS, wall_offset_ns: 0 }
    }
}

impl VirtualClock {
    /// The current instant, without advancing the clock.
    pub fn now(&self) -> SimTime {
        instant(self.monotonic_ns)
    }

    /// The current monotonic reading, without advancing the clock (what the
    /// trace hashes at a resumption).
    pub fn monotonic_ns(&self) -> u64 {
        self.monotonic_ns
    }

    /// A guest read of the monotonic clock: returns the time, then advances it 1 ns.
    pub fn read_monotonic(&mut self) -> u64 {
        let now = self.monotonic_ns;
        self.monotonic_ns += 1;
        now
    }

    /// This clock with its wall clock off by `offset_ns` (the same monotonic time).
    pub fn with_wall_offset(&self, offset_ns: i64) -> VirtualClock {
        VirtualClock { monotonic_ns: self.monotonic_ns, wall_offset_ns: offset_ns }
    }

    /// A guest read of the wall clock.
    pub fn read_realtime(&mut self) -> u64 {
        let monotonic = self.read_monotonic();
        self.wall(monotonic)
    }

    /// Wall-clock time for file timestamps, without advancing the clock.
    pub fn realtime_now(&self) -> u64 {
        self.wall(self.monotonic_ns)
    }

    /// The wall time at monotonic time `monotonic_ns`; a skew that would
    /// go before 1970 stops there.
    fn wall(&self, monotonic_ns: u64) -> u64 {
        let truth = EPOCH_UNIX_NS + (monotonic_ns - MONOTONIC_START_NS);
        truth.saturating_add_signed(self.wall_offset_ns)
    }

    /// Jump forward to `deadline` (never backwards).
    pub fn advance_to(&mut self, deadline: SimTime) {
        self.monotonic_ns = self.monotonic_ns.max(reading(deadline));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_advance_and_waits_jump() {
        let mut clock = VirtualClock::default();
        let a = clock.read_monotonic();
        let b = clock.read_monotonic();
        assert_eq!(b, a + 1);
        clock.advance_to(instant(a + 10_000_000_000));
        assert_eq!(clock.read_monotonic(), a + 10_000_000_000);
        clock.advance_to(SimTime::ZERO);
        assert!(clock.monotonic_ns() > a, "never goes backwards");
        assert!(clock.read_realtime() > EPOCH_UNIX_NS);
    }

    #[test]
    fn a_wall_offset_moves_the_wall_clock_only() {
        let clock = VirtualClock::default();
        let mut skewed = clock.with_wall_offset(-2_000_000_000);
        assert_eq!(skewed.realtime_now(), clock.realtime_now() - 2_000_000_000);
        assert_eq!(skewed.now(), clock.now(), "monotonic untouched");
        let (mono, wall) = (skewed.read_monotonic(), skewed.read_realtime());
        assert_eq!(mono + 1, skewed.monotonic_ns() - 1);
        assert_eq!(wall, clock.realtime_now() - 2_000_000_000 + 1);
        assert_eq!(clock.with_wall_offset(i64::MIN).realtime_now(), 0, "saturates at 1970");
    }
}
