//! Seed lists as users write them: `7`, `1-500`, `1,5,9-12` (DESIGN.md §1).
//! Order is kept and duplicates are dropped, so a list runs each seed once.

use std::fmt;

/// The longest range one part of a list may span.
const MAX_RANGE: u64 = 10_000_000;

/// What is wrong with a seed list: the whole list and the part at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedsError {
    pub list: String,
    pub part: String,
    pub problem: Problem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    NotANumber,
    Backwards,
    /// A range of more than `MAX_RANGE` seeds.
    TooMany,
}

impl fmt::Display for SeedsError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (list, part) = (&self.list, &self.part);
        match self.problem {
            Problem::NotANumber => write!(f, "seed list {list:?}: {part:?} is not a seed number"),
            Problem::Backwards => write!(f, "seed list {list:?}: range {part:?} runs backwards"),
            Problem::TooMany => write!(f, "seed list {list:?}: range {part:?} has more than 10 million seeds"),
        }
    }
}

impl std::error::Error for SeedsError {}

/// Parses a seed list; the error names the part that is wrong.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, SeedsError> {
    let mut seeds = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let error = |part: &str, problem| SeedsError { list: text.to_string(), part: part.to_string(), problem };
    for part in text.split(',') {
        let part = part.trim();
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| error(s, Problem::NotANumber));
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(part)?;
                (n, n)
            }
        };
        if first > last {
            return Err(error(part, Problem::Backwards));
        }
        if last - first >= MAX_RANGE {
            return Err(error(part, Problem::TooMany));
        }
        for seed in first..=last {
            if seen.insert(seed) {
                seeds.push(seed);
            }
        }
    }
    Ok(seeds)
}

/// What a list of one seed above 1 means, said once, since `-seeds 200`
/// reads to many as "200 seeds": `1 seed (seed 200; for seeds 1 to 200
/// write -seeds 1-200)`. None for any other list.
pub fn single_seed_note(text: &str) -> Option<String> {
    let n = text.trim().parse::<u64>().ok().filter(|&n| n > 1)?;
    Some(format!("1 seed (seed {n}; for seeds 1 to {n} write -seeds 1-{n})"))
}

/// `single_seed_note` on stderr, where it cannot disturb what scripts read.
pub fn say_if_single(text: &str) {
    if let Some(note) = single_seed_note(text) {
        eprintln!("seedfall: {note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_ranges_and_errors() {
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert_eq!(parse_seeds("1-3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("1,5,9-12").unwrap(), vec![1, 5, 9, 10, 11, 12]);
        assert_eq!(parse_seeds("3,1-3").unwrap(), vec![3, 1, 2]);
        assert_eq!(parse_seeds("5-1").unwrap_err().to_string(), "seed list \"5-1\": range \"5-1\" runs backwards");
        assert_eq!(parse_seeds("1,x").unwrap_err().to_string(), "seed list \"1,x\": \"x\" is not a seed number");
        assert_eq!(parse_seeds("").unwrap_err().problem, Problem::NotANumber);
        assert_eq!(
            parse_seeds("1-20000000").unwrap_err().to_string(),
            "seed list \"1-20000000\": range \"1-20000000\" has more than 10 million seeds"
        );
    }

    #[test]
    fn one_seed_above_one_is_said_to_be_one_seed() {
        assert_eq!(single_seed_note("200").unwrap(), "1 seed (seed 200; for seeds 1 to 200 write -seeds 1-200)");
        assert_eq!(parse_seeds("200").unwrap(), vec![200], "DESIGN's syntax: still one seed");
        for other in ["1", "1-200", "3,4", "x"] {
            assert_eq!(single_seed_note(other), None, "{other}");
        }
    }
}
