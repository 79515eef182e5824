//! "Did you mean": the nearest known name to a misspelt one, by edit distance
//! (optimal string alignment, i.e. Levenshtein plus the transposition of two
//! neighbours, counted on lowercased characters).

/// Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`,
/// ignoring ASCII case.
pub(super) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    // Three rows of the dynamic-programming table: i-2, i-1, i.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            current[j] = d;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be what was
/// meant: at most 2 edits, or a third of the name's length for long names.
/// Failing that, the first candidate that extends the name, or its singular,
/// by a `_` suffix (`net_reset` → `net_reset_per_sec`, `pauses` →
/// `pause_per_sec`): a shortened name is far in edits but plainly meant.
/// Ties go to the earlier candidate.
pub(super) fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates.clone() {
        let d = distance(name, candidate);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    if let Some((_, candidate)) = best {
        return Some(candidate);
    }
    let lower = name.to_ascii_lowercase();
    let stems = [lower.as_str(), lower.strip_suffix('s').unwrap_or("")];
    let extends = |candidate: &str| {
        stems
            .iter()
            .any(|stem| stem.len() >= 3 && candidate.strip_prefix(stem).is_some_and(|rest| rest.starts_with('_')))
    };
    candidates.into_iter().find(|candidate| extends(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("crash_per_secc", "crash_per_sec"), 1);
        assert_eq!(distance("crahs_per_sec", "crash_per_sec"), 1); // one swap
        assert_eq!(distance("Duration", "duration"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn nearest_only_when_close() {
        let known = ["crash_per_sec", "crash_downtime", "crash_on_io"];
        assert_eq!(nearest("crash_per_secc", known), Some("crash_per_sec"));
        assert_eq!(nearest("crash_per_second", known), Some("crash_per_sec"));
        assert_eq!(nearest("bananas", known), None);
        assert_eq!(nearest("crash", known), Some("crash_per_sec"));
        assert_eq!(nearest("net_reset", ["udp_loss", "net_reset_per_sec"]), Some("net_reset_per_sec"));
        assert_eq!(nearest("pauses", ["clogs", "pause_per_sec", "pause_length"]), Some("pause_per_sec"));
        assert_eq!(nearest("ab", ["ab_long_name"]), None);
    }
}
