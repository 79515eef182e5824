//! Every disk state a crash can leave (for `seedfall crashstates`): a crash
//! keeps, of each surviving file's pending writes, an in-order prefix, the
//! last write of it perhaps torn (durability rule 4). `CrashSpace` is that
//! choice for the files of one crash, numbered in mixed radix so a state can
//! be named by its index, counted without being listed, and sampled. It
//! enumerates exactly the prefixes `Prefix::draw` can give; it does not run
//! anything (the CLI replays the seed once per state).

use super::{FileCrash, Prefix};

/// The files one crash had to choose for, in the order it chose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashSpace {
    /// Each file's path and its pending operations' sizes (`Prefix` sizes).
    pub files: Vec<(String, Vec<usize>)>,
}

impl CrashSpace {
    pub fn of(files: &[FileCrash]) -> CrashSpace {
        CrashSpace { files: files.iter().map(|f| (f.path.clone(), f.sizes.clone())).collect() }
    }

    /// How many states there are (saturating: a space past u64 is sampled anyway).
    pub fn count(&self) -> u64 {
        self.files.iter().fold(1u64, |n, (_, sizes)| n.saturating_mul(prefixes(sizes)))
    }

    /// State `index` (below `count`): one prefix per file. The first file's
    /// choice varies slowest, so the states of one file's prefixes are
    /// neighbours when it is the only file.
    pub fn state(&self, mut index: u64) -> Vec<Prefix> {
        let mut out = vec![Prefix::default(); self.files.len()];
        for (slot, (_, sizes)) in self.files.iter().enumerate().rev() {
            let radix = prefixes(sizes);
            out[slot] = nth_prefix(sizes, index % radix);
            index /= radix;
        }
        out
    }
}

/// How many prefixes a sequence of operations of these sizes has: for each
/// operation, stopping before it (with 0 bytes of it, or 1..len of a write),
/// and all of them.
fn prefixes(sizes: &[usize]) -> u64 {
    sizes.iter().fold(1u64, |n, &len| n.saturating_add(len.max(1) as u64))
}

/// Prefix `n` of `prefixes(sizes)`, in order of how much took effect.
fn nth_prefix(sizes: &[usize], mut n: u64) -> Prefix {
    for (ops, &len) in sizes.iter().enumerate() {
        let here = len.max(1) as u64;
        if n < here {
            return Prefix { ops, bytes: n as usize };
        }
        n -= here;
    }
    Prefix { ops: sizes.len(), bytes: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Purpose, RandomStream};
    use std::collections::BTreeSet;

    fn space(files: &[&[usize]]) -> CrashSpace {
        CrashSpace { files: files.iter().enumerate().map(|(i, s)| (format!("/f{i}"), s.to_vec())).collect() }
    }

    #[test]
    fn the_states_are_exactly_the_prefixes_a_crash_can_draw() {
        let sizes = [3, 0, 1, 2];
        let one = space(&[&sizes]);
        let listed: BTreeSet<Prefix> = (0..one.count()).map(|i| one.state(i)[0]).collect();
        assert_eq!(listed.len() as u64, one.count(), "no state twice");
        assert_eq!(one.count(), 3 + 1 + 1 + 2 + 1);
        let mut random = RandomStream::new(7, Purpose::TornWrites, "n", 1);
        let drawn: BTreeSet<Prefix> = (0..2000).map(|_| Prefix::draw(&sizes, &mut random)).collect();
        assert_eq!(drawn, listed, "every drawable prefix is listed and nothing else");
    }

    #[test]
    fn several_files_multiply_and_each_index_names_one_combination() {
        let two = space(&[&[2], &[0, 0]]);
        assert_eq!(two.count(), 3 * 3);
        let all: BTreeSet<Vec<Prefix>> = (0..two.count()).map(|i| two.state(i)).collect();
        assert_eq!(all.len(), 9);
        assert_eq!(space(&[]).count(), 1, "no pending writes: the one durable state");
        assert_eq!(space(&[&[usize::MAX], &[usize::MAX]]).count(), u64::MAX, "saturates");
    }
}
