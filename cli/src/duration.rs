//! Go-style durations ("500ms", "1m30s", "10s", "1.5h"), as the config and
//! the CLI write them.

use std::time::Duration;

pub fn parse_duration(text: &str) -> Result<Duration, String> {
    seedfall_host::world::vtime::parse_go_duration(text).map(Duration::from_nanos)
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
        assert_eq!(parse_duration("427.268419ms").unwrap(), Duration::from_nanos(427_268_419));
        assert_eq!(parse_duration("1m2.000000001s").unwrap(), Duration::from_nanos(62_000_000_001));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        for bad in ["", "10", "ten s", "5 s", "3x", "99999999999999999999999h", ".s", "1.2.3s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
