//! Commands seedfall prints for a user to paste (`replay: seedfall replay -c
//! … -seed 3`): each word quoted for a POSIX shell when it needs it, so a
//! config path holding a space, a `;` or a `$(…)` stays one argument and
//! never runs. Plain words (the usual paths and numbers) print as they are.
//! It does not run anything.

/// `word` as one POSIX shell word: unchanged when it holds only characters
/// no shell treats specially, else in single quotes (a `'` in it as `'\''`).
pub fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `words` quoted and joined by spaces: a command line to paste.
pub fn command<S: AsRef<str>>(words: &[S]) -> String {
    words.iter().map(|w| quote(w.as_ref())).collect::<Vec<_>>().join(" ")
}

/// `seedfall replay -c CONFIG -seed SEED [-faults SCHEDULE]`, quoted.
pub fn replay(config: &str, seed: u64, schedule: Option<&str>) -> String {
    let seed = seed.to_string();
    let mut words = vec!["seedfall", "replay", "-c", config, "-seed", &seed];
    words.extend(schedule.map(|s| ["-faults", s]).into_iter().flatten());
    command(&words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_a_shell_would_split_or_run_are_single_quoted() {
        assert_eq!(
            replay("examples/kv-log/seedfall.json", 3, None),
            "seedfall replay -c examples/kv-log/seedfall.json -seed 3"
        );
        assert_eq!(replay("a;touch pwned.json", 1, None), "seedfall replay -c 'a;touch pwned.json' -seed 1");
        assert_eq!(quote("it's $(x)"), r"'it'\''s $(x)'");
        assert_eq!(quote(""), "''");
        assert_eq!(
            replay("c.json", 2, Some(".seedfall/c.explore/f 1.faults.json")).split_once(" -faults ").unwrap().1,
            "'.seedfall/c.explore/f 1.faults.json'"
        );
    }
}
