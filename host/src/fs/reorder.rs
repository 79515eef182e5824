//! Reordered writeback at a crash (durability rule 16, `reorder_writes`):
//! which pieces of a file's pending writes a crash keeps when the kernel
//! may have written them back in any order. A file's pending operations
//! are cut into pieces. Under `ext4_ordered` (the default) the pieces past
//! the file's durable size (appends) and the truncations form one ordered
//! stream, of which the crash keeps an in-order prefix, as ext4's ordered
//! mode only moves the size forward once the data is on disk; the pieces of
//! writes over existing bytes are cut at 4 KiB pages and each page survives
//! on its own. Under `page_independent` every write is cut at pages and
//! each page survives on its own; only truncations stay ordered. A page
//! that survives keeps an in-order prefix of its pieces (written back
//! between two writes, it holds the first); with `torn_writes` the last
//! piece kept in a page, or of the ordered stream, may be partial (whole
//! sectors of the file only, with `torn_sector`). The kept
//! pieces are applied in the order they were written. Each choice comes
//! from `CrashChoices`: drawn from the stream the crash passes (keyed by the
//! crash, `world::slot`), or given by crashstates. Under
//! `dir_reorder` file data is cut as under `page_independent` and, in
//! `dir_changes`, each name whose durable entry differs from the page
//! cache's (a create, unlink or either half of a rename not yet made durable)
//! takes the page cache's value on its own, with probability one half.

use super::crash_states::{ChoiceOf, CrashChoices};
use super::pending::Pending as Op;

const PAGE: u64 = 4096;

/// How writeback may reorder a file's pending writes (`fs_model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FsModel {
    /// Appends and truncations in order, overwrites per page.
    #[default]
    Ext4Ordered,
    /// Every page on its own; truncations in order.
    PageIndependent,
    /// As `PageIndependent`, and each pending directory change survives on its own.
    DirReorder,
}

