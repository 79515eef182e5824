//! The `seedfall.preempt` hook the instrumentation pass imports: it reads
//! the node's counter and running goroutine, lets `Preemption` decide, and
//! parks the node at a slice end (the module header of `preempt` says
//! when). The decision itself lives in `preempt/mod.rs`, below the node.

use super::{BUSY_SLICES, HOOK_MODULE, HOOK_NAME, SLICE_CALLS, SLICE_PARK, goruntime};
use crate::node::{Node, park_for};
use seedfall_engine::{Caller, HostError, Linker};

fn hook(c: &mut Caller<'_, Node>) -> Result<(), HostError> {
    // The instrumentation pass adds the import; a module that declares it
    // itself was never instrumented, and has no counter to arm.
    let Some(p) = c.data().preempt.as_ref() else {
        return Err(HostError::Fail(format!(
            "{HOOK_MODULE}.{HOOK_NAME} called by a module seedfall did not instrument"
        )));
    };
    let (counter_global, counted_before, is_go, records) =
        (p.counter_global, p.counted, p.offsets.is_some(), p.records);
    let counter = c.global_get(counter_global) as i64;
    // Only Go modules have a g global (index 2 by Go's linker convention).
    let g = if is_go { c.global_get(goruntime::GLOBAL_G) } else { 0 };
    // Only a recorded point needs it (finding the function costs a lookup).
    let function = if records { c.calling_function() } else { None };
    let (memory, node) = c.memory_and_data();
    if let Some(goroutines) = &mut node.goroutines {
        goroutines.observe(memory, g);
        node.trace.goroutine = Some(goroutines.current());
    }
    let now = node.clock.now();
    let p = node.preempt.as_mut().expect("checked above");
    let decision = p.decide(now, memory, g, counter, function);
    let node = c.data_mut();
    let p = node.preempt.as_mut().expect("checked above");
    p.armed = p.distance();
    let (counted, armed) = (p.counted, p.armed);
    node.trace.hook_call("preempt", &[counted - counted_before], decision.park as u64);
    node.trace.progress.set_stalled(decision.stalled);
    c.global_set(counter_global, armed);
    if decision.busy {
        let detail = format!(
            "busy loop: the running goroutine ignored {BUSY_SLICES} preemption requests in a row ({} counted calls) \
             without a stack-checked call",
            BUSY_SLICES as u64 * SLICE_CALLS
        );
        c.data_mut().busy_loop = Some(detail);
        // From here until the interrupt lands the guest spins for a real-time while.
        c.data_mut().trace.frozen = true;
        // The watchdog's interrupt stops it inside the function that spins,
        // which the trap then names; until it lands the guest runs on.
        c.data().trace.progress.request_stop();
        return Ok(());
    }
    if decision.park {
        let deadline = c.data().clock.now().plus(SLICE_PARK);
        park_for(c, Some(deadline), "preempted");
    }
    Ok(())
}

/// Bind the `seedfall.preempt` hook the instrumentation pass imports.
pub fn register(linker: &mut Linker<Node>) {
    linker.func(HOOK_MODULE, HOOK_NAME, &[], &[], |c, _| hook(c));
}
