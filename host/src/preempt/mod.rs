//! Deterministic preemption of goroutines. The instrumentation pass makes every
//! function entry (and, with `loops`, every loop head) decrement a counter
//! global and call the `seedfall.preempt` hook when it reaches zero; counting is
//! part of the execution, so preemption points are the same in every run.
//!
//! At each hook the host accounts the calls run since the last one and decides:
//! - the end of a full slice (`SLICE_CALLS` counted calls without blocking): ask
//!   Go's runtime to preempt the running goroutine and park the node for
//!   `SLICE_PARK` of virtual time, so other nodes run and timers fire;
//! - a point of the strategy (`strategy`): only ask for the preemption, which
//!   sends the goroutine to the back of Go's run queue.
//!
//! Requests are at least `MIN_QUANTUM` counted calls apart, so a tiny `every`
//! cannot livelock the runtime. With loop counters, a goroutine that ignores
//! `BUSY_SLICES` slice-end requests in a row (about 420 million counted
//! events, 1 s of virtual time) spins without stack-checked calls: a busy-loop
//! failure (`Node::busy_loop`; the watchdog's interrupt then stops the guest in
//! the spinning function). Without loop counters there is no such verdict:
//! the instrumentation's entry checks make every call to a non-runtime function
//! a preemption point, so a goroutine that ignores a request loops over runtime
//! or internal functions only (or computes in one long call, as Go's `bytes`
//! tests do); the hook marks it stalled, and the watchdog then stops it if it
//! goes on ignoring requests for its limit of CPU time. A loop with no calls at
//! all never reaches the hook (the watchdog's case too).

pub mod goruntime;
pub mod hook;
pub mod strategy;

use crate::vtime::{SimDuration, SimTime};
use goruntime::{GoOffsets, Request};
use strategy::Schedule;

pub const SLICE_CALLS: u64 = 4_194_304;
pub const SLICE_PARK: SimDuration = SimDuration::from_ns(10_000_000);
pub const MIN_QUANTUM: u64 = 256;
pub const BUSY_SLICES: u32 = 100;
pub const HOOK_MODULE: &str = "seedfall";
pub const HOOK_NAME: &str = "preempt";

/// A node's preemption state.
pub struct Preemption {
    counter_global: u32,
    /// `None` for modules that are not Go programs: nothing to ask, slices still park.
    offsets: Option<GoOffsets>,
    schedule: Schedule,
    /// The value last written into the counter.
    armed: u64,
    /// Counted calls up to the last hook.
    counted: u64,
    slice_start: u64,
    last_request: Option<u64>,
    ignored_slices: u32,
    /// Whether loop heads are counted, which makes the busy-loop verdict sound.
    loops: bool,
    /// Whether strategy points are recorded in `fired` (pct only).
    records: bool,
    /// Each point at which the strategy preempted and that the world has
    /// not taken yet: the `preempt` faults of a run.
    pub fired: Vec<Fired>,
}

impl Preemption {
    pub fn new(
        counter_global: u32,
        offsets: Option<GoOffsets>,
        schedule: Schedule,
        loops: bool,
        records: bool,
    ) -> Preemption {
        Preemption {
            records,
            counter_global,
            offsets,
            schedule,
            armed: 0,
            counted: 0,
            slice_start: 0,
            last_request: None,
            ignored_slices: 0,
            loops,
            fired: Vec::new(),
        }
    }

    pub fn counter_global(&self) -> u32 {
        self.counter_global
    }

    /// Slice-end requests ignored in a row so far.
    pub fn ignored_slices(&self) -> u32 {
        self.ignored_slices
    }

    /// Counted calls up to the last hook.
    pub fn counted(&self) -> u64 {
        self.counted
    }

    /// Counted calls so far, given the counter's current value read from
    /// the instance (`Instance::global_get(counter_global)`), past the last hook.
    pub fn counted_at(&self, counter: u64) -> u64 {
        self.counted_now(counter as i64)
    }

    /// Counted calls so far, given the counter's current value.
    fn counted_now(&self, counter: i64) -> u64 {
        (self.counted as i64 + self.armed as i64 - counter).max(self.counted as i64) as u64
    }

    /// The node blocked (waited in poll_oneoff): its slice starts again.
    pub fn blocked(&mut self, counter: i64) {
        self.slice_start = self.counted_now(counter);
    }

    /// Calls until the next thing to decide: the slice end or a strategy point.
    fn distance(&self) -> u64 {
        let slice_end = self.slice_start + SLICE_CALLS;
        let next = self.schedule.next().map_or(slice_end, |p| p.min(slice_end));
        next.saturating_sub(self.counted).max(1)
    }
}

/// A strategy point that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fired {
    /// Counted calls so far (of this incarnation).
    pub counted: u64,
    pub at: SimTime,
    /// The defined function whose entry (or loop head) reached the point:
    /// the running goroutine yields there (None: the engine could not tell).
    pub function: Option<u32>,
}

/// What one hook decided.
struct Decision {
    park: bool,
    busy: bool,
    /// The running goroutine ignored the last slice-end request (without loop counters).
    stalled: bool,
}

impl Preemption {
    /// What the hook at `now` decides, given the counter's value, the
    /// running goroutine `g` and the function that reached the hook.
    fn decide(&mut self, now: SimTime, memory: &mut [u8], g: u64, counter: i64, function: Option<u32>) -> Decision {
        let p = self;
        p.counted = p.counted_now(counter);
        let slice_end = p.counted - p.slice_start >= SLICE_CALLS;
        let strategy_point = p.schedule.reached(p.counted);
        if strategy_point && p.records {
            p.fired.push(Fired { counted: p.counted, at: now, function });
        }
        let quantum_ok = p.last_request.is_none_or(|last| p.counted - last >= MIN_QUANTUM);
        let mut busy = false;
        let mut stalled = p.ignored_slices > 0 && !p.loops;
        // A slice end always asks; a strategy point only once the quantum is up.
        if (slice_end || (strategy_point && quantum_ok))
            && let Some(offsets) = p.offsets
        {
            let outcome = goruntime::request_preemption(memory, g, &offsets);
            if outcome == Request::Sent {
                p.last_request = Some(p.counted);
            }
            if slice_end {
                p.ignored_slices = if outcome == Request::AlreadyPending { p.ignored_slices + 1 } else { 0 };
                busy = p.loops && p.ignored_slices >= BUSY_SLICES;
                // Without loop counters the watchdog ends such a loop (in real time); with them
                // `busy` does, deterministically, and the watchdog must not get there first.
                stalled = !p.loops && p.ignored_slices > 0;
            }
        }
        if slice_end {
            p.slice_start = p.counted;
        }
        Decision { park: slice_end, busy, stalled }
    }
}
