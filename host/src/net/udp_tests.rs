//! Unit tests of the UDP model, one or more per rule of `udp.rs` (U1-U9),
//! each asserting through the event log or the data that the rule fired.

use super::tests::{ns, when};
use super::udp::{MAX_DATAGRAM_BYTES, RCVBUF_BYTES};
use super::*;

const MS: u64 = 1_000_000;

fn net(seed: u64) -> (Net, NodeId, NodeId) {
    let mut net = Net::new(NetConfig::default(), RandomStream::new(seed, crate::random::Purpose::NetLatency, "", 0));
    let a = net.add_node("a");
    let b = net.add_node("b");
    (net, a, b)
}

fn ip_of(node: NodeId) -> u32 {
    ip::node_ip(node)
}

/// Every datagram `sock` can receive by `now_ns`, as (text, source).
fn drain(net: &mut Net, sock: UdpId, now_ns: u64) -> Vec<(String, SockAddr)> {
    let mut out = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok((n, from)) = net.udp_recv_from(sock, &mut buf, when(now_ns)) {
        out.push((String::from_utf8_lossy(&buf[..n]).into_owned(), from));
    }
    out
}

fn texts(got: &[(String, SockAddr)]) -> Vec<&str> {
    got.iter().map(|(t, _)| t.as_str()).collect()
}

fn drops(net: &Net, why: UdpDrop) -> usize {
    net.events()
        .iter()
        .map(|e| match e {
            NetEvent::UdpSend { drop: Some(w), .. } if *w == why => 1,
            NetEvent::UdpDeliver { outcome: Err(w), .. } if *w == why => 1,
            NetEvent::UdpDrop { count, why: w, .. } if *w == why => *count as usize,
            _ => 0,
        })
        .sum()
}

#[test]
fn u1_a_datagram_between_two_nodes_arrives_with_its_source_address() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    let tx_addr = net.udp_local_addr(tx).unwrap();
    assert_eq!(tx_addr.port, EPHEMERAL_PORT_FIRST, "port 0 is the first ephemeral port");
    assert_eq!(net.udp_send_to(tx, ip_of(b), 7000, b"hello", when(0)), Ok(5));
    assert_eq!(net.udp_recv_from(rx, &mut [0; 8], when(0)), Err(Errno::AGAIN), "in flight: not there yet");
    let at = net.udp_readable_at(rx, when(0)).map(ns).unwrap().expect("in flight to rx");
    assert!(at >= NetConfig::default().latency_min.ns(), "{at}");
    assert!(!net.udp_readable(rx, when(at - 1)).unwrap());
    assert!(net.udp_readable(rx, when(at)).unwrap());
    assert_eq!(drain(&mut net, rx, at), [("hello".to_string(), tx_addr)]);
}

#[test]
fn u1_udp_ports_are_apart_from_tcp_ports_and_a_bound_one_is_in_use() {
    let (mut net, a, _) = net(1);
    net.listen(a, 7000, when(0)).unwrap();
    let s = net.udp_bind(a, 7000, when(0)).expect("TCP's 7000 is not UDP's");
    assert_eq!(net.udp_bind(a, 7000, when(0)), Err(Errno::ADDRINUSE));
    net.udp_close(s, when(0)).unwrap();
    net.udp_bind(a, 7000, when(0)).expect("free again after close");
}

#[test]
fn u2_datagrams_reorder_under_some_seed_and_not_under_others() {
    let order = |seed| {
        let (mut net, a, b) = net(seed);
        let rx = net.udp_bind(b, 7000, when(0)).unwrap();
        let tx = net.udp_bind(a, 0, when(0)).unwrap();
        net.udp_send_to(tx, ip_of(b), 7000, b"first", when(0)).unwrap();
        net.udp_send_to(tx, ip_of(b), 7000, b"second", when(1)).unwrap();
        texts(&drain(&mut net, rx, 100 * MS)).join(",")
    };
    let seen: Vec<String> = (1..=20).map(order).collect();
    assert!(seen.contains(&"second,first".to_string()), "no seed reordered: {seen:?}");
    assert!(seen.contains(&"first,second".to_string()), "every seed reordered: {seen:?}");
    assert_eq!(order(3), order(3), "the same seed, the same order");
}

