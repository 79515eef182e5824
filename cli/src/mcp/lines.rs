//! The input side of `seedfall mcp`'s stdio transport: one message per
//! line, read without trusting the client. A line longer than `MAX_LINE`
//! is skipped to its newline without being kept (a client cannot make the
//! server hold more than that), and a line that is not UTF-8 is reported
//! as such; both leave the stream where the next line starts. It does not
//! parse JSON: `protocol` does.

use std::io::{self, BufRead};

/// The longest request line taken: 16 MiB (docs/agents.md).
pub const MAX_LINE: usize = 16 << 20;

/// One line of input, without its newline.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// More than the limit: dropped, only its length is known.
    TooLong(u64),
    NotUtf8,
}

/// Reads lines of at most `max` bytes from `input`.
pub struct Lines<R> {
    input: R,
    max: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R, max: usize) -> Lines<R> {
        Lines { input, max }
    }

    /// The next line; None at the end of input (a last line without a
    /// newline still counts).
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let mut length = 0u64;
        let mut any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            any = true;
            let (chunk, newline) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (&available[..at], true),
                None => (available, false),
            };
            length += chunk.len() as u64;
            if length <= self.max as u64 {
                kept.extend_from_slice(chunk);
            } else {
                // Past the limit nothing more is kept, however long the line runs.
                kept = Vec::new();
            }
            let used = chunk.len() + usize::from(newline);
            self.input.consume(used);
            if newline {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        if length > self.max as u64 {
            return Ok(Some(Line::TooLong(length)));
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        Ok(Some(String::from_utf8(kept).map_or(Line::NotUtf8, Line::Text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut lines = Lines::new(io::BufReader::with_capacity(4, input), max);
        std::iter::from_fn(|| lines.next_line().unwrap()).collect()
    }

    #[test]
    fn lines_past_the_limit_or_not_utf8_are_reported_and_reading_goes_on() {
        let text = |s: &str| Line::Text(s.to_string());
        assert_eq!(all(b"ab\r\ncd", 8), vec![text("ab"), text("cd")]);
        assert_eq!(all(b"0123456789\nok\n", 8), vec![Line::TooLong(10), text("ok")]);
        assert_eq!(all(b"12345678\n", 8), vec![text("12345678")]);
        assert_eq!(all(b"\xff\xfe\n{}\n", 8), vec![Line::NotUtf8, text("{}")]);
        assert_eq!(all(b"\n", 8), vec![text("")]);
        assert_eq!(all(b"", 8), vec![]);
    }
}
