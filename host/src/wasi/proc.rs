//! Process-level calls: args, environment, clocks, randomness, exit, yield.

use super::abi::*;
use super::bind;
use crate::hostcall;
use crate::node::Node;
use seedfall_engine::{Caller, HostError, Linker};

/// Write a list of strings the WASI way: pointers at `list`, NUL-terminated bytes at `buf`.
fn write_string_list(c: &mut Caller<'_, Node>, items: &[String], list: u32, buf: u32) -> WasiResult {
    let mut at = buf;
    for (i, item) in items.iter().enumerate() {
        write_u32(c, list + 4 * i as u32, at)?;
        write_bytes(c, at, item.as_bytes())?;
        write_bytes(c, at + item.len() as u32, &[0])?;
        at += item.len() as u32 + 1;
    }
    Ok(())
}

fn write_sizes(c: &mut Caller<'_, Node>, items: &[String], count_ptr: u32, size_ptr: u32) -> WasiResult {
    let size: usize = items.iter().map(|s| s.len() + 1).sum();
    write_u32(c, count_ptr, items.len() as u32)?;
    write_u32(c, size_ptr, size as u32)
}

pub fn register(l: &mut Linker<Node>) {
    bind(l, "args_sizes_get", |c, (count, size): (u32, u32)| {
        let args = c.data().args.clone();
        write_sizes(c, &args, count, size)
    });
    bind(l, "args_get", |c, (list, buf): (u32, u32)| {
        let args = c.data().args.clone();
        write_string_list(c, &args, list, buf)
    });
    bind(l, "environ_sizes_get", |c, (count, size): (u32, u32)| {
        let env = c.data().env.clone();
        write_sizes(c, &env, count, size)
    });
    bind(l, "environ_get", |c, (list, buf): (u32, u32)| {
        let env = c.data().env.clone();
        write_string_list(c, &env, list, buf)
    });
    bind(l, "clock_time_get", |c, (clock, _precision, result): (u32, u64, u32)| {
        let now = match clock {
            CLOCK_REALTIME => c.data_mut().clock.read_realtime(),
            CLOCK_MONOTONIC => c.data_mut().clock.read_monotonic(),
            _ => return Err(EINVAL),
        };
        write_u64(c, result, now)
    });
    bind(l, "clock_res_get", |c, (clock, result): (u32, u32)| match clock {
        CLOCK_REALTIME | CLOCK_MONOTONIC => write_u64(c, result, 1),
        _ => Err(EINVAL),
    });
    bind(l, "random_get", |c, (ptr, len): (u32, u32)| fill_random(c, ptr, len));
    bind(l, "sched_yield", |c, ()| {
        // Go's busy-wait loops spin on sched_yield and the clock; time must move.
        c.data_mut().clock.read_monotonic();
        Ok(())
    });
    hostcall::func(l, super::MODULE, "proc_exit", &[], |c, (code,): (i32,), traced| {
        c.data_mut().trace.host_call("proc_exit", traced, 0);
        Err(HostError::Exit(code))
    });
    bind(l, "proc_raise", |_, _: (u32,)| Err(ENOSYS));
}

/// The most random bytes made at once: a guest asking for gigabytes gets
/// them chunk by chunk in its own memory, never in one host buffer.
const RANDOM_CHUNK_BYTES: u32 = 64 << 10;

/// Fills `len` bytes of guest memory at `ptr` from the node's seeded stream
/// (random_get, and reads of /dev/random and /dev/urandom). The range is
/// checked whole first, so a bad one is EFAULT with nothing drawn or written.
pub(super) fn fill_random(c: &mut Caller<'_, Node>, ptr: u32, len: u32) -> WasiResult {
    c.read(ptr, len).map_err(|_| EFAULT)?;
    let mut chunk = vec![0; len.min(RANDOM_CHUNK_BYTES) as usize];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(RANDOM_CHUNK_BYTES);
        c.data_mut().random.fill(&mut chunk[..n as usize]);
        write_bytes(c, ptr + done, &chunk[..n as usize])?;
        done += n;
    }
    Ok(())
}
