//! The `seedfall` import module the Go SDK (`sdk/go`, package `sim`) calls,
//! exactly as docs/sdk-abi.md specifies it: the node's name and incarnation,
//! sockets of the simulated network (`listen`, `dial`, `sock_name`, and for
//! net_overlay `connect`, `connect_status`, `sock_addr` and the UDP calls
//! `udp_connect`, `udp_sendto`, `udp_recvfrom`), properties, the
//! workload budget, `quiet_for`, `setup_complete` and `progress`, and the history
//! (`op_*`, `txn_*`: recorded in the run's shared `History` and hashed
//! into the node's trace with their contents). Only bound in the
//! simulated world; it records what the guest says in `SimLink::reports`
//! and leaves the decisions (failing the run, starting faults) to the world.
//!
//! A failing property parks the node at once (it never runs again: the world
//! ends the run when it drains the report). `dial` parks the node until the
//! connect is answered, so Go sees a connected or refused socket.

use crate::fdtable::FdKind;
use crate::fs::Errno;
use crate::history::{Call, Completion};
use crate::hostcall::{self, Params};
use crate::net::{ConnectStatus, SockAddr, ip};
use crate::node::{Node, PropertyKind, Report, SimLink, Wait, park};
use crate::vtime::SimTime;
use crate::wasi::sock::FDFLAG_NONBLOCK;
use seedfall_check::txn::{MicroOp, Status};
use seedfall_engine::{Caller, HostError, Linker, ValType, ValType::*};

pub const MODULE: &str = "seedfall";
/// `op_invoke`'s kinds.
const OP_PUT: u32 = 0;
const OP_GET: u32 = 1;
const OP_INVOKE: u32 = 2;
/// `listen`'s and `dial`'s network argument for TCP, and for UDP.
const NETWORK_TCP: u32 = 0;
const NETWORK_UDP: u32 = 1;

/// A failed call's result: the errno, negated (docs/sdk-abi.md).
fn failed(errno: Errno) -> i64 {
    -(errno as i64)
}

/// A new descriptor's number, or its negated errno.
fn fd_or_failed(fd: Result<u32, Errno>) -> i64 {
    fd.map_or_else(failed, i64::from)
}

fn link<'a>(c: &'a mut Caller<'_, Node>) -> &'a mut SimLink {
    c.data_mut().sim.as_mut().expect("the seedfall module is bound only in the simulated world")
}

/// Binds `name` with parameters `P` (`crate::hostcall`), tracing its
/// arguments and result like a WASI call.
fn bind<P: Params + 'static>(
    linker: &mut Linker<Node>,
    name: &'static str,
    results: &'static [ValType],
    body: impl Fn(&mut Caller<'_, Node>, P) -> Result<i64, HostError> + 'static,
) {
    hostcall::func(linker, MODULE, name, results, move |c, args: P, traced| {
        Node::observe_goroutine(c);
        let result = body(c, args)?;
        c.data_mut().trace.host_call(name, traced, result as u64);
        Ok(result as u64)
    });
}

/// The longest string an SDK call takes (a property's message, a history
/// operation's input or output, a key): longer is answered like a bad
/// pointer, so the host never copies a guest-sized string.
const SDK_STRING_MAX_BYTES: u64 = 1 << 20;

fn read_string(c: &Caller<'_, Node>, ptr: u32, len: u32) -> Option<String> {
    if u64::from(len) > SDK_STRING_MAX_BYTES {
        return None;
    }
    let bytes = c.read(ptr, len).ok()?;
    Some(String::from_utf8_lossy(bytes).into_owned())
}

fn node_name(c: &mut Caller<'_, Node>, (buf, cap): (u32, u32)) -> Result<i64, HostError> {
    let name = c.data().name.clone();
    if name.len() <= cap as usize && crate::wasi::write_guest(c, buf, name.as_bytes()).is_err() {
        return Ok(failed(Errno::FAULT));
    }
    Ok(name.len() as i64)
}

