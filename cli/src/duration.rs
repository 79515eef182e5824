//! Go-style durations ("500ms", "1m30s", "10s", "1.5h"), as the config and
//! the CLI write them.

use std::time::Duration;

const UNITS: &[(&str, f64)] =
    &[("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)];

pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration like 500ms, 10s or 1m30s");
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = text;
    let mut seconds = 0.0;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(bad)?;
        let number: f64 = rest[..number_len].parse().map_err(|_| bad())?;
        rest = &rest[number_len..];
        // Longest unit first, so "ms" is not read as "m" then "s".
        let (unit, scale) = UNITS
            .iter()
            .filter(|(u, _)| rest.starts_with(u))
            .max_by_key(|(u, _)| u.len())
            .ok_or_else(bad)?;
        seconds += number * scale;
        rest = &rest[unit.len()..];
    }
    if text.is_empty() {
        return Err(bad());
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is too long a duration"))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn go_style_durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        for bad in ["", "10", "ten s", "5 s", "3x", "99999999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
