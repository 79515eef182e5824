//! Unit tests of the network model, one or more per contract rule. Each
//! tricky branch is asserted to have been reached (usually through the
//! event log).

use super::*;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// The tests count time in plain nanoseconds since the start.
pub(super) fn when(ns: u64) -> SimTime {
    SimTime::from_ns(ns)
}

pub(super) fn ns(t: Option<SimTime>) -> Option<u64> {
    t.map(SimTime::ns)
}

pub(super) fn latencies(min_ns: u64, max_ns: u64) -> NetConfig {
    NetConfig { latency_min: SimDuration::from_ns(min_ns), latency_max: SimDuration::from_ns(max_ns) }
}

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
    let c = net.connect(client, "server", port, when(now_ns)).unwrap();
    let t = net.writable_at(c, when(now_ns)).map(ns).unwrap().expect("connect completes");
    assert_eq!(net.connect_status(c, when(t)).unwrap(), ConnectStatus::Connected);
    let s = net.accept(listener, when(t)).unwrap();
    (c, s, t)
}

fn read_all(net: &mut Net, ep: EndpointId, now_ns: u64) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    let mut buf = [0u8; 7];
    loop {
        match net.read(ep, &mut buf, when(now_ns)) {
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
            NetEvent::Send { at, conn: c, to: t, kind: SegmentKind::Data { .. }, latency, deliver_at }
                if c == conn && t == to =>
            {
                Some((at.ns(), latency.ns(), ns(deliver_at)))
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
    let (mut net, server, client) = world(1, latencies(1, 5 * MS));
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, mut t) = establish(&mut net, client, 7000, l, 0);
    let mut sent = Vec::new();
    for i in 0..300u32 {
        let chunk = i.to_le_bytes();
        net.write(c, &chunk, when(t)).unwrap();
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
    let config = latencies(50 * US, 2 * MS);
    let run = |seed: u64| {
        let (mut net, server, client) = world(seed, config);
        let l = net.listen(server, 7000, when(0)).unwrap();
        let (c, _s, t) = establish(&mut net, client, 7000, l, 0);
        for i in 0..1000u64 {
            net.write(c, b"x", when(t + i)).unwrap();
        }
        let latencies: Vec<u64> = net
            .events()
            .iter()
            .filter_map(|e| match e {
                NetEvent::Send { latency, .. } => Some(latency.ns()),
                _ => None,
            })
            .collect();
        (latencies, log(&net))
    };
    let (drawn, log1) = run(1);
    assert!(drawn.iter().all(|l| (50 * US..=2 * MS).contains(l)));
    // The whole range is used: both ends of it are approached.
    assert!(*drawn.iter().min().unwrap() < 60 * US);
    assert!(*drawn.iter().max().unwrap() > 1990 * US);
    let (latencies_again, log_again) = run(1);
    assert_eq!(drawn, latencies_again);
    assert_eq!(log1, log_again, "same seed, same event log byte for byte");
    let (other, _) = run(2);
    assert_ne!(drawn, other, "another seed draws other latencies");

    // A degenerate range is exact.
    let (mut net, server, client) = world(3, latencies(7, 7));
    net.listen(server, 1, when(0)).unwrap();
    let c = net.connect(client, "server", 1, when(100)).unwrap();
    assert_eq!(net.writable_at(c, when(100)).map(ns).unwrap(), Some(114), "SYN 7 ns there, SYN-ACK 7 ns back");
}

#[test]
fn eagain_before_delivery_then_data_at_delivery_time() {
    let (mut net, server, client) = world(4, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    let mut buf = [0u8; 16];
    assert_eq!(net.read(s, &mut buf, when(t)), Err(Errno::AGAIN));
    net.write(c, b"hello", when(t)).unwrap();
    let (_, latency_ns, deliver_ns) = data_sends(&net, c.conn, Side::Server)[0];
    assert_eq!(deliver_ns, Some(t + latency_ns));
    let at = deliver_ns.unwrap();
    assert_eq!(net.read(s, &mut buf, when(at - 1)), Err(Errno::AGAIN));
    assert!(!net.readable(s, when(at - 1)).unwrap());
    assert!(net.readable(s, when(at)).unwrap());
    assert_eq!(net.read(s, &mut buf, when(at)), Ok(5));
    assert_eq!(&buf[..5], b"hello");
    assert_eq!(net.read(s, &mut buf, when(at)), Err(Errno::AGAIN), "consumed; no EOF without a FIN");
}

#[test]
fn eof_only_after_close_and_after_the_data() {
    let (mut net, server, client) = world(5, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"abc", when(t)).unwrap();
    net.close(c, when(t)).unwrap();
    assert_eq!(net.write(c, b"x", when(t)), Err(Errno::BADF), "a closed end is gone");
    let fin_ns = net
        .events()
        .iter()
        .find_map(|e| match *e {
            NetEvent::Send { kind: SegmentKind::Fin, deliver_at, .. } => ns(deliver_at),
            _ => None,
        })
        .unwrap();
    let mut one = [0u8; 1];
    assert_eq!(net.read(s, &mut one, when(t)), Err(Errno::AGAIN));
    let mut got = Vec::new();
    for _ in 0..3 {
        assert_eq!(net.read(s, &mut one, when(fin_ns)), Ok(1), "data comes before EOF");
        got.push(one[0]);
    }
    assert_eq!(got, b"abc");
    assert_eq!(net.read(s, &mut one, when(fin_ns)), Ok(0));
    assert_eq!(net.read(s, &mut one, when(fin_ns)), Ok(0), "EOF stays");
    assert!(net.peer_hung_up(s, when(fin_ns)).unwrap());
    // The server can still write; the closed client answers with an RST.
    net.write(s, b"late", when(fin_ns)).unwrap();
    let late_ns = data_sends(&net, s.conn, Side::Client)[0].2.unwrap();
    assert_eq!(net.next_event(client, when(fin_ns)).map(SimTime::ns), None, "nothing the client can observe");
    assert_eq!(net.next_event_any(when(fin_ns)).map(SimTime::ns), Some(late_ns), "but the network has work to do");
    let rst_ns = net.readable_at(s, when(fin_ns)).map(ns).unwrap();
    assert_eq!(rst_ns, Some(fin_ns), "EOF is readable now");
    let end_ns = fin_ns + 10 * MS;
    assert_eq!(net.read(s, &mut one, when(end_ns)), Err(Errno::CONNRESET));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Deliver { outcome: Delivery::DroppedAndReset, .. })));
    net.close(s, when(end_ns)).unwrap();
    assert!(net.conns.is_empty(), "a finished connection is forgotten");
}