#[test]
fn u2_oversized_datagrams_and_unknown_ips_are_refused() {
    let (mut net, a, _) = net(1);
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    let big = vec![0u8; MAX_DATAGRAM_BYTES + 1];
    assert_eq!(net.udp_send_to(tx, ip_of(a), 1, &big, when(0)), Err(Errno::MSGSIZE));
    assert_eq!(net.udp_send_to(tx, ip_of(NodeId::new(9)), 1, b"x", when(0)), Err(Errno::HOSTUNREACH));
    assert_eq!(net.udp_send_to(tx, ip_of(a), 1, &big[1..], when(0)), Ok(MAX_DATAGRAM_BYTES));
}

#[test]
fn u3_no_socket_drops_silently_and_a_connected_socket_hears_only_its_peer() {
    let (mut net, a, b) = net(1);
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    assert_eq!(net.udp_send_to(tx, ip_of(b), 7000, b"nobody", when(0)), Ok(6));
    let rx = net.udp_bind(b, 7001, when(5 * MS)).unwrap();
    let other = net.udp_bind(a, 0, when(5 * MS)).unwrap();
    net.udp_connect(rx, ip_of(a), net.udp_local_addr(tx).unwrap().port, when(5 * MS)).unwrap();
    net.udp_send_to(other, ip_of(b), 7001, b"stranger", when(5 * MS)).unwrap();
    net.udp_send_to(tx, ip_of(b), 7001, b"peer", when(5 * MS)).unwrap();
    assert_eq!(texts(&drain(&mut net, rx, 20 * MS)), ["peer"]);
    assert_eq!((drops(&net, UdpDrop::NoSocket), drops(&net, UdpDrop::NotFromPeer)), (1, 1));
    assert_eq!(net.udp_peer(rx).unwrap().node, a);
    assert_eq!(net.udp_peer(tx), Err(Errno::NOTCONN));
}

#[test]
fn u3_a_full_receive_queue_drops() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    let chunk = vec![7u8; 60_000];
    let sent = RCVBUF_BYTES / chunk.len() + 2;
    for _ in 0..sent {
        net.udp_send_to(tx, ip_of(b), 7000, &chunk, when(0)).unwrap();
    }
    let mut got = 0;
    let mut buf = vec![0u8; chunk.len()];
    while net.udp_recv_from(rx, &mut buf, when(100 * MS)).is_ok() {
        got += 1;
    }
    assert_eq!(got, RCVBUF_BYTES.div_ceil(chunk.len()), "queued until the buffer held RCVBUF_BYTES");
    assert_eq!(drops(&net, UdpDrop::BufferFull), sent - got);
}

#[test]
fn u4_a_receive_truncates_to_the_buffer_and_discards_the_rest() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_send_to(tx, ip_of(b), 7000, b"abcdefgh", when(0)).unwrap();
    net.udp_send_to(tx, ip_of(b), 7000, b"", when(0)).unwrap();
    let mut small = [0u8; 3];
    let later = 100 * MS;
    let mut got = Vec::new();
    while let Ok((n, _)) = net.udp_recv_from(rx, &mut small, when(later)) {
        got.push(small[..n].to_vec());
    }
    got.sort();
    assert_eq!(got, [b"".to_vec(), b"abc".to_vec()], "truncated to 3, the rest gone; empty reads as 0");
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::UdpRecv { len: 8, copied: 3, .. })));
}

