//! Sparse file contents: a logical size and the 4 KiB pages that hold data,
//! keyed by page number. A page never written is a hole and reads as zeros,
//! so truncating a file to 1 GiB or writing past its end allocates nothing
//! for the gap; only the pages a write touches cost memory (what the disk
//! budget counts, `space.rs`).
//!
//! Pages are shared (`Rc`) and copied on write, so the durable copy of a
//! file (`durability.rs`) costs nothing until the page cache diverges from
//! it, page by page. That is also the unit a per-page crash model needs:
//! the durable state of a file is a map of pages, and a crash that lets
//! each overwritten page survive independently picks, per page number,
//! the old `Rc` or the new one.
//!
//! Invariants: no page lies wholly past `len`, and the bytes of the last
//! page past `len` are zero, so extending a file shows zeros without
//! touching any page.
//!
//! This file does not know about budgets, host files or durability; it does
//! not check sizes either (`data.rs` caps them before calling).

use std::collections::BTreeMap;
use std::rc::Rc;

pub(super) const PAGE_BYTES: u64 = 4096;

pub(super) type Page = [u8; PAGE_BYTES as usize];

#[derive(Clone, Default, Debug)]
pub(super) struct Pages {
    len: u64,
    pages: BTreeMap<u64, Rc<Page>>,
}

impl Pages {
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Pages holding data: what the file costs, holes excluded.
    pub(super) fn allocated(&self) -> u64 {
        self.pages.len() as u64
    }

    /// Reads from `offset` into `buf`, holes as zeros; 0 at or past the end.
    pub(super) fn read(&self, offset: u64, buf: &mut [u8]) -> usize {
        let n = self.len.saturating_sub(offset).min(buf.len() as u64) as usize;
        let mut done = 0;
        while done < n {
            let at = offset + done as u64;
            let (page, within) = (at / PAGE_BYTES, (at % PAGE_BYTES) as usize);
            let take = (PAGE_BYTES as usize - within).min(n - done);
            let out = &mut buf[done..done + take];
            match self.pages.get(&page) {
                Some(bytes) => out.copy_from_slice(&bytes[within..within + take]),
                None => out.fill(0),
            }
            done += take;
        }
        n
    }

    /// How many of the `len` bytes of a write at `offset` fit when at most
    /// `free` new pages may be allocated: all of them, or the bytes before
    /// the first page that would not fit (a short write).
    pub(super) fn fitting(&self, offset: u64, len: usize, free: u64) -> usize {
        if len == 0 {
            return 0;
        }
        let (first, last) = (offset / PAGE_BYTES, (offset + len as u64 - 1) / PAGE_BYTES);
        // Holes seen so far, and the page after the last one looked at.
        let (mut holes, mut next) = (0u64, first);
        let present = self.pages.range(first..=last).map(|(&page, _)| page);
        for end in present.chain([last + 1]) {
            let gap = end - next;
            if holes + gap > free {
                let cut = (next + (free - holes)) * PAGE_BYTES;
                return cut.saturating_sub(offset) as usize;
            }
            holes += gap;
            next = end + 1;
        }
        len
    }

