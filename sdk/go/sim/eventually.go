package sim

import "time"

// pollInterval is how often Eventually evaluates its condition.
const pollInterval = 10 * time.Millisecond

// Eventually polls cond every 10ms until it returns true, for at most within.
// If cond is still false at the deadline, it fails the property msg: in the
// simulator the run fails (time is virtual, so waiting costs no real time);
// elsewhere it panics with msg.
//
// cond is evaluated at least once, and once more at the deadline.
func Eventually(within time.Duration, cond func() bool, msg string) {
	if poll(within, cond) {
		return
	}
	eventuallyFailed(within, msg)
}

// poll reports whether cond became true before the deadline.
func poll(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pollInterval, left))
	}
}