#[test]
fn refused_connect_and_listener_checked_at_syn_delivery() {
    let config = latencies(10 * US, 10 * US);
    let (mut net, server, client) = world(6, config);
    assert_eq!(net.connect(client, "nowhere", 1, when(0)), Err(Errno::HOSTUNREACH));

    let c = net.connect(client, "server", 7000, when(0)).unwrap();
    assert_eq!(net.connect_status(c, when(0)).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.readable_at(c, when(0)).map(ns).unwrap(), Some(20 * US), "no listener now: a refusal is predicted");
    assert!(!net.writable(c, when(0)).unwrap());
    assert_eq!(net.write(c, b"x", when(0)), Err(Errno::AGAIN));
    assert_eq!(net.writable_at(c, when(0)).map(ns).unwrap(), Some(20 * US));
    assert_eq!(net.connect_status(c, when(20 * US - 1)).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.connect_status(c, when(20 * US)).unwrap(), ConnectStatus::Refused);
    assert!(net.readable(c, when(20 * US)).unwrap(), "a refusal wakes readers");
    let mut buf = [0u8; 4];
    assert_eq!(net.read(c, &mut buf, when(20 * US)), Err(Errno::CONNREFUSED));
    net.close(c, when(20 * US)).unwrap();

    // A listener opened after the connect but before the SYN arrives wins.
    let c = net.connect(client, "server", 7000, when(100 * US)).unwrap();
    let l = net.listen(server, 7000, when(105 * US)).unwrap();
    assert_eq!(net.readable_at(c, when(105 * US)).map(ns).unwrap(), None, "an accepted dial has nothing to read");
    assert_eq!(net.connect_status(c, when(120 * US)).unwrap(), ConnectStatus::Connected);
    assert!(net.accept(l, when(120 * US)).is_ok());
    // A listener closed before the SYN arrives refuses it.
    let c = net.connect(client, "server", 7000, when(200 * US)).unwrap();
    net.close_listener(l, when(205 * US)).unwrap();
    assert_eq!(net.connect_status(c, when(220 * US)).unwrap(), ConnectStatus::Refused);
    assert_eq!(net.accept(l, when(220 * US)), Err(Errno::BADF));
}

