//! Unit tests of the network model, one or more per contract rule. Each
//! tricky branch is asserted to have been reached (usually through the
//! event log).

use super::*;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

fn stream(seed: u64) -> RandomStream {
    // The stream these tests were written against (its old label).
    RandomStream::new(seed, crate::random::Purpose::Fault("net_latency", crate::random::Draw::Times), "", 0)
}

fn world(seed: u64, config: NetConfig) -> (Net, NodeId, NodeId) {
    let mut net = Net::new(config, stream(seed));
    let server = net.add_node("server");
    let client = net.add_node("client");
    (net, server, client)
}

/// Connects `client` to `server:port` and drives time until the client is
/// connected; returns both ends and the time.
fn establish(
    net: &mut Net,
    client: NodeId,
    port: u16,
    listener: ListenerId,
    now_ns: u64,
) -> (EndpointId, EndpointId, u64) {
    let c = net.connect(client, "server", port, now_ns).unwrap();
    let t = net.writable_at_ns(c, now_ns).unwrap().expect("connect completes");
    assert_eq!(net.connect_status(c, t).unwrap(), ConnectStatus::Connected);
    let s = net.accept(listener, t).unwrap();
    (c, s, t)
}

fn read_all(net: &mut Net, ep: EndpointId, now_ns: u64) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    let mut buf = [0u8; 7];
    loop {
        match net.read(ep, &mut buf, now_ns) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(Errno::AGAIN) if !out.is_empty() => return Ok(out),
            Err(e) => return Err(e),
        }
    }
}

/// (latency, delivery time) of every data segment sent towards `to` on `conn`.
fn data_sends(net: &Net, conn: ConnId, to: Side) -> Vec<(u64, u64, Option<u64>)> {
    net.events()
        .iter()
        .filter_map(|e| match *e {
            NetEvent::Send { at_ns, conn: c, to: t, kind: SegmentKind::Data { .. }, latency_ns, deliver_ns }
                if c == conn && t == to =>
            {
                Some((at_ns, latency_ns, deliver_ns))
            }
            _ => None,
        })
        .collect()
}

fn log(net: &Net) -> String {
    net.events().iter().map(|e| format!("{e}\n")).collect()
}

#[test]
fn in_order_delivery_under_random_latency() {
    let (mut net, server, client) = world(1, NetConfig { latency_ns_min: 1, latency_ns_max: 5 * MS });
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, mut t) = establish(&mut net, client, 7000, l, 0);
    let mut sent = Vec::new();
    for i in 0..300u32 {
        let chunk = i.to_le_bytes();
        net.write(c, &chunk, t).unwrap();
        sent.extend_from_slice(&chunk);
        t += 10 * US;
    }
    let sends = data_sends(&net, c.conn, Side::Server);
    let mut clamped = 0;
    for pair in sends.windows(2) {
        let (prev, (at_ns, latency_ns, deliver_ns)) = (pair[0].2.unwrap(), pair[1]);
        let deliver_ns = deliver_ns.unwrap();
        assert!(deliver_ns >= prev, "a chunk overtook the previous one");
        assert_eq!(deliver_ns, prev.max(at_ns + latency_ns));
        if at_ns + latency_ns < prev {
            clamped += 1; // random latency alone would have reordered these
        }
    }
    assert!(clamped > 10, "the FIFO clamp was exercised ({clamped} times)");
    let last_ns = sends.last().unwrap().2.unwrap();
    assert_eq!(read_all(&mut net, s, last_ns).unwrap(), sent);
}

#[test]
fn latency_range_is_honoured_and_seeded() {
    let config = NetConfig { latency_ns_min: 50 * US, latency_ns_max: 2 * MS };
    let run = |seed: u64| {
        let (mut net, server, client) = world(seed, config);
        let l = net.listen(server, 7000, 0).unwrap();
        let (c, _s, t) = establish(&mut net, client, 7000, l, 0);
        for i in 0..1000u64 {
            net.write(c, b"x", t + i).unwrap();
        }
        let latencies: Vec<u64> = net
            .events()
            .iter()
            .filter_map(|e| match e {
                NetEvent::Send { latency_ns, .. } => Some(*latency_ns),
                _ => None,
            })
            .collect();
        (latencies, log(&net))
    };
    let (latencies, log1) = run(1);
    assert!(latencies.iter().all(|l| (50 * US..=2 * MS).contains(l)));
    // The whole range is used: both ends of it are approached.
    assert!(*latencies.iter().min().unwrap() < 60 * US);
    assert!(*latencies.iter().max().unwrap() > 1990 * US);
    let (latencies_again, log_again) = run(1);
    assert_eq!(latencies, latencies_again);
    assert_eq!(log1, log_again, "same seed, same event log byte for byte");
    let (other, _) = run(2);
    assert_ne!(latencies, other, "another seed draws other latencies");

    // A degenerate range is exact.
    let (mut net, server, client) = world(3, NetConfig { latency_ns_min: 7, latency_ns_max: 7 });
    net.listen(server, 1, 0).unwrap();
    let c = net.connect(client, "server", 1, 100).unwrap();
    assert_eq!(net.writable_at_ns(c, 100).unwrap(), Some(114), "SYN 7 ns there, SYN-ACK 7 ns back");
}

