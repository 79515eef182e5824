//! The guest-facing socket calls: listen, connect, accept, read, write,
//! shutdown, close and addresses. Each advances the model to `now` first.

use super::pipe::{Payload, Pipe};
use super::{
    Binding, Conn, ConnId, ConnectStatus, End, EndpointId, Errno, Life, Listener, ListenerId, Net, NetEvent, NodeId,
    Phase, ShutdownHow, Side, SockAddr,
};
use crate::vtime::SimTime;
use std::collections::VecDeque;

impl Net {
    /// Binds a listener to `port` of `node` (0 = an ephemeral port).
    /// EADDRINUSE if the port is bound (contract rule 14).
    pub fn listen(&mut self, node: NodeId, port: u16, now: SimTime) -> Result<ListenerId, Errno> {
        self.advance(now);
        let id = ListenerId(self.next_listener);
        let port = if port == 0 {
            self.bind_ephemeral(node, Binding::Listener(id))?
        } else {
            let _ = self.node(node);
            let addr = SockAddr { node, port };
            if self.bindings.contains_key(&addr) {
                return Err(Errno::ADDRINUSE);
            }
            self.bindings.insert(addr, Binding::Listener(id));
            port
        };
        self.next_listener += 1;
        let addr = SockAddr { node, port };
        self.listeners.insert(id, Listener { addr, queue: VecDeque::new() });
        self.events.push(NetEvent::Listen { at: now, listener: id, addr });
        Ok(id)
    }

    /// Closes a listener: its port is free at once, SYNs that arrive later
    /// are refused, and connections still in its accept queue are reset.
    pub fn close_listener(&mut self, listener: ListenerId, now: SimTime) -> Result<(), Errno> {
        self.advance(now);
        self.remove_listener(listener, now).ok_or(Errno::BADF)
    }

    /// `close_listener` without the advance; `None` if there is no such
    /// listener. Also used by `crash`.
    pub(super) fn remove_listener(&mut self, listener: ListenerId, now: SimTime) -> Option<()> {
        let l = self.listeners.remove(&listener)?;
        let removed = self.bindings.remove(&l.addr);
        assert_eq!(removed, Some(Binding::Listener(listener)), "listener binding out of step");
        let mut reset = 0;
        for conn in l.queue {
            let end = self.conns.get_mut(&conn).expect("a queued connection is live").end_mut(Side::Server);
            assert_eq!(end.life, Life::Open, "a queued end is open");
            end.life = Life::Closed;
            if !end.rst_out {
                end.rst_out = true;
                reset += 1;
                self.send(conn, Side::Client, Payload::Rst, now);
            }
            self.collect(conn);
        }
        self.events.push(NetEvent::ListenerClosed { at: now, listener, reset });
        Some(())
    }

    /// Starts a connection from `from` to port `port` of the node named
    /// `to_name` (contract rule 8). Returns the client end at once, pending;
    /// `connect_status` tells when it is connected or refused.
    /// EHOSTUNREACH for an unknown name, EADDRNOTAVAIL when `from` has no
    /// free ephemeral port.
    pub fn connect(&mut self, from: NodeId, to_name: &str, port: u16, now: SimTime) -> Result<EndpointId, Errno> {
        let to = self.resolve(to_name).ok_or(Errno::HOSTUNREACH)?;
        self.connect_node(from, to, port, now)
    }

    /// `connect` to a simulated IP (`ip.rs`): loopback is `from` itself, an
    /// IP that names no node is EHOSTUNREACH.
    pub fn connect_ip(&mut self, from: NodeId, ip: u32, port: u16, now: SimTime) -> Result<EndpointId, Errno> {
        let to = super::ip::ip_node(ip, from, self.nodes.len()).ok_or(Errno::HOSTUNREACH)?;
        self.connect_node(from, to, port, now)
    }

    fn connect_node(&mut self, from: NodeId, to: NodeId, port: u16, now: SimTime) -> Result<EndpointId, Errno> {
        self.advance(now);
        let conn = ConnId(self.next_conn);
        let local_port = self.bind_ephemeral(from, Binding::Client(conn))?;
        self.next_conn += 1;
        let (local, remote) = (SockAddr { node: from, port: local_port }, SockAddr { node: to, port });
        let client = End::new(local, Life::Open, Phase::Connecting);
        let server = End::new(remote, Life::Unborn, Phase::Established);
        self.conns.insert(conn, Conn { ends: [client, server], inbox: [Pipe::default(), Pipe::default()] });
        self.events.push(NetEvent::Connect { at: now, conn, from: local, to: remote });
        let reply_latency = self.draw_latency();
        self.send(conn, Side::Server, Payload::Syn { reply_latency }, now);
        Ok(EndpointId { conn, side: Side::Client })
    }

    /// Where a connect stands at `now`.
    pub fn connect_status(&mut self, ep: EndpointId, now: SimTime) -> Result<ConnectStatus, Errno> {
        self.advance(now);
        Ok(match self.open_end(ep)?.phase {
            Phase::Connecting => ConnectStatus::Pending,
            Phase::Established => ConnectStatus::Connected,
            Phase::Refused => ConnectStatus::Refused,
        })
    }

    /// Takes the oldest connection of the accept queue; EAGAIN if empty.
    pub fn accept(&mut self, listener: ListenerId, now: SimTime) -> Result<EndpointId, Errno> {
        self.advance(now);
        let l = self.listeners.get_mut(&listener).ok_or(Errno::BADF)?;
        let conn = l.queue.pop_front().ok_or(Errno::AGAIN)?;
        self.events.push(NetEvent::Accept { at: now, listener, conn });
        Ok(EndpointId { conn, side: Side::Server })
    }

