//! The hint a node's failure carries when the config, not the code, is at
//! fault: without `net_overlay`, package `net` on wasip1 is Go's in-process
//! fake network (`net/net_fake.go`), where a listener is reachable only from
//! the same program. A server waits in `Accept` for ever and Go's runtime
//! ends it with "all goroutines are asleep - deadlock!", a stack in
//! net_fake.go below. That pair, with the overlay off, is what is matched:
//! a service built with the overlay, or one that deadlocks elsewhere, gets
//! no hint. Not here: whether the run fails (the caller decides).

use super::slot::Slot;

/// What the failure adds.
pub const HINT: &str = "this service uses package net: set \"net_overlay\": true in the config (docs/net-overlay.md)";

/// Go's fatal line for a program whose goroutines all wait.
const GO_DEADLOCK: &str = "fatal error: all goroutines are asleep - deadlock!";

/// `last_words` of `slot`'s process, with `HINT` when it deadlocked in the
/// fake network and the run has no overlay.
pub(super) fn with_hint(last_words: Option<String>, slot: &Slot, net_overlay: bool) -> Option<String> {
    match last_words {
        Some(words) if applies(slot.go_panic().as_deref(), &slot.stderr_tail, net_overlay) => {
            Some(format!("{words}; {HINT}"))
        }
        other => other,
    }
}

fn applies(go_panic: Option<&str>, stderr_tail: &[u8], net_overlay: bool) -> bool {
    !net_overlay && go_panic == Some(GO_DEADLOCK) && contains(stderr_tail, b"net_fake.go")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &[u8] = b"fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n\
        net.(*fakeNetFD).accept(0x1c0e0, {0x0, 0x0})\n\tnet/net_fake.go:332 +0x5\n";

    #[test]
    fn only_a_deadlock_in_the_fake_network_without_the_overlay_is_hinted() {
        assert!(applies(Some(GO_DEADLOCK), DUMP, false));
        assert!(!applies(Some(GO_DEADLOCK), DUMP, true), "the overlay is on: something else is wrong");
        let elsewhere = b"goroutine 1 [chan receive]:\nmain.main()\n\t./main.go:9 +0x2\n";
        assert!(!applies(Some(GO_DEADLOCK), elsewhere, false), "a deadlock of its own");
        assert!(!applies(Some("panic: boom"), DUMP, false));
        assert!(!applies(None, DUMP, false));
    }
}