#[test]
fn accept_queue_is_fifo_in_syn_delivery_order() {
    let (mut net, server, client) = world(7, latencies(1, MS));
    let l = net.listen(server, 80, when(0)).unwrap();
    assert_eq!(net.accept(l, when(0)), Err(Errno::AGAIN));
    assert!(!net.acceptable(l, when(0)).unwrap());
    let first_syn = net.acceptable_at(l, when(0)).map(ns).unwrap();
    assert_eq!(first_syn, None, "nothing in flight");
    let clients: Vec<EndpointId> =
        (0..20).map(|i| net.connect(client, "server", 80, when(i * 10 * US)).unwrap()).collect();
    let end = 10 * MS;
    let syn_order: Vec<ConnId> = {
        net.advance(when(end));
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
    let accepted: Vec<ConnId> = (0..20).map(|_| net.accept(l, when(end)).unwrap().conn).collect();
    assert_eq!(accepted, syn_order);
    assert_eq!(net.accept(l, when(end)), Err(Errno::AGAIN));
}

#[test]
fn ephemeral_ports_are_deterministic() {
    let (mut net, server, client) = world(8, NetConfig::default());
    let l = net.listen(server, 0, when(0)).unwrap();
    assert_eq!(net.listener_addr(l).unwrap(), SockAddr { node: server, port: EPHEMERAL_PORT_FIRST });
    assert_eq!(net.listen(server, EPHEMERAL_PORT_FIRST, when(0)), Err(Errno::ADDRINUSE));
    let port = EPHEMERAL_PORT_FIRST;
    let a = net.connect(client, "server", port, when(0)).unwrap();
    let b = net.connect(client, "server", port, when(0)).unwrap();
    assert_eq!(net.local_addr(a).unwrap(), SockAddr { node: client, port: 49152 });
    assert_eq!(net.local_addr(b).unwrap(), SockAddr { node: client, port: 49153 });
    assert_eq!(net.peer_addr(a).unwrap(), SockAddr { node: server, port });
    assert_eq!(net.addr_string(net.local_addr(b).unwrap()), "client:49153");
    // Per node: the server's own cursor moved only for its listener.
    let own = net.connect(server, "server", port, when(0)).unwrap();
    assert_eq!(net.local_addr(own).unwrap().port, 49153);
    // A closed port is not reused at once (round robin), and wrapping skips
    // bound ports.
    net.close(a, when(0)).unwrap();
    let c = net.connect(client, "server", port, when(0)).unwrap();
    assert_eq!(net.local_addr(c).unwrap().port, 49154);
    net.listen(client, EPHEMERAL_PORT_LAST, when(0)).unwrap();
    net.nodes[client.index()].ephemeral_cursor = EPHEMERAL_PORT_COUNT - 1;
    let d = net.connect(client, "server", port, when(0)).unwrap();
    assert_eq!(net.local_addr(d).unwrap().port, 49152, "65535 is bound: wrapped to the freed 49152");
    let e = net.connect(client, "server", port, when(0)).unwrap();
    assert_eq!(net.local_addr(e).unwrap().port, 49155, "49153 and 49154 are still bound");
}

#[test]
fn partition_holds_traffic_and_heal_delivers_it_in_order() {
    let config = latencies(100 * US, MS);
    let (mut net, server, client) = world(9, config);
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"one,", when(t)).unwrap();
    net.write(c, b"two,", when(t + 1)).unwrap();
    net.block(client, server, when(t + 2)); // both still in flight: held
    net.write(c, b"three", when(t + 3)).unwrap();
    let held = net.events().iter().find_map(|e| match *e {
        NetEvent::Block { held, .. } => Some(held),
        _ => None,
    });
    assert_eq!(held, Some(2));
    assert_eq!(data_sends(&net, c.conn, Side::Server)[2].2, None, "sent while blocked: held");
    let later = t + 10 * 1000 * MS;
    assert!(!net.readable(s, when(later)).unwrap(), "nothing crosses a blocked link");
    assert_eq!(net.readable_at(s, when(later)).map(ns).unwrap(), None);
    assert_eq!(net.next_event(server, when(later)).map(SimTime::ns), None);
    assert_eq!(net.next_event_any(when(later)).map(SimTime::ns), None);

    net.block(client, server, when(later)); // already blocked: nothing changes
    net.heal(server, client, when(later)); // not blocked: nothing changes
    assert_eq!(net.blocked_links(), vec![(client, server)]);
    net.heal(client, server, when(later));
    let released: Vec<(u64, u64)> = net
        .events()
        .iter()
        .filter_map(|e| match *e {
            NetEvent::Send { conn, kind: SegmentKind::Data { .. }, latency, .. } if conn == c.conn => {
                Some((latency.ns(), 0))
            }
            _ => None,
        })
        .collect();
    let pipe = net.conns[&c.conn].inbox(Side::Server);
    let times: Vec<u64> = pipe.segments.iter().map(|seg| seg.deliver_at.unwrap().ns()).collect();
    assert_eq!(times[0], later + released[0].0, "first released at heal time + its own latency");
    for i in 1..3 {
        assert_eq!(times[i], times[i - 1].max(later + released[i].0));
    }
    assert_eq!(net.readable_at(s, when(later)).map(ns).unwrap(), Some(times[0]));
    assert_eq!(read_all(&mut net, s, times[2]).unwrap(), b"one,two,three");
}

