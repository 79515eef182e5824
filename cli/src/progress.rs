//! The sweep's progress line on stderr: a bar, seeds done, failures and an
//! ETA, redrawn in place. Only on a terminal; in CI logs it stays silent.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: u64,
    started: Instant,
    enabled: bool,
    drawn: bool,
}

const WIDTH: u64 = 30;

impl Progress {
    pub fn new(total: u64) -> Progress {
        Progress { total, started: Instant::now(), enabled: std::io::stderr().is_terminal(), drawn: false }
    }

    pub fn update(&mut self, done: u64, failed: u64) {
        if !self.enabled || self.total == 0 {
            return;
        }
        let filled = done * WIDTH / self.total;
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = if done > 0 { elapsed / done as f64 * (self.total - done) as f64 } else { 0.0 };
        let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r[{bar}] {done}/{} seeds, {failed} failed, ETA {eta:.0}s ", self.total);
        let _ = err.flush();
        self.drawn = true;
    }

    pub fn clear(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.drawn = false;
        }
    }
}