#[test]
fn u5_a_partitioned_link_drops_and_a_heal_never_delivers_the_old_datagrams() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_send_to(tx, ip_of(b), 7000, b"in flight", when(0)).unwrap();
    net.block(a, b, when(1));
    net.udp_send_to(tx, ip_of(b), 7000, b"during", when(2)).unwrap();
    net.heal(a, b, when(3));
    assert_eq!(drain(&mut net, rx, 100 * MS), [], "neither arrives after the heal");
    assert_eq!(drops(&net, UdpDrop::Held), 2);
    net.udp_send_to(tx, ip_of(b), 7000, b"after", when(100 * MS)).unwrap();
    assert_eq!(texts(&drain(&mut net, rx, 200 * MS)), ["after"]);
}

#[test]
fn u5_a_one_way_partition_drops_a_to_b_and_delivers_b_to_a() {
    let (mut net, a, b) = net(1);
    let on_a = net.udp_bind(a, 7000, when(0)).unwrap();
    let on_b = net.udp_bind(b, 7000, when(0)).unwrap();
    net.block(a, b, when(0));
    net.udp_send_to(on_a, ip_of(b), 7000, b"a->b", when(0)).unwrap();
    net.udp_send_to(on_b, ip_of(a), 7000, b"b->a", when(0)).unwrap();
    assert_eq!(drain(&mut net, on_b, 100 * MS), []);
    assert_eq!(texts(&drain(&mut net, on_a, 100 * MS)), ["b->a"]);
}

#[test]
fn u5_stop_and_jam_clogs_drop_and_a_slow_clog_delays() {
    for clog in [Clog::Stop, Clog::Jam] {
        let (mut net, a, b) = net(1);
        let rx = net.udp_bind(b, 7000, when(0)).unwrap();
        let tx = net.udp_bind(a, 0, when(0)).unwrap();
        net.udp_send_to(tx, ip_of(b), 7000, b"x", when(0)).unwrap();
        net.clog(a, b, clog, when(1));
        net.unclog(a, b, when(2));
        assert_eq!(drain(&mut net, rx, 100 * MS), [], "{clog:?}");
    }
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.clog(a, b, Clog::Slow(SimDuration::from_ns(50 * MS)), when(0));
    net.udp_send_to(tx, ip_of(b), 7000, b"slow", when(0)).unwrap();
    assert!(net.udp_readable_at(rx, when(0)).map(ns).unwrap().unwrap() > 50 * MS);
}

#[test]
fn u6_a_crash_closes_the_nodes_sockets_and_drops_what_flies_to_it() {
    let (mut net, a, b) = net(1);
    let on_a = net.udp_bind(a, 7000, when(0)).unwrap();
    let on_b = net.udp_bind(b, 7000, when(0)).unwrap();
    net.udp_send_to(on_a, ip_of(b), 7000, b"to the crashed", when(0)).unwrap();
    net.udp_send_to(on_b, ip_of(a), 7000, b"from the crashed", when(0)).unwrap();
    net.crash(b, when(1));
    assert_eq!(net.udp_readable(on_b, when(1)), Err(Errno::BADF), "its socket is gone");
    let again = net.udp_bind(b, 7000, when(2)).expect("its port is free at once");
    assert_eq!(drain(&mut net, again, 100 * MS), [], "the new incarnation never sees the old datagram");
    assert_eq!(texts(&drain(&mut net, on_a, 100 * MS)), ["from the crashed"], "already on the wire");
    assert_eq!(drops(&net, UdpDrop::Crashed), 1);
}

fn faulted(seed: u64, faults: DatagramFaults) -> (Vec<String>, Net) {
    let (mut net, a, b) = net(seed);
    net.set_datagram_faults(faults);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    for i in 0..40 {
        net.udp_send_to(tx, ip_of(b), 7000, format!("{i}").as_bytes(), when(i * MS)).unwrap();
    }
    let mut got: Vec<String> = texts(&drain(&mut net, rx, 200 * MS)).into_iter().map(String::from).collect();
    got.sort_by_key(|t| t.parse::<u32>().unwrap());
    (got, net)
}