impl FsModel {
    pub const NAMES: [&'static str; 3] = ["ext4_ordered", "page_independent", "dir_reorder"];

    pub fn from_name(name: &str) -> Option<FsModel> {
        match name {
            "ext4_ordered" => Some(FsModel::Ext4Ordered),
            "page_independent" => Some(FsModel::PageIndependent),
            "dir_reorder" => Some(FsModel::DirReorder),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FsModel::Ext4Ordered => "ext4_ordered",
            FsModel::PageIndependent => "page_independent",
            FsModel::DirReorder => "dir_reorder",
        }
    }
}

/// The pieces of `ops` (file `path`'s pending writes) a crash keeps, in
/// the order they were written; `durable_len` is the file's durable size
/// before them.
pub(super) fn kept(
    ops: &[Op],
    durable_len: u64,
    model: FsModel,
    torn: bool,
    path: &str,
    choices: &mut CrashChoices,
) -> Kept {
    let mut ordered: Vec<(usize, Op)> = Vec::new();
    let mut paged: Vec<(u64, usize, Op)> = Vec::new();
    for (seq, op) in ops.iter().enumerate() {
        match op {
            Op::SetSize(_) => ordered.push((seq, op.clone())),
            Op::Write { offset, bytes } => {
                let end = offset + bytes.len() as u64;
                let split = match model {
                    FsModel::Ext4Ordered => durable_len.clamp(*offset, end),
                    FsModel::PageIndependent | FsModel::DirReorder => end,
                };
                let mut at = *offset;
                while at < split {
                    let to = ((at / PAGE + 1) * PAGE).min(split);
                    let piece = bytes[(at - offset) as usize..(to - offset) as usize].to_vec();
                    paged.push((at / PAGE, seq, Op::Write { offset: at, bytes: piece }));
                    at = to;
                }
                if split < end {
                    let piece = bytes[(split - offset) as usize..].to_vec();
                    ordered.push((seq, Op::Write { offset: split, bytes: piece }));
                }
            }
        }
    }
    let pieces = ordered.len() + paged.len();
    let mut out: Vec<(usize, Op)> = prefix_of(ordered, ChoiceOf::Stream(path.to_string()), torn, choices);
    // Pages in page order, each page's pieces in the order written.
    paged.sort_by_key(|(page, seq, _)| (*page, *seq));
    let mut rest = paged.as_slice();
    while let Some(&(page, ..)) = rest.first() {
        let count = rest.iter().take_while(|(p, ..)| *p == page).count();
        let (this, next) = rest.split_at(count);
        rest = next;
        let pieces = this.iter().map(|(_, seq, op)| (*seq, op.clone())).collect();
        out.extend(prefix_of(pieces, ChoiceOf::Page(path.to_string(), page), torn, choices));
    }
    out.sort_by_key(|(seq, _)| *seq);
    Kept { ops: out.into_iter().map(|(_, op)| op).collect(), pieces }
}

/// `dir_reorder`: for directory `dir`, each name whose durable entry
/// (`durable`) differs from the page cache's (`cached`) takes the cached
/// value, or keeps the durable one, on its own; names in order.
pub(super) fn dir_changes(
    durable: &mut std::collections::BTreeMap<String, super::Ino>,
    cached: &std::collections::BTreeMap<String, super::Ino>,
    dir: &str,
    choices: &mut CrashChoices,
) {
    let names: std::collections::BTreeSet<String> = durable.keys().chain(cached.keys()).cloned().collect();
    for name in names {
        if durable.get(&name) != cached.get(&name) && choices.entry(&format!("{dir}/{name}")) {
            match cached.get(&name) {
                Some(&ino) => durable.insert(name, ino),
                None => durable.remove(&name),
            };
        }
    }
}

/// What survives: the ops to apply in order, and how many pieces there were.
pub(super) struct Kept {
    pub ops: Vec<Op>,
    pub pieces: usize,
}

/// The in-order prefix of `pieces` that choice `of` keeps (torn only with `torn`).
fn prefix_of(mut pieces: Vec<(usize, Op)>, of: ChoiceOf, torn: bool, choices: &mut CrashChoices) -> Vec<(usize, Op)> {
    let prefix = choices.pieces(of, pieces.iter().map(|(_, op)| op), torn);
    let partial = (prefix.bytes > 0).then(|| pieces[prefix.ops].clone());
    pieces.truncate(prefix.ops);
    if let Some((seq, Op::Write { offset, bytes })) = partial {
        pieces.push((seq, Op::Write { offset, bytes: bytes[..prefix.bytes].to_vec() }));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Purpose, RandomStream};
    use std::collections::BTreeSet;

    fn w(offset: u64, bytes: &[u8]) -> Op {
        Op::Write { offset, bytes: bytes.to_vec() }
    }

    /// The kept ops of many crashes, as a set of outcomes.
    fn outcomes(ops: &[Op], durable_len: u64, model: FsModel, torn: bool) -> BTreeSet<Vec<String>> {
        let mut random = RandomStream::new(3, Purpose::TornWrites, "n", 1);
        let mut draw = || kept(ops, durable_len, model, torn, "/f", &mut CrashChoices::drawn(&mut random));
        (0..3000).map(|_| draw().ops.iter().map(|o| format!("{o:?}")).collect()).collect()
    }

    #[test]
    fn ext4_ordered_keeps_appends_in_order_and_overwrites_per_page() {
        // An overwrite of page 1, then two appends past the durable 8 KiB.
        let ops = [w(PAGE, b"over"), w(2 * PAGE, b"a1"), w(2 * PAGE + 2, b"a2")];
        let seen = outcomes(&ops, 2 * PAGE, FsModel::Ext4Ordered, false);
        let has = |names: &[&Op]| seen.contains(&names.iter().map(|o| format!("{o:?}")).collect::<Vec<_>>());
        assert!(has(&[&ops[0]]), "the overwrite alone: {seen:?}");
        assert!(has(&[&ops[1]]) && has(&[&ops[1], &ops[2]]), "appends as a prefix");
        assert!(has(&[&ops[0], &ops[1], &ops[2]]) && has(&[]));
        assert!(!has(&[&ops[2]]), "the second append never without the first");
        assert_eq!(seen.len(), 2 * 3, "overwrite kept or not, times 3 append prefixes");
    }

    #[test]
    fn page_independent_lets_a_later_append_survive_an_earlier_one() {
        let ops = [w(0, b"first"), w(PAGE, b"second")];
        let seen = outcomes(&ops, 0, FsModel::PageIndependent, false);
        assert!(seen.contains(&vec![format!("{:?}", ops[1])]), "the second page alone: {seen:?}");
        assert_eq!(seen.len(), 4);
        let ext4 = outcomes(&ops, 0, FsModel::Ext4Ordered, false);
        assert!(!ext4.contains(&vec![format!("{:?}", ops[1])]), "never under ext4_ordered: {ext4:?}");
    }

    #[test]
    fn a_write_across_pages_is_cut_at_them_and_torn_only_with_torn_writes() {
        let big = vec![7u8; PAGE as usize + 10];
        let ops = [w(0, &big)];
        let whole = outcomes(&ops, u64::MAX, FsModel::Ext4Ordered, false);
        assert_eq!(whole.len(), 4, "two pages, each kept or not: {whole:?}");
        let torn = outcomes(&ops, u64::MAX, FsModel::Ext4Ordered, true);
        assert!(torn.len() > 20, "a kept page may end inside its piece: {} outcomes", torn.len());
        let mut random = RandomStream::new(1, Purpose::TornWrites, "n", 1);
        let mut choices = CrashChoices::drawn(&mut random);
        assert_eq!(kept(&ops, u64::MAX, FsModel::Ext4Ordered, false, "/f", &mut choices).pieces, 2);
    }

    #[test]
    fn truncations_stay_ordered_under_every_model() {
        let ops = [Op::SetSize(10), Op::SetSize(0)];
        for model in [FsModel::Ext4Ordered, FsModel::PageIndependent] {
            let seen = outcomes(&ops, 100, model, true);
            assert!(!seen.contains(&vec![format!("{:?}", ops[1])]), "{model:?}: {seen:?}");
            assert_eq!(seen.len(), 3);
        }
    }
}
