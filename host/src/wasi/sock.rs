//! WASI calls on socket descriptors, over the simulated network (`net/`):
//! reads, writes, accept, shutdown and readiness (`Node::release` closes). On a UDP socket
//! (`net/udp.rs`) a read receives one datagram, truncated to the buffer,
//! and a write sends one to the connected peer (EDESTADDRREQ without one),
//! as read(2) and write(2) do on Linux; accept and shutdown are ENOTSUP. Sockets exist only
//! in the simulated world (the `seedfall.listen`/`dial` calls make them);
//! under `seedfall exec` no descriptor is ever a socket.
//!
//! A socket whose descriptor has FDFLAG_NONBLOCK answers EAGAIN when a call
//! cannot complete, which is what Go's netpoll expects. Without the flag the
//! call parks the node until the socket is ready, then tries again: a
//! blocking socket blocks its node (every goroutine), as on a real host.

use super::abi::*;
use crate::fdtable::{FdEntry, FdKind};
use crate::net::{EndpointId, ShutdownHow};
use crate::node::{Node, Wait, park};
use crate::vtime::SimTime;
use seedfall_engine::Caller;

pub const FILETYPE_SOCKET_DGRAM: u8 = 5;
pub const FILETYPE_SOCKET_STREAM: u8 = 6;
pub const FDFLAG_NONBLOCK: u16 = 4;
const SHUT_RD: u32 = 1;
const SHUT_WR: u32 = 2;