#[test]
fn eagain_before_delivery_then_data_at_delivery_time() {
    let (mut net, server, client) = world(4, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    let mut buf = [0u8; 16];
    assert_eq!(net.read(s, &mut buf, t), Err(Errno::AGAIN));
    net.write(c, b"hello", t).unwrap();
    let (_, latency_ns, deliver_ns) = data_sends(&net, c.conn, Side::Server)[0];
    assert_eq!(deliver_ns, Some(t + latency_ns));
    let at = deliver_ns.unwrap();
    assert_eq!(net.read(s, &mut buf, at - 1), Err(Errno::AGAIN));
    assert!(!net.readable(s, at - 1).unwrap());
    assert!(net.readable(s, at).unwrap());
    assert_eq!(net.read(s, &mut buf, at), Ok(5));
    assert_eq!(&buf[..5], b"hello");
    assert_eq!(net.read(s, &mut buf, at), Err(Errno::AGAIN), "consumed; no EOF without a FIN");
}

#[test]
fn eof_only_after_close_and_after_the_data() {
    let (mut net, server, client) = world(5, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"abc", t).unwrap();
    net.close(c, t).unwrap();
    assert_eq!(net.write(c, b"x", t), Err(Errno::BADF), "a closed end is gone");
    let fin_ns = net
        .events()
        .iter()
        .find_map(|e| match *e {
            NetEvent::Send { kind: SegmentKind::Fin, deliver_ns, .. } => deliver_ns,
            _ => None,
        })
        .unwrap();
    let mut one = [0u8; 1];
    assert_eq!(net.read(s, &mut one, t), Err(Errno::AGAIN));
    let mut got = Vec::new();
    for _ in 0..3 {
        assert_eq!(net.read(s, &mut one, fin_ns), Ok(1), "data comes before EOF");
        got.push(one[0]);
    }
    assert_eq!(got, b"abc");
    assert_eq!(net.read(s, &mut one, fin_ns), Ok(0));
    assert_eq!(net.read(s, &mut one, fin_ns), Ok(0), "EOF stays");
    assert!(net.peer_hung_up(s, fin_ns).unwrap());
    // The server can still write; the closed client answers with an RST.
    net.write(s, b"late", fin_ns).unwrap();
    let late_ns = data_sends(&net, s.conn, Side::Client)[0].2.unwrap();
    assert_eq!(net.next_event_ns(client, fin_ns), None, "nothing the client can observe");
    assert_eq!(net.next_event_ns_any(fin_ns), Some(late_ns), "but the network has work to do");
    let rst_ns = net.readable_at_ns(s, fin_ns).unwrap();
    assert_eq!(rst_ns, Some(fin_ns), "EOF is readable now");
    let end_ns = fin_ns + 10 * MS;
    assert_eq!(net.read(s, &mut one, end_ns), Err(Errno::CONNRESET));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Deliver { outcome: Delivery::DroppedAndReset, .. })));
    net.close(s, end_ns).unwrap();
    assert!(net.conns.is_empty(), "a finished connection is forgotten");
}

#[test]
fn refused_connect_and_listener_checked_at_syn_delivery() {
    let config = NetConfig { latency_ns_min: 10 * US, latency_ns_max: 10 * US };
    let (mut net, server, client) = world(6, config);
    assert_eq!(net.connect(client, "nowhere", 1, 0), Err(Errno::HOSTUNREACH));

    let c = net.connect(client, "server", 7000, 0).unwrap();
    assert_eq!(net.connect_status(c, 0).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.readable_at_ns(c, 0).unwrap(), Some(20 * US), "no listener now: a refusal is predicted");
    assert!(!net.writable(c, 0).unwrap());
    assert_eq!(net.write(c, b"x", 0), Err(Errno::AGAIN));
    assert_eq!(net.writable_at_ns(c, 0).unwrap(), Some(20 * US));
    assert_eq!(net.connect_status(c, 20 * US - 1).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.connect_status(c, 20 * US).unwrap(), ConnectStatus::Refused);
    assert!(net.readable(c, 20 * US).unwrap(), "a refusal wakes readers");
    let mut buf = [0u8; 4];
    assert_eq!(net.read(c, &mut buf, 20 * US), Err(Errno::CONNREFUSED));
    net.close(c, 20 * US).unwrap();

    // A listener opened after the connect but before the SYN arrives wins.
    let c = net.connect(client, "server", 7000, 100 * US).unwrap();
    let l = net.listen(server, 7000, 105 * US).unwrap();
    assert_eq!(net.readable_at_ns(c, 105 * US).unwrap(), None, "an accepted dial has nothing to read");
    assert_eq!(net.connect_status(c, 120 * US).unwrap(), ConnectStatus::Connected);
    assert!(net.accept(l, 120 * US).is_ok());
    // A listener closed before the SYN arrives refuses it.
    let c = net.connect(client, "server", 7000, 200 * US).unwrap();
    net.close_listener(l, 205 * US).unwrap();
    assert_eq!(net.connect_status(c, 220 * US).unwrap(), ConnectStatus::Refused);
    assert_eq!(net.accept(l, 220 * US), Err(Errno::BADF));
}

