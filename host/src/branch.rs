//! Branches: a run that leaves another run's course at a world step and
//! draws everything after from new randomness (a `seedfall cause` future,
//! an explored branch). A `Branch` is where (`step`, counted in scheduler
//! steps: node resumptions) and with what (`reseed`, and the fault rates
//! from there: the config's, or one kind's multiplied, `Boost`). A
//! run's branches so far fold into one `Lineage`; every `RandomStream`
//! re-keys itself from its own key and the lineage on its first draw after
//! the lineage changed, so every consumer of randomness moves to a new
//! stream at once without the world knowing them all.
//!
//! The lineage in force is the thread's (`enter`): the world sets it around
//! everything it does, so a stream never sees another run's lineage. This
//! module decides nothing about faults; the world does (`World::branch`).

use std::cell::Cell;

/// Where a run left another's course and the randomness it took instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The scheduler steps (node resumptions) done before it left.
    pub step: u64,
    pub reseed: u64,
    /// From here on, one fault kind's rate or probability multiplied (None:
    /// the config's). A later branch sets the rates again.
    pub boost: Option<Boost>,
}

impl Branch {
    /// A branch at `step` with new randomness and the config's fault rates.
    pub fn new(step: u64, reseed: u64) -> Branch {
        Branch { step, reseed, boost: None }
    }
}

/// One fault kind's intensity (its rate, or its probability, capped at 1)
/// multiplied by `factor` for the rest of a run, after a branch (explore's
/// fault mixes). Kinds that `FaultKind::boostable` says cannot change their
/// rate mid-run are never boosted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Boost {
    /// The kind's name, as schedules write it.
    pub kind: &'static str,
    /// At least 1.
    pub factor: u32,
}

/// The reseeds a run has taken so far, folded into one key (depth 0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lineage {
    depth: u32,
    key: [u8; 32],
}

impl Lineage {
    /// This lineage after one more branch with `reseed`.
    pub fn reseeded(self, reseed: u64) -> Lineage {
        let mut hasher = blake3::Hasher::new_derive_key("seedfall lineage v1");
        hasher.update(&self.key);
        hasher.update(&reseed.to_le_bytes());
        Lineage { depth: self.depth + 1, key: *hasher.finalize().as_bytes() }
    }

    pub fn depth(self) -> u32 {
        self.depth
    }

    /// The key a stream whose own key is `base` draws from under this lineage.
    pub fn rekey(self, base: &[u8; 32]) -> [u8; 32] {
        if self.depth == 0 {
            return *base;
        }
        let mut hasher = blake3::Hasher::new_derive_key("seedfall branched stream v1");
        hasher.update(base);
        hasher.update(&self.key);
        *hasher.finalize().as_bytes()
    }
}

thread_local! {
    static CURRENT: Cell<Lineage> = Cell::new(Lineage::default());
}

/// The lineage in force on this thread.
pub fn current() -> Lineage {
    CURRENT.with(Cell::get)
}

/// Changes the lineage in force inside a scope (`enter`): its end still
/// restores the one from before the scope.
pub fn set_current(lineage: Lineage) {
    CURRENT.with(|c| c.set(lineage));
}

/// Puts `lineage` in force on this thread until the guard drops (then the
/// one before is back).
pub fn enter(lineage: Lineage) -> Scope {
    Scope { before: CURRENT.with(|c| c.replace(lineage)) }
}

pub struct Scope {
    before: Lineage,
}

impl Drop for Scope {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.before));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Purpose, RandomStream};

    #[test]
    fn a_stream_moves_to_new_numbers_when_the_lineage_changes_and_back_outside_it() {
        let draw = |lineage: Lineage| {
            let _scope = enter(lineage);
            RandomStream::new(5, Purpose::Schedule, "", 0).next_u64()
        };
        let root = Lineage::default();
        let one = root.reseeded(1);
        assert_ne!(draw(root), draw(one));
        assert_ne!(draw(one), draw(root.reseeded(2)));
        assert_ne!(draw(one), draw(one.reseeded(1)), "a second branch moves again");
        assert_eq!(draw(one), draw(root.reseeded(1)), "the same reseeds, the same numbers");
        assert_eq!(current(), root, "the scope ended");

        // A stream made before the branch re-keys on its next draw.
        let mut stream = RandomStream::new(5, Purpose::Schedule, "", 0);
        let first = stream.next_u64();
        let after = {
            let _scope = enter(one);
            stream.next_u64()
        };
        assert_eq!(after, draw(one), "it starts the branched stream from its beginning");
        assert_ne!(first, after);
    }
}
