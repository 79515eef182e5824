//! Go-style durations ("500ms", "1m30s", "10s", "1.5h"), as the config and
//! the CLI write them; the parser is the host's (schedules use it too).

pub use seedfall_host::vtime::DurationError;
use std::time::Duration;

pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    seedfall_host::vtime::parse_go_duration(text).map(Duration::from_nanos)
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
