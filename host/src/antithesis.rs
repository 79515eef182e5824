//! The Antithesis Go SDK, run unchanged. Built for wasip1, its assertions
//! fall back to a local handler that appends one JSON object per line to the
//! file `ANTITHESIS_SDK_LOCAL_OUTPUT` names. The world sets that to
//! `/dev/antithesis` (unless the user set it), and this module reads what is
//! written there as seedfall's own reports, so `assert.Always`,
//! `assert.Sometimes`, `assert.Reachable`, `assert.Unreachable`, the rich
//! assertions and `lifecycle.SetupComplete` count exactly like `sim`'s:
//!
//! - `{"antithesis_assert": {assert_type, must_hit, condition, message, hit}}`:
//!   `always` + must_hit is Always, `always` without it is Assert
//!   (AlwaysOrUnreachable), `sometimes` is Sometimes, `reachability` +
//!   must_hit is Reachable, without it Unreachable. Entries with `hit: false`
//!   (an instrumentor's catalog) are not reports.
//! - `{"antithesis_setup": …}` is SetupComplete.
//! - Everything else (the SDK's version line, `lifecycle.SendEvent`) is ignored.
//!
//! What it does not do: judge properties (the world does), or keep more than
//! `LINE_MAX` bytes of an unfinished line (a guest writing without newlines
//! cannot make the host hold its output).

use crate::report::{PropertyKind, Report};
use serde_json::Value;

/// The device the SDK's output goes to, and the variable naming it.
pub const OUTPUT_PATH: &str = "/dev/antithesis";
pub const OUTPUT_ENV: &str = "ANTITHESIS_SDK_LOCAL_OUTPUT";

/// The longest line kept; the SDK's lines are a few hundred bytes.
const LINE_MAX: usize = 1 << 20;

/// Output written so far that does not end a line yet.
#[derive(Default)]
pub struct Sink {
    partial: Vec<u8>,
    /// The line being written grew past `LINE_MAX`: drop it up to its end.
    skipping: bool,
}

impl Sink {
    /// Takes written bytes; returns the reports of the lines they complete.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<Report> {
        let mut reports = Vec::new();
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            if !self.skipping {
                self.partial.extend_from_slice(&bytes[..end]);
                reports.extend(parse(&self.partial));
            }
            self.partial.clear();
            self.skipping = false;
            bytes = &bytes[end + 1..];
        }
        if self.skipping || self.partial.len() + bytes.len() > LINE_MAX {
            self.partial.clear();
            self.skipping = true;
        } else {
            self.partial.extend_from_slice(bytes);
        }
        reports
    }
}

fn parse(line: &[u8]) -> Option<Report> {
    let value: Value = serde_json::from_slice(line).ok()?;
    if value.get("antithesis_setup").is_some() {
        return Some(Report::SetupComplete);
    }
    let assert = value.get("antithesis_assert")?;
    if assert.get("hit").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let must_hit = assert.get("must_hit").and_then(Value::as_bool).unwrap_or(false);
    let kind = match (assert.get("assert_type").and_then(Value::as_str)?, must_hit) {
        ("always", true) => PropertyKind::Always,
        ("always", false) => PropertyKind::Assert,
        ("sometimes", _) => PropertyKind::Sometimes,
        ("reachability", true) => PropertyKind::Reachable,
        ("reachability", false) => PropertyKind::Unreachable,
        _ => return None,
    };
    let message = assert.get("message").and_then(Value::as_str)?.to_string();
    // Reachable has no condition of its own: being reached is the point.
    let cond = kind == PropertyKind::Reachable || assert.get("condition").and_then(Value::as_bool).unwrap_or(false);
    Some(Report::Property { kind, cond, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_line(assert_type: &str, must_hit: bool, condition: bool, message: &str) -> String {
        format!(
            r#"{{"antithesis_assert":{{"hit":true,"must_hit":{must_hit},"assert_type":"{assert_type}","display_type":"X","message":"{message}","condition":{condition},"id":"{message}","location":{{}},"details":null}}}}"#
        )
    }

    fn property(kind: PropertyKind, cond: bool, message: &str) -> Report {
        Report::Property { kind, cond, message: message.into() }
    }

    #[test]
    fn each_sdk_assertion_becomes_its_property() {
        let mut sink = Sink::default();
        let text = [
            r#"{"antithesis_sdk":{"language":{"name":"Go"},"sdk_version":"0.9.0"}}"#.to_string(),
            assert_line("always", true, false, "balance never negative"),
            assert_line("always", false, true, "or unreachable"),
            assert_line("sometimes", true, true, "a transfer succeeded"),
            assert_line("reachability", true, true, "reached"),
            assert_line("reachability", false, false, "never here"),
            r#"{"antithesis_setup":{"status":"complete","details":null}}"#.to_string(),
            r#"{"antithesis_assert":{"hit":false,"must_hit":true,"assert_type":"always","message":"catalog"}}"#.into(),
            "not json".into(),
        ]
        .join("\n")
            + "\n";
        assert_eq!(
            sink.feed(text.as_bytes()),
            vec![
                property(PropertyKind::Always, false, "balance never negative"),
                property(PropertyKind::Assert, true, "or unreachable"),
                property(PropertyKind::Sometimes, true, "a transfer succeeded"),
                property(PropertyKind::Reachable, true, "reached"),
                property(PropertyKind::Unreachable, false, "never here"),
                Report::SetupComplete,
            ]
        );
    }

    #[test]
    fn lines_split_across_writes_and_overlong_lines_are_dropped() {
        let mut sink = Sink::default();
        let line = assert_line("sometimes", true, true, "split");
        let (a, b) = line.split_at(17);
        assert!(sink.feed(a.as_bytes()).is_empty());
        assert_eq!(sink.feed(format!("{b}\n").as_bytes()), vec![property(PropertyKind::Sometimes, true, "split")]);
        let huge = vec![b'x'; LINE_MAX / 2];
        for _ in 0..3 {
            assert!(sink.feed(&huge).is_empty());
        }
        assert!(sink.partial.len() <= LINE_MAX, "an unfinished line is bounded");
        assert!(sink.feed(b"tail of the huge line\n").is_empty(), "the overlong line is dropped whole");
        assert_eq!(sink.feed(format!("{line}\n").as_bytes()).len(), 1, "the next line is read again");
    }
}