#[test]
fn asymmetric_partition_blocks_one_direction_only() {
    let (mut net, server, client) = world(10, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.block(client, server, when(t));
    assert!(net.is_blocked(client, server) && !net.is_blocked(server, client));
    net.write(c, b"up", when(t)).unwrap();
    net.write(s, b"down", when(t)).unwrap();
    let later = t + 100 * MS;
    assert_eq!(read_all(&mut net, c, later).unwrap(), b"down");
    assert!(!net.readable(s, when(later)).unwrap());

    // A connect whose SYN crosses the blocked link stays pending.
    let pending = net.connect(client, "server", 7000, when(later)).unwrap();
    let much_later = later + 60 * 1000 * MS;
    assert_eq!(net.connect_status(pending, when(much_later)).unwrap(), ConnectStatus::Pending);
    assert!(!net.acceptable(l, when(much_later)).unwrap());
    net.heal_all(when(much_later));
    assert!(net.blocked_links().is_empty());
    let t2 = net.writable_at(pending, when(much_later)).map(ns).unwrap().unwrap();
    assert_eq!(net.connect_status(pending, when(t2)).unwrap(), ConnectStatus::Connected);
    assert_eq!(read_all(&mut net, s, t2).unwrap(), b"up");

    // Only the return link blocked: the server accepts, the client waits.
    net.block(server, client, when(t2));
    let c3 = net.connect(client, "server", 7000, when(t2)).unwrap();
    let syn_ns = net.acceptable_at(l, when(t2)).map(ns).unwrap().unwrap();
    let s3 = net.accept(l, when(syn_ns)).unwrap();
    assert!(net.writable(s3, when(syn_ns)).unwrap(), "the server end is established");
    assert_eq!(net.connect_status(c3, when(syn_ns + 10 * 1000 * MS)).unwrap(), ConnectStatus::Pending);
    assert_eq!(net.writable_at(c3, when(syn_ns + 10 * 1000 * MS)).map(ns).unwrap(), None);
}

#[test]
fn partitions_do_not_shift_the_latency_stream() {
    let run = |partition: bool| {
        let mut net = Net::new(NetConfig::default(), stream(11));
        let (a, b, x) = (net.add_node("a"), net.add_node("b"), net.add_node("x"));
        let la = net.listen(a, 1, when(0)).unwrap();
        let lx = net.listen(x, 1, when(0)).unwrap();
        let ab = net.connect(b, "a", 1, when(0)).unwrap();
        let bx = net.connect(b, "x", 1, when(0)).unwrap();
        let t = 10 * MS;
        let _ = (net.accept(la, when(t)), net.accept(lx, when(t)));
        if partition {
            net.partition(&[a], when(t));
        }
        for i in 0..50 {
            net.write(ab, b"held?", when(t + i)).unwrap();
            net.write(bx, b"free", when(t + i)).unwrap();
        }
        if partition {
            net.heal_all(when(t + 100));
        }
        data_sends(&net, bx.conn, Side::Server)
    };
    assert_eq!(run(false), run(true));
}

#[test]
fn a_slow_node_adds_its_latency_to_what_it_sends_and_receives() {
    let (mut net, server, client) = world(14, latencies(7, 7));
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.set_slow(server, SimDuration::from_ns(5 * MS), when(t));
    net.write(c, b"to", when(t)).unwrap();
    net.write(s, b"from", when(t)).unwrap();
    assert_eq!(data_sends(&net, c.conn, Side::Server).last().unwrap().2, Some(t + 7 + 5 * MS), "to the slow node");
    assert_eq!(data_sends(&net, c.conn, Side::Client).last().unwrap().2, Some(t + 7 + 5 * MS), "from it");
    let later = t + 10 * MS;
    net.set_slow(server, SimDuration::ZERO, when(later));
    net.write(c, b"again", when(later)).unwrap();
    assert_eq!(data_sends(&net, c.conn, Side::Server).last().unwrap().2, Some(later + 7), "no longer slow");
}

#[test]
fn reset_of_a_live_node_resets_its_connections_and_keeps_its_listeners() {
    let (mut net, server, client) = world(13, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"unread", when(t)).unwrap();
    let t = t + 10 * MS;
    assert_eq!(net.reset(server, when(t)), 1, "the one established connection");
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Reset { reset: 1, .. })));
    let mut buf = [0u8; 8];
    assert_eq!(net.read(s, &mut buf, when(t)), Err(Errno::CONNRESET), "its own end at once, unread data gone");
    assert_eq!(net.read(c, &mut buf, when(t + 10 * MS)), Err(Errno::CONNRESET), "the peer once the RST arrives");
    assert_eq!(net.reset(server, when(t + 10 * MS)), 0, "a reset connection is not reset again");
    // The node lives on: its listener still accepts.
    let (c2, s2, t2) = establish(&mut net, client, 7000, l, t + 20 * MS);
    net.write(c2, b"again", when(t2)).unwrap();
    assert_eq!(read_all(&mut net, s2, t2 + 10 * MS).unwrap(), b"again");
}