/// `listen(network, port)`: a TCP listener, or for UDP a datagram socket
/// bound to the port (0: an ephemeral one).
fn listen(c: &mut Caller<'_, Node>, (network, port): (u32, u32)) -> Result<i64, HostError> {
    if network != NETWORK_TCP && network != NETWORK_UDP {
        return Ok(failed(Errno::AFNOSUPPORT));
    }
    let Ok(port) = u16::try_from(port) else { return Ok(failed(Errno::INVAL)) };
    if let Err(e) = c.data().fds.room() {
        return Ok(failed(e));
    }
    let now = c.data().clock.now();
    let sim = link(c);
    if network == NETWORK_UDP {
        let bound = sim.net.borrow_mut().udp_bind(sim.id, port, now);
        return Ok(match bound {
            Ok(sock) => fd_or_failed(c.data_mut().fds.insert(FdKind::Udp(sock), FDFLAG_NONBLOCK)),
            Err(e) => failed(e),
        });
    }
    let listened = sim.net.borrow_mut().listen(sim.id, port, now);
    Ok(match listened {
        Ok(listener) => fd_or_failed(c.data_mut().fds.insert(FdKind::Listener(listener), FDFLAG_NONBLOCK)),
        Err(e) => failed(e),
    })
}

fn dial(c: &mut Caller<'_, Node>, (network, ptr, len): (u32, u32, u32)) -> Result<i64, HostError> {
    if network != NETWORK_TCP && network != NETWORK_UDP {
        return Ok(failed(Errno::AFNOSUPPORT));
    }
    let Some(addr) = read_string(c, ptr, len) else { return Ok(failed(Errno::FAULT)) };
    let Some((host, port)) = addr.rsplit_once(':') else { return Ok(failed(Errno::INVAL)) };
    let Ok(port) = port.parse::<u16>() else { return Ok(failed(Errno::INVAL)) };
    if let Err(e) = c.data().fds.room() {
        return Ok(failed(e));
    }
    let now = c.data().clock.now();
    let sim = link(c);
    if network == NETWORK_UDP {
        return Ok(dial_udp(c, host, port, now));
    }
    let net = sim.net.clone();
    let ep = match net.borrow_mut().connect(sim.id, host, port, now) {
        Ok(ep) => ep,
        Err(e) => return Ok(failed(e)),
    };
    loop {
        let now = c.data().clock.now();
        let status = net.borrow_mut().connect_status(ep, now);
        match status {
            Ok(ConnectStatus::Pending) => {
                c.data_mut().waits = vec![Wait::Connect(ep)];
                park(c, None);
                c.data_mut().waits.clear();
            }
            Ok(ConnectStatus::Connected) => {
                return Ok(fd_or_failed(c.data_mut().fds.insert(FdKind::Socket(ep), FDFLAG_NONBLOCK)));
            }
            Ok(ConnectStatus::Refused) | Err(_) => {
                let _ = net.borrow_mut().close(ep, now);
                return Ok(failed(Errno::CONNREFUSED));
            }
        }
    }
}

/// `dial(1, "node:port")`: a UDP socket on an ephemeral port connected to
/// the named node's port; nothing travels, so it never blocks.
fn dial_udp(c: &mut Caller<'_, Node>, host: &str, port: u16, now: SimTime) -> i64 {
    let sim = link(c);
    let mut net = sim.net.borrow_mut();
    let Some(to) = net.resolve(host) else { return failed(Errno::HOSTUNREACH) };
    let connected = net.udp_bind(sim.id, 0, now).and_then(|sock| {
        let result = net.udp_connect(sock, ip::node_ip(to), port, now);
        if result.is_err() {
            let _ = net.udp_close(sock, now);
        }
        result.map(|()| sock)
    });
    drop(net);
    match connected {
        Ok(sock) => fd_or_failed(c.data_mut().fds.insert(FdKind::Udp(sock), FDFLAG_NONBLOCK)),
        Err(e) => failed(e),
    }
}