#[test]
fn accept_queue_is_fifo_in_syn_delivery_order() {
    let (mut net, server, client) = world(7, NetConfig { latency_ns_min: 1, latency_ns_max: MS });
    let l = net.listen(server, 80, 0).unwrap();
    assert_eq!(net.accept(l, 0), Err(Errno::AGAIN));
    assert!(!net.acceptable(l, 0).unwrap());
    let first_syn = net.acceptable_at_ns(l, 0).unwrap();
    assert_eq!(first_syn, None, "nothing in flight");
    let clients: Vec<EndpointId> = (0..20).map(|i| net.connect(client, "server", 80, i * 10 * US).unwrap()).collect();
    let end = 10 * MS;
    let syn_order: Vec<ConnId> = {
        net.advance(end);
        net.events()
            .iter()
            .filter_map(|e| match *e {
                NetEvent::Deliver { conn, kind: SegmentKind::Syn, outcome: Delivery::Queued(_), .. } => Some(conn),
                _ => None,
            })
            .collect()
    };
    assert_eq!(syn_order.len(), 20);
    let connect_order: Vec<ConnId> = clients.iter().map(|c| c.conn).collect();
    assert_ne!(syn_order, connect_order, "random latency reordered the SYNs (the test is meaningful)");
    let accepted: Vec<ConnId> = (0..20).map(|_| net.accept(l, end).unwrap().conn).collect();
    assert_eq!(accepted, syn_order);
    assert_eq!(net.accept(l, end), Err(Errno::AGAIN));
}

#[test]
fn ephemeral_ports_are_deterministic() {
    let (mut net, server, client) = world(8, NetConfig::default());
    let l = net.listen(server, 0, 0).unwrap();
    assert_eq!(net.listener_addr(l).unwrap(), SockAddr { node: server, port: EPHEMERAL_PORT_FIRST });
    assert_eq!(net.listen(server, EPHEMERAL_PORT_FIRST, 0), Err(Errno::ADDRINUSE));
    let port = EPHEMERAL_PORT_FIRST;
    let a = net.connect(client, "server", port, 0).unwrap();
    let b = net.connect(client, "server", port, 0).unwrap();
    assert_eq!(net.local_addr(a).unwrap(), SockAddr { node: client, port: 49152 });
    assert_eq!(net.local_addr(b).unwrap(), SockAddr { node: client, port: 49153 });
    assert_eq!(net.peer_addr(a).unwrap(), SockAddr { node: server, port });
    assert_eq!(net.addr_string(net.local_addr(b).unwrap()), "client:49153");
    // Per node: the server's own cursor moved only for its listener.
    let own = net.connect(server, "server", port, 0).unwrap();
    assert_eq!(net.local_addr(own).unwrap().port, 49153);
    // A closed port is not reused at once (round robin), and wrapping skips
    // bound ports.
    net.close(a, 0).unwrap();
    let c = net.connect(client, "server", port, 0).unwrap();
    assert_eq!(net.local_addr(c).unwrap().port, 49154);
    net.listen(client, EPHEMERAL_PORT_LAST, 0).unwrap();
    net.nodes[client.0 as usize].ephemeral_cursor = EPHEMERAL_PORT_COUNT - 1;
    let d = net.connect(client, "server", port, 0).unwrap();
    assert_eq!(net.local_addr(d).unwrap().port, 49152, "65535 is bound: wrapped to the freed 49152");
    let e = net.connect(client, "server", port, 0).unwrap();
    assert_eq!(net.local_addr(e).unwrap().port, 49155, "49153 and 49154 are still bound");
}

