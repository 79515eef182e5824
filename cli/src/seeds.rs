//! Seed lists as users write them: `7`, `1-500`, `1,5,9-12` (DESIGN.md §1).
//! Order is kept and duplicates are dropped, so a list runs each seed once.

/// Parses a seed list; the error names the part that is wrong.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for part in text.split(',') {
        let part = part.trim();
        let number =
            |s: &str| s.trim().parse::<u64>().map_err(|_| format!("seed list {text:?}: {s:?} is not a seed number"));
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(part)?;
                (n, n)
            }
        };
        if first > last {
            return Err(format!("seed list {text:?}: range {part:?} runs backwards"));
        }
        if last - first >= 10_000_000 {
            return Err(format!("seed list {text:?}: range {part:?} has more than 10 million seeds"));
        }
        for seed in first..=last {
            if seen.insert(seed) {
                seeds.push(seed);
            }
        }
    }
    Ok(seeds)
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
        assert!(parse_seeds("5-1").unwrap_err().contains("backwards"));
        assert!(parse_seeds("x").unwrap_err().contains("\"x\" is not a seed number"));
        assert!(parse_seeds("").is_err());
    }
}