/// The UDP socket behind descriptor `fd`.
fn udp_fd(c: &Caller<'_, Node>, fd: u32) -> Result<crate::net::UdpId, Errno> {
    match c.data().fds.get(fd).map(|e| &e.kind) {
        Some(FdKind::Udp(sock)) => Ok(*sock),
        Some(_) => Err(Errno::NOTSOCK),
        None => Err(Errno::BADF),
    }
}

/// `udp_connect(fd, ip, port) -> i32`: gives a UDP socket its default peer
/// (net_overlay's `DialUDP`); 0 or `-errno`.
fn udp_connect(c: &mut Caller<'_, Node>, (fd, ip, port): (u32, u32, u32)) -> Result<i64, HostError> {
    let Ok(port) = u16::try_from(port) else { return Ok(failed(Errno::INVAL)) };
    let sock = match udp_fd(c, fd) {
        Ok(sock) => sock,
        Err(e) => return Ok(failed(e)),
    };
    let now = c.data().clock.now();
    let done = link(c).net.borrow_mut().udp_connect(sock, ip, port, now);
    Ok(done.map_or_else(failed, |()| 0))
}

/// `udp_sendto(fd, ip, port, ptr, len) -> i32`: one datagram to a simulated
/// IP and port; its length, or `-errno` (`-EMSGSIZE` past 65,507 bytes).
fn udp_sendto(c: &mut Caller<'_, Node>, (fd, ip, port, ptr, len): (u32, u32, u32, u32, u32)) -> Result<i64, HostError> {
    let Ok(port) = u16::try_from(port) else { return Ok(failed(Errno::INVAL)) };
    let sock = match udp_fd(c, fd) {
        Ok(sock) => sock,
        Err(e) => return Ok(failed(e)),
    };
    // Checked before copying, so a guest-sized length is never copied.
    if len as usize > crate::net::udp::MAX_DATAGRAM_BYTES {
        return Ok(failed(Errno::MSGSIZE));
    }
    let Ok(data) = c.read(ptr, len).map(<[u8]>::to_vec) else { return Ok(failed(Errno::FAULT)) };
    let now = c.data().clock.now();
    let sent = link(c).net.borrow_mut().udp_send_to(sock, ip, port, &data, now);
    Ok(sent.map_or_else(failed, |n| n as i64))
}

/// `udp_recvfrom(fd, ptr, len, addr_out) -> i32`: takes one datagram,
/// copies at most `len` bytes of it to `ptr` (the rest is discarded) and
/// its source as the i64 `ip << 16 | port` to `addr_out`; the count, or
/// `-EAGAIN` when none is queued (it never blocks: Go polls).
fn udp_recvfrom(c: &mut Caller<'_, Node>, (fd, ptr, len, addr_out): (u32, u32, u32, u32)) -> Result<i64, HostError> {
    let sock = match udp_fd(c, fd) {
        Ok(sock) => sock,
        Err(e) => return Ok(failed(e)),
    };
    let len = len.min(crate::net::udp::MAX_DATAGRAM_BYTES as u32);
    // Out-of-bounds buffers fail before a datagram is taken.
    if c.read(ptr, len).is_err() || c.read(addr_out, 8).is_err() {
        return Ok(failed(Errno::FAULT));
    }
    let now = c.data().clock.now();
    let mut buf = vec![0u8; len as usize];
    let received = link(c).net.borrow_mut().udp_recv_from(sock, &mut buf, now);
    let (n, from) = match received {
        Ok(got) => got,
        Err(e) => return Ok(failed(e)),
    };
    let packed = u64::from(ip::node_ip(from.node)) << 16 | u64::from(from.port);
    let wrote = crate::wasi::write_guest(c, ptr, &buf[..n])
        .and_then(|()| crate::wasi::write_guest(c, addr_out, &packed.to_le_bytes()));
    Ok(if wrote.is_ok() { n as i64 } else { failed(Errno::FAULT) })
}