#[test]
fn partition_holds_traffic_and_heal_delivers_it_in_order() {
    let config = NetConfig { latency_ns_min: 100 * US, latency_ns_max: MS };
    let (mut net, server, client) = world(9, config);
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"one,", t).unwrap();
    net.write(c, b"two,", t + 1).unwrap();
    net.block(client, server, t + 2); // both still in flight: held
    net.write(c, b"three", t + 3).unwrap();
    let held = net.events().iter().find_map(|e| match *e {
        NetEvent::Block { held, .. } => Some(held),
        _ => None,
    });
    assert_eq!(held, Some(2));
    assert_eq!(data_sends(&net, c.conn, Side::Server)[2].2, None, "sent while blocked: held");
    let later = t + 10 * 1000 * MS;
    assert!(!net.readable(s, later).unwrap(), "nothing crosses a blocked link");
    assert_eq!(net.readable_at_ns(s, later).unwrap(), None);
    assert_eq!(net.next_event_ns(server, later), None);
    assert_eq!(net.next_event_ns_any(later), None);

    net.block(client, server, later); // already blocked: nothing changes
    net.heal(server, client, later); // not blocked: nothing changes
    assert_eq!(net.blocked_links(), vec![(client, server)]);
    net.heal(client, server, later);
    let released: Vec<(u64, u64)> = net
        .events()
        .iter()
        .filter_map(|e| match *e {
            NetEvent::Send { conn, kind: SegmentKind::Data { .. }, latency_ns, .. } if conn == c.conn => {
                Some((latency_ns, 0))
            }
            _ => None,
        })
        .collect();
    let pipe = net.conns[&c.conn].inbox(Side::Server);
    let times: Vec<u64> = pipe.segments.iter().map(|seg| seg.deliver_ns.unwrap()).collect();
    assert_eq!(times[0], later + released[0].0, "first released at heal time + its own latency");
    for i in 1..3 {
        assert_eq!(times[i], times[i - 1].max(later + released[i].0));
    }
    assert_eq!(net.readable_at_ns(s, later).unwrap(), Some(times[0]));
    assert_eq!(read_all(&mut net, s, times[2]).unwrap(), b"one,two,three");
}

#[test]
fn asymmetric_partition_blocks_one_direction_only() {
    let (mut net, server, client) = world(10, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.block(client, server, t);
    assert!(net.is_blocked(client, server) && !net.is_blocked(server, client));
    net.write(c, b"up", t).unwrap();
    net.write(s, b"down", t).unwrap();
    let later = t + 100 * MS;
    assert_eq!(read_all(&mut net, c, later).unwrap(), b"down");
    assert!(!net.readable(s, later).unwrap());

    // A connect whose SYN crosses the blocked link stays pending.
    let pending = net.connect(client, "server", 7000, later).unwrap();
    let much_later = later + 60 * 1000 * MS;
    assert_eq!(net.connect_status(pending, much_later).unwrap(), ConnectStatus::Pending);
    assert!(!net.acceptable(l, much_later).unwrap());
    net.heal_all(much_later);
    assert!(net.blocked_links().is_empty());
    let t2 = net.writable_at_ns(pending, much_later).unwrap().unwrap();
    assert_eq!(net.connect_status(pending, t2).unwrap(), ConnectStatus::Connected);
    assert_eq!(read_all(&mut net, s, t2).unwrap(), b"up");

    // Only the return link blocked: the server accepts, the client waits.
    net.block(server, client, t2);
    let c3 = net.connect(client, "server", 7000, t2).unwrap();
    let syn_ns = net.acceptable_at_ns(l, t2).unwrap().unwrap();
    let s3 = net.accept(l, syn_ns).unwrap();
    assert!(net.writable(s3, syn_ns).unwrap(), "the server end is established");
    assert_eq!(net.connect_status(c3, syn_ns + 10 * 1000 * MS).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.writable_at_ns(c3, syn_ns + 10 * 1000 * MS).unwrap(), None);
}

#[test]
fn partitions_do_not_shift_the_latency_stream() {
    let run = |partition: bool| {
        let mut net = Net::new(NetConfig::default(), stream(11));
        let (a, b, x) = (net.add_node("a"), net.add_node("b"), net.add_node("x"));
        let la = net.listen(a, 1, 0).unwrap();
        let lx = net.listen(x, 1, 0).unwrap();
        let ab = net.connect(b, "a", 1, 0).unwrap();
        let bx = net.connect(b, "x", 1, 0).unwrap();
        let t = 10 * MS;
        let _ = (net.accept(la, t), net.accept(lx, t));
        if partition {
            net.partition(&[a], t);
        }
        for i in 0..50 {
            net.write(ab, b"held?", t + i).unwrap();
            net.write(bx, b"free", t + i).unwrap();
        }
        if partition {
            net.heal_all(t + 100);
        }
        data_sends(&net, bx.conn, Side::Server)
    };
    assert_eq!(run(false), run(true));
}

#[test]
fn a_slow_node_adds_its_latency_to_what_it_sends_and_receives() {
    let (mut net, server, client) = world(14, NetConfig { latency_ns_min: 7, latency_ns_max: 7 });
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.set_slow(server, 5 * MS, t);
    net.write(c, b"to", t).unwrap();
    net.write(s, b"from", t).unwrap();
    assert_eq!(data_sends(&net, c.conn, Side::Server).last().unwrap().2, Some(t + 7 + 5 * MS), "to the slow node");
    assert_eq!(data_sends(&net, c.conn, Side::Client).last().unwrap().2, Some(t + 7 + 5 * MS), "from it");
    let later = t + 10 * MS;
    net.set_slow(server, 0, later);
    net.write(c, b"again", later).unwrap();
    assert_eq!(data_sends(&net, c.conn, Side::Server).last().unwrap().2, Some(later + 7), "no longer slow");
}

#[test]
fn reset_of_a_live_node_resets_its_connections_and_keeps_its_listeners() {
    let (mut net, server, client) = world(13, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"unread", t).unwrap();
    let t = t + 10 * MS;
    assert_eq!(net.reset(server, t), 1, "the one established connection");
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Reset { reset: 1, .. })));
    let mut buf = [0u8; 8];
    assert_eq!(net.read(s, &mut buf, t), Err(Errno::CONNRESET), "its own end at once, unread data gone");
    assert_eq!(net.read(c, &mut buf, t + 10 * MS), Err(Errno::CONNRESET), "the peer once the RST arrives");
    assert_eq!(net.reset(server, t + 10 * MS), 0, "a reset connection is not reset again");
    // The node lives on: its listener still accepts.
    let (c2, s2, t2) = establish(&mut net, client, 7000, l, t + 20 * MS);
    net.write(c2, b"again", t2).unwrap();
    assert_eq!(read_all(&mut net, s2, t2 + 10 * MS).unwrap(), b"again");
}

