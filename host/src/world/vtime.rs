//! Virtual time as people read it: Go's `time.Duration` string form
//! ("427.268419ms", "1m2.5s"), measured from the start of the run.

use crate::clock::MONOTONIC_START_NS;

/// Virtual time since the run started, from a monotonic clock reading.
pub fn since_start_ns(monotonic_ns: u64) -> u64 {
    monotonic_ns.saturating_sub(MONOTONIC_START_NS)
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
