//! Atomic publication: a temporary file in the destination directory, written,
//! fsynced, renamed over the destination, then the directory fsynced so the
//! rename itself is durable. A reader sees the old file, the new file or no
//! file, never a partial one; two writers of one name both succeed and the
//! last rename wins (both wrote the same bytes).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Prefix of every temporary file; anything so named is fair game for cleanup
/// once it is older than `STALE_TEMP_AGE` (its writer crashed).
pub const TEMP_PREFIX: &str = ".tmp-";
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A temporary file name unique across processes and threads.
pub fn temp_path(dir: &Path) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    dir.join(format!("{TEMP_PREFIX}{}-{n}-{nanos}", std::process::id()))
}

/// Write `parts` to `dest` atomically (see the module header).
pub fn publish(dir: &Path, dest: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let tmp = temp_path(dir);
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        for part in parts {
            f.write_all(part)?;
        }
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, dest)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Nothing on Windows: std cannot open a directory there (that needs
/// `FILE_FLAG_BACKUP_SEMANTICS`), and NTFS journals a rename's metadata
/// itself, so there is no directory fsync to do.
#[cfg(windows)]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Whether `path` was last modified more than `age` ago.
pub fn older_than(meta: &fs::Metadata, age: Duration) -> bool {
    meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|e| e > age)
}
