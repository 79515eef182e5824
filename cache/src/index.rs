//! The set index: which keys were used together, most recently used first.
//!
//! ```text
//! seedfall-cache-index 1
//! <key hex> <key hex> …      ← most recently used set
//! <key hex>
//! ```
//!
//! A set is the sorted, deduplicated keys of the modules of one config (or the
//! single module of an `exec`). The file is small, rewritten atomically under
//! `index.lock`, and disposable: a corrupt index is reported and rebuilt from
//! scratch, which only forgets recency, never fails a run.

use crate::Key;

const HEADER: &str = "seedfall-cache-index 1";

pub type Set = Vec<Key>;

/// Parse an index file; `Err` describes the first problem.
pub fn parse(text: &str) -> Result<Vec<Set>, String> {
    let mut lines = text.lines();
    match lines.next() {
        Some(HEADER) => {}
        Some(other) => return Err(format!("unknown header {:?}", truncate(other))),
        None => return Err("empty file".into()),
    }
    let mut sets = Vec::new();
    for (n, line) in lines.enumerate() {
        let mut set = Vec::new();
        for word in line.split(' ') {
            let key = Key::from_hex(word).ok_or_else(|| format!("line {}: bad key {:?}", n + 2, truncate(word)))?;
            set.push(key);
        }
        if set.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("line {}: keys not sorted", n + 2));
        }
        sets.push(set);
    }
    Ok(sets)
}

pub fn render(sets: &[Set]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for set in sets {
        let words: Vec<String> = set.iter().map(Key::hex).collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// The canonical form of a set.
pub fn normalize(keys: &[Key]) -> Set {
    let mut set = keys.to_vec();
    set.sort();
    set.dedup();
    set
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip() {
        let sets = vec![normalize(&[Key([3; 32]), Key([1; 32]), Key([3; 32])]), vec![Key([2; 32])]];
        assert_eq!(sets[0], vec![Key([1; 32]), Key([3; 32])]);
        assert_eq!(parse(&render(&sets)).unwrap(), sets);
        assert_eq!(parse(&render(&[])).unwrap(), Vec::<Set>::new());
        let unsorted = format!("{HEADER}\n{} {}\n", Key([3; 32]).hex(), Key([1; 32]).hex());
        assert!(parse(&unsorted).unwrap_err().contains("not sorted"));
        assert!(parse(&format!("{HEADER}\n\n")).is_err(), "an empty set line is corrupt");
    }
}