    /// Writes `data` at `offset`, allocating the pages it touches.
    pub(super) fn write(&mut self, offset: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let at = offset + done as u64;
            let (page, within) = (at / PAGE_BYTES, (at % PAGE_BYTES) as usize);
            let take = (PAGE_BYTES as usize - within).min(data.len() - done);
            let bytes = self.pages.entry(page).or_insert_with(|| Rc::new([0; PAGE_BYTES as usize]));
            Rc::make_mut(bytes)[within..within + take].copy_from_slice(&data[done..done + take]);
            done += take;
        }
        self.len = self.len.max(offset + data.len() as u64);
    }

    /// Truncates (freeing whole pages past the end, zeroing the tail of the
    /// last) or extends (a hole) to `len` bytes.
    pub(super) fn set_len(&mut self, len: u64) {
        if len < self.len {
            self.pages.split_off(&len.div_ceil(PAGE_BYTES));
            let within = (len % PAGE_BYTES) as usize;
            if within > 0
                && let Some(bytes) = self.pages.get_mut(&(len / PAGE_BYTES))
            {
                Rc::make_mut(bytes)[within..].fill(0);
            }
        }
        self.len = len;
    }

    /// Page `n`, shared (None: a hole).
    pub(super) fn page(&self, n: u64) -> Option<Rc<Page>> {
        self.pages.get(&n).cloned()
    }

    /// Puts `page` (None: a hole) at page `n`, the size unchanged: a page
    /// past the end is not stored and the bytes past the end are zeroed, so
    /// the invariants hold whatever the page held (rules 19 and 20 of
    /// `durability.rs` move whole pages between file states).
    pub(super) fn put_page(&mut self, n: u64, page: Option<Rc<Page>>) {
        if n >= self.len.div_ceil(PAGE_BYTES) {
            return;
        }
        match page {
            Some(bytes) => self.pages.insert(n, bytes),
            None => self.pages.remove(&n),
        };
        let within = (self.len % PAGE_BYTES) as usize;
        if within > 0
            && n == self.len / PAGE_BYTES
            && let Some(bytes) = self.pages.get_mut(&n)
            && bytes[within..].iter().any(|&b| b != 0)
        {
            Rc::make_mut(bytes)[within..].fill(0);
        }
    }

    /// Appends a page's worth (or less, at the end) of bytes read in order,
    /// e.g. from a host file; a page of zeros stays a hole.
    pub(super) fn append(&mut self, chunk: &[u8]) {
        debug_assert!(self.len.is_multiple_of(PAGE_BYTES) && chunk.len() as u64 <= PAGE_BYTES);
        let at = self.len;
        if chunk.iter().any(|&b| b != 0) {
            self.write(at, chunk);
        }
        self.len = at + chunk.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = PAGE_BYTES;

    fn contents(pages: &Pages) -> Vec<u8> {
        let mut buf = vec![0xAA; pages.len() as usize];
        assert_eq!(pages.read(0, &mut buf), buf.len());
        buf
    }

    #[test]
    fn holes_read_as_zeros_and_cost_nothing() {
        let mut pages = Pages::default();
        pages.set_len(1 << 30);
        assert_eq!((pages.len(), pages.allocated()), (1 << 30, 0));
        let mut buf = [0xAA; 10];
        assert_eq!(pages.read((1 << 30) - 4, &mut buf), 4);
        assert_eq!(buf[..4], [0; 4]);
        pages.write(3 * P + 10, b"xy");
        assert_eq!(pages.allocated(), 1);
        assert_eq!(pages.read(3 * P + 9, &mut buf[..4]), 4);
        assert_eq!(&buf[..4], b"\0xy\0");
    }

    #[test]
    fn writes_across_pages_and_reads_back() {
        let mut pages = Pages::default();
        let data: Vec<u8> = (0..3 * P as usize).map(|i| (i % 251) as u8).collect();
        pages.write(P / 2, &data);
        assert_eq!((pages.len(), pages.allocated()), (P / 2 + 3 * P, 4));
        let mut back = vec![0; data.len()];
        assert_eq!(pages.read(P / 2, &mut back), data.len());
        assert_eq!(back, data);
        assert_eq!(pages.read(pages.len(), &mut back), 0);
        assert_eq!(pages.read(u64::MAX, &mut back), 0);
    }

    #[test]
    fn truncation_frees_pages_and_zeroes_the_tail() {
        let mut pages = Pages::default();
        pages.write(0, &[7; 3 * P as usize]);
        pages.set_len(P + 1);
        assert_eq!(pages.allocated(), 2);
        pages.set_len(P + 3);
        assert_eq!(contents(&pages)[P as usize..], [7, 0, 0], "bytes cut off come back as zeros");
        pages.set_len(P);
        assert_eq!(pages.allocated(), 1);
        pages.set_len(0);
        assert_eq!((pages.len(), pages.allocated()), (0, 0));
    }

    #[test]
    fn clones_share_pages_until_written() {
        let mut pages = Pages::default();
        pages.write(0, b"old");
        let durable = pages.clone();
        pages.write(1, b"N");
        pages.set_len(1);
        assert_eq!((contents(&durable), contents(&pages)), (b"old".to_vec(), b"o".to_vec()));
    }

    #[test]
    fn fitting_cuts_before_the_first_page_that_does_not_fit() {
        let mut pages = Pages::default();
        pages.write(P, b"x"); // page 1 exists; pages 0, 2, 3... are holes
        let len = 4 * P as usize;
        assert_eq!(pages.fitting(0, len, 3), len, "pages 0, 2, 3 are new");
        assert_eq!(pages.fitting(0, len, 2), 3 * P as usize, "page 3 does not fit");
        assert_eq!(pages.fitting(0, len, 1), 2 * P as usize, "page 1 exists, page 2 does not fit");
        assert_eq!(pages.fitting(0, len, 0), 0);
        assert_eq!(pages.fitting(P + 5, 10, 0), 10, "an overwrite needs no new page");
        assert_eq!(pages.fitting(P + 5, P as usize, 0), P as usize - 5, "up to the end of the page it has");
        assert_eq!(pages.fitting(5, 10, 0), 0);
        assert_eq!(pages.fitting(5, 0, 0), 0);
    }

    #[test]
    fn put_page_moves_whole_pages_and_keeps_the_invariants() {
        let mut pages = Pages::default();
        pages.write(0, &[1; 2 * P as usize]);
        let full = pages.page(0).unwrap();
        pages.set_len(P + 3);
        pages.put_page(1, Some(full.clone()));
        assert_eq!(contents(&pages)[P as usize..], [1, 1, 1], "the bytes past the end are zeroed");
        pages.set_len(P + 5);
        assert_eq!(contents(&pages)[P as usize..], [1, 1, 1, 0, 0], "so extending shows zeros");
        pages.put_page(2, Some(full));
        assert_eq!((pages.len(), pages.allocated()), (P + 5, 2), "a page past the end is not stored");
        pages.put_page(0, None);
        assert_eq!((contents(&pages)[0], pages.allocated()), (0, 1), "a hole");
    }

    #[test]
    fn appended_zero_pages_stay_holes() {
        let mut pages = Pages::default();
        pages.append(&[0; P as usize]);
        pages.append(&[1; P as usize]);
        pages.append(&[0; 5]);
        assert_eq!((pages.len(), pages.allocated()), (2 * P + 5, 1));
        assert_eq!(contents(&pages)[P as usize - 1..P as usize + 1], [0, 1]);
    }
}
