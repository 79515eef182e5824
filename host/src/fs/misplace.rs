//! Lost and misdirected writes (rules 19 and 20 of `durability.rs`): what
//! a successful sync of a file does to its durable pages when the disk
//! drops one page's write (`lost_write`) or puts it at another page of the
//! same file (`misdirected_write`). Only durable storage is touched: the
//! page cache keeps the right bytes, as the kernel's copy stays right when
//! the drive silently misplaces a write, so the node sees the damage only
//! after a crash rebuilds its cache from the disk.
//!
//! The unit is the 4 KiB page (`pages.rs`), the smallest piece a disk
//! writes on its own. The pages a sync can lose are the ones its pending
//! writes touch that are still inside the file after it (a page written
//! and then truncated away is not written back). `faults.rs` decides when
//! and which page; this file only moves pages.

use super::faults::DiskFaultKind;
use super::pages::{PAGE_BYTES, Page, Pages};
use super::pending::Pending;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The pages `pending` writes touch that lie inside the file once they are
/// applied over `durable_len` bytes, sorted; and that length in pages.
pub(super) fn touched(pending: &[Pending], durable_len: u64) -> (Vec<u64>, u64) {
    let mut pages = BTreeSet::new();
    let mut len = durable_len;
    for op in pending {
        match op {
            Pending::Write { offset, bytes } if !bytes.is_empty() => {
                let end = offset + bytes.len() as u64;
                pages.extend(offset / PAGE_BYTES..end.div_ceil(PAGE_BYTES));
                len = len.max(end);
            }
            Pending::Write { .. } => {}
            Pending::SetSize(size) => len = *size,
        }
    }
    let len_pages = len.div_ceil(PAGE_BYTES);
    (pages.into_iter().filter(|&p| p < len_pages).collect(), len_pages)
}

/// The durable page `fault` loses, as it was before the sync: kept by the
/// caller across the sync for `misplace`.
pub(super) fn before(durable: &Pages, fault: DiskFaultKind) -> Option<Rc<Page>> {
    match fault {
        DiskFaultKind::LostWrite { page } | DiskFaultKind::MisdirectedWrite { page, .. } => durable.page(page),
        _ => None,
    }
}

/// Undoes the write of one page of a sync that just succeeded: `durable`
/// holds the sync's result, `old` the page before it (`before`). A lost
/// page goes back to `old`; a misdirected one too, and its new bytes
/// overwrite page `to` (dropped past the end of the file, where no read
/// reaches: a write that lands in another file's block or free space).
pub(super) fn misplace(durable: &mut Pages, fault: DiskFaultKind, old: Option<Rc<Page>>) {
    match fault {
        DiskFaultKind::LostWrite { page } => durable.put_page(page, old),
        DiskFaultKind::MisdirectedWrite { page, to } => {
            let new = durable.page(page);
            durable.put_page(page, old);
            durable.put_page(to, new);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = PAGE_BYTES;

    fn w(offset: u64, len: usize) -> Pending {
        Pending::Write { offset, bytes: vec![9; len] }
    }

    #[test]
    fn touched_pages_are_those_written_and_still_inside_the_file() {
        assert_eq!(touched(&[w(P - 1, 2), w(5 * P, 1)], 0), (vec![0, 1, 5], 6));
        assert_eq!(touched(&[w(0, 1), w(3 * P, 1), Pending::SetSize(P)], 0), (vec![0], 1), "truncated away");
        assert_eq!(touched(&[Pending::SetSize(3 * P)], P), (vec![], 3), "a resize writes no page");
        assert_eq!(touched(&[w(P, 0)], 7 * P), (vec![], 7));
    }

    #[test]
    fn a_misdirected_page_lands_on_its_target_and_its_own_stays_old() {
        let mut durable = Pages::default();
        durable.write(0, &[1; 3 * P as usize]);
        let fault = DiskFaultKind::MisdirectedWrite { page: 0, to: 2 };
        let old = before(&durable, fault);
        durable.write(0, &[2; P as usize]);
        misplace(&mut durable, fault, old);
        let mut buf = vec![0; 3 * P as usize];
        durable.read(0, &mut buf);
        assert_eq!((buf[0], buf[P as usize], buf[2 * P as usize]), (1, 1, 2));
    }
}
