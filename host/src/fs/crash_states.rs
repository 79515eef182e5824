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
use super::pending::Pending;
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
    /// Where each piece starts in the file (0 for a truncation): sectors
    /// are aligned to the file, not to the write.
    pub offsets: Vec<u64>,
    /// `torn_sector`, in bytes; 0 and 1 tear at any byte.
    pub sector: u64,
}

impl Choice {
    /// The choice of a prefix of `ops`, torn at multiples of `sector`.
    fn of_ops<'o>(of: ChoiceOf, ops: impl Iterator<Item = &'o Pending>, sector: u64) -> Choice {
        let (sizes, offsets) = ops
            .map(|op| match op {
                Pending::Write { offset, bytes } => (bytes.len(), *offset),
                Pending::SetSize(_) => (0, 0),
            })
            .unzip();
        Choice { of, sizes, offsets, sector }
    }

    /// `prefix` of these pieces, cut to whole sectors (`whole_sectors`).
    pub fn whole_sectors(&self, prefix: Prefix) -> Prefix {
        cut(prefix, self.offsets.get(prefix.ops).copied(), self.sector)
    }

    /// How many states piece `i` can be torn into (0 bytes of it
    /// included): one per sector boundary strictly inside it, and none.
    fn tears(&self, i: usize) -> u64 {
        let (sector, at, len) = (self.sector.max(1), self.offsets[i], self.sizes[i] as u64);
        if len == 0 { 1 } else { 1 + (at + len - 1) / sector - at / sector }
    }

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
        self.choices.iter().fold(1u64, |n, c| n.saturating_mul(prefixes(c)))
    }

    /// State `index` (below `count`): one prefix per choice. The first
    /// choice varies slowest, so the states of one file's prefixes are
    /// neighbours when it is the only choice.
    pub fn state(&self, mut index: u64) -> Vec<Prefix> {
        let mut out = vec![Prefix::default(); self.choices.len()];
        for (slot, choice) in self.choices.iter().enumerate().rev() {
            let radix = prefixes(choice);
            out[slot] = nth_prefix(choice, index % radix);
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
    /// `torn_sector`: where a torn piece may end.
    pub sector: u64,
}

enum Source<'a> {
    Drawn(&'a mut RandomStream),
    Given(std::slice::Iter<'a, Prefix>),
}

impl<'a> CrashChoices<'a> {
    pub fn drawn(random: &'a mut RandomStream) -> Self {
        CrashChoices { source: Source::Drawn(random), made: Vec::new(), sector: 1 }
    }

    pub fn given(prefixes: &'a [Prefix]) -> Self {
        CrashChoices { source: Source::Given(prefixes.iter()), made: Vec::new(), sector: 1 }
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
    pub fn file(&mut self, path: &str, ops: &[Pending], torn_writes: bool) -> Prefix {
        let choice = Choice::of_ops(ChoiceOf::File(path.to_string()), ops.iter(), self.sector);
        let sizes = &choice.sizes;
        let prefix = match &mut self.source {
            Source::Drawn(random) if torn_writes => Prefix::draw(sizes, random),
            Source::Drawn(_) => Prefix::default(),
            Source::Given(given) => given.next().map_or_else(Prefix::default, |p| p.fit(sizes)),
        };
        self.record(choice, prefix)
    }

    /// Rule 16: a prefix of `pieces` (a file's ordered stream, or one page's
    /// pieces: then `ChoiceOf::Page`), the last piece kept partial only with
    /// `torn`. A page is written back with probability one half; one that is
    /// not keeps the empty prefix.
    pub fn pieces<'o>(&mut self, of: ChoiceOf, pieces: impl Iterator<Item = &'o Pending>, torn: bool) -> Prefix {
        let choice = Choice::of_ops(of, pieces, self.sector);
        let (page, sizes) = (matches!(choice.of, ChoiceOf::Page(..)), &choice.sizes);
        let prefix = match &mut self.source {
            Source::Drawn(random) => {
                if page && !random.chance(0.5) {
                    return self.record(choice, Prefix::default());
                }
                let mut prefix = Prefix::draw(sizes, random);
                if !torn {
                    prefix.bytes = 0;
                }
                prefix
            }
            Source::Given(given) => given.next().map_or_else(Prefix::default, |p| p.fit(sizes)),
        };
        self.record(choice, prefix)
    }

    /// Records `choice` and returns `prefix` of it, cut to whole sectors.
    fn record(&mut self, choice: Choice, prefix: Prefix) -> Prefix {
        let prefix = choice.whole_sectors(prefix);
        self.made.push(choice);
        prefix
    }

    /// Rule 16 under `dir_reorder`: whether the pending change of directory
    /// entry `name` survives (probability one half).
    pub fn entry(&mut self, name: &str) -> bool {
        self.made.push(Choice { of: ChoiceOf::Entry(name.to_string()), sizes: vec![0], offsets: vec![0], sector: 1 });
        match &mut self.source {
            Source::Drawn(random) => random.chance(0.5),
            Source::Given(given) => given.next().is_some_and(|p| p.ops > 0),
        }
    }
}

/// `prefix` of `ops` with its torn write cut back to the last multiple of
/// `sector` in the file inside it, or to none of it when there is none.
pub(super) fn whole_sectors(prefix: Prefix, ops: &[Pending], sector: u64) -> Prefix {
    let at = match ops.get(prefix.ops) {
        Some(Pending::Write { offset, .. }) => Some(*offset),
        _ => None,
    };
    cut(prefix, at, sector)
}

/// `whole_sectors` for a torn piece starting at file offset `at`.
pub(super) fn cut(prefix: Prefix, at: Option<u64>, sector: u64) -> Prefix {
    let sector = sector.max(1);
    match at {
        Some(at) if prefix.bytes > 0 => {
            let end = (at + prefix.bytes as u64) / sector * sector;
            Prefix { ops: prefix.ops, bytes: end.saturating_sub(at) as usize }
        }
        _ => prefix,
    }
}

/// How many prefixes a choice's pieces have: for each piece, stopping
/// before it (with 0 bytes of it, or torn at a sector boundary inside it),
/// and all of them. With 1-byte sectors a write of len bytes has len.
fn prefixes(choice: &Choice) -> u64 {
    (0..choice.sizes.len()).fold(1u64, |n, i| n.saturating_add(choice.tears(i)))
}

/// Prefix `n` of `prefixes(choice)`, in order of how much took effect.
fn nth_prefix(choice: &Choice, mut n: u64) -> Prefix {
    for ops in 0..choice.sizes.len() {
        let here = choice.tears(ops);
        if n < here {
            // The n-th sector boundary past the piece's start.
            let (sector, at) = (choice.sector.max(1), choice.offsets[ops]);
            let bytes = if n == 0 { 0 } else { (at / sector + n) * sector - at };
            return Prefix { ops, bytes: bytes as usize };
        }
        n -= here;
    }
    Prefix { ops: choice.sizes.len(), bytes: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Purpose, RandomStream};
    use std::collections::BTreeSet;

    fn space(files: &[&[usize]]) -> CrashSpace {
        let choice = |(i, s): (usize, &&[usize])| Choice {
            of: ChoiceOf::File(format!("/f{i}")),
            sizes: s.to_vec(),
            offsets: vec![0; s.len()],
            sector: 1,
        };
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
    fn with_sectors_the_states_are_the_cuts_at_sector_boundaries_of_the_file() {
        // 1000 bytes at 100 (boundaries 512 and 1024 inside), a truncation,
        // 72 bytes at 1100 (none inside).
        let choice = Choice {
            of: ChoiceOf::File("/f".into()),
            sizes: vec![1000, 0, 72],
            offsets: vec![100, 0, 1100],
            sector: 512,
        };
        let one = CrashSpace::of(std::slice::from_ref(&choice));
        let listed: BTreeSet<Prefix> = (0..one.count()).map(|i| one.state(i)[0]).collect();
        let cut = |ops, bytes| Prefix { ops, bytes };
        assert_eq!(listed, [cut(0, 0), cut(0, 412), cut(0, 924), cut(1, 0), cut(2, 0), cut(3, 0)].into());
        assert_eq!(one.count(), 6);
        let mut random = RandomStream::new(7, Purpose::TornWrites, "n", 1);
        let drawn: BTreeSet<Prefix> =
            (0..2000).map(|_| choice.whole_sectors(Prefix::draw(&choice.sizes, &mut random))).collect();
        assert_eq!(drawn, listed, "every drawable cut is listed and nothing else");
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
