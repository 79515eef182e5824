//! The virtual clock. Guest time never comes from the real clock: it starts at
//! a fixed instant, advances by one nanosecond on every read (so a program that
//! polls the clock in a loop still sees time move), and jumps forward when the
//! guest waits. A node's wall clock may be off by a signed offset (clock
//! skew and jumps, `wall_offset_ns`); the monotonic clock never is, so Go's
//! timers and `time.Since` behave while `time.Now()` lies.

/// 2025-01-01T00:00:00Z: the wall-clock time at virtual monotonic zero.
pub const EPOCH_UNIX_NS: u64 = 1_735_689_600_000_000_000;
/// Monotonic time starts here, not at 0: Go's runtime throws if nanotime() is 0.
pub const MONOTONIC_START_NS: u64 = 1_000_000_000;

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
    /// The current monotonic time, without advancing it.
    pub fn now_ns(&self) -> u64 {
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

    /// Jump forward to `deadline_ns` (never backwards).
    pub fn advance_to(&mut self, deadline_ns: u64) {
        self.monotonic_ns = self.monotonic_ns.max(deadline_ns);
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
        clock.advance_to(a + 10_000_000_000);
        assert_eq!(clock.read_monotonic(), a + 10_000_000_000);
        clock.advance_to(0);
        assert!(clock.now_ns() > a, "never goes backwards");
        assert!(clock.read_realtime() > EPOCH_UNIX_NS);
    }

    #[test]
    fn a_wall_offset_moves_the_wall_clock_only() {
        let clock = VirtualClock::default();
        let mut skewed = clock.with_wall_offset(-2_000_000_000);
        assert_eq!(skewed.realtime_now(), clock.realtime_now() - 2_000_000_000);
        assert_eq!(skewed.now_ns(), clock.now_ns(), "monotonic untouched");
        let (mono, wall) = (skewed.read_monotonic(), skewed.read_realtime());
        assert_eq!(mono + 1, skewed.now_ns() - 1);
        assert_eq!(wall, clock.realtime_now() - 2_000_000_000 + 1);
        assert_eq!(clock.with_wall_offset(i64::MIN).realtime_now(), 0, "saturates at 1970");
    }
}