#[test]
fn u7_udp_loss_drops_is_logged_and_the_log_replays_it_exactly() {
    let (got, net) = faulted(5, DatagramFaults::drawn(5, 0.3, 0.0, (SimDuration::from_ns(0), SimDuration::from_ns(0))));
    let log = net.datagram_faults().log().to_vec();
    assert!(!log.is_empty() && log.iter().all(|f| f.kind == DatagramFaultKind::Loss));
    assert_eq!(got.len(), 40 - log.len(), "each logged loss is a datagram missing");
    for f in &log {
        assert!(!got.contains(&format!("{}", f.n - 1)), "datagram {} arrived", f.n);
    }
    assert_eq!(drops(&net, UdpDrop::Lost), log.len());
    let (replayed, again) = faulted(5, DatagramFaults::replay(&log));
    assert_eq!(replayed, got);
    assert_eq!(again.events(), net.events(), "the same run, event for event");
    let (unfaulted, clean) = faulted(5, DatagramFaults::default());
    assert_eq!(unfaulted.len(), 40);
    let latencies = |n: &Net| {
        let sends = n.events().iter().filter_map(|e| match e {
            NetEvent::UdpSend { latency, .. } => Some(latency.ns()),
            _ => None,
        });
        sends.collect::<Vec<_>>()
    };
    assert_eq!(latencies(&clean), latencies(&net), "a loss shifts no latency");
}

#[test]
fn u7_udp_dup_delivers_a_datagram_twice_and_loopback_is_never_faulted() {
    let (got, net) =
        faulted(2, DatagramFaults::drawn(2, 0.0, 1.0, (SimDuration::from_ns(MS), SimDuration::from_ns(2 * MS))));
    assert_eq!(got.len(), 80, "every datagram twice");
    assert_eq!(got.iter().filter(|t| *t == "7").count(), 2);
    assert_eq!(net.datagram_faults().log().len(), 40);
    assert!(net.events().iter().any(|e| matches!(e, NetEvent::UdpSend { dup: true, .. })));

    let (mut net, a, _) = self::net(2);
    net.set_datagram_faults(DatagramFaults::drawn(2, 1.0, 1.0, (SimDuration::from_ns(0), SimDuration::from_ns(0))));
    let s = net.udp_bind(a, 7000, when(0)).unwrap();
    net.udp_send_to(s, 0x7F00_0001, 7000, b"self", when(0)).unwrap();
    assert_eq!(texts(&drain(&mut net, s, 100 * MS)), ["self"]);
    assert!(net.datagram_faults().log().is_empty());
}

#[test]
fn u8_readiness_follows_the_first_datagram_the_socket_would_queue() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    assert_eq!(net.udp_readable_at(rx, when(0)).map(ns), Ok(None), "nothing in flight");
    net.udp_send_to(tx, ip_of(b), 7001, b"elsewhere", when(0)).unwrap();
    assert_eq!(net.udp_readable_at(rx, when(0)).map(ns), Ok(None), "not for this socket");
    net.udp_send_to(tx, ip_of(b), 7000, b"mine", when(0)).unwrap();
    let at = net.udp_readable_at(rx, when(0)).map(ns).unwrap().unwrap();
    assert_eq!(net.next_event(b, when(0)).map(SimTime::ns).map(|t| t <= at), Some(true));
    assert_eq!(net.next_event_any(when(0)).map(SimTime::ns).map(|t| t <= at), Some(true));
    assert_eq!(net.udp_readable_at(rx, when(at)).map(ns), Ok(Some(at)));
}