#[test]
fn crash_resets_the_peer_and_frees_the_port() {
    let (mut net, server, client) = world(12, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    let queued = net.connect(client, "server", 7000, when(t)).unwrap();
    let t = net.writable_at(queued, when(t)).map(ns).unwrap().unwrap(); // in the accept queue now
    net.write(s, b"lost", when(t)).unwrap();
    net.crash(server, when(t));
    assert!(matches!(net.events().last(), Some(NetEvent::Send { kind: SegmentKind::Rst, .. })));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Crash { reset: 2, listeners: 1, .. })));
    assert_eq!(net.accept(l, when(t)), Err(Errno::BADF), "the listener vanished");
    assert_eq!(net.read(s, &mut [0; 4], when(t)), Err(Errno::BADF), "the crashed node's ends are gone");
    // Before the RST arrives the peer sees nothing wrong; writes vanish.
    net.write(c, b"into the void", when(t)).unwrap();
    let rst_ns = net
        .events()
        .iter()
        .find_map(|e| match *e {
            NetEvent::Send { conn, kind: SegmentKind::Rst, deliver_at, .. } if conn == c.conn => ns(deliver_at),
            _ => None,
        })
        .unwrap();
    let data_ns = data_sends(&net, c.conn, Side::Client)[0].2.unwrap();
    assert!(t < data_ns && data_ns <= rst_ns, "the RST follows the data sent before the crash");
    assert_eq!(net.write(c, b"still fine", when(rst_ns - 1)), Ok(10));
    let mut buf = [0u8; 8];
    assert_eq!(net.read(c, &mut buf, when(rst_ns + 10 * MS)), Err(Errno::CONNRESET), "unread data is discarded");
    assert_eq!(net.read(c, &mut buf, when(rst_ns + 10 * MS)), Err(Errno::CONNRESET));
    assert_eq!(net.write(c, b"x", when(rst_ns + 10 * MS)), Err(Errno::PIPE), "reset already reported by read");
    assert!(net.readable(queued, when(rst_ns + 10 * MS)).unwrap());
    assert_eq!(net.write(queued, b"x", when(rst_ns + 10 * MS)), Err(Errno::CONNRESET), "first report");
    assert_eq!(net.write(queued, b"x", when(rst_ns + 10 * MS)), Err(Errno::PIPE));

    // The port is free at once; a new incarnation serves new connections.
    let now = rst_ns + 20 * MS;
    let l2 = net.listen(server, 7000, when(now)).unwrap();
    let (c2, s2, t2) = establish(&mut net, client, 7000, l2, now);
    net.write(c2, b"again", when(t2)).unwrap();
    assert_eq!(read_all(&mut net, s2, t2 + 10 * MS).unwrap(), b"again");

    // A crashed client's pending connect is reset after it is accepted.
    let pending = net.connect(client, "server", 7000, when(t2 + 10 * MS)).unwrap();
    net.crash(client, when(t2 + 10 * MS));
    assert_eq!(net.connect_status(pending, when(t2 + 10 * MS)), Err(Errno::BADF));
    let accepted = net.accept(l2, when(t2 + 20 * MS)).unwrap();
    assert_eq!(net.read(accepted, &mut buf, when(t2 + 20 * MS)), Err(Errno::CONNRESET));
    assert_eq!(net.read(s2, &mut buf, when(t2 + 20 * MS)), Err(Errno::CONNRESET));
}

