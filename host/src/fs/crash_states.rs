//! Every disk state a crash can leave (for `seedfall crashstates`). A crash
//! makes a fixed list of choices, each a prefix of some pieces (`Choice`):
//! without reordered writeback one per surviving file with pending writes
//! (an in-order prefix of them, the last perhaps torn: durability rule 4);
//! with `reorder_writes` (rule 16) one for each file's ordered stream, one
//! per page of its paged pieces (a page not written back is the empty
//! prefix) and, under `dir_reorder`, one per pending directory entry
//! (applied or not: a prefix of one piece of size 0). `CrashSpace` numbers
//! the combinations in mixed radix so a state can be named by its index,
//! counted without being listed, and sampled. It enumerates exactly what the
//! crash's draws can give (`CrashChoices`); it does not run anything (the CLI
//! replays the seed once per state).

use super::Prefix;
use crate::random::RandomStream;

/// What one choice of a crash decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChoiceOf {
    /// Rule 4: how much of a file's pending writes survives, in order.
    File(String),
    /// Rule 16: how much of a file's ordered stream (appends and
    /// truncations under `ext4_ordered`, truncations otherwise) survives.
    Stream(String),
    /// Rule 16: how much of what was written to one 4 KiB page survives.
    Page(String, u64),
    /// Rule 16 under `dir_reorder`: whether a directory entry's pending
    /// change (create, unlink, half a rename) survives.
    Entry(String),
}

/// One choice: what it decides and the sizes of the pieces it takes a
/// prefix of (`Prefix` sizes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub of: ChoiceOf,
    pub sizes: Vec<usize>,
}

impl Choice {
    /// The state `prefix` of this choice, as crashstates prints it.
    pub fn describe(&self, prefix: &Prefix) -> String {
        let torn = if prefix.bytes > 0 { format!(" + {} bytes of the next", prefix.bytes) } else { String::new() };
        let n = self.sizes.len();
        match &self.of {
            ChoiceOf::File(path) => format!("{path} keeps {} of {n} pending{torn}", prefix.ops),
            ChoiceOf::Stream(path) => format!("{path} keeps {} of {n} in its ordered stream{torn}", prefix.ops),
            ChoiceOf::Page(path, page) => format!("{path} page {page} keeps {} of {n} pieces{torn}", prefix.ops),
            ChoiceOf::Entry(name) if prefix.ops > 0 => format!("{name} changed"),
            ChoiceOf::Entry(name) => format!("{name} as it was"),
        }
    }
}

/// The choices one crash made, in the order it made them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashSpace {
    pub choices: Vec<Choice>,
}

impl CrashSpace {
    pub fn of(choices: &[Choice]) -> CrashSpace {
        CrashSpace { choices: choices.to_vec() }
    }

    /// How many states there are (saturating: a space past u64 is sampled anyway).
    pub fn count(&self) -> u64 {
        self.choices.iter().fold(1u64, |n, c| n.saturating_mul(prefixes(&c.sizes)))
    }

    /// State `index` (below `count`): one prefix per choice. The first
    /// choice varies slowest, so the states of one file's prefixes are
    /// neighbours when it is the only choice.
    pub fn state(&self, mut index: u64) -> Vec<Prefix> {
        let mut out = vec![Prefix::default(); self.choices.len()];
        for (slot, choice) in self.choices.iter().enumerate().rev() {
            let radix = prefixes(&choice.sizes);
            out[slot] = nth_prefix(&choice.sizes, index % radix);
            index /= radix;
        }
        out
    }
}

/// Where a crash's choices come from: drawn from the crash's stream (a
/// sweep), or given one by one (crashstates); either way each choice made is
/// recorded, so the run that reaches the crash learns its `CrashSpace`.
pub(super) struct CrashChoices<'a> {
    source: Source<'a>,
    pub made: Vec<Choice>,
}

enum Source<'a> {
    Drawn(&'a mut RandomStream),
    Given(std::slice::Iter<'a, Prefix>),
}

impl<'a> CrashChoices<'a> {
    pub fn drawn(random: &'a mut RandomStream) -> Self {
        CrashChoices { source: Source::Drawn(random), made: Vec::new() }
    }

    pub fn given(prefixes: &'a [Prefix]) -> Self {
        CrashChoices { source: Source::Given(prefixes.iter()), made: Vec::new() }
    }

    /// The crash's stream when its choices are drawn (rule 17's corruption
    /// needs it); None when they are given.
    pub fn random(&mut self) -> Option<&mut RandomStream> {
        match &mut self.source {
            Source::Drawn(random) => Some(random),
            Source::Given(_) => None,
        }
    }

    /// Rule 4: an in-order prefix of a file's pending writes, drawn torn
    /// only with `torn_writes` (and not drawn at all without it).
    pub fn file(&mut self, path: &str, sizes: &[usize], torn_writes: bool) -> Prefix {
        self.made.push(Choice { of: ChoiceOf::File(path.to_string()), sizes: sizes.to_vec() });
        match &mut self.source {
            Source::Drawn(random) if torn_writes => Prefix::draw(sizes, random),
            Source::Drawn(_) => Prefix::default(),
            Source::Given(given) => given.next().map_or_else(Prefix::default, |p| p.fit(sizes)),
        }
    }

    /// Rule 16: a prefix of `sizes` (a file's ordered stream, or one page's
    /// pieces: then `page`), the last piece kept partial only with `torn`.
    /// A page is written back with probability one half; one that is not
    /// keeps the empty prefix.
    pub fn pieces(&mut self, of: ChoiceOf, sizes: &[usize], torn: bool) -> Prefix {
        let page = matches!(of, ChoiceOf::Page(..));
        self.made.push(Choice { of, sizes: sizes.to_vec() });
        match &mut self.source {
            Source::Drawn(random) => {
                if page && !random.chance(0.5) {
                    return Prefix::default();
                }
                let mut prefix = Prefix::draw(sizes, random);
                if !torn {
                    prefix.bytes = 0;
                }
                prefix
            }
            Source::Given(given) => given.next().map_or_else(Prefix::default, |p| p.fit(sizes)),
        }
    }

    /// Rule 16 under `dir_reorder`: whether the pending change of directory
    /// entry `name` survives (probability one half).
    pub fn entry(&mut self, name: &str) -> bool {
        self.made.push(Choice { of: ChoiceOf::Entry(name.to_string()), sizes: vec![0] });
        match &mut self.source {
            Source::Drawn(random) => random.chance(0.5),
            Source::Given(given) => given.next().is_some_and(|p| p.ops > 0),
        }
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
        let choice = |(i, s): (usize, &&[usize])| Choice { of: ChoiceOf::File(format!("/f{i}")), sizes: s.to_vec() };
        CrashSpace { choices: files.iter().enumerate().map(choice).collect() }
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
