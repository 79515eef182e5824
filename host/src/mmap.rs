//! compat_overlay's file mappings (docs/mmap.md): a `syscall.Mmap` of a
//! simulated file is a Go byte slice in guest memory that the host keeps
//! equal to a range of the file, as the page cache keeps a real mapping.
//!
//! - A shared mapping sees every write to its file through any descriptor
//!   (`refresh` after a write or a resize; zeros past the end).
//! - A shared writable mapping's changes go back to the file, the changed
//!   span of each page and never past its end, before anything could tell them
//!   apart: a read or fsync of the file, `msync`, `munmap`, and the end of
//!   the incarnation (`write_back`). There they are page-cache writes like
//!   any other, so a crash loses what no fsync or `MS_SYNC` made durable.
//! - A private mapping is the file as it was when mapped, never written back.
//!
//! The guest allocates the memory, so mappings count against its `memory`
//! cap. Mappings belong to one incarnation and are kept in the order they
//! were made, so every walk over them is deterministic. This module does not
//! map anonymous memory (the guest does that alone), change protections, or
//! share a mapping between nodes.

use crate::fs::{Errno, Fs, Ino};

pub const PROT_WRITE: u32 = 0x2;
pub const MAP_SHARED: u32 = 0x1;
pub const MAP_PRIVATE: u32 = 0x2;
pub const MS_SYNC: u32 = 0x4;
/// Linux's page size: mapping offsets are multiples of it, and changes go
/// back a page at a time.
const PAGE_BYTES: u64 = 4096;

/// One live mapping: `len` bytes of guest memory at `ptr` mirror file `ino`
/// from `offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub ino: Ino,
    pub offset: u64,
    pub ptr: u32,
    pub len: u32,
    /// MAP_SHARED (else MAP_PRIVATE).
    pub shared: bool,
    /// PROT_WRITE.
    pub writable: bool,
}

impl Mapping {
    fn writes_back(&self) -> bool {
        self.shared && self.writable
    }

    fn memory<'m>(&self, memory: &'m [u8]) -> &'m [u8] {
        &memory[self.ptr as usize..][..self.len as usize]
    }
}

/// The mappings of one incarnation.
#[derive(Debug, Default)]
pub struct Mappings {
    live: Vec<Mapping>,
}

impl Mappings {
    /// Maps `m` (checked against `memory` and the file) and fills it with
    /// the file's bytes. The mapping holds the inode, as an open descriptor
    /// does, until it is unmapped or the incarnation ends.
    pub fn map(&mut self, fs: &mut Fs, memory: &mut [u8], m: Mapping) -> Result<(), Errno> {
        if m.len == 0 || !m.offset.is_multiple_of(PAGE_BYTES) {
            return Err(Errno::INVAL);
        }
        if memory.len() < m.ptr as usize + m.len as usize {
            return Err(Errno::FAULT);
        }
        // Host files are never written: only a copy read into the page
        // cache could take a mapping's changes.
        if m.writes_back() && fs.is_unread_host_file(m.ino) {
            return Err(Errno::ACCES);
        }
        fill(fs, memory, &m, m.offset, m.offset + u64::from(m.len))?;
        fs.retain(m.ino);
        self.live.push(m);
        Ok(())
    }

    /// Unmaps the whole mapping at `ptr`, writing its changes back first.
    pub fn unmap(&mut self, fs: &mut Fs, memory: &[u8], ptr: u32, len: u32, now_ns: u64) -> Result<(), Errno> {
        let at = self.live.iter().position(|m| m.ptr == ptr && m.len == len).ok_or(Errno::INVAL)?;
        write_back_one(fs, memory, &self.live[at], now_ns)?;
        let m = self.live.remove(at);
        fs.release(m.ino);
        Ok(())
    }

    /// msync: writes back the mapping that holds `[ptr, ptr+len)` and, with
    /// MS_SYNC, syncs its file. ENOMEM when no mapping holds the range, as
    /// Linux answers.
    pub fn msync(&self, fs: &mut Fs, memory: &[u8], ptr: u32, len: u32, flags: u32, now_ns: u64) -> Result<(), Errno> {
        let end = u64::from(ptr) + u64::from(len);
        let m = self
            .live
            .iter()
            .find(|m| m.ptr <= ptr && end <= u64::from(m.ptr) + u64::from(m.len))
            .ok_or(Errno::NOMEM)?;
        write_back_one(fs, memory, m, now_ns)?;
        if flags & MS_SYNC != 0 && m.writes_back() { fs.sync(m.ino) } else { Ok(()) }
    }