/// `connect(ip, port)`: starts a connection to a simulated IP (net_overlay,
/// `net/ip.rs`) and returns its descriptor at once, the connect pending;
/// Go waits for it with poll_oneoff FD_WRITE, under its own deadline, so a
/// partitioned peer times out instead of parking the node.
fn connect(c: &mut Caller<'_, Node>, (ip, port): (u32, u32)) -> Result<i64, HostError> {
    let Ok(port) = u16::try_from(port) else { return Ok(failed(Errno::INVAL)) };
    if let Err(e) = c.data().fds.room() {
        return Ok(failed(e));
    }
    let now = c.data().clock.now();
    let sim = link(c);
    let started = sim.net.borrow_mut().connect_ip(sim.id, ip, port, now);
    Ok(match started {
        Ok(ep) => fd_or_failed(c.data_mut().fds.insert(FdKind::Socket(ep), FDFLAG_NONBLOCK)),
        Err(e) => failed(e),
    })
}

/// `connect_status(fd)`: 0 once connected, `-EINPROGRESS` while pending,
/// `-ECONNREFUSED` when refused (Go's SO_ERROR after a non-blocking connect).
fn connect_status(c: &mut Caller<'_, Node>, (fd,): (u32,)) -> Result<i64, HostError> {
    let Some(FdKind::Socket(ep)) = c.data().fds.get(fd).map(|e| e.kind.clone()) else {
        return Ok(failed(Errno::BADF));
    };
    let now = c.data().clock.now();
    let status = link(c).net.borrow_mut().connect_status(ep, now);
    Ok(match status {
        Ok(ConnectStatus::Connected) => 0,
        Ok(ConnectStatus::Pending) => failed(Errno::INPROGRESS),
        Ok(ConnectStatus::Refused) => failed(Errno::CONNREFUSED),
        Err(e) => failed(e),
    })
}

/// `resolve(ptr, len) -> i64`: the simulated IP of the node named by the
/// string (net_overlay's lookups of node names, one call instead of Go's
/// resolver reading `/etc/hosts`, which names the same IPs), or `-ENOENT`
/// for any other name, which Go then looks up its own way.
fn resolve(c: &mut Caller<'_, Node>, (ptr, len): (u32, u32)) -> Result<i64, HostError> {
    let Some(name) = read_string(c, ptr, len) else { return Ok(failed(Errno::FAULT)) };
    let node = link(c).net.borrow().resolve(&name);
    Ok(node.map_or_else(|| failed(Errno::NOENT), |node| i64::from(ip::node_ip(node))))
}

/// The address of a socket descriptor: its own or its peer's.
fn fd_addr(c: &mut Caller<'_, Node>, fd: u32, peer: bool) -> Result<SockAddr, Errno> {
    let kind = c.data().fds.get(fd).map(|e| e.kind.clone()).ok_or(Errno::BADF)?;
    let net = link(c).net.borrow();
    match (kind, peer) {
        (FdKind::Socket(ep), false) => net.local_addr(ep),
        (FdKind::Socket(ep), true) => net.peer_addr(ep),
        (FdKind::Listener(l), false) => net.listener_addr(l),
        (FdKind::Listener(_), true) => Err(Errno::NOTCONN),
        (FdKind::Udp(s), false) => net.udp_local_addr(s),
        (FdKind::Udp(s), true) => net.udp_peer(s),
        _ => Err(Errno::NOTSOCK),
    }
}

/// `sock_addr(fd, peer) -> i64`: the simulated IP and port of a socket's own
/// (peer 0) or its peer's (peer 1) address, packed as `ip << 16 | port`.
fn sock_addr(c: &mut Caller<'_, Node>, (fd, peer): (u32, u32)) -> Result<i64, HostError> {
    Ok(match fd_addr(c, fd, peer != 0) {
        Ok(addr) => i64::from(ip::node_ip(addr.node)) << 16 | i64::from(addr.port),
        Err(e) => failed(e),
    })
}

