//! Running one program to completion in the deterministic world: what
//! `seedfall exec` does. The node's `_start` runs on a fiber; whenever it parks
//! (in poll_oneoff, or at the end of a preemption slice), virtual time jumps to
//! its deadline and it resumes. A watchdog thread, started before
//! instantiation (a start function is guest code too), stops it if it runs for
//! too long without any host call or while it ignores preemption requests.

use crate::node::Node;
use crate::vtime::SimTime;
use crate::watchdog::Watchdog;
use crate::{preempt, wasi};
use seedfall_engine::{Code, Instance, Run, Trap, TrapKind};
use std::sync::Arc;
use std::time::Duration;

/// How a program ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Exit {
    /// `proc_exit(code)`, or 0 when `_start` returned.
    Code(i32),
    Trapped(Trap),
}

/// Instantiate `code` with WASI bound to `node`, run `_start`, and return how it
/// ended together with the instance (whose `data()` is the node: its captured
/// output, clock and file system).
pub fn run(code: Arc<Code>, node: Node, watchdog: Duration) -> Result<(Exit, Instance<Node>), seedfall_engine::Error> {
    let mut linker = wasi::linker();
    linker.set_memory_cap_bytes(wasi::EXEC_MEMORY_BYTES);
    preempt::hook::register(&mut linker);
    let progress = node.trace.progress.clone();
    let counter_global = node.preempt.as_ref().map(|p| p.counter_global());
    // Before instantiation: a start function runs guest code too, and must not hang the run.
    let _watchdog = Watchdog::start(progress.clone(), watchdog);
    let mut instance = Instance::new(code, &linker, node)?;
    if let Some(index) = counter_global {
        // SAFETY: the slot is in the instance's heap-allocated vmctx, which
        // does not move when the instance is returned and outlives the
        // watchdog, dropped when this function returns.
        unsafe { progress.watch_counter(instance.global_ptr(index).expect("the counter global")) };
    }
    let mut run = instance.call("_start", &[])?;
    let exit = loop {
        match run {
            Run::Suspended(parked) => {
                let node = instance.data_mut();
                // Nothing else can wake it: a timer that never fires (its
                // deadline saturated) takes the clock to its end.
                node.clock.advance_to(crate::node::woken_at(parked).unwrap_or(SimTime::MAX));
                node.trace.resume(node.clock.monotonic_ns());
                run = instance.resume(0)?;
            }
            Run::Returned(_) => break Exit::Code(0),
            Run::Exited(code) => break Exit::Code(code),
            Run::Trapped(mut trap) => {
                // A busy loop the counters found: the watchdog's interrupt
                // stopped it in the spinning function; say what it was.
                if let Some(detail) = instance.data_mut().busy_loop.take() {
                    trap.detail = Some(detail);
                } else if let Some(p) = instance
                    .data()
                    .preempt
                    .as_ref()
                    .filter(|_| trap.kind == TrapKind::Interrupted && progress.stalled())
                {
                    trap.detail = Some(format!(
                        "the running goroutine ignored {} preemption requests in a row (its loop calls only \
                         functions that cannot take one: runtime or internal packages, or functions without a \
                         stack check when entry checks are off) and made no other host call within the \
                         watchdog's limit of CPU time",
                        p.ignored_slices()
                    ));
                }
                break Exit::Trapped(trap);
            }
        }
    };
    Ok((exit, instance))
}

/// The run's trace hash: its host calls, resumptions and final memory.
pub fn trace_hash(instance: &Instance<Node>) -> crate::trace::TraceHash {
    let memory = instance.memory();
    let untouched = memory.and_then(|m| m.untouched_pages());
    let bytes = memory.map_or(&[][..], |m| m.bytes());
    instance.data().trace.finish(bytes, instance.code().initial_memory(), untouched.as_deref())
}