#[test]
fn crash_resets_the_peer_and_frees_the_port() {
    let (mut net, server, client) = world(12, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    let queued = net.connect(client, "server", 7000, t).unwrap();
    let t = net.writable_at_ns(queued, t).unwrap().unwrap(); // in the accept queue now
    net.write(s, b"lost", t).unwrap();
    net.crash(server, t);
    assert!(matches!(net.events().last(), Some(NetEvent::Send { kind: SegmentKind::Rst, .. })));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Crash { reset: 2, listeners: 1, .. })));
    assert_eq!(net.accept(l, t), Err(Errno::BADF), "the listener vanished");
    assert_eq!(net.read(s, &mut [0; 4], t), Err(Errno::BADF), "the crashed node's ends are gone");
    // Before the RST arrives the peer sees nothing wrong; writes vanish.
    net.write(c, b"into the void", t).unwrap();
    let rst_ns = net
        .events()
        .iter()
        .find_map(|e| match *e {
            NetEvent::Send { conn, kind: SegmentKind::Rst, deliver_ns, .. } if conn == c.conn => deliver_ns,
            _ => None,
        })
        .unwrap();
    let data_ns = data_sends(&net, c.conn, Side::Client)[0].2.unwrap();
    assert!(t < data_ns && data_ns <= rst_ns, "the RST follows the data sent before the crash");
    assert_eq!(net.write(c, b"still fine", rst_ns - 1), Ok(10));
    let mut buf = [0u8; 8];
    assert_eq!(net.read(c, &mut buf, rst_ns + 10 * MS), Err(Errno::CONNRESET), "unread data is discarded");
    assert_eq!(net.read(c, &mut buf, rst_ns + 10 * MS), Err(Errno::CONNRESET));
    assert_eq!(net.write(c, b"x", rst_ns + 10 * MS), Err(Errno::PIPE), "reset already reported by read");
    assert!(net.readable(queued, rst_ns + 10 * MS).unwrap());
    assert_eq!(net.write(queued, b"x", rst_ns + 10 * MS), Err(Errno::CONNRESET), "first report");
    assert_eq!(net.write(queued, b"x", rst_ns + 10 * MS), Err(Errno::PIPE));

    // The port is free at once; a new incarnation serves new connections.
    let now = rst_ns + 20 * MS;
    let l2 = net.listen(server, 7000, now).unwrap();
    let (c2, s2, t2) = establish(&mut net, client, 7000, l2, now);
    net.write(c2, b"again", t2).unwrap();
    assert_eq!(read_all(&mut net, s2, t2 + 10 * MS).unwrap(), b"again");

    // A crashed client's pending connect is reset after it is accepted.
    let pending = net.connect(client, "server", 7000, t2 + 10 * MS).unwrap();
    net.crash(client, t2 + 10 * MS);
    assert_eq!(net.connect_status(pending, t2 + 10 * MS), Err(Errno::BADF));
    let accepted = net.accept(l2, t2 + 20 * MS).unwrap();
    assert_eq!(net.read(accepted, &mut buf, t2 + 20 * MS), Err(Errno::CONNRESET));
    assert_eq!(net.read(s2, &mut buf, t2 + 20 * MS), Err(Errno::CONNRESET));
}