#[test]
fn a_blocked_reader_wakes_exactly_at_the_delivery_time() {
    let (mut net, server, client) = world(13, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let c = net.connect(client, "server", 7000, when(0)).unwrap();
    // The listener wakes at the SYN's delivery, the dialer at the SYN-ACK's.
    let syn_ns = net.acceptable_at(l, when(0)).map(ns).unwrap().unwrap();
    assert_eq!(net.next_event(server, when(0)).map(SimTime::ns), Some(syn_ns));
    assert_eq!(net.next_event_any(when(0)).map(SimTime::ns), Some(syn_ns));
    // The SYN-ACK is not sent yet, but its latency was drawn with the SYN,
    // so the dialer's wake-up time is already exact.
    let ack_ns = net.writable_at(c, when(0)).map(ns).unwrap().unwrap();
    assert!(ack_ns > syn_ns);
    assert_eq!(net.next_event(client, when(0)).map(SimTime::ns), Some(ack_ns));
    assert!(!net.acceptable(l, when(syn_ns - 1)).unwrap());
    assert!(net.acceptable(l, when(syn_ns)).unwrap());
    let synack_ns = net.events().iter().find_map(|e| match *e {
        NetEvent::Send { kind: SegmentKind::SynAck, deliver_at, .. } => ns(deliver_at),
        _ => None,
    });
    assert_eq!(synack_ns, Some(ack_ns), "the prediction was exact");
    assert_eq!(net.writable_at(c, when(syn_ns)).map(ns).unwrap(), Some(ack_ns));
    assert_eq!(net.next_event(client, when(syn_ns)).map(SimTime::ns), Some(ack_ns));
    let s = net.accept(l, when(syn_ns)).unwrap();
    assert!(!net.writable(c, when(ack_ns - 1)).unwrap());
    assert!(net.writable(c, when(ack_ns)).unwrap());

    // The server blocks reading; the client writes.
    let t = ack_ns;
    assert_eq!(net.readable_at(s, when(t)).map(ns).unwrap(), None);
    net.write(c, b"ping", when(t)).unwrap();
    let deliver_ns = data_sends(&net, c.conn, Side::Server)[0].2.unwrap();
    assert_eq!(net.readable_at(s, when(t)).map(ns).unwrap(), Some(deliver_ns));
    assert_eq!(net.next_event(server, when(t)).map(SimTime::ns), Some(deliver_ns));
    assert_eq!(net.next_event(client, when(t)).map(SimTime::ns), None);
    assert!(!net.readable(s, when(deliver_ns - 1)).unwrap());
    assert!(net.readable(s, when(deliver_ns)).unwrap());
    assert_eq!(net.readable_at(s, when(deliver_ns)).map(ns).unwrap(), Some(deliver_ns), "ready now");
    assert_eq!(net.next_event(server, when(deliver_ns)).map(SimTime::ns), None, "nothing further in flight");
}

#[test]
fn close_with_unread_data_sends_rst_and_close_while_connecting_resets_the_accepted_end() {
    let (mut net, server, client) = world(14, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"unread", when(t)).unwrap();
    let t = net.readable_at(s, when(t)).map(ns).unwrap().unwrap();
    net.close(s, when(t)).unwrap();
    assert!(matches!(net.events().last(), Some(NetEvent::Send { kind: SegmentKind::Rst, to: Side::Client, .. })));
    let t = net.readable_at(c, when(t)).map(ns).unwrap().unwrap();
    assert_eq!(net.read(c, &mut [0; 4], when(t)), Err(Errno::CONNRESET));

    // Closing a dial before its SYN-ACK arrives: the SYN-ACK is answered
    // with an RST, so the accepted end is reset.
    let pending = net.connect(client, "server", 7000, when(t)).unwrap();
    net.close(pending, when(t)).unwrap();
    let end = t + 100 * MS;
    let accepted = net.accept(l, when(end)).unwrap();
    assert_eq!(net.read(accepted, &mut [0; 4], when(end)), Err(Errno::CONNRESET));
    assert!(
        net.events().iter().any(|e| matches!(
            e,
            NetEvent::Deliver { kind: SegmentKind::SynAck, outcome: Delivery::DroppedAndReset, .. }
        ))
    );

    // Closing a listener resets what waits in its queue.
    let waiting = net.connect(client, "server", 7000, when(end)).unwrap();
    let queued_ns = net.acceptable_at(l, when(end)).map(ns).unwrap().unwrap();
    net.close_listener(l, when(queued_ns)).unwrap();
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::ListenerClosed { reset: 1, .. })));
    let later = queued_ns + 100 * MS;
    assert_eq!(net.connect_status(waiting, when(later)).unwrap(), ConnectStatus::Connected);
    assert_eq!(net.read(waiting, &mut [0; 4], when(later)), Err(Errno::CONNRESET));
}

