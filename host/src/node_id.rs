//! `NodeId`: a node of a cluster, by its place in the config's order
//! (services, then the workload, then the finally check). The world's
//! slots, the fault kinds and the network all name a node by it; a node's
//! name is for people, schedules and traces only. Ids are dense, from 0, so
//! a per-node table is a vector (`PerNode`).

use std::fmt;
use std::ops::{Index, IndexMut};

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

/// One `T` per node, in id order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerNode<T>(Vec<T>);

impl<T> PerNode<T> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<T> {
        NodeId::all(self.0.len())
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Each node's id with its entry, in id order.
    pub fn enumerate(&self) -> impl Iterator<Item = (NodeId, &T)> {
        self.ids().zip(&self.0)
    }

    /// The first node whose entry satisfies `pred`.
    pub fn position(&self, pred: impl FnMut(&T) -> bool) -> Option<NodeId> {
        self.0.iter().position(pred).map(NodeId::new)
    }
}

impl<T> FromIterator<T> for PerNode<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> PerNode<T> {
        PerNode(iter.into_iter().collect())
    }
}

impl<T> Index<NodeId> for PerNode<T> {
    type Output = T;

    fn index(&self, id: NodeId) -> &T {
        &self.0[id.index()]
    }
}

impl<T> IndexMut<NodeId> for PerNode<T> {
    fn index_mut(&mut self, id: NodeId) -> &mut T {
        &mut self.0[id.index()]
    }
}

impl<'a, T> IntoIterator for &'a PerNode<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut PerNode<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_ordered() {
        let names: PerNode<&str> = ["a", "b", "c"].into_iter().collect();
        assert_eq!(names.ids().collect::<Vec<_>>(), [NodeId::new(0), NodeId::new(1), NodeId::new(2)]);
        assert_eq!(names.position(|n| *n == "c"), Some(NodeId::new(2)));
        assert_eq!(names[NodeId::new(1)], "b");
        assert!(NodeId::new(0) < NodeId::new(1));
        assert_eq!(NodeId::new(2).to_string(), "node2");
    }
}
