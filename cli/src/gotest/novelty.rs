//! `-novelty`: sweep a test until new schedule shapes stop appearing. A
//! shape is the sequence of goroutine switches the test binary made
//! (`seedfall_host::goroutines`). Outcomes arrive in completion order; they
//! are read here in seed order, so where the sweep stops and what it found
//! never depend on `-j`. It stops after `patience` seeds in a row without a
//! new shape.

use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
pub struct Novelty {
    /// The seeds in sweep order.
    order: Vec<u64>,
    /// How many of `order` have been read.
    read: usize,
    /// Arrived but not yet read (an earlier seed is still running).
    pending: BTreeMap<u64, Option<u64>>,
    shapes: BTreeSet<u64>,
    since_new: u64,
    pub patience: u64,
    stopped_at: Option<u64>,
    /// (seeds read, shapes found) at each new shape.
    pub curve: Vec<(u64, usize)>,
}

impl Novelty {
    pub fn new(seeds: &[u64], patience: u64) -> Novelty {
        Novelty {
            order: seeds.to_vec(),
            read: 0,
            pending: BTreeMap::new(),
            shapes: BTreeSet::new(),
            since_new: 0,
            patience,
            stopped_at: None,
            curve: Vec::new(),
        }
    }

    /// Notes `seed`'s shape (None: the run failed to start); true once the
    /// sweep has had `patience` seeds in a row without a new shape.
    pub fn take(&mut self, seed: u64, shape: Option<u64>) -> bool {
        self.pending.insert(seed, shape);
        while self.stopped_at.is_none() {
            let Some(&next) = self.order.get(self.read) else { break };
            let Some(shape) = self.pending.remove(&next) else { break };
            self.read += 1;
            if shape.is_some_and(|s| self.shapes.insert(s)) {
                self.since_new = 0;
                self.curve.push((self.read as u64, self.shapes.len()));
            } else {
                self.since_new += 1;
            }
            if self.since_new >= self.patience {
                self.stopped_at = Some(next);
            }
        }
        self.stopped_at.is_some()
    }

    /// The last seed that counts, once the patience ran out.
    pub fn stopped_at(&self) -> Option<u64> {
        self.stopped_at
    }

    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }

    /// Shapes found within the first `seeds` seeds read.
    pub fn shapes_by(&self, seeds: u64) -> usize {
        self.curve.iter().take_while(|(read, _)| *read <= seeds).last().map_or(0, |(_, shapes)| *shapes)
    }

    /// Seeds read in order so far.
    pub fn seeds_read(&self) -> u64 {
        self.read as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shape_stops_after_patience_plus_one_seeds_whatever_the_arrival_order() {
        let seeds: Vec<u64> = (1..=100).collect();
        let mut n = Novelty::new(&seeds, 5);
        // Seed 3 arrives first: nothing is read before seeds 1 and 2.
        assert!(!n.take(3, Some(7)));
        assert_eq!(n.seeds_read(), 0);
        assert!(!n.take(1, Some(7)));
        assert!(!n.take(2, Some(7)));
        for seed in 4..=5 {
            assert!(!n.take(seed, Some(7)));
        }
        assert!(n.take(6, Some(7)));
        assert_eq!((n.stopped_at(), n.shapes(), n.seeds_read()), (Some(6), 1, 6));
        assert_eq!(n.curve, vec![(1, 1)]);
    }

    #[test]
    fn a_new_shape_resets_the_patience() {
        let seeds: Vec<u64> = (1..=10).collect();
        let mut n = Novelty::new(&seeds, 2);
        let shapes = [1, 1, 2, 2, 3, 3, 3];
        let stops: Vec<bool> = shapes.iter().zip(1..).map(|(s, seed)| n.take(seed, Some(*s))).collect();
        assert_eq!(stops, [false, false, false, false, false, false, true]);
        assert_eq!(n.curve, vec![(1, 1), (3, 2), (5, 3)]);
        assert_eq!([n.shapes_by(0), n.shapes_by(2), n.shapes_by(4), n.shapes_by(100)], [0, 1, 2, 3]);
        assert_eq!(n.stopped_at(), Some(7));
    }
}
