//! WASI preview1 (`wasi_snapshot_preview1`) over the node's simulated
//! resources. Every function Go's runtime, syscall, os, net and time packages
//! import is bound here; none touches the real clock, file system or network.
//!
//! Each call body returns `Ok(())` or `Err(errno)`; the wrapper writes the errno
//! as the call's i32 result. Only `proc_exit` stops the guest.

pub(crate) mod abi;
mod fd;
mod path;
mod poll;
mod proc;
pub(crate) mod sock;
mod stat;

pub use abi::write_bytes as write_guest;

use crate::hostcall::{self, Params};
use crate::node::{Node, park};
use abi::WasiResult;
use seedfall_engine::{Caller, Linker, ValType};

pub const MODULE: &str = "wasi_snapshot_preview1";

/// Binds a call that returns an errno; its parameters are the tuple `P`
/// (`crate::hostcall`), which is also its wasm signature.
fn bind<P: Params + 'static>(
    linker: &mut Linker<Node>,
    name: &'static str,
    body: impl Fn(&mut Caller<'_, Node>, P) -> WasiResult + 'static,
) {
    hostcall::func(linker, MODULE, name, &[ValType::I32], move |caller, args: P, traced| {
        Node::observe_goroutine(caller);
        let errno = match body(caller, args) {
            Ok(()) => abi::SUCCESS,
            Err(errno) => errno,
        };
        let errno = caller.data_mut().perturbed_errno(name, errno);
        caller.data_mut().trace.host_call(name, traced, errno as u64);
        if caller.data().fs.crash_requested().is_some() {
            // Crashed in the middle of a disk operation (crash_on_io): the
            // guest must not run again; the world sees the request and crashes it.
            let now = caller.data().clock.now();
            park(caller, Some(now));
        }
        Ok(errno as u64)
    });
}

/// Each node's linear-memory cap unless the config sets `memory` (DESIGN.md
/// §1): past it `memory.grow` fails and Go reports out of memory, so many
/// workers times many nodes cannot take the machine (Go's wasm runtime would
/// otherwise grow to wasm32's 4 GiB each).
pub const DEFAULT_MEMORY_BYTES: u64 = 2 << 30;

/// `seedfall exec`'s cap: all of wasm32's 4 GiB, as other wasm runtimes give a
/// single program (a package's own tests may need it: image/png's allocate
/// 512 MB with 1.9 GB in use). A world's nodes keep `DEFAULT_MEMORY_BYTES`.
pub const EXEC_MEMORY_BYTES: u64 = 4 << 30;

/// A linker with every WASI preview1 function bound to `Node` state, capping
/// each instance's memory at `DEFAULT_MEMORY_BYTES` (callers may set another cap).
pub fn linker() -> Linker<Node> {
    let mut linker = Linker::new();
    linker.set_memory_cap_bytes(DEFAULT_MEMORY_BYTES);
    proc::register(&mut linker);
    fd::register(&mut linker);
    path::register(&mut linker);
    poll::register(&mut linker);
    linker
}
