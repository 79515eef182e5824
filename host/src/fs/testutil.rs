//! Shorthands shared by the unit tests of this module.

use super::{Fs, Ino, OpenFlags};

/// A creation time distinct from zero, so tests see which time was stored.
pub(super) const T0: u64 = 1_000;

pub(super) const CREATE: OpenFlags = OpenFlags { create: true, exclusive: false, truncate: false, directory: false };

/// Creates or truncates the file at `path` and writes `data` into it.
pub(super) fn write(fs: &mut Fs, path: &str, data: &[u8], now_ns: u64) -> Ino {
    let flags = OpenFlags { truncate: true, ..CREATE };
    let ino = fs.open(fs.root(), path, flags, true, now_ns).unwrap();
    assert_eq!(fs.write_at(ino, 0, data, now_ns), Ok(data.len()));
    ino
}

/// The whole contents of the file at `path`.
pub(super) fn read(fs: &mut Fs, path: &str) -> Vec<u8> {
    let ino = fs.lookup(fs.root(), path, true).unwrap();
    let mut buf = vec![0; fs.size(ino).unwrap() as usize];
    assert_eq!(fs.read_at(ino, 0, &mut buf), Ok(buf.len()));
    buf
}

/// The names `read_dir` lists at `path`, in its order.
pub(super) fn names(fs: &mut Fs, path: &str) -> Vec<String> {
    let dir = fs.lookup(fs.root(), path, true).unwrap();
    fs.read_dir(dir).unwrap().into_iter().map(|entry| entry.name).collect()
}