#[test]
fn a_blocked_reader_wakes_exactly_at_the_delivery_time() {
    let (mut net, server, client) = world(13, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let c = net.connect(client, "server", 7000, 0).unwrap();
    // The listener wakes at the SYN's delivery, the dialer at the SYN-ACK's.
    let syn_ns = net.acceptable_at_ns(l, 0).unwrap().unwrap();
    assert_eq!(net.next_event_ns(server, 0), Some(syn_ns));
    assert_eq!(net.next_event_ns_any(0), Some(syn_ns));
    // The SYN-ACK is not sent yet, but its latency was drawn with the SYN,
    // so the dialer's wake-up time is already exact.
    let ack_ns = net.writable_at_ns(c, 0).unwrap().unwrap();
    assert!(ack_ns > syn_ns);
    assert_eq!(net.next_event_ns(client, 0), Some(ack_ns));
    assert!(!net.acceptable(l, syn_ns - 1).unwrap());
    assert!(net.acceptable(l, syn_ns).unwrap());
    let synack_ns = net.events().iter().find_map(|e| match *e {
        NetEvent::Send { kind: SegmentKind::SynAck, deliver_ns, .. } => deliver_ns,
        _ => None,
    });
    assert_eq!(synack_ns, Some(ack_ns), "the prediction was exact");
    assert_eq!(net.writable_at_ns(c, syn_ns).unwrap(), Some(ack_ns));
    assert_eq!(net.next_event_ns(client, syn_ns), Some(ack_ns));
    let s = net.accept(l, syn_ns).unwrap();
    assert!(!net.writable(c, ack_ns - 1).unwrap());
    assert!(net.writable(c, ack_ns).unwrap());

    // The server blocks reading; the client writes.
    let t = ack_ns;
    assert_eq!(net.readable_at_ns(s, t).unwrap(), None);
    net.write(c, b"ping", t).unwrap();
    let deliver_ns = data_sends(&net, c.conn, Side::Server)[0].2.unwrap();
    assert_eq!(net.readable_at_ns(s, t).unwrap(), Some(deliver_ns));
    assert_eq!(net.next_event_ns(server, t), Some(deliver_ns));
    assert_eq!(net.next_event_ns(client, t), None);
    assert!(!net.readable(s, deliver_ns - 1).unwrap());
    assert!(net.readable(s, deliver_ns).unwrap());
    assert_eq!(net.readable_at_ns(s, deliver_ns).unwrap(), Some(deliver_ns), "ready now");
    assert_eq!(net.next_event_ns(server, deliver_ns), None, "nothing further in flight");
}

#[test]
fn close_with_unread_data_sends_rst_and_close_while_connecting_resets_the_accepted_end() {
    let (mut net, server, client) = world(14, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"unread", t).unwrap();
    let t = net.readable_at_ns(s, t).unwrap().unwrap();
    net.close(s, t).unwrap();
    assert!(matches!(net.events().last(), Some(NetEvent::Send { kind: SegmentKind::Rst, to: Side::Client, .. })));
    let t = net.readable_at_ns(c, t).unwrap().unwrap();
    assert_eq!(net.read(c, &mut [0; 4], t), Err(Errno::CONNRESET));

    // Closing a dial before its SYN-ACK arrives: the SYN-ACK is answered
    // with an RST, so the accepted end is reset.
    let pending = net.connect(client, "server", 7000, t).unwrap();
    net.close(pending, t).unwrap();
    let end = t + 100 * MS;
    let accepted = net.accept(l, end).unwrap();
    assert_eq!(net.read(accepted, &mut [0; 4], end), Err(Errno::CONNRESET));
    assert!(
        net.events().iter().any(|e| matches!(
            e,
            NetEvent::Deliver { kind: SegmentKind::SynAck, outcome: Delivery::DroppedAndReset, .. }
        ))
    );

    // Closing a listener resets what waits in its queue.
    let waiting = net.connect(client, "server", 7000, end).unwrap();
    let queued_ns = net.acceptable_at_ns(l, end).unwrap().unwrap();
    net.close_listener(l, queued_ns).unwrap();
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::ListenerClosed { reset: 1, .. })));
    let later = queued_ns + 100 * MS;
    assert_eq!(net.connect_status(waiting, later).unwrap(), ConnectStatus::Connected);
    assert_eq!(net.read(waiting, &mut [0; 4], later), Err(Errno::CONNRESET));
}

