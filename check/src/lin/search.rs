//! The search for a linearization of one partition: Wing & Gong's backtracking over a doubly linked list of
//! call and return entries, with Lowe's cache of (linearized set, state) pairs already explored, as in
//! Porcupine. It is resumable: `run` stops when its step allowance is spent and continues where it was on the
//! next call, so the caller can share one budget across partitions without any wall-clock timeout.
//!
//! It knows nothing of keys, budgets across partitions or minimisation (`lin/mod.rs`, `lin/minimise.rs`).

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use super::bits::Bits;
use crate::models::Spec;

const NONE: u32 = u32::MAX;
const HEAD: u32 = 0;

/// One operation of the partition: what it does, when it was invoked and when it returned (`None`: never).
#[derive(Clone)]
pub(crate) struct Timed<O> {
    pub(crate) op: O,
    pub(crate) invoke_ns: u64,
    pub(crate) complete_ns: Option<u64>,
}

pub(crate) enum Progress {
    Linearizable,
    NotLinearizable,
    /// The step allowance ran out first; `run` again to continue.
    Paused,
}

/// Searches a whole history at once: whether it is not linearizable, `None` when the steps ran out first.
pub(crate) fn fails<S: Spec>(spec: &mut S, timed: Vec<Timed<S::Op>>, steps: &mut u64) -> Option<bool> {
    match Search::new(spec, timed).run(spec, steps) {
        Progress::NotLinearizable => Some(true),
        Progress::Linearizable => Some(false),
        Progress::Paused => None,
    }
}

pub(crate) struct Search<S: Spec> {
    ops: Vec<S::Op>,
    // The entry list over nodes: node 0 is the head, then one node per call and per return in time order.
    next: Vec<u32>,
    prev: Vec<u32>,
    /// The operation a node belongs to.
    op_of: Vec<u32>,
    /// A call's return node; `NONE` on return nodes.
    return_of: Vec<u32>,
    linearized: Bits,
    cache: Cache<S::State>,
    /// The linearization so far: each call node with the state before it.
    calls: Vec<(u32, S::State)>,
    state: S::State,
    cursor: u32,
    longest: Vec<usize>,
}

impl<S: Spec> Search<S> {
    pub(crate) fn new(spec: &S, timed: Vec<Timed<S::Op>>) -> Search<S> {
        // Calls sort before returns at the same instant: operations that touch are concurrent. An operation
        // that never returned returns after everything, so it may be linearized anywhere after its call, and
        // being linearized last is the same as never taking effect.
        let mut events: Vec<(u64, bool, u32)> = Vec::with_capacity(2 * timed.len());
        for (i, t) in timed.iter().enumerate() {
            let i = u32::try_from(i).expect("fewer than 2^31 operations in a partition");
            events.push((t.invoke_ns, false, i));
            events.push((t.complete_ns.unwrap_or(u64::MAX), true, i));
        }
        events.sort_unstable();
        let nodes = events.len() + 1;
        let mut op_of = vec![NONE; nodes];
        let mut return_of = vec![NONE; nodes];
        let mut call_node = vec![NONE; timed.len()];
        for (slot, &(_, is_return, op)) in events.iter().enumerate() {
            let node = slot as u32 + 1;
            op_of[node as usize] = op;
            if is_return {
                return_of[call_node[op as usize] as usize] = node;
            } else {
                call_node[op as usize] = node;
            }
        }
        let next = (0..nodes as u32).map(|n| if n + 1 < nodes as u32 { n + 1 } else { NONE }).collect();
        let prev = (0..nodes as u32).map(|n| n.wrapping_sub(1)).collect();
        let n = timed.len();
        Search {
            ops: timed.into_iter().map(|t| t.op).collect(),
            next,
            prev,
            op_of,
            return_of,
            linearized: Bits::new(n),
            cache: Cache { heads: FxHashMap::default(), entries: Vec::new(), words: Vec::new() },
            calls: Vec::new(),
            state: spec.init(),
            cursor: if n == 0 { NONE } else { 1 },
            longest: Vec::new(),
        }
    }

