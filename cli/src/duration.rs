//! Go-style durations ("500ms", "1m30s", "10s", "1.5h"), as the config and
//! the CLI write them.

use std::fmt;
use std::time::Duration;

/// A duration that does not parse; each variant keeps the text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationError {
    /// Not numbers with units.
    Malformed(String),
    /// More nanoseconds than a u64 holds.
    TooLong(String),
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DurationError::Malformed(text) => write!(f, "{text:?} is not a duration like 500ms, 10s or 1m30s"),
            DurationError::TooLong(text) => write!(f, "{text:?} is too long a duration"),
        }
    }
}

impl std::error::Error for DurationError {}

/// Units and their length in nanoseconds; exact integer arithmetic, so a
/// schedule's "427.268419ms" is exactly 427,268,419 ns.
const UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let bad = || DurationError::Malformed(text.to_string());
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(bad());
    }
    let mut rest = text;
    let mut total_ns: u128 = 0;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(bad)?;
        let (whole, fraction) = rest[..number_len].split_once('.').unwrap_or((&rest[..number_len], ""));
        if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
            return Err(bad());
        }
        rest = &rest[number_len..];
        // Longest unit first, so "ms" is not read as "m" then "s".
        let (unit, unit_ns) =
            UNITS.iter().filter(|(u, _)| rest.starts_with(u)).max_by_key(|(u, _)| u.len()).ok_or_else(bad)?;
        let too_long = || DurationError::TooLong(text.to_string());
        let whole: u128 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| too_long())? };
        let digits = &fraction[..fraction.len().min(18)];
        let fraction_ns = if digits.is_empty() {
            0
        } else {
            digits.parse::<u128>().map_err(|_| bad())? * unit_ns / 10u128.pow(digits.len() as u32)
        };
        total_ns = whole
            .checked_mul(*unit_ns)
            .and_then(|n| n.checked_add(fraction_ns))
            .and_then(|n| n.checked_add(total_ns))
            .ok_or_else(too_long)?;
        rest = &rest[unit.len()..];
    }
    let total_ns = u64::try_from(total_ns).map_err(|_| DurationError::TooLong(text.to_string()))?;
    Ok(Duration::from_nanos(total_ns))
}

#[cfg(test)]
mod tests {
    use super::{DurationError, parse_duration};
    use std::time::Duration;

    #[test]
    fn go_style_durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("427.268419ms").unwrap(), Duration::from_nanos(427_268_419));
        assert_eq!(parse_duration("1m2.000000001s").unwrap(), Duration::from_nanos(62_000_000_001));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        for bad in ["", "10", "ten s", "5 s", "3x", ".s", "1.2.3s"] {
            assert_eq!(parse_duration(bad), Err(DurationError::Malformed(bad.into())), "{bad}");
        }
        let long = "99999999999999999999999h";
        assert_eq!(parse_duration(long), Err(DurationError::TooLong(long.into())));
        assert_eq!(parse_duration("6000000h").unwrap_err().to_string(), "\"6000000h\" is too long a duration");
        assert_eq!(parse_duration("3x").unwrap_err().to_string(), "\"3x\" is not a duration like 500ms, 10s or 1m30s");
    }
}
