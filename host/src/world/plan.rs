//! Poisson arrivals on virtual time for the
//! fault kinds planned by rate (`*_per_sec`). A kind draws its arrivals from
//! its own seeded stream (DESIGN.md §5), whether or not they fire (a quiet
//! window or a node already down skips one), so one fault never shifts the
//! timing of another.

use crate::random::RandomStream;
use crate::vtime::{SimDuration, SimTime};

/// A Poisson process on virtual time.
pub struct Arrivals {
    /// The config's rate.
    config_per_sec: f64,
    /// The rate in force (a branch may multiply the config's).
    per_sec: f64,
    stream: RandomStream,
    /// The next arrival; `None` when the rate is 0 or faults have not started.
    pub next: Option<SimTime>,
}

impl Arrivals {
    pub fn new(per_sec: f64, stream: RandomStream) -> Arrivals {
        Arrivals { config_per_sec: per_sec, per_sec, stream, next: None }
    }

    /// Faults start at `now`: the first arrival is drawn from there.
    pub fn start(&mut self, now: SimTime) {
        if self.per_sec > 0.0 && self.next.is_none() {
            self.next = Some(now.plus(self.gap()));
        }
    }

    /// The run branched at `now`: the pending arrival is drawn again from
    /// there at `factor` times the config's rate (the stream is re-keyed
    /// by then; arrivals have no memory).
    pub fn redraw(&mut self, now: SimTime, factor: f64) {
        self.per_sec = (self.config_per_sec * factor).min(crate::knob::RATE_PER_SEC_MAX);
        if self.next.is_some() {
            self.next = Some(now.plus(self.gap()));
        }
    }

    /// The arrival at `next` happened (or was skipped): draw the next.
    pub fn advance(&mut self) {
        if let Some(at) = self.next {
            self.next = Some(at.plus(self.gap()));
        }
    }

    /// An exponential gap of mean `1 / per_sec` seconds, at least 1 ns and
    /// saturating at u64::MAX ns (never reached: `SimTime::plus` saturates
    /// too, so an arrival that far is past every horizon, not wrapped into
    /// the past). Rates come validated from the config; this holds for any.
    fn gap(&mut self) -> SimDuration {
        let seconds = -portable_ln(1.0 - self.stream.unit()) / self.per_sec;
        let ns = seconds * 1e9;
        // `as` saturates a float to the integer range, and NaN (a rate of 0
        // or NaN that slipped through) is no arrival at all.
        let ns = if ns.is_nan() { u64::MAX } else { ns as u64 };
        SimDuration::from_ns(ns.max(1))
    }
}

/// The natural logarithm of `x` in (0, 1], from IEEE-754 additions,
/// multiplications and divisions only, so every machine computes the same
/// bits (`f64::ln` calls the platform's libm, whose last bit may differ
/// between versions, and a crash time one nanosecond off is another run).
/// `x = m·2^e` with m in [1, 2): ln x = e·ln 2 + 2·atanh((m-1)/(m+1)), the
/// series converging fast since |(m-1)/(m+1)| < 1/3.
fn portable_ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x <= 1.0);
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let (mut term, mut sum) = (s, 0.0);
    for k in 0..30 {
        sum += term / (2 * k + 1) as f64;
        term *= s2;
    }
    exponent as f64 * std::f64::consts::LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knob::{RATE_PER_SEC_MAX, RATE_PER_SEC_MIN};
    use crate::random::{Draw, Purpose};

    #[test]
    fn portable_ln_agrees_with_libm() {
        let mut x = 1.0f64;
        while x > 1e-300 {
            for y in [x, x * 0.7, x * 0.93] {
                let (ours, libm) = (portable_ln(y), y.ln());
                assert!((ours - libm).abs() <= 1e-13 * libm.abs().max(1.0), "ln({y}) = {ours}, libm {libm}");
            }
            x *= 0.37;
        }
        assert_eq!(portable_ln(1.0), 0.0);
    }

    /// Issue 19: a rate of 1e-300 looped and 1e-11 wrapped a crash into the
    /// past (at the moment faults start). Gaps saturate; arrivals never go back.
    #[test]
    fn issue_19_extreme_rates_saturate_instead_of_wrapping() {
        for per_sec in [1e-300, 1e-11, RATE_PER_SEC_MIN, f64::MIN_POSITIVE, RATE_PER_SEC_MAX, 1e308] {
            let mut a = Arrivals::new(per_sec, RandomStream::new(1, Purpose::Fault("k", Draw::Times), "n", 0));
            let start = SimTime::from_ns(5_000_000_000);
            a.start(start);
            let first = a.next.unwrap();
            assert!(first >= start, "{per_sec}: {first} before the start");
            a.advance();
            assert!(a.next.unwrap() >= first, "{per_sec}: went back");
        }
        let mut tiny = Arrivals::new(1e-300, RandomStream::new(1, Purpose::Fault("k", Draw::Times), "n", 0));
        tiny.start(SimTime::ZERO);
        assert_eq!(tiny.next.unwrap().ns(), u64::MAX, "beyond every horizon");
        let mut nan = Arrivals::new(f64::NAN, RandomStream::new(1, Purpose::Fault("k", Draw::Times), "n", 0));
        nan.start(SimTime::ZERO);
        assert_eq!(nan.next, None, "not a rate: no arrivals");
    }

    #[test]
    fn arrivals_are_seeded_with_the_given_rate() {
        let arrivals = |seed| {
            let mut a = Arrivals::new(2.0, RandomStream::new(seed, Purpose::Fault("k", Draw::Times), "n", 0));
            a.start(SimTime::ZERO);
            (0..2000)
                .map(|_| {
                    let at = a.next.unwrap().ns();
                    a.advance();
                    at
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(arrivals(1), arrivals(1));
        assert_ne!(arrivals(1), arrivals(2));
        let last = *arrivals(3).last().unwrap() as f64 / 1e9;
        assert!((900.0..1100.0).contains(&last), "2000 arrivals at 2/s take about 1000 s, not {last}");
        let mut boosted = Arrivals::new(2.0, RandomStream::new(3, Purpose::Fault("k", Draw::Times), "n", 0));
        boosted.start(SimTime::ZERO);
        boosted.redraw(SimTime::ZERO, 8.0);
        for _ in 0..2000 {
            boosted.advance();
        }
        let last = boosted.next.unwrap().ns() as f64 / 1e9;
        assert!(
            (110.0..140.0).contains(&last),
            "redrawn at 8 times the rate: 2000 arrivals in about 125 s, not {last}"
        );
        let mut off = Arrivals::new(0.0, RandomStream::new(1, Purpose::Fault("k", Draw::Times), "n", 0));
        off.start(SimTime::ZERO);
        assert_eq!(off.next, None, "rate 0 never fires");
    }
}