/// `flock(fd, how)`: compat_overlay's `syscall.Flock` (`crate::flock`);
/// 0 or `-errno` (`-EAGAIN` for a conflicting `LOCK_NB` request).
fn flock(c: &mut Caller<'_, Node>, (fd, how): (u32, u32)) -> Result<i64, HostError> {
    let node = c.data_mut();
    let ino = match node.fds.get(fd).map(|e| &e.kind) {
        Some(FdKind::File { ino, .. } | FdKind::Dir { ino, .. }) => *ino,
        Some(_) => return Ok(failed(Errno::INVAL)),
        None => return Ok(failed(Errno::BADF)),
    };
    Ok(node.locks.flock(ino, fd, how).map_or_else(failed, |()| 0))
}

/// `mmap(fd, offset, ptr, len, prot, flags)`: compat_overlay's
/// `syscall.Mmap` maps the guest's `len` bytes at `ptr` (crate::mmap);
/// 0 or `-errno`.
fn mmap(
    c: &mut Caller<'_, Node>,
    (fd, offset, ptr, len, prot, flags): (u32, u64, u32, u32, u32, u32),
) -> Result<i64, HostError> {
    use crate::mmap::{MAP_PRIVATE, MAP_SHARED, Mapping, PROT_WRITE};
    let (memory, node) = c.memory_and_data();
    let Some(entry) = node.fds.get(fd).cloned() else { return Ok(failed(Errno::BADF)) };
    let FdKind::File { ino, .. } = entry.kind else { return Ok(failed(Errno::NODEV)) };
    let shared = match flags & (MAP_SHARED | MAP_PRIVATE) {
        MAP_SHARED => true,
        MAP_PRIVATE => false,
        _ => return Ok(failed(Errno::INVAL)),
    };
    let writable = prot & PROT_WRITE != 0;
    // As Linux: reading needs a readable descriptor, and a shared writable
    // mapping a writable one.
    if !entry.can_read() || (shared && writable && !entry.can_write()) {
        return Ok(failed(Errno::ACCES));
    }
    let mapping = Mapping { ino, offset, ptr, len, shared, writable };
    Ok(node.mappings.map(&mut node.fs, memory, mapping).map_or_else(failed, |()| 0))
}

/// `munmap(ptr, len)`: unmaps a whole mapping; 0 or `-errno`.
fn munmap(c: &mut Caller<'_, Node>, (ptr, len): (u32, u32)) -> Result<i64, HostError> {
    let (memory, node) = c.memory_and_data();
    let now = node.clock.realtime_now();
    Ok(node.mappings.unmap(&mut node.fs, memory, ptr, len, now).map_or_else(failed, |()| 0))
}

/// `msync(ptr, len, flags)`: writes a mapping's changes back, durably with
/// MS_SYNC; 0 or `-errno`.
fn msync(c: &mut Caller<'_, Node>, (ptr, len, flags): (u32, u32, u32)) -> Result<i64, HostError> {
    let (memory, node) = c.memory_and_data();
    let now = node.clock.realtime_now();
    let result = node.mappings.msync(&mut node.fs, memory, ptr, len, flags, now);
    Ok(result.map_or_else(failed, |()| 0))
}

/// `sock_name(fd, peer, buf, cap)`: the socket's own (peer 0) or its
/// peer's (peer 1) address as "node:port"; returns the length, which may
/// exceed `cap` (call again with a bigger buffer).
fn sock_name(c: &mut Caller<'_, Node>, (fd, peer, buf, cap): (u32, u32, u32, u32)) -> Result<i64, HostError> {
    let addr = match fd_addr(c, fd, peer != 0) {
        Ok(addr) => link(c).net.borrow().addr_string(addr),
        Err(e) => return Ok(failed(e)),
    };
    if addr.len() <= cap as usize && crate::wasi::write_guest(c, buf, addr.as_bytes()).is_err() {
        return Ok(failed(Errno::FAULT));
    }
    Ok(addr.len() as i64)
}