#[test]
fn half_close_keeps_the_other_direction_open() {
    let (mut net, server, client) = world(15, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"request", t).unwrap();
    net.shutdown(c, ShutdownHow::Write, t).unwrap();
    assert_eq!(net.write(c, b"more", t), Err(Errno::PIPE));
    let t = t + 10 * MS;
    assert_eq!(read_all(&mut net, s, t).unwrap(), b"request");
    assert_eq!(net.read(s, &mut [0; 4], t), Ok(0));
    net.write(s, b"response", t).unwrap();
    net.close(s, t).unwrap();
    let t = t + 10 * MS;
    assert_eq!(read_all(&mut net, c, t).unwrap(), b"response");
    assert_eq!(net.read(c, &mut [0; 4], t), Ok(0));
    // shutdown(read): EOF at once, later data dropped.
    let (c, s, t) = establish(&mut net, client, 7000, l, t);
    net.shutdown(s, ShutdownHow::Read, t).unwrap();
    assert_eq!(net.read(s, &mut [0; 4], t), Ok(0));
    net.write(c, b"ignored", t).unwrap();
    assert_eq!(net.read(s, &mut [0; 4], t + 10 * MS), Ok(0));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Deliver { outcome: Delivery::Dropped, .. })));
    let pending = net.connect(client, "server", 7000, t + 10 * MS).unwrap();
    assert_eq!(net.shutdown(pending, ShutdownHow::Write, t + 10 * MS), Err(Errno::NOTCONN));
}

#[test]
fn a_node_can_dial_itself() {
    let (mut net, server, _) = world(16, NetConfig::default());
    let l = net.listen(server, 7000, 0).unwrap();
    let c = net.connect(server, "server", 7000, 0).unwrap();
    let t = net.writable_at_ns(c, 0).unwrap().unwrap();
    let s = net.accept(l, t).unwrap();
    assert_eq!(net.local_addr(s).unwrap(), net.peer_addr(c).unwrap());
    assert_eq!(net.peer_addr(s).unwrap(), net.local_addr(c).unwrap());
    net.write(c, b"me", t).unwrap();
    assert_eq!(read_all(&mut net, s, t + 10 * MS).unwrap(), b"me");
}

#[test]
fn event_log_is_identical_across_runs_and_differs_across_seeds() {
    let run = |seed: u64| {
        let (mut net, server, client) = world(seed, NetConfig::default());
        let l = net.listen(server, 7000, 0).unwrap();
        let (c, s, t) = establish(&mut net, client, 7000, l, 0);
        net.write(c, b"a", t).unwrap();
        net.block(client, server, t + 1);
        net.write(c, b"b", t + 2).unwrap();
        net.heal(client, server, t + 5 * MS);
        net.write(s, b"c", t + 6 * MS).unwrap();
        net.crash(client, t + 7 * MS);
        net.advance(t + 100 * MS);
        log(&net)
    };
    assert_eq!(run(17), run(17));
    assert_ne!(run(17), run(18));
    assert!(run(17).contains("crash node1 reset=1 listeners=0"));
}

#[test]
fn ephemeral_ports_run_out_with_eaddrnotavail() {
    let (mut net, server, client) = world(20, NetConfig::default());
    for _ in 0..EPHEMERAL_PORT_COUNT {
        net.listen(client, 0, 0).unwrap();
    }
    assert_eq!(net.listen(client, 0, 0), Err(Errno::ADDRNOTAVAIL));
    assert_eq!(net.connect(client, "server", 1, 0), Err(Errno::ADDRNOTAVAIL));
    assert!(net.listen(client, 80, 0).is_ok(), "fixed ports below the range are still free");
    assert!(net.connect(server, "client", 80, 0).is_ok(), "other nodes have their own ports");
}

#[test]
#[should_panic(expected = "network time went backwards")]
fn time_never_goes_backwards() {
    let (mut net, _, _) = world(19, NetConfig::default());
    net.advance(10);
    net.advance(9);
}

/// Delivery times of the segments waiting on the server's side of `conn`.
fn pending_times(net: &Net, conn: ConnId) -> Vec<Option<u64>> {
    net.conns[&conn].inbox(Side::Server).segments.iter().map(|seg| seg.deliver_ns).collect()
}