/// Retries `attempt` until it stops answering EAGAIN, parking the node on
/// `wait` in between, unless the descriptor is non-blocking.
fn blocking<R>(
    c: &mut Caller<'_, Node>,
    entry: &FdEntry,
    wait: Wait,
    mut attempt: impl FnMut(&mut Caller<'_, Node>) -> Result<R, Errno>,
) -> Result<R, Errno> {
    loop {
        match attempt(c) {
            Err(EAGAIN) if entry.flags & FDFLAG_NONBLOCK == 0 => {
                c.data_mut().waits = vec![wait];
                park(c, None);
                c.data_mut().waits.clear();
            }
            other => return other,
        }
    }
}

fn errno(e: crate::fs::Errno) -> Errno {
    e as Errno
}

/// fd_read on a socket descriptor: at most `wanted` bytes.
pub fn read(c: &mut Caller<'_, Node>, fd: u32, entry: &FdEntry, wanted: usize) -> Result<Vec<u8>, Errno> {
    if let FdKind::Udp(sock) = entry.kind {
        return blocking(c, entry, Wait::Readable(fd), |c| {
            let node = c.data();
            let mut buf = vec![0u8; wanted];
            let (n, _) = node.net().udp_recv_from(sock, &mut buf, node.clock.now()).map_err(errno)?;
            buf.truncate(n);
            Ok(buf)
        });
    }
    let FdKind::Socket(ep) = entry.kind else { return Err(ENOTCONN) };
    blocking(c, entry, Wait::Readable(fd), |c| {
        let node = c.data();
        let mut buf = vec![0u8; wanted];
        let n = node.net().read(ep, &mut buf, node.clock.now()).map_err(errno)?;
        buf.truncate(n);
        Ok(buf)
    })
}

/// fd_write on a socket descriptor.
pub fn write(c: &mut Caller<'_, Node>, fd: u32, entry: &FdEntry, data: &[u8]) -> Result<usize, Errno> {
    if let FdKind::Udp(sock) = entry.kind {
        let node = c.data();
        let mut net = node.net();
        let peer = net.udp_peer(sock).map_err(|_| EDESTADDRREQ)?;
        return net.udp_send(sock, peer, data, node.clock.now()).map_err(errno);
    }
    let FdKind::Socket(ep) = entry.kind else { return Err(ENOTCONN) };
    blocking(c, entry, Wait::Writable(fd), |c| {
        let node = c.data();
        node.net().write(ep, data, node.clock.now()).map_err(errno)
    })
}

/// sock_accept(fd, flags, *newfd).
pub fn accept(c: &mut Caller<'_, Node>, (fd, flags, result_ptr): (u32, u32, u32)) -> WasiResult {
    let entry = c.data().fds.get(fd).cloned().ok_or(EBADF)?;
    let FdKind::Listener(listener) = entry.kind else {
        return Err(match entry.kind {
            FdKind::Socket(_) => EINVAL,
            FdKind::Udp(_) => ENOTSUP,
            _ => ENOTSOCK,
        });
    };
    // EMFILE leaves the connection queued for a later accept, as on Linux.
    c.data().fds.room()?;
    let ep = blocking(c, &entry, Wait::Readable(fd), |c| {
        let node = c.data();
        node.net().accept(listener, node.clock.now()).map_err(errno)
    })?;
    c.data_mut().accepted = true;
    let new_fd = c.data_mut().fds.insert(FdKind::Socket(ep), flags as u16 & FDFLAG_NONBLOCK)?;
    write_u32(c, result_ptr, new_fd)
}

/// sock_shutdown(fd, how).
pub fn shutdown(c: &mut Caller<'_, Node>, (fd, how): (u32, u32)) -> WasiResult {
    let ep = endpoint(c.data(), fd)?;
    let how = match how {
        SHUT_RD => ShutdownHow::Read,
        SHUT_WR => ShutdownHow::Write,
        x if x == SHUT_RD | SHUT_WR => ShutdownHow::Both,
        _ => return Err(EINVAL),
    };
    let node = c.data();
    node.net().shutdown(ep, how, node.clock.now()).map_err(errno)
}

fn endpoint(node: &Node, fd: u32) -> Result<EndpointId, Errno> {
    match node.fds.get(fd).map(|e| &e.kind) {
        None => Err(EBADF),
        Some(FdKind::Socket(ep)) => Ok(*ep),
        Some(FdKind::Listener(_)) => Err(ENOTCONN),
        Some(FdKind::Udp(_)) => Err(ENOTSUP),
        Some(_) => Err(ENOTSOCK),
    }
}

/// poll_oneoff readiness of a socket descriptor: `Some((error, hangup))` when
/// ready now, `None` when not yet. `write` is the FD_WRITE subscription.
pub fn ready(node: &Node, kind: &FdKind, write: bool) -> Option<(Errno, bool)> {
    let now = node.clock.now();
    let mut net = node.net();
    let answer = match (kind, write) {
        (FdKind::Listener(l), false) => net.acceptable(*l, now).map(|r| (r, false)),
        (FdKind::Listener(_), true) => Ok((true, false)),
        (FdKind::Udp(s), false) => net.udp_readable(*s, now).map(|r| (r, false)),
        (FdKind::Udp(_), true) => Ok((true, false)),
        (FdKind::Socket(ep), _) => {
            let ready = if write { net.writable(*ep, now) } else { net.readable(*ep, now) };
            ready.and_then(|r| Ok((r, r && net.peer_hung_up(*ep, now)?)))
        }
        _ => Ok((true, false)),
    };
    match answer {
        Ok((true, hangup)) => Some((SUCCESS, hangup)),
        Ok((false, _)) => None,
        Err(e) => Some((errno(e), false)),
    }
}

/// When a parked node's wait on a socket would end, if nothing else
/// happens: now, a delivery time, or `None` (only another node's action or a
/// heal can end it). A descriptor that is gone or not a socket is ready now.
pub fn ready_at(node: &Node, wait: Wait, now: SimTime) -> Option<SimTime> {
    let mut net = node.net();
    let at = match wait {
        Wait::Connect(ep) => net.writable_at(ep, now),
        Wait::Readable(fd) | Wait::Writable(fd) => match node.fds.get(fd).map(|e| &e.kind) {
            Some(FdKind::Listener(l)) if matches!(wait, Wait::Readable(_)) => net.acceptable_at(*l, now),
            Some(FdKind::Socket(ep)) if matches!(wait, Wait::Readable(_)) => net.readable_at(*ep, now),
            Some(FdKind::Socket(ep)) => net.writable_at(*ep, now),
            Some(FdKind::Udp(s)) if matches!(wait, Wait::Readable(_)) => net.udp_readable_at(*s, now),
            _ => Ok(Some(now)),
        },
    };
    at.unwrap_or(Some(now))
}