    /// Searches for at most `*steps` steps, counting them down: one per entry visited, and one per word of
    /// the linearized set for each (set, state) pair the cache keeps, so the cache's memory is bounded by
    /// the budget too (about 8 bytes a step), however long the partition.
    pub(crate) fn run(&mut self, spec: &mut S, steps: &mut u64) -> Progress {
        while self.next[HEAD as usize] != NONE {
            if *steps == 0 {
                return Progress::Paused;
            }
            *steps -= 1;
            let entry = self.cursor;
            if self.return_of[entry as usize] == NONE {
                // The first return in the list: its operation must already be linearized. It is not, so undo
                // the latest choice and try the call after it.
                let Some((call, state)) = self.calls.pop() else { return Progress::NotLinearizable };
                self.state = state;
                self.linearized.clear(self.op_of[call as usize] as usize);
                self.unlift(call);
                self.cursor = self.next[call as usize];
                continue;
            }
            let op = self.op_of[entry as usize] as usize;
            match spec.step(&self.state, &self.ops[op]) {
                Some(state) => {
                    self.linearized.set(op);
                    if self.remember(&state) {
                        *steps = steps.saturating_sub(self.linearized.words().len() as u64);
                        let before = std::mem::replace(&mut self.state, state);
                        self.calls.push((entry, before));
                        self.lift(entry);
                        self.cursor = self.next[HEAD as usize];
                        if self.calls.len() > self.longest.len() {
                            self.longest =
                                self.calls.iter().map(|&(call, _)| self.op_of[call as usize] as usize).collect();
                        }
                    } else {
                        self.linearized.clear(op);
                        self.cursor = self.next[entry as usize];
                    }
                }
                None => self.cursor = self.next[entry as usize],
            }
        }
        Progress::Linearizable
    }

    /// The longest partial linearization reached so far: indices of this partition's operations, in order.
    pub(crate) fn longest(&self) -> &[usize] {
        &self.longest
    }

    /// Records (linearized, state) in the cache; false when it was there already (a dead end or a duplicate).
    fn remember(&mut self, state: &S::State) -> bool {
        let mut hasher = FxHasher::default();
        state.hash(&mut hasher);
        self.cache.insert(self.linearized.hash() ^ hasher.finish(), self.linearized.words(), state)
    }

    /// Takes a call and its return out of the list.
    fn lift(&mut self, call: u32) {
        self.unlink(call);
        self.unlink(self.return_of[call as usize]);
    }

    /// Puts back what `lift` took out, in reverse order.
    fn unlift(&mut self, call: u32) {
        self.relink(self.return_of[call as usize]);
        self.relink(call);
    }

    fn unlink(&mut self, node: u32) {
        let (prev, next) = (self.prev[node as usize], self.next[node as usize]);
        self.next[prev as usize] = next;
        if next != NONE {
            self.prev[next as usize] = prev;
        }
    }

    fn relink(&mut self, node: u32) {
        let (prev, next) = (self.prev[node as usize], self.next[node as usize]);
        self.next[prev as usize] = node;
        if next != NONE {
            self.prev[next as usize] = node;
        }
    }
}

/// The set of (linearized, state) pairs explored, without an allocation per pair: the search inserts
/// millions, and per-pair boxes made the allocator the larger part of the run time. Pairs with the same
/// hash form a chain through `entries`; every pair's bit words sit at `index * width` in `words`.
struct Cache<T> {
    /// Hash of (linearized, state) -> the latest pair with that hash.
    heads: FxHashMap<u64, u32>,
    /// A pair's state and the previous pair with the same hash.
    entries: Vec<(T, u32)>,
    words: Vec<u64>,
}

impl<T: Eq + Clone> Cache<T> {
    /// Adds the pair; false when it was there already.
    fn insert(&mut self, hash: u64, bits: &[u64], state: &T) -> bool {
        let width = bits.len();
        let fresh = self.entries.len() as u32;
        let head = *self.heads.entry(hash).or_insert(NONE);
        let mut at = head;
        while at != NONE {
            let (seen, previous) = &self.entries[at as usize];
            if seen == state && self.words[at as usize * width..][..width] == *bits {
                return false;
            }
            at = *previous;
        }
        self.heads.insert(hash, fresh);
        self.entries.push((state.clone(), head));
        self.words.extend_from_slice(bits);
        true
    }
}