#[test]
fn half_close_keeps_the_other_direction_open() {
    let (mut net, server, client) = world(15, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"request", when(t)).unwrap();
    net.shutdown(c, ShutdownHow::Write, when(t)).unwrap();
    assert_eq!(net.write(c, b"more", when(t)), Err(Errno::PIPE));
    let t = t + 10 * MS;
    assert_eq!(read_all(&mut net, s, t).unwrap(), b"request");
    assert_eq!(net.read(s, &mut [0; 4], when(t)), Ok(0));
    net.write(s, b"response", when(t)).unwrap();
    net.close(s, when(t)).unwrap();
    let t = t + 10 * MS;
    assert_eq!(read_all(&mut net, c, t).unwrap(), b"response");
    assert_eq!(net.read(c, &mut [0; 4], when(t)), Ok(0));
    // shutdown(read): EOF at once, later data dropped.
    let (c, s, t) = establish(&mut net, client, 7000, l, t);
    net.shutdown(s, ShutdownHow::Read, when(t)).unwrap();
    assert_eq!(net.read(s, &mut [0; 4], when(t)), Ok(0));
    net.write(c, b"ignored", when(t)).unwrap();
    assert_eq!(net.read(s, &mut [0; 4], when(t + 10 * MS)), Ok(0));
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::Deliver { outcome: Delivery::Dropped, .. })));
    let pending = net.connect(client, "server", 7000, when(t + 10 * MS)).unwrap();
    assert_eq!(net.shutdown(pending, ShutdownHow::Write, when(t + 10 * MS)), Err(Errno::NOTCONN));
}

#[test]
fn a_node_can_dial_itself() {
    let (mut net, server, _) = world(16, NetConfig::default());
    let l = net.listen(server, 7000, when(0)).unwrap();
    let c = net.connect(server, "server", 7000, when(0)).unwrap();
    let t = net.writable_at(c, when(0)).map(ns).unwrap().unwrap();
    let s = net.accept(l, when(t)).unwrap();
    assert_eq!(net.local_addr(s).unwrap(), net.peer_addr(c).unwrap());
    assert_eq!(net.peer_addr(s).unwrap(), net.local_addr(c).unwrap());
    net.write(c, b"me", when(t)).unwrap();
    assert_eq!(read_all(&mut net, s, t + 10 * MS).unwrap(), b"me");
}

#[test]
fn event_log_is_identical_across_runs_and_differs_across_seeds() {
    let run = |seed: u64| {
        let (mut net, server, client) = world(seed, NetConfig::default());
        let l = net.listen(server, 7000, when(0)).unwrap();
        let (c, s, t) = establish(&mut net, client, 7000, l, 0);
        net.write(c, b"a", when(t)).unwrap();
        net.block(client, server, when(t + 1));
        net.write(c, b"b", when(t + 2)).unwrap();
        net.heal(client, server, when(t + 5 * MS));
        net.write(s, b"c", when(t + 6 * MS)).unwrap();
        net.crash(client, when(t + 7 * MS));
        net.advance(when(t + 100 * MS));
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
        net.listen(client, 0, when(0)).unwrap();
    }
    assert_eq!(net.listen(client, 0, when(0)), Err(Errno::ADDRNOTAVAIL));
    assert_eq!(net.connect(client, "server", 1, when(0)), Err(Errno::ADDRNOTAVAIL));
    assert!(net.listen(client, 80, when(0)).is_ok(), "fixed ports below the range are still free");
    assert!(net.connect(server, "client", 80, when(0)).is_ok(), "other nodes have their own ports");
}

