//! Reading the files a user names or a checkout holds (`-c`, `exec`'s FILE,
//! a config's `wasm`, schedules, traces, findings histories, saved `cause`
//! results): only regular files, and at most a stated size. A FIFO would
//! block the open forever and `/dev/zero` never ends, so both are errors
//! before a byte is read. This does not guard files seedfall writes itself
//! (the cache verifies its own entries).

use std::fs::File;
use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// The largest config or schedule file read.
pub const TEXT_MAX_BYTES: u64 = 256 << 20;
/// The largest trace file read (`replay --save-trace` writes about 100 bytes
/// an event: some ten million events).
pub const TRACE_MAX_BYTES: u64 = 1 << 30;
/// The largest wasm module read (Go's big binaries are tens of MiB).
pub const WASM_MAX_BYTES: u64 = 1 << 30;

/// The bytes of `path`, a regular file (symlinks followed) of at most
/// `max_bytes`; other kinds and larger files are `InvalidInput` errors
/// saying which.
pub fn read_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Error> {
    let (file, len) = open_file(path, max_bytes)?;
    // The size can change between stat and read: never read past the cap.
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max_bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(max_bytes));
    }
    Ok(bytes)
}

/// `path` opened for reading, with its size, under `read_file`'s rules (checked
/// before the open, so a FIFO is refused rather than waited on). The size is
/// the one at the stat: a reader must still expect the file to change.
pub fn open_file(path: &Path, max_bytes: u64) -> Result<(File, u64), Error> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
        return Err(Error::new(ErrorKind::InvalidInput, format!("{kind}: only regular files are read")));
    }
    if meta.len() > max_bytes {
        return Err(too_big(max_bytes));
    }
    Ok((File::open(path)?, meta.len()))
}

fn too_big(max_bytes: u64) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("larger than the {max_bytes} bytes seedfall reads"))
}

/// `read_file` as UTF-8 text (`InvalidData` if it is not).
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, Error> {
    String::from_utf8(read_file(path, max_bytes)?).map_err(|e| Error::new(ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 19: `-c /dev/zero` read forever; `-c` on a FIFO blocked forever.
    #[test]
    fn issue_19_devices_fifos_directories_and_big_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("seedfall-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = read_file(Path::new("/dev/zero"), TEXT_MAX_BYTES).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if made {
            let err = read_file(&fifo, TEXT_MAX_BYTES).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        assert!(read_file(&dir, TEXT_MAX_BYTES).unwrap_err().to_string().contains("a directory"));
        let big = dir.join("big");
        std::fs::write(&big, vec![b'x'; 100]).unwrap();
        assert!(read_file(&big, 99).unwrap_err().to_string().contains("larger than the 99 bytes"));
        assert_eq!(read_text(&big, 100).unwrap().len(), 100);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
