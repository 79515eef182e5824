//! Virtual time, at the bottom of the host: `SimTime`, an instant as time
//! since the run started (what the scheduler, the network, schedules and
//! traces use), and `SimDuration`, a length of virtual time. Both are
//! distinct from the clock's absolute monotonic readings, which only
//! `clock.rs` and the WASI boundary see. Also the Go `time.Duration` string
//! form people read ("427.268419ms", "1m2.5s").

use std::fmt;

/// An instant of virtual time, measured from the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A length of virtual time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// The end of time: every reading the clock can hold is before it.
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> SimTime {
        SimTime(ns)
    }

    /// Nanoseconds since the start of the run.
    pub const fn ns(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to this instant (zero if `earlier` is later).
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    pub fn plus(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_ns(ns: u64) -> SimDuration {
        SimDuration(ns)
    }

    pub const fn ns(self) -> u64 {
        self.0
    }

    /// Both lengths together, saturating as `SimTime::plus` does.
    pub fn plus(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&go_duration(self.0))
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&go_duration(self.0))
    }
}

/// Formats like Go's `time.Duration.String`.
pub fn go_duration(ns: u64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    if ns < 1_000 {
        return format!("{ns}ns");
    }
    if ns < 1_000_000 {
        return format!("{}µs", fraction(ns, 1_000));
    }
    if ns < 1_000_000_000 {
        return format!("{}ms", fraction(ns, 1_000_000));
    }
    let (hours, rest) = (ns / 3_600_000_000_000, ns % 3_600_000_000_000);
    let (minutes, rest) = (rest / 60_000_000_000, rest % 60_000_000_000);
    let seconds = fraction(rest, 1_000_000_000);
    match (hours, minutes) {
        (0, 0) => format!("{seconds}s"),
        (0, m) => format!("{m}m{seconds}s"),
        (h, m) => format!("{h}h{m}m{seconds}s"),
    }
}

/// A signed duration in Go's form ("-1.5s", "250ms"): clock offsets and jumps.
pub fn go_signed_duration(ns: i64) -> String {
    let magnitude = go_duration(ns.unsigned_abs());
    if ns < 0 { format!("-{magnitude}") } else { magnitude }
}

/// Parses what `go_signed_duration` writes (a leading '-' or '+' allowed).
pub fn parse_signed_go_duration(text: &str) -> Result<i64, DurationError> {
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let ns = parse_go_duration(magnitude).map_err(|e| match e {
        DurationError::Malformed(_) => DurationError::Malformed(text.to_string()),
        DurationError::TooLong(_) => DurationError::TooLong(text.to_string()),
    })?;
    let ns = i64::try_from(ns).map_err(|_| DurationError::TooLong(text.to_string()))?;
    Ok(if negative { -ns } else { ns })
}

/// Go's form rounded to the millisecond (the `FAIL seed N at t=…` line).
pub fn go_duration_ms(ns: u64) -> String {
    go_duration((ns + 500_000) / 1_000_000 * 1_000_000)
}

/// `value / unit` with the fraction's trailing zeros dropped.
fn fraction(value: u64, unit: u64) -> String {
    let (whole, frac) = (value / unit, value % unit);
    if frac == 0 {
        return whole.to_string();
    }
    let width = unit.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

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

/// Parses Go's `time.Duration` string form (what `go_duration` writes, and
/// what configs and schedules use), in nanoseconds.
pub fn parse_go_duration(text: &str) -> Result<u64, DurationError> {
    let bad = || DurationError::Malformed(text.to_string());
    if text == "0" {
        return Ok(0);
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
    u64::try_from(total_ns).map_err(|_| DurationError::TooLong(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_durations_round_trip() {
        for ns in [0i64, 1, -1, 1_500_000_000, -250_000_000, i64::MAX, -i64::MAX] {
            let text = go_signed_duration(ns);
            assert_eq!(parse_signed_go_duration(&text), Ok(ns), "{text}");
        }
        assert_eq!(go_signed_duration(-1_500_000_000), "-1.5s");
        assert_eq!(parse_signed_go_duration("+2s"), Ok(2_000_000_000));
        assert!(matches!(parse_signed_go_duration("--2s"), Err(DurationError::Malformed(t)) if t == "--2s"));
        assert!(matches!(parse_signed_go_duration("9223372037s"), Err(DurationError::TooLong(_))));
    }

    #[test]
    fn matches_go() {
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(999), "999ns");
        assert_eq!(go_duration(1_500), "1.5µs");
        assert_eq!(go_duration(427_268_419), "427.268419ms");
        assert_eq!(go_duration(3_121_000_000), "3.121s");
        assert_eq!(go_duration(62_500_000_000), "1m2.5s");
        assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
        assert_eq!(go_duration(60_000_000_000), "1m0s");
        assert_eq!(go_duration_ms(3_120_600_000), "3.121s");
        for ns in [0, 1, 999, 1_500, 427_268_419, 3_121_000_000, 62_500_000_000, 3_600_000_000_000] {
            assert_eq!(parse_go_duration(&go_duration(ns)), Ok(ns), "{}", go_duration(ns));
        }
    }
}
