//! The name of a file or folder made beside its destination and renamed
//! into place, so no reader sees half of it. Unique per call, not only per
//! process: `seedfall mcp` prepares one config for concurrent tool calls in
//! one process, and two builds writing one partial file collided.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `DEST.PID-N.partial` beside `dest`, N counting calls in this process.
pub fn beside(dest: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dest.with_file_name(format!("{name}.{}-{n}.partial", std::process::id()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_call_gets_its_own_name_beside_the_destination() {
        let (a, b) = (super::beside("build/x.wasm".as_ref()), super::beside("build/x.wasm".as_ref()));
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some("build".as_ref()));
        assert!(a.to_string_lossy().starts_with("build/x.wasm.") && a.to_string_lossy().ends_with(".partial"), "{a:?}");
    }
}