#[test]
#[should_panic(expected = "network time went backwards")]
fn time_never_goes_backwards() {
    let (mut net, _, _) = world(19, NetConfig::default());
    net.advance(when(10));
    net.advance(when(9));
}

/// Delivery times of the segments waiting on the server's side of `conn`.
fn pending_times(net: &Net, conn: ConnId) -> Vec<Option<u64>> {
    net.conns[&conn].inbox(Side::Server).segments.iter().map(|seg| ns(seg.deliver_at)).collect()
}

/// Rule 5b, `Stop`: held while it lasts, released as a heal releases
/// (each at the release time plus its own latency); the other direction
/// is untouched.
#[test]
fn a_stop_clog_holds_one_direction_and_releases_with_latency() {
    let config = latencies(100 * US, MS);
    let (mut net, server, client) = world(3, config);
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.clog(client, server, Clog::Stop, when(t));
    net.write(c, b"held", when(t + 1)).unwrap();
    net.write(s, b"free", when(t + 1)).unwrap();
    let later = t + 1000 * MS;
    assert!(!net.readable(s, when(later)).unwrap(), "nothing crosses the clogged direction");
    assert_eq!(read_all(&mut net, c, later).unwrap(), b"free", "the other direction flows");
    net.unclog(client, server, when(later));
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
    let config = latencies(100 * US, MS);
    let (mut net, server, client) = world(4, config);
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.write(c, b"in-flight,", when(t)).unwrap();
    net.clog(client, server, Clog::Jam, when(t + 1));
    for (i, chunk) in [b"a,".as_slice(), b"b,", b"c"].into_iter().enumerate() {
        net.write(c, chunk, when(t + 2 + i as u64)).unwrap();
    }
    let later = t + 500 * MS;
    assert!(!net.readable(s, when(later)).unwrap());
    net.unclog(client, server, when(later));
    assert_eq!(pending_times(&net, c.conn), [Some(later); 4], "all at the release time");
    assert_eq!(read_all(&mut net, s, later).unwrap(), b"in-flight,a,b,c");
    assert!(log(&net).contains("Jam held=1"), "the segment in flight was held: {}", log(&net));
}

/// Rule 5b, `Slow`: nothing is held; what is sent on the link while it
/// lasts takes `extra` more, and what is sent after does not.
#[test]
fn a_slow_clog_adds_latency_on_its_link_only_while_it_lasts() {
    let config = latencies(MS, MS);
    let (mut net, server, client) = world(5, config);
    let l = net.listen(server, 7000, when(0)).unwrap();
    let (c, s, t) = establish(&mut net, client, 7000, l, 0);
    net.clog(client, server, Clog::Slow(SimDuration::from_ns(40 * MS)), when(t));
    net.write(c, b"slow", when(t)).unwrap();
    net.write(s, b"back", when(t)).unwrap();
    net.unclog(client, server, when(t + 1));
    net.write(c, b"fast", when(t + 2)).unwrap();
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
    let config = latencies(MS, MS);
    for clog_ends_first in [true, false] {
        let (mut net, server, client) = world(6, config);
        let l = net.listen(server, 7000, when(0)).unwrap();
        let (c, s, t) = establish(&mut net, client, 7000, l, 0);
        net.block(client, server, when(t));
        net.clog(client, server, Clog::Jam, when(t));
        net.write(c, b"x", when(t)).unwrap();
        let (first, second) = (t + 10 * MS, t + 20 * MS);
        if clog_ends_first {
            net.unclog(client, server, when(first));
        } else {
            net.heal(client, server, when(first));
        }
        assert_eq!(pending_times(&net, c.conn), [None], "still held (clog ended first: {clog_ends_first})");
        if clog_ends_first {
            net.heal(client, server, when(second));
            assert_eq!(pending_times(&net, c.conn), [Some(second + MS)], "released as a heal releases");
        } else {
            net.unclog(client, server, when(second));
            assert_eq!(pending_times(&net, c.conn), [Some(second)], "released as a jam releases");
        }
        assert_eq!(read_all(&mut net, s, second + MS).unwrap(), b"x");
    }
}