    /// Reads delivered bytes into `buf` (contract rules 10-12): the count,
    /// 0 at EOF, EAGAIN when nothing is delivered yet, ECONNRESET after a
    /// reset, ECONNREFUSED after a refused connect.
    pub fn read(&mut self, ep: EndpointId, buf: &mut [u8], now: SimTime) -> Result<usize, Errno> {
        self.advance(now);
        let end = self.open_end_mut(ep)?;
        match end.phase {
            Phase::Connecting => return Err(Errno::AGAIN),
            Phase::Refused => return Err(Errno::CONNREFUSED),
            Phase::Established => {}
        }
        if end.rst_in {
            end.reset_reported = true;
            return Err(Errno::CONNRESET);
        }
        if end.shut_rd || buf.is_empty() {
            return Ok(0);
        }
        if end.recv.is_empty() {
            return if end.fin_in { Ok(0) } else { Err(Errno::AGAIN) };
        }
        let n = buf.len().min(end.recv.len());
        for (dst, src) in buf.iter_mut().zip(end.recv.drain(..n)) {
            *dst = src;
        }
        self.events.push(NetEvent::Read { at: now, conn: ep.conn, side: ep.side, bytes: n as u64 });
        Ok(n)
    }

    /// Sends `data` as one chunk; never blocks (contract rules 3, 4, 12):
    /// all of it or an error. EAGAIN only while the connect is pending.
    pub fn write(&mut self, ep: EndpointId, data: &[u8], now: SimTime) -> Result<usize, Errno> {
        self.advance(now);
        let end = self.open_end_mut(ep)?;
        match end.phase {
            Phase::Connecting => return Err(Errno::AGAIN),
            Phase::Refused => return Err(Errno::CONNREFUSED),
            Phase::Established => {}
        }
        if end.rst_in {
            let first = !end.reset_reported;
            end.reset_reported = true;
            return Err(if first { Errno::CONNRESET } else { Errno::PIPE });
        }
        if end.fin_out {
            return Err(Errno::PIPE);
        }
        if data.is_empty() {
            return Ok(0);
        }
        self.send(ep.conn, ep.side.peer(), Payload::Data(data.to_vec()), now);
        Ok(data.len())
    }

    /// `sock_shutdown`: Write sends a FIN once; Read makes reads return EOF
    /// and drops what is buffered and what arrives later. ENOTCONN while
    /// connecting or after a refusal.
    pub fn shutdown(&mut self, ep: EndpointId, how: ShutdownHow, now: SimTime) -> Result<(), Errno> {
        self.advance(now);
        let end = self.open_end_mut(ep)?;
        if end.phase != Phase::Established {
            return Err(Errno::NOTCONN);
        }
        if matches!(how, ShutdownHow::Read | ShutdownHow::Both) {
            end.shut_rd = true;
            end.recv.clear();
        }
        let send_fin = matches!(how, ShutdownHow::Write | ShutdownHow::Both) && !end.fin_out && !end.rst_in;
        if send_fin {
            end.fin_out = true;
        }
        self.events.push(NetEvent::Shutdown { at: now, conn: ep.conn, side: ep.side, how });
        if send_fin {
            self.send(ep.conn, ep.side.peer(), Payload::Fin, now);
        }
        Ok(())
    }

    /// `fd_close` of a connection (contract rule 11): a FIN, or an RST if
    /// delivered bytes are unread; the client port is free at once.
    pub fn close(&mut self, ep: EndpointId, now: SimTime) -> Result<(), Errno> {
        self.advance(now);
        let end = self.open_end_mut(ep)?;
        end.life = Life::Closed;
        let addr = end.addr;
        let answer = if end.phase != Phase::Established || end.rst_in || end.rst_out {
            None
        } else if !end.recv.is_empty() {
            end.rst_out = true;
            Some(Payload::Rst)
        } else if !end.fin_out {
            end.fin_out = true;
            Some(Payload::Fin)
        } else {
            None
        };
        if ep.side == Side::Client {
            self.unbind_client(addr, ep.conn);
        }
        self.events.push(NetEvent::Close { at: now, conn: ep.conn, side: ep.side });
        if let Some(payload) = answer {
            self.send(ep.conn, ep.side.peer(), payload, now);
        }
        self.collect(ep.conn);
        Ok(())
    }

    pub(super) fn unbind_client(&mut self, addr: SockAddr, conn: ConnId) {
        let removed = self.bindings.remove(&addr);
        assert_eq!(removed, Some(Binding::Client(conn)), "client binding out of step");
    }

    /// The local address of an open end (the listener's for accepted ends).
    pub fn local_addr(&self, ep: EndpointId) -> Result<SockAddr, Errno> {
        Ok(self.open_end(ep)?.addr)
    }

    /// The address of the other end.
    pub fn peer_addr(&self, ep: EndpointId) -> Result<SockAddr, Errno> {
        self.open_end(ep)?;
        let conn = self.conns.get(&ep.conn).expect("an open end has a connection");
        Ok(conn.end(ep.side.peer()).addr)
    }

    pub fn listener_addr(&self, listener: ListenerId) -> Result<SockAddr, Errno> {
        self.listeners.get(&listener).map(|l| l.addr).ok_or(Errno::BADF)
    }
}
