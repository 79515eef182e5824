//! Preemption strategies: when, in counted calls, a node's running goroutine
//! is asked to yield besides the end of a full slice. Parsed from the CLI
//! (`pct,depth=2,steps=400000`) and, later, from the config's `preempt` object.

use crate::random::{Purpose, RandomStream};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    /// Only at the end of a full slice.
    None,
    /// After a seeded 1..=4096 counted calls, again and again.
    Random,
    /// `depth - 1` change points drawn over the node's first `steps` counted calls.
    Pct { depth: u32, steps: u64 },
    /// Every `every` counted calls.
    Calls { every: u64 },
}

/// A strategy by name, before its options: the one reading of the names
/// for the CLI's `--preempt` (`PreemptConfig::parse`) and the config's
/// `preempt.strategy` (the CLI's config reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrategyName {
    None,
    Random,
    Pct,
    Calls,
}

impl StrategyName {
    pub const ALL: [StrategyName; 4] =
        [StrategyName::None, StrategyName::Random, StrategyName::Pct, StrategyName::Calls];

    pub fn name(self) -> &'static str {
        match self {
            StrategyName::None => "none",
            StrategyName::Random => "random",
            StrategyName::Pct => "pct",
            StrategyName::Calls => "calls",
        }
    }

    /// The strategy called `name` (None: no such strategy).
    pub fn from_name(name: &str) -> Option<StrategyName> {
        StrategyName::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Every name, as messages list them: `none, random, pct, calls`.
    pub fn known() -> String {
        StrategyName::ALL.map(StrategyName::name).join(", ")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreemptConfig {
    pub strategy: Strategy,
    /// Count loop iterations as well as calls.
    pub loops: bool,
    /// Record every strategy's points in the run's schedule, so a schedule
    /// replays them (`seedfall test -minimize` shrinks random's points).
    /// pct always records its own.
    pub record: bool,
}

impl Default for PreemptConfig {
    fn default() -> Self {
        PreemptConfig { strategy: Strategy::None, loops: false, record: false }
    }
}

/// Why a `--preempt` spec does not parse; Display is the message users see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreemptSpecError {
    NotKeyValue(String),
    NotANumber {
        key: String,
        value: String,
    },
    UnknownOption(String),
    UnknownStrategy(String),
    /// A strategy's options out of range: what it needs.
    Needs(&'static str),
}

impl std::fmt::Display for PreemptSpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            PreemptSpecError::NotKeyValue(part) => write!(f, "preempt: {part:?} is not key=value"),
            PreemptSpecError::NotANumber { key, value } => write!(f, "preempt: {key}={value:?} is not a number"),
            PreemptSpecError::UnknownOption(key) => {
                write!(f, "preempt: unknown option {key:?} (known: depth, steps, every, loops)")
            }
            PreemptSpecError::UnknownStrategy(name) => {
                write!(f, "preempt: unknown strategy {name:?} (known: {})", StrategyName::known())
            }
            PreemptSpecError::Needs(what) => write!(f, "preempt: {what}"),
        }
    }
}

impl std::error::Error for PreemptSpecError {}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, PreemptSpecError> {
    value.parse().map_err(|_| PreemptSpecError::NotANumber { key: key.to_string(), value: value.to_string() })
}

impl PreemptConfig {
    /// `STRATEGY[,key=value...]`, e.g. `pct,depth=2,steps=400000`, `calls,every=8`, `none,loops=true`.
    pub fn parse(spec: &str) -> Result<PreemptConfig, PreemptSpecError> {
        let mut parts = spec.split(',');
        let name = parts.next().unwrap_or("");
        let (mut depth, mut steps, mut every, mut loops) = (2u32, 400_000u64, None, false);
        for part in parts {
            let (key, value) = part.split_once('=').ok_or_else(|| PreemptSpecError::NotKeyValue(part.to_string()))?;
            match key {
                "depth" => depth = number(key, value)?,
                "steps" => steps = number(key, value)?,
                "every" => every = Some(number(key, value)?),
                "loops" => loops = number::<bool>(key, value)?,
                other => return Err(PreemptSpecError::UnknownOption(other.to_string())),
            }
        }
        let strategy = match StrategyName::from_name(name) {
            Some(StrategyName::None) => Strategy::None,
            Some(StrategyName::Random) => Strategy::Random,
            Some(StrategyName::Pct) if depth >= 1 && steps >= 1 => Strategy::Pct { depth, steps },
            Some(StrategyName::Pct) => return Err(PreemptSpecError::Needs("pct needs depth >= 1 and steps >= 1")),
            Some(StrategyName::Calls) => match every {
                Some(every) if every >= 1 => Strategy::Calls { every },
                _ => return Err(PreemptSpecError::Needs("calls needs every=N with N >= 1")),
            },
            None => return Err(PreemptSpecError::UnknownStrategy(name.to_string())),
        };
        Ok(PreemptConfig { strategy, loops, record: false })
    }

    /// Whether the strategy's points are recorded as `preempt` faults (and
    /// a schedule's points replace its own): pct's, and any strategy's with
    /// `record`. Otherwise only pct's few change points are choices worth a
    /// schedule entry; random and calls preempt every
    /// few thousand calls, from the seed alone.
    pub fn records_points(&self) -> bool {
        self.record || matches!(self.strategy, Strategy::Pct { .. })
    }

