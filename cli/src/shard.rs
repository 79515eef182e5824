//! `--shard I/N`: which seeds of a list one machine of N runs. Shard I takes
//! the seeds at positions I, I+N, I+2N, … of the list, so every machine
//! computes the same split from the same list with no coordination, and
//! the shards differ in size by at most one seed. I counts from 0, as
//! Kubernetes' `JOB_COMPLETION_INDEX` does. What it does not do: run or
//! merge anything (`run_cmd`, `merge_cmd`).

use std::fmt;

/// One shard of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// A `--shard` value that is not `I/N` with 0 ≤ I < N (the text given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError(pub String);

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "--shard {:?}: expected I/N with 0 <= I < N (for example 0/4)", self.0)
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Parses `I/N` with 0 ≤ I < N.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = index.trim().parse().map_err(|_| bad())?;
        let count: u64 = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// This shard's seeds of `seeds`, in list order.
    pub fn select(self, seeds: &[u64]) -> Vec<u64> {
        seeds.iter().skip(self.index as usize).step_by(self.count as usize).copied().collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_list_in_balance() {
        let seeds: Vec<u64> = (1..=10).collect();
        let parts: Vec<Vec<u64>> = (0..4).map(|i| Shard { index: i, count: 4 }.select(&seeds)).collect();
        assert_eq!(parts[0], vec![1, 5, 9]);
        assert_eq!(parts[3], vec![4, 8]);
        let mut all: Vec<u64> = parts.concat();
        all.sort();
        assert_eq!(all, seeds, "every seed in exactly one shard");
        assert!(parts.iter().all(|p| p.len() == 2 || p.len() == 3));
        assert_eq!(Shard { index: 7, count: 8 }.select(&[1, 2]), Vec::<u64>::new());
    }

    #[test]
    fn parse_accepts_i_of_n_and_names_bad_input() {
        assert_eq!(Shard::parse("0/4").unwrap(), Shard { index: 0, count: 4 });
        assert_eq!(Shard::parse("3/4").unwrap().to_string(), "3/4");
        for bad in ["4/4", "1/0", "x/2", "3", "-1/2", ""] {
            assert!(Shard::parse(bad).unwrap_err().to_string().contains("expected I/N"), "{bad}");
        }
    }
}
