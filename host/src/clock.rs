//! The virtual clock. Guest time never comes from the real clock: it starts at
//! a fixed instant, advances by one nanosecond on every read (so a program that
//! polls the clock in a loop still sees time move), and jumps forward when the
//! guest waits.

/// 2025-01-01T00:00:00Z: the wall-clock time at virtual monotonic zero.
pub const EPOCH_UNIX_NS: u64 = 1_735_689_600_000_000_000;
/// Monotonic time starts here, not at 0: Go's runtime throws if nanotime() is 0.
pub const MONOTONIC_START_NS: u64 = 1_000_000_000;

#[derive(Debug, Clone)]
pub struct VirtualClock {
    monotonic_ns: u64,
}

impl Default for VirtualClock {
    fn default() -> Self {
        VirtualClock { monotonic_ns: MONOTONIC_START_NS }
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

    /// A guest read of the wall clock.
    pub fn read_realtime(&mut self) -> u64 {
        EPOCH_UNIX_NS + self.read_monotonic() - MONOTONIC_START_NS
    }

    /// Wall-clock time for file timestamps, without advancing the clock.
    pub fn realtime_now(&self) -> u64 {
        EPOCH_UNIX_NS + self.monotonic_ns - MONOTONIC_START_NS
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
}