fn property(c: &mut Caller<'_, Node>, (kind, cond, ptr, len): (u32, u32, u32, u32)) -> Result<i64, HostError> {
    let Some(kind) = PropertyKind::from_abi(kind) else {
        return Err(HostError::Fail(format!("seedfall.property: unknown kind {kind}")));
    };
    let cond = cond != 0;
    let message =
        read_string(c, ptr, len).ok_or_else(|| HostError::Fail("seedfall.property: message out of bounds".into()))?;
    link(c).reports.push(Report::Property { kind, cond, message });
    if kind.fails(cond) {
        let now = c.data().clock.now();
        park(c, Some(now));
    }
    Ok(0)
}

fn budget(c: &mut Caller<'_, Node>, (default,): (i64,)) -> Result<i64, HostError> {
    link(c).reports.push(Report::Budget { default: default.max(0) as u64 });
    Ok(match link(c).budget_cap {
        Some(cap) => default.min(cap as i64),
        None => default,
    })
}

/// The virtual time of a history call, in ns since the run's start.
fn history_now(c: &Caller<'_, Node>) -> u64 {
    c.data().clock.now().ns()
}

/// `op_invoke(client, kind, key, key_len, input, input_len) -> id`.
fn op_invoke(
    c: &mut Caller<'_, Node>,
    (client, kind, key, key_len, input, input_len): (i32, u32, u32, u32, u32, u32),
) -> Result<i64, HostError> {
    let Ok(client) = u32::try_from(client) else { return Ok(failed(Errno::INVAL)) };
    let Some(input) = read_string(c, input, input_len) else { return Ok(failed(Errno::FAULT)) };
    let call = match kind {
        OP_PUT => Call::Put(input),
        OP_GET => Call::Get,
        OP_INVOKE => Call::Invoke(input),
        _ => return Ok(failed(Errno::INVAL)),
    };
    let key = match call {
        Call::Invoke(_) => None,
        _ => match read_string(c, key, key_len) {
            Some(key) => Some(key),
            None => return Ok(failed(Errno::FAULT)),
        },
    };
    let at = history_now(c);
    let traced = format!("{}|{call:?}", key.as_deref().unwrap_or(""));
    let id = link(c).history.borrow_mut().invoke(client, key, call, at);
    c.data_mut().trace.record(b"op_invoke", traced.as_bytes(), &[client as u64, at, id]);
    Ok(id as i64)
}

/// `op_complete(id, status, output, output_len)`.
fn op_complete(c: &mut Caller<'_, Node>, (id, status, ptr, len): (u64, u32, u32, u32)) -> Result<i64, HostError> {
    let Some(output) = read_string(c, ptr, len) else { return Ok(failed(Errno::FAULT)) };
    let completion = match status {
        0 => Completion::Ok,
        1 => Completion::Returned(output),
        2 => Completion::Missing,
        3 => Completion::Failed,
        _ => return Ok(failed(Errno::INVAL)),
    };
    let at = history_now(c);
    let traced = format!("{completion:?}");
    let done = link(c).history.borrow_mut().complete(id, completion, at);
    c.data_mut().trace.record(b"op_complete", traced.as_bytes(), &[id, at]);
    Ok(done.map_or_else(failed, |()| 0))
}

fn txn_begin(c: &mut Caller<'_, Node>, (client,): (i32,)) -> Result<i64, HostError> {
    let Ok(client) = u32::try_from(client) else { return Ok(failed(Errno::INVAL)) };
    let at = history_now(c);
    let id = link(c).history.borrow_mut().txn_begin(client, at);
    c.data_mut().trace.record(b"txn_begin", &[], &[client as u64, at, id]);
    Ok(id as i64)
}

