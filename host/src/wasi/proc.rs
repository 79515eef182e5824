//! Process-level calls: args, environment, clocks, randomness, exit, yield.

use super::abi::*;
use super::bind;
use crate::node::Node;
use seedfall_engine::{Caller, HostError, Linker, ValType::*};

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
    bind(l, "args_sizes_get", &[I32, I32], |c, v| {
        let args = c.data().args.clone();
        write_sizes(c, &args, v[0] as u32, v[1] as u32)
    });
    bind(l, "args_get", &[I32, I32], |c, v| {
        let args = c.data().args.clone();
        write_string_list(c, &args, v[0] as u32, v[1] as u32)
    });
    bind(l, "environ_sizes_get", &[I32, I32], |c, v| {
        let env = c.data().env.clone();
        write_sizes(c, &env, v[0] as u32, v[1] as u32)
    });
    bind(l, "environ_get", &[I32, I32], |c, v| {
        let env = c.data().env.clone();
        write_string_list(c, &env, v[0] as u32, v[1] as u32)
    });
    bind(l, "clock_time_get", &[I32, I64, I32], |c, v| {
        let now = match v[0] as u32 {
            CLOCK_REALTIME => c.data_mut().clock.read_realtime(),
            CLOCK_MONOTONIC => c.data_mut().clock.read_monotonic(),
            _ => return Err(EINVAL),
        };
        write_u64(c, v[2] as u32, now)
    });
    bind(l, "clock_res_get", &[I32, I32], |c, v| match v[0] as u32 {
        CLOCK_REALTIME | CLOCK_MONOTONIC => write_u64(c, v[1] as u32, 1),
        _ => Err(EINVAL),
    });
    bind(l, "random_get", &[I32, I32], |c, v| fill_random(c, v[0] as u32, v[1] as u32));
    bind(l, "sched_yield", &[], |c, _| {
        // Go's busy-wait loops spin on sched_yield and the clock; time must move.
        c.data_mut().clock.read_monotonic();
        Ok(())
    });
    l.func(super::MODULE, "proc_exit", &[I32], &[], |c, v| {
        c.data_mut().trace.host_call("proc_exit", &v[..1], 0);
        Err(HostError::Exit(v[0] as u32 as i32))
    });
    bind(l, "proc_raise", &[I32], |_, _| Err(ENOSYS));
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
