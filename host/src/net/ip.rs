//! Simulated IPv4 addresses for `net_overlay` (docs/net-overlay.md): node k
//! (its `NodeId`, the config's order) is 10.0.0.(k+1) — 10.0.0.1 the first
//! service, counting up through the workload — and `/etc/hosts` in every
//! node's file system names them, so Go's resolver maps a node name to its
//! IP without DNS. The mapping is a pure function of the node order: stable
//! across seeds, incarnations and replays. It knows nothing of ports,
//! sockets or files; `Net::connect_ip` and the world's boot use it.

use super::NodeId;

/// 10.0.0.0/8: node k is `BASE + k + 1`.
const BASE: u32 = 0x0A00_0000;
/// 127.0.0.0/8, which a node dials to reach itself.
const LOOPBACK_NET: u32 = 0x7F00_0000;

/// The simulated IP of `node`, as a host-order u32 (10.0.0.1 for node 0).
pub fn node_ip(node: NodeId) -> u32 {
    BASE + node.index() as u32 + 1
}

/// The node an IP names: `from` itself for a loopback or unspecified
/// address, the node whose simulated IP it is, or None (EHOSTUNREACH).
pub fn ip_node(ip: u32, from: NodeId, nodes: usize) -> Option<NodeId> {
    if ip == 0 || ip & 0xFF00_0000 == LOOPBACK_NET {
        return Some(from);
    }
    let k = usize::try_from(ip.checked_sub(BASE + 1)?).ok()?;
    (k < nodes).then(|| NodeId::new(k))
}

/// Dotted-quad form, as the trace and `/etc/hosts` print it.
pub fn ip_string(ip: u32) -> String {
    std::net::Ipv4Addr::from(ip).to_string()
}

/// Each node's IP in dotted-quad form with its name, in the config's order.
fn named_ips<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(String, &'a str)> {
    let ip_of = |k: usize| ip_string(node_ip(NodeId::new(k)));
    names.into_iter().enumerate().map(|(k, name)| (ip_of(k), name)).collect()
}

/// The `/etc/hosts` every node sees: localhost, then one line per node.
pub fn hosts_file<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = String::from("127.0.0.1 localhost\n::1 localhost\n");
    for (ip, name) in named_ips(names) {
        text.push_str(&format!("{ip} {name}\n"));
    }
    text
}

/// The replay header that maps each node's IP back to its name (guests
/// print the IPs they see).
pub fn trace_header<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let pairs: Vec<String> = named_ips(names).into_iter().map(|(ip, name)| format!("{ip} {name}")).collect();
    format!("hosts: {}", pairs.join(", "))
}

/// Go's resolver reads only `/etc/hosts` with this, so an unknown name fails
/// at once as "no such host" instead of trying DNS, which the simulation has
/// none of.
pub const NSSWITCH_CONF: &str = "hosts: files\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_count_up_from_10_0_0_1() {
        assert_eq!(ip_string(node_ip(NodeId::new(0))), "10.0.0.1");
        assert_eq!(ip_string(node_ip(NodeId::new(300))), "10.0.1.45");
    }

    #[test]
    fn ips_map_back_to_nodes_and_loopback_to_the_dialler() {
        let me = NodeId::new(2);
        assert_eq!(ip_node(node_ip(NodeId::new(1)), me, 3), Some(NodeId::new(1)));
        assert_eq!(ip_node(0x7F00_0001, me, 3), Some(me));
        assert_eq!(ip_node(0, me, 3), Some(me));
        assert_eq!(ip_node(node_ip(NodeId::new(3)), me, 3), None, "past the last node");
        assert_eq!(ip_node(0x0A00_0000, me, 3), None, "the network address names no node");
        assert_eq!(ip_node(0xC0A8_0001, me, 3), None);
    }

    #[test]
    fn the_hosts_file_names_every_node() {
        assert_eq!(
            hosts_file(["server", "client"]),
            "127.0.0.1 localhost\n::1 localhost\n10.0.0.1 server\n10.0.0.2 client\n"
        );
    }

    #[test]
    fn the_trace_header_maps_ips_to_names() {
        assert_eq!(trace_header(["server", "client"]), "hosts: 10.0.0.1 server, 10.0.0.2 client");
    }
}