/// `txn_append(id, key, key_len, value)` and `txn_read(id, key, key_len, values, count)`.
fn txn_op(c: &mut Caller<'_, Node>, id: u64, op: MicroOp) -> Result<i64, HostError> {
    let traced = format!("{op:?}");
    let done = link(c).history.borrow_mut().txn_op(id, op);
    c.data_mut().trace.record(b"txn_op", traced.as_bytes(), &[id]);
    Ok(done.map_or_else(failed, |()| 0))
}

fn txn_append(c: &mut Caller<'_, Node>, (id, ptr, len, value): (u64, u32, u32, i64)) -> Result<i64, HostError> {
    let Some(key) = read_string(c, ptr, len) else { return Ok(failed(Errno::FAULT)) };
    txn_op(c, id, MicroOp::Append { key, value })
}

fn txn_read(
    c: &mut Caller<'_, Node>,
    (id, ptr, len, values, count): (u64, u32, u32, u32, u32),
) -> Result<i64, HostError> {
    let Some(key) = read_string(c, ptr, len) else { return Ok(failed(Errno::FAULT)) };
    let len = count.checked_mul(8).filter(|&len| u64::from(len) <= SDK_STRING_MAX_BYTES);
    let Some(bytes) = len.and_then(|len| c.read(values, len).ok()) else {
        return Ok(failed(Errno::FAULT));
    };
    let values = bytes.chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes"))).collect();
    txn_op(c, id, MicroOp::Read { key, values })
}

fn txn_end(c: &mut Caller<'_, Node>, (id, status): (u64, u32)) -> Result<i64, HostError> {
    let traced_status = u64::from(status);
    let status = match status {
        0 => Status::Committed,
        1 => Status::Aborted,
        _ => return Ok(failed(Errno::INVAL)),
    };
    let at = history_now(c);
    let done = link(c).history.borrow_mut().txn_end(id, status, at);
    c.data_mut().trace.record(b"txn_end", &[], &[id, traced_status, at]);
    Ok(done.map_or_else(failed, |()| 0))
}

/// Binds the `seedfall` module (docs/sdk-abi.md).
pub fn register(l: &mut Linker<Node>) {
    bind(l, "node_name", &[I32], node_name);
    bind(l, "incarnation", &[I32], |c, ()| Ok(link(c).incarnation as i64));
    bind(l, "listen", &[I32], listen);
    bind(l, "dial", &[I32], dial);
    bind(l, "sock_name", &[I32], sock_name);
    bind(l, "connect", &[I32], connect);
    bind(l, "connect_status", &[I32], connect_status);
    bind(l, "sock_addr", &[I64], sock_addr);
    bind(l, "resolve", &[I64], resolve);
    bind(l, "udp_connect", &[I32], udp_connect);
    bind(l, "udp_sendto", &[I32], udp_sendto);
    bind(l, "udp_recvfrom", &[I32], udp_recvfrom);
    bind(l, "flock", &[I32], flock);
    bind(l, "mmap", &[I32], mmap);
    bind(l, "munmap", &[I32], munmap);
    bind(l, "msync", &[I32], msync);
    bind(l, "property", &[], property);
    bind(l, "budget", &[I64], budget);
    bind(l, "quiet_for", &[], |c, (ns,): (u64,)| {
        link(c).reports.push(Report::QuietFor { ns });
        Ok(0)
    });
    bind(l, "setup_complete", &[], |c, ()| {
        link(c).reports.push(Report::SetupComplete);
        Ok(0)
    });
    bind(l, "progress", &[], |c, ()| {
        link(c).reports.push(Report::Progress);
        Ok(0)
    });
    bind(l, "op_invoke", &[I64], op_invoke);
    bind(l, "op_complete", &[I32], op_complete);
    bind(l, "txn_begin", &[I64], txn_begin);
    bind(l, "txn_append", &[I32], txn_append);
    bind(l, "txn_read", &[I32], txn_read);
    bind(l, "txn_end", &[I32], txn_end);
}
