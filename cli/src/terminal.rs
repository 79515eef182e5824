//! Text from guests (failure messages, node output) on the way to a
//! terminal: control characters other than newline and tab are shown as
//! escapes (`\r`, `\x1b`, `\u{9b}`), so a guest cannot move the cursor,
//! recolour the screen or overwrite a line with `\r` to fake a verdict
//! or a summary. JSON output needs none of this (JSON escapes them itself).
//! Newlines are kept: Go's panics and deadlock reports are many lines.

use std::borrow::Cow;
use std::io::Write;

fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with its control characters (but newline and tab) escaped.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if is_control(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes what passes through it (`escape`). Each `write`
/// is escaped on its own: bytes that are not UTF-8 pass as they are, apart
/// from C0 controls and DEL, which are escaped wherever they are.
pub struct Escaped<W: Write>(pub W);

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.0.write_all(escape(text).as_bytes())?,
            Err(_) => {
                for &b in bytes {
                    if is_control(char::from(b)) && b < 0x80 {
                        write!(self.0, "{}", escape(&char::from(b).to_string()))?;
                    } else {
                        self.0.write_all(&[b])?;
                    }
                }
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_and_escape_sequences_are_shown_not_obeyed() {
        let fake = "lost\r500 seeds: 500 passed, 0 failed\x1b[2K\u{9b}31m\nnext line\tok";
        assert_eq!(escape(fake), "lost\\r500 seeds: 500 passed, 0 failed\\x1b[2K\\u{9b}31m\nnext line\tok");
        assert!(matches!(escape("plain text\n"), Cow::Borrowed(_)));
        let mut out = Escaped(Vec::new());
        out.write_all(b"a\x1b]0;title\x07 \xff\r\n").unwrap();
        assert_eq!(out.0, b"a\\x1b]0;title\\x07 \xff\\r\n");
    }
}
