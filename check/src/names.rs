//! Parsing the config's names for the enums it selects (`linearizable`, `isolation`), with one message for
//! an unknown name that lists the known ones.

/// The member of `all` whose `name` is `s`.
pub(crate) fn parse<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str, what: &str) -> Result<T, String> {
    all.iter().copied().find(|&t| name(t) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
        format!("unknown {what} {s:?} (known: {})", names.join(", "))
    })
}