    /// Whether any mapping of `ino` could have changes to write back.
    pub fn has_writable(&self, ino: Ino) -> bool {
        self.live.iter().any(|m| m.ino == ino && m.writes_back())
    }

    /// Writes back every shared writable mapping of `ino` (of every file
    /// with `None`).
    pub fn write_back(&self, fs: &mut Fs, memory: &[u8], ino: Option<Ino>, now_ns: u64) -> Result<(), Errno> {
        for m in self.live.iter().filter(|m| ino.is_none_or(|ino| m.ino == ino)) {
            write_back_one(fs, memory, m, now_ns)?;
        }
        Ok(())
    }

    /// File `ino` changed in `[from, to)` (a write, or a resize from `from`
    /// on): every shared mapping of it shows the change.
    pub fn refresh(&self, fs: &mut Fs, memory: &mut [u8], ino: Ino, from: u64, to: u64) -> Result<(), Errno> {
        for m in self.live.iter().filter(|m| m.ino == ino && m.shared) {
            fill(fs, memory, m, from, to)?;
        }
        Ok(())
    }

    /// The incarnation ends: its mappings stop holding their files.
    pub fn release_all(&mut self, fs: &mut Fs) {
        for m in self.live.drain(..) {
            fs.release(m.ino);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

/// Copies the file's bytes in `[from, to)`, clipped to the mapping, into its
/// memory; zeros past the end of the file.
fn fill(fs: &mut Fs, memory: &mut [u8], m: &Mapping, from: u64, to: u64) -> Result<(), Errno> {
    let end = m.offset + u64::from(m.len);
    let (from, to) = (from.max(m.offset), to.min(end));
    if from >= to {
        return Ok(());
    }
    let start = m.ptr as usize + (from - m.offset) as usize;
    let window = &mut memory[start..][..(to - from) as usize];
    let n = fs.read_mapped(m.ino, from, window)?;
    window[n..].fill(0);
    Ok(())
}

/// Writes what a shared writable mapping changed, up to the file's end: in
/// each page that differs from the file, the span from its first to its last
/// changed byte, as one page-cache write.
fn write_back_one(fs: &mut Fs, memory: &[u8], m: &Mapping, now_ns: u64) -> Result<(), Errno> {
    if !m.writes_back() {
        return Ok(());
    }
    let size = fs.size(m.ino)?;
    let end = (m.offset + u64::from(m.len)).min(size);
    let mapped = m.memory(memory);
    let mut file_page = vec![0u8; PAGE_BYTES as usize];
    let mut at = m.offset;
    while at < end {
        let len = (end - at).min(PAGE_BYTES) as usize;
        let ours = &mapped[(at - m.offset) as usize..][..len];
        let n = fs.read_mapped(m.ino, at, &mut file_page[..len])?;
        file_page[n..len].fill(0);
        let differs = |i: &usize| ours[*i] != file_page[*i];
        if let (Some(first), Some(last)) = ((0..len).find(differs), (0..len).rev().find(differs)) {
            fs.write_mapped(m.ino, at + first as u64, &ours[first..=last], now_ns)?;
        }
        at += len as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{DiskConfig, DiskFaults, OpenFlags};

    const T: u64 = 1_000;
    const PAGE: usize = PAGE_BYTES as usize;

    /// A disk-modelled file system with `/f` holding `contents`, and a
    /// guest memory of three pages.
    fn setup(contents: &[u8]) -> (Fs, Ino, Vec<u8>) {
        let mut fs = Fs::new(T);
        fs.start_disk_model(DiskFaults::replay(DiskConfig::default(), &[]));
        let create = OpenFlags { create: true, exclusive: false, truncate: false, directory: false };
        let ino = fs.open(fs.root(), "f", create, true, T).unwrap();
        fs.write_at(ino, 0, contents, T).unwrap();
        fs.sync(ino).unwrap();
        (fs, ino, vec![0xEE; 3 * PAGE])
    }

    fn shared(ino: Ino, writable: bool) -> Mapping {
        Mapping { ino, offset: 0, ptr: 0, len: 2 * PAGE as u32, shared: true, writable }
    }

    fn file(fs: &mut Fs, ino: Ino) -> Vec<u8> {
        let mut buf = vec![0; fs.size(ino).unwrap() as usize];
        fs.read_mapped(ino, 0, &mut buf).unwrap();
        buf
    }

    /// A crash that keeps no pending write: what no sync made durable is
    /// gone.
    fn crash(fs: &mut Fs) {
        fs.crash_into(&[]);
    }

    #[test]
    fn a_shared_mapping_sees_writes_through_descriptors_and_a_private_one_does_not() {
        let (mut fs, ino, mut memory) = setup(&[b'a'; PAGE]);
        let mut mappings = Mappings::default();
        mappings.map(&mut fs, &mut memory, shared(ino, false)).unwrap();
        assert_eq!(&memory[..PAGE], &[b'a'; PAGE][..]);
        assert_eq!(&memory[PAGE..2 * PAGE], &[0; PAGE][..], "zeros past the end of the file");
        let private = Mapping { ptr: 2 * PAGE as u32, len: PAGE as u32, shared: false, ..shared(ino, false) };
        mappings.map(&mut fs, &mut memory, private).unwrap();
        fs.write_at(ino, 100, b"new", T).unwrap();
        mappings.refresh(&mut fs, &mut memory, ino, 100, 103).unwrap();
        assert_eq!(&memory[99..104], b"anewa");
        assert_eq!(&memory[2 * PAGE + 99..2 * PAGE + 104], b"aaaaa");
        fs.set_size(ino, 50, T).unwrap();
        mappings.refresh(&mut fs, &mut memory, ino, 50, u64::MAX).unwrap();
        assert_eq!(&memory[49..51], b"a\0", "zeros past a truncation");
    }

    #[test]
    fn msync_makes_mapped_changes_durable() {
        let (mut fs, ino, mut memory) = setup(&[b'a'; PAGE]);
        let mut mappings = Mappings::default();
        mappings.map(&mut fs, &mut memory, shared(ino, true)).unwrap();
        memory[7] = b'm';
        mappings.msync(&mut fs, &memory, 0, 8, MS_SYNC, T).unwrap();
        crash(&mut fs);
        assert_eq!(file(&mut fs, ino)[7], b'm');
    }

    #[test]
    fn munmap_writes_changes_back_but_not_durably_nor_past_the_end() {
        let (mut fs, ino, mut memory) = setup(&[b'a'; PAGE]);
        let mut mappings = Mappings::default();
        mappings.map(&mut fs, &mut memory, shared(ino, true)).unwrap();
        memory[7] = b'u';
        memory[PAGE + 1] = b'x';
        mappings.unmap(&mut fs, &memory, 0, 2 * PAGE as u32, T).unwrap();
        assert!(mappings.is_empty());
        let contents = file(&mut fs, ino);
        assert_eq!((contents.len(), contents[7]), (PAGE, b'u'));
        crash(&mut fs);
        assert_eq!(file(&mut fs, ino)[7], b'a', "munmap does not sync");
    }

    #[test]
    fn a_crash_loses_mapped_changes_no_sync_made_durable() {
        let (mut fs, ino, mut memory) = setup(&[b'a'; PAGE]);
        let mut mappings = Mappings::default();
        mappings.map(&mut fs, &mut memory, shared(ino, true)).unwrap();
        memory[3] = b'c';
        // What the end of an incarnation does before the crash.
        mappings.write_back(&mut fs, &memory, None, T).unwrap();
        mappings.release_all(&mut fs);
        assert_eq!(file(&mut fs, ino)[3], b'c', "in the page cache");
        crash(&mut fs);
        assert_eq!(file(&mut fs, ino)[3], b'a');
    }

    #[test]
    fn a_file_stays_while_mapped_after_its_last_name_goes() {
        let (mut fs, ino, mut memory) = setup(b"kept");
        let mut mappings = Mappings::default();
        mappings.map(&mut fs, &mut memory, shared(ino, false)).unwrap();
        fs.unlink(fs.root(), "f", T).unwrap();
        assert_eq!(file(&mut fs, ino), b"kept");
        mappings.unmap(&mut fs, &memory, 0, 2 * PAGE as u32, T).unwrap();
        assert!(fs.size(ino).is_err(), "freed with the mapping");
    }

    #[test]
    fn bad_mappings_are_refused() {
        let (mut fs, ino, mut memory) = setup(b"x");
        let mut mappings = Mappings::default();
        let unaligned = Mapping { offset: 100, ..shared(ino, false) };
        assert_eq!(mappings.map(&mut fs, &mut memory, unaligned), Err(Errno::INVAL));
        let outside = Mapping { ptr: 2 * PAGE as u32, ..shared(ino, false) };
        assert_eq!(mappings.map(&mut fs, &mut memory, outside), Err(Errno::FAULT));
        assert_eq!(mappings.unmap(&mut fs, &memory, 0, 1, T), Err(Errno::INVAL));
        assert_eq!(mappings.msync(&mut fs, &memory, 0, 1, MS_SYNC, T), Err(Errno::NOMEM));
        assert!(mappings.is_empty());
    }
}
