//! `NodeId`: a node of a cluster, by its place in the config's order
//! (services, then the workload, then the finally check). The world's
//! slots, the fault kinds and the network all name a node by it; a node's
//! name is for people, schedules and traces only. Ids are dense, from 0.

use std::fmt;

/// A node, by its index in the order nodes were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    pub const fn new(index: usize) -> NodeId {
        assert!(index <= u32::MAX as usize, "fewer than 2^32 nodes");
        NodeId(index as u32)
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Every node of a cluster of `count`, in order.
    pub fn all(count: usize) -> impl Iterator<Item = NodeId> {
        (0..count).map(NodeId::new)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_ordered() {
        assert_eq!(NodeId::all(3).map(NodeId::index).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(NodeId::new(0) < NodeId::new(1));
        assert_eq!(NodeId::new(2).to_string(), "node2");
    }
}