/// Rule 5b, `Stop`: held while it lasts, released as a heal releases
/// (each at the release time plus its own latency); the other direction
/// is untouched.
#[test]
fn a_stop_clog_holds_one_direction_and_releases_with_latency() {
    let config = NetConfig { latency_ns_min: 100 * US, latency_ns_max: MS };
    let (mut net, server, client) = world(3, config);
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.clog(client, server, Clog::Stop, t);
    net.write(c, b"held", t + 1).unwrap();
    net.write(s, b"free", t + 1).unwrap();
    let later = t + 1000 * MS;
    assert!(!net.readable(s, later).unwrap(), "nothing crosses the clogged direction");
    assert_eq!(read_all(&mut net, c, later).unwrap(), b"free", "the other direction flows");
    net.unclog(client, server, later);
    let latency = data_sends(&net, c.conn, Side::Server)[0].1;
    assert!(latency >= 100 * US);
    assert_eq!(pending_times(&net, c.conn), [Some(later + latency)]);
    assert_eq!(read_all(&mut net, s, later + latency).unwrap(), b"held");
    assert!(log(&net).contains("Stop held=0") && log(&net).contains("released=1"), "{}", log(&net));
}

/// Rule 5b, `Jam`: held while it lasts, then every held segment is
/// delivered at the release time, in order, in one burst.
#[test]
fn a_jam_clog_delivers_what_it_held_in_one_burst() {
    let config = NetConfig { latency_ns_min: 100 * US, latency_ns_max: MS };
    let (mut net, server, client) = world(4, config);
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"in-flight,", t).unwrap();
    net.clog(client, server, Clog::Jam, t + 1);
    for (i, chunk) in [b"a,".as_slice(), b"b,", b"c"].into_iter().enumerate() {
        net.write(c, chunk, t + 2 + i as u64).unwrap();
    }
    let later = t + 500 * MS;
    assert!(!net.readable(s, later).unwrap());
    net.unclog(client, server, later);
    assert_eq!(pending_times(&net, c.conn), [Some(later); 4], "all at the release time");
    assert_eq!(read_all(&mut net, s, later).unwrap(), b"in-flight,a,b,c");
    assert!(log(&net).contains("Jam held=1"), "the segment in flight was held: {}", log(&net));
}

/// Rule 5b, `Slow`: nothing is held; what is sent on the link while it
/// lasts takes `extra` more, and what is sent after does not.
#[test]
fn a_slow_clog_adds_latency_on_its_link_only_while_it_lasts() {
    let config = NetConfig { latency_ns_min: MS, latency_ns_max: MS };
    let (mut net, server, client) = world(5, config);
    let l = net.listen(server, 7000, 0).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.clog(client, server, Clog::Slow(40 * MS), t);
    net.write(c, b"slow", t).unwrap();
    net.write(s, b"back", t).unwrap();
    net.unclog(client, server, t + 1);
    net.write(c, b"fast", t + 2).unwrap();
    let sends = data_sends(&net, c.conn, Side::Server);
    assert_eq!(sends[0].2, Some(t + 41 * MS), "1 ms + 40 ms");
    assert_eq!(sends[1].2, Some(t + 41 * MS), "FIFO: the next waits behind it");
    assert_eq!(data_sends(&net, c.conn, Side::Client)[0].2, Some(t + MS), "the other direction is not slowed");
    assert_eq!(read_all(&mut net, s, t + 41 * MS).unwrap(), b"slowfast");
}

/// Rule 5b: a link under a partition and a clog is released only when
/// both have ended, whichever ends first.
#[test]
fn a_link_held_by_a_partition_and_a_clog_waits_for_both() {
    let config = NetConfig { latency_ns_min: MS, latency_ns_max: MS };
    for clog_ends_first in [true, false] {
        let (mut net, server, client) = world(6, config);
        let l = net.listen(server, 7000, 0).unwrap();
        let (c, s, t) = establish(&mut net, client, 7000, l, 0);
        net.block(client, server, t);
        net.clog(client, server, Clog::Jam, t);
        net.write(c, b"x", t).unwrap();
        let (first, second) = (t + 10 * MS, t + 20 * MS);
        if clog_ends_first {
            net.unclog(client, server, first);
        } else {
            net.heal(client, server, first);
        }
        assert_eq!(pending_times(&net, c.conn), [None], "still held (clog ended first: {clog_ends_first})");
        if clog_ends_first {
            net.heal(client, server, second);
            assert_eq!(pending_times(&net, c.conn), [Some(second + MS)], "released as a heal releases");
        } else {
            net.unclog(client, server, second);
            assert_eq!(pending_times(&net, c.conn), [Some(second)], "released as a jam releases");
        }
        assert_eq!(read_all(&mut net, s, second + MS).unwrap(), b"x");
    }
}
