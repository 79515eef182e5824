//! Debian's headless Chromium on a local page, for the tests that check a
//! page seedfall wrote renders (`history.rs`, `triage.rs`).

use std::path::Path;
use std::process::{Command, Output};

/// Runs headless Chromium on `page` with `extra` flags (`--dump-dom`,
/// `--screenshot=FILE`).
pub fn chromium(page: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"];
    args.extend_from_slice(extra);
    let url = format!("file://{}", page.display());
    args.push(&url);
    Command::new("chromium").args(&args).output().unwrap_or_else(|e| {
        panic!("chromium is required (Debian's package, installed by .ci/run: apt-get install chromium): {e}")
    })
}
