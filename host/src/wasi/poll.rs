//! poll_oneoff: the one place a node waits. Clock subscriptions park the node
//! (its fiber suspends with the deadline; the owner advances virtual time and
//! resumes it); fd subscriptions follow readiness. Events are reported in
//! subscription order, one per ready subscription. A timeout of 0 is a
//! non-blocking poll. Socket subscriptions (simulated world only) follow the
//! network model, level-triggered; the node parks with its fd subscriptions
//! in `Node::waits` and the world wakes it when one may be ready. Under
//! `seedfall exec`, waiting with nothing that can ever become ready is a
//! deadlock and fails the node.

use super::abi::*;
use super::sock;
use crate::clock;
use crate::fdtable::FdKind;
use crate::hostcall;
use crate::node::{Node, Wait as ParkedOn, park};
use crate::vtime::{SimDuration, SimTime};
use seedfall_engine::{Caller, HostError, Linker, ValType::*};

const SUBSCRIPTION_SIZE: u32 = 48;
const EVENT_SIZE: u32 = 32;
const TAG_CLOCK: u8 = 0;
const TAG_FD_READ: u8 = 1;
const TAG_FD_WRITE: u8 = 2;
const SUBCLOCK_ABSTIME: u16 = 1;

enum Wait {
    Clock(SimTime),
    Fd { fd: u32 },
}

struct Subscription {
    userdata: u64,
    tag: u8,
    wait: Wait,
}

fn read_subscriptions(c: &mut Caller<'_, Node>, ptr: u32, count: u32) -> Result<Vec<Subscription>, Errno> {
    let mut subs = Vec::new();
    for i in 0..count {
        // Checked: a count near u32::MAX would wrap the address (and panic in debug).
        let base = i.checked_mul(SUBSCRIPTION_SIZE).and_then(|o| ptr.checked_add(o)).ok_or(EFAULT)?;
        let raw = read_bytes(c, base, SUBSCRIPTION_SIZE)?;
        let u64_at = |o: usize| u64::from_le_bytes(raw[o..o + 8].try_into().expect("8 bytes"));
        let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().expect("4 bytes"));
        let tag = raw[8];
        let wait = match tag {
            TAG_CLOCK => {
                let (clock_id, timeout) = (u32_at(16), u64_at(24));
                let flags = u16::from_le_bytes([raw[40], raw[41]]);
                let now = c.data().clock.now();
                let deadline = match (clock_id, flags & SUBCLOCK_ABSTIME != 0) {
                    (_, false) => now.plus(SimDuration::from_ns(timeout)),
                    (CLOCK_MONOTONIC, true) => clock::instant(timeout),
                    (CLOCK_REALTIME, true) => {
                        now.plus(SimDuration::from_ns(timeout.saturating_sub(c.data().clock.realtime_now())))
                    }
                    _ => return Err(EINVAL),
                };
                Wait::Clock(deadline)
            }
            TAG_FD_READ | TAG_FD_WRITE => Wait::Fd { fd: u32_at(16) },
            _ => return Err(EINVAL),
        };
        subs.push(Subscription { userdata: u64_at(0), tag, wait });
    }
    Ok(subs)
}

/// The event flag for a peer that closed or reset the connection.
const EVENTRWFLAGS_HANGUP: u16 = 1;

/// An fd's readiness: `Some((errno, hangup))` if ready (SUCCESS or an error
/// to report), `None` if it may become ready later. Files, directories and
/// the standard streams are always ready.
fn fd_ready(node: &Node, fd: u32, write: bool) -> Option<(Errno, bool)> {
    match node.fds.get(fd).map(|e| &e.kind) {
        None => Some((EBADF, false)),
        Some(kind @ (FdKind::Socket(_) | FdKind::Listener(_) | FdKind::Udp(_))) => sock::ready(node, kind, write),
        Some(FdKind::Stdin | FdKind::Stdout | FdKind::Stderr | FdKind::File { .. } | FdKind::Dir { .. }) => {
            Some((SUCCESS, false))
        }
    }
}

fn write_event(c: &mut Caller<'_, Node>, at: u32, sub: &Subscription, (error, hangup): (Errno, bool)) -> WasiResult {
    let mut event = [0u8; EVENT_SIZE as usize];
    event[0..8].copy_from_slice(&sub.userdata.to_le_bytes());
    event[8..10].copy_from_slice(&error.to_le_bytes());
    event[10] = sub.tag;
    if hangup {
        event[24..26].copy_from_slice(&EVENTRWFLAGS_HANGUP.to_le_bytes());
    }
    write_bytes(c, at, &event)
}

/// poll_oneoff(subscriptions, events, count, *nevents).
fn poll_oneoff(
    c: &mut Caller<'_, Node>,
    (subs_ptr, events_ptr, count, nevents_ptr): (u32, u32, u32, u32),
) -> Result<Errno, HostError> {
    Node::observe_goroutine(c);
    if count == 0 {
        return Ok(EINVAL);
    }
    let subs = match read_subscriptions(c, subs_ptr, count) {
        Ok(subs) => subs,
        Err(errno) => return Ok(errno),
    };
    loop {
        let now = c.data().clock.now();
        let mut ready = Vec::new();
        for sub in &subs {
            let status = match sub.wait {
                Wait::Clock(deadline) => (deadline <= now).then_some((SUCCESS, false)),
                Wait::Fd { fd } => fd_ready(c.data(), fd, sub.tag == TAG_FD_WRITE),
            };
            if let Some(errno) = status {
                ready.push((sub, errno));
            }
        }
        if !ready.is_empty() {
            for (i, (sub, errno)) in ready.iter().enumerate() {
                let at = (i as u32).checked_mul(EVENT_SIZE).and_then(|o| events_ptr.checked_add(o));
                if let Err(errno) = at.ok_or(EFAULT).and_then(|at| write_event(c, at, sub, *errno)) {
                    return Ok(errno);
                }
            }
            return Ok(match write_u32(c, nevents_ptr, ready.len() as u32) {
                Ok(()) => SUCCESS,
                Err(errno) => errno,
            });
        }
        let earliest = subs.iter().filter_map(|s| if let Wait::Clock(d) = s.wait { Some(d) } else { None }).min();
        let in_world = c.data().sim.is_some();
        if earliest.is_none() && !in_world {
            return Err(HostError::Fail(
                "deadlock: poll_oneoff waits for descriptors that can never become ready".into(),
            ));
        }
        if let Some(counter_global) = c.data().preempt.as_ref().map(|p| p.counter_global()) {
            let counter = c.global_get(counter_global) as i64;
            c.data_mut().preempt.as_mut().expect("just checked").blocked(counter);
        }
        c.data_mut().waits = subs
            .iter()
            .filter_map(|s| match s.wait {
                Wait::Fd { fd } if s.tag == TAG_FD_WRITE => Some(ParkedOn::Writable(fd)),
                Wait::Fd { fd } => Some(ParkedOn::Readable(fd)),
                Wait::Clock(_) => None,
            })
            .collect();
        park(c, earliest);
        c.data_mut().waits.clear();
        if std::mem::take(&mut c.data_mut().dump_goroutines) {
            // Any errno but EINTR makes Go's netpoll throw, printing every goroutine.
            return Ok(ENOTCAPABLE);
        }
    }
}

pub fn register(l: &mut Linker<Node>) {
    hostcall::func(l, super::MODULE, "poll_oneoff", &[I32], |c, args, traced| {
        let errno = poll_oneoff(c, args)?;
        c.data_mut().trace.host_call("poll_oneoff", traced, errno as u64);
        Ok(errno as u64)
    });
}
