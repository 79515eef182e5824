//! A node's file operations as replay lines: each open, write, fsync,
//! rename and unlink its WASI calls made, with the file's path and the bytes
//! written, stamped with the virtual time it happened. The world keeps one
//! only while it writes a replay log, and prints what a step did after it.
//!
//! Presentation only: nothing here is hashed or seen by the guest. It does
//! not record reads, stats, directory listings or closes (noise next to the
//! writes that decide what a crash keeps), nor what the disk model did with
//! a write (the crash lines say that).

use crate::fdtable::FdTable;
use crate::fs::Errno;
use crate::vtime::SimTime;
use std::collections::BTreeMap;

/// The lines since the world last took them, and each open descriptor's path.
#[derive(Debug, Default)]
pub struct FileOps {
    lines: Vec<(SimTime, String)>,
    paths: BTreeMap<u32, String>,
}

impl FileOps {
    /// A journal that knows the preopened directories of `fds`.
    pub fn new(fds: &FdTable) -> FileOps {
        let paths = fds.preopens().map(|(fd, path)| (fd, path.to_string())).collect();
        FileOps { lines: Vec::new(), paths }
    }

    /// `path` relative to directory descriptor `dir`, as one absolute path.
    pub fn resolve(&self, dir: u32, path: &str) -> String {
        let base = self.paths.get(&dir).map_or("?", String::as_str);
        match (base.ends_with('/'), path) {
            (_, "" | ".") => base.to_string(),
            (true, _) => format!("{base}{path}"),
            (false, _) => format!("{base}/{path}"),
        }
    }

    /// An open that gave `fd`; `how` lists its flags ("create, truncate").
    pub fn opened(&mut self, at: SimTime, fd: u32, path: String, how: &str) {
        let how = if how.is_empty() { String::new() } else { format!(" ({how})") };
        self.lines.push((at, format!("open {path}{how}: fd {fd}")));
        self.paths.insert(fd, path);
    }

    pub fn closed(&mut self, fd: u32) {
        self.paths.remove(&fd);
    }

    /// `bytes` written to `fd` at file offset `offset`.
    pub fn wrote(&mut self, at: SimTime, fd: u32, bytes: u64, offset: u64) {
        let line = format!("write {}: {bytes} bytes at offset {offset}", self.path(fd));
        self.lines.push((at, line));
    }

    /// An fsync (or fdatasync) of `fd`; `error` is why it failed, if it did.
    pub fn synced(&mut self, at: SimTime, fd: u32, error: Option<Errno>) {
        let failed = error.map_or(String::new(), |e| format!(": failed (E{})", e.name()));
        self.lines.push((at, format!("fsync {}{failed}", self.path(fd))));
    }

    pub fn renamed(&mut self, at: SimTime, from: String, to: String) {
        self.lines.push((at, format!("rename {from} -> {to}")));
    }

    pub fn unlinked(&mut self, at: SimTime, path: String) {
        self.lines.push((at, format!("unlink {path}")));
    }

    /// The lines so far, oldest first; they are gone from here after.
    pub fn take(&mut self) -> Vec<(SimTime, String)> {
        std::mem::take(&mut self.lines)
    }

    fn path(&self, fd: u32) -> String {
        self.paths.get(&fd).cloned().unwrap_or_else(|| format!("fd {fd}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_each_file_by_its_path() {
        let mut ops = FileOps::new(&crate::node::Node::new("n", 1, Vec::new(), Vec::new(), crate::fs::Fs::new(0)).fds);
        let t = SimTime::from_ns(5);
        let path = ops.resolve(3, "data/kv.log");
        ops.opened(t, 7, path, "create, append");
        ops.wrote(t, 7, 24, 120);
        ops.synced(t, 7, None);
        ops.synced(t, 7, Some(Errno::IO));
        ops.renamed(t, ops.resolve(3, "data/kv.tmp"), ops.resolve(3, "data/kv"));
        ops.closed(7);
        ops.wrote(t, 7, 1, 0);
        let lines: Vec<String> = ops.take().into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            lines,
            [
                "open /data/kv.log (create, append): fd 7",
                "write /data/kv.log: 24 bytes at offset 120",
                "fsync /data/kv.log",
                "fsync /data/kv.log: failed (EIO)",
                "rename /data/kv.tmp -> /data/kv",
                "write fd 7: 1 bytes at offset 0",
            ]
        );
        assert!(ops.take().is_empty());
        assert_eq!(ops.resolve(9, "x"), "?/x");
    }
}