#[test]
fn u9_every_change_is_logged_in_its_stable_form() {
    let (mut net, a, b) = net(1);
    let rx = net.udp_bind(b, 7000, when(0)).unwrap();
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_connect(tx, ip_of(b), 7000, when(0)).unwrap();
    net.udp_send(tx, net.udp_peer(tx).unwrap(), b"hi", when(0)).unwrap();
    drain(&mut net, rx, 100 * MS);
    net.udp_close(rx, when(100 * MS)).unwrap();
    let lines: Vec<String> = net.events().iter().map(|e| e.to_string()).collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(kinds, ["udp-bind", "udp-bind", "udp-connect", "udp-send", "udp-deliver", "udp-recv", "udp-close"]);
    assert_eq!(lines[0], "0 udp-bind u0 node1:7000");
    assert!(lines[3].starts_with("0 udp-send d0 node0:49152->node1:7000 len=2 latency="), "{}", lines[3]);
}

#[test]
fn u10_a_connected_socket_reads_econnrefused_once_after_sending_to_a_closed_port() {
    let (mut net, a, b) = net(1);
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_connect(tx, ip_of(b), 53, when(0)).unwrap();
    net.udp_send(tx, net.udp_peer(tx).unwrap(), b"query", when(0)).unwrap();
    assert_eq!(net.udp_recv_from(tx, &mut [0; 8], when(0)), Err(Errno::AGAIN), "the error is not back yet");
    let at = net.udp_readable_at(tx, when(0)).map(ns).unwrap().expect("the port-unreachable error wakes the reader");
    assert!(at >= 2 * NetConfig::default().latency_min.ns(), "there and back: {at}");
    assert!(!net.udp_readable(tx, when(at - 1)).unwrap());
    assert!(net.udp_readable(tx, when(at)).unwrap(), "an error pending reads as ready, as poll(2) says");
    assert_eq!(net.udp_recv_from(tx, &mut [0; 8], when(at)), Err(Errno::CONNREFUSED));
    assert_eq!(net.udp_recv_from(tx, &mut [0; 8], when(at)), Err(Errno::AGAIN), "reported once");
    assert!(net.events().iter().any(|e| e.to_string().contains("udp-unreachable")));

    net.udp_send(tx, net.udp_peer(tx).unwrap(), b"again", when(at)).unwrap();
    let back = net.udp_readable_at(tx, when(at)).map(ns).unwrap().unwrap();
    assert_eq!(
        net.udp_send(tx, net.udp_peer(tx).unwrap(), b"x", when(back)),
        Err(Errno::CONNREFUSED),
        "a send takes it too"
    );
    assert_eq!(net.udp_recv_from(tx, &mut [0; 8], when(back)), Err(Errno::AGAIN));
}

#[test]
fn u10_loopback_refuses_too_and_unconnected_sockets_or_held_links_never_see_the_error() {
    let (mut net, a, b) = net(1);
    let own = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_connect(own, 0x7F00_0001, 53, when(0)).unwrap();
    net.udp_send(own, net.udp_peer(own).unwrap(), b"q", when(0)).unwrap();
    assert_eq!(
        net.udp_recv_from(own, &mut [0; 8], when(100 * MS)),
        Err(Errno::CONNREFUSED),
        "no nameserver on 127.0.0.1:53"
    );

    let loose = net.udp_bind(a, 0, when(100 * MS)).unwrap();
    net.udp_send_to(loose, ip_of(b), 53, b"q", when(100 * MS)).unwrap();
    assert_eq!(net.udp_readable_at(loose, when(100 * MS)).map(ns), Ok(None), "only a connected socket learns of it");
    assert_eq!(net.udp_recv_from(loose, &mut [0; 8], when(200 * MS)), Err(Errno::AGAIN));

    let (mut net, a, b) = self::net(1);
    let tx = net.udp_bind(a, 0, when(0)).unwrap();
    net.udp_connect(tx, ip_of(b), 53, when(0)).unwrap();
    net.udp_send(tx, net.udp_peer(tx).unwrap(), b"q", when(0)).unwrap();
    net.block(b, a, when(1));
    assert_eq!(net.udp_recv_from(tx, &mut [0; 8], when(100 * MS)), Err(Errno::AGAIN), "the way back is partitioned");
}