    /// The replay header of a strategy that records its points, in the
    /// reference's words, so a user can compare `steps` with the counts at
    /// the end of the trace.
    pub fn header(&self) -> Option<String> {
        let Strategy::Pct { depth, steps } = self.strategy else { return None };
        let counted = if self.loops { "counted function calls and loop iterations" } else { "counted function calls" };
        Some(format!(
            "preempt: pct, depth {depth}, change points per node: {}, drawn over the first {steps} {counted}",
            depth.saturating_sub(1)
        ))
    }
}

/// The strategy's upcoming preemption points for one node.
pub struct Schedule {
    strategy: Strategy,
    random: RandomStream,
    /// Pct: the remaining change points, ascending.
    points: Vec<u64>,
    next: Option<u64>,
}

impl Schedule {
    pub fn new(strategy: &Strategy, random: RandomStream) -> Schedule {
        let mut schedule = Schedule { strategy: strategy.clone(), random, points: Vec::new(), next: None };
        if let Strategy::Pct { depth, steps } = *strategy {
            let mut points: Vec<u64> = (1..depth).map(|_| 1 + schedule.draw(steps)).collect();
            points.sort_unstable();
            points.dedup();
            points.reverse();
            schedule.points = points;
        }
        schedule.next = schedule.after(0);
        schedule
    }

    /// Exactly these points (counted calls), from a replayed fault schedule;
    /// they are taken in order as pct takes its change points.
    pub fn fixed(mut points: Vec<u64>) -> Schedule {
        points.sort_unstable();
        points.dedup();
        points.reverse();
        let strategy = Strategy::Pct { depth: 0, steps: 0 };
        let mut schedule =
            Schedule { strategy, random: RandomStream::new(0, Purpose::Schedule, "", 0), points, next: None };
        schedule.next = schedule.after(0);
        schedule
    }

    fn draw(&mut self, below: u64) -> u64 {
        let mut bytes = [0u8; 8];
        self.random.fill(&mut bytes);
        u64::from_le_bytes(bytes) % below
    }

    /// The first point strictly after counted call `now`.
    fn after(&mut self, now: u64) -> Option<u64> {
        match self.strategy {
            Strategy::None => None,
            Strategy::Random => Some(now + 1 + self.draw(4096)),
            Strategy::Calls { every } => Some(now + every),
            Strategy::Pct { .. } => {
                while self.points.last().is_some_and(|p| *p <= now) {
                    self.points.pop();
                }
                self.points.pop()
            }
        }
    }

    /// The next preemption point, in counted calls.
    pub fn next(&self) -> Option<u64> {
        self.next
    }

    /// Whether a point was reached at counted call `now`; advances past it.
    pub fn reached(&mut self, now: u64) -> bool {
        match self.next {
            Some(point) if point <= now => {
                self.next = self.after(now);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms_and_names_mistakes() {
        assert_eq!(PreemptConfig::parse("none").unwrap(), PreemptConfig::default());
        assert_eq!(
            PreemptConfig::parse("pct,depth=3,steps=1000,loops=true").unwrap(),
            PreemptConfig { strategy: Strategy::Pct { depth: 3, steps: 1000 }, loops: true, record: false }
        );
        assert_eq!(PreemptConfig::parse("calls,every=8").unwrap().strategy, Strategy::Calls { every: 8 });
        assert!(PreemptConfig::parse("pcd").unwrap_err().to_string().contains("unknown strategy"));
        assert!(PreemptConfig::parse("pct,dept=2").unwrap_err().to_string().contains("unknown option"));
        assert!(PreemptConfig::parse("calls").is_err());
    }

    #[test]
    fn only_pct_records_its_points_and_has_a_header_in_the_references_words() {
        let pct = PreemptConfig::parse("pct,depth=2,steps=300000").unwrap();
        assert!(pct.records_points());
        assert_eq!(
            pct.header().unwrap(),
            "preempt: pct, depth 2, change points per node: 1, drawn over the first 300000 counted function calls"
        );
        let loops = PreemptConfig::parse("pct,depth=3,steps=10,loops=true").unwrap();
        assert!(loops.header().unwrap().ends_with(
            "change points per node: 2, drawn over the first 10 counted function calls and loop iterations"
        ));
        for other in ["none", "random", "calls,every=8"] {
            let config = PreemptConfig::parse(other).unwrap();
            assert!(!config.records_points() && config.header().is_none(), "{other}");
        }
    }

    fn stream() -> RandomStream {
        RandomStream::new(1, Purpose::Fault("preempt", crate::random::Draw::Points), "n", 1)
    }

    #[test]
    fn pct_draws_depth_minus_one_points_within_steps() {
        let mut s = Schedule::new(&Strategy::Pct { depth: 4, steps: 1000 }, stream());
        let mut hits = Vec::new();
        for now in 0..2000 {
            if s.reached(now) {
                hits.push(now);
            }
        }
        assert!(!hits.is_empty() && hits.len() <= 3 && hits.iter().all(|h| *h <= 1000), "{hits:?}");
    }

    #[test]
    fn calls_fires_every_n_and_random_within_4096() {
        let mut calls = Schedule::new(&Strategy::Calls { every: 8 }, stream());
        assert_eq!((0..=32).filter(|n| calls.reached(*n)).count(), 4);
        let random = Schedule::new(&Strategy::Random, stream());
        let first = random.next().unwrap();
        assert!((1..=4096).contains(&first));
    }
}
