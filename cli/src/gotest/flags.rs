//! The test binary's arguments: `go test`'s short spellings after `--`
//! (`-v`, `-short`, `-timeout 30s`) become the binary's `-test.` flags, as
//! `go test` does, and every run gets a `-test.timeout` (default 1m of
//! virtual time) so a test that sleeps, deadlocks or spins ends with Go's
//! own timeout panic and every goroutine's stack. Go's default is 10m; in
//! the world waiting is free but spinning is not (a preemption slice of 4M
//! calls advances the clock 10ms), so a spin would cost minutes per seed.
//! It does not check the flags: the binary does.

use crate::duration::parse_duration;
use crate::setup_error::SetupError;
use std::time::Duration;

/// `seedfall test`'s default `-timeout` (virtual time).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Flags the testing package defines (after `-test.`).
const TESTING_FLAGS: &[&str] = &[
    "v",
    "short",
    "timeout",
    "count",
    "failfast",
    "parallel",
    "skip",
    "cpu",
    "shuffle",
    "fullpath",
    "benchtime",
    "benchmem",
    "bench",
    "coverprofile",
    "outputdir",
    "paniconexit0",
];

/// `flags` with `go test`'s spellings as the binary's.
pub fn translate(flags: &[String]) -> Vec<String> {
    flags
        .iter()
        .map(|flag| {
            let Some(name) = flag.strip_prefix('-').map(|f| f.trim_start_matches('-')) else { return flag.clone() };
            let key = name.split('=').next().unwrap_or(name);
            if TESTING_FLAGS.contains(&key) { format!("-test.{name}") } else { flag.clone() }
        })
        .collect()
}

/// The timeout the flags set (`-test.timeout D` or `-test.timeout=D`), else Go's default.
pub fn timeout(flags: &[String]) -> Result<Duration, SetupError> {
    let mut value = None;
    for (i, flag) in flags.iter().enumerate() {
        if let Some(v) = flag.strip_prefix("-test.timeout=") {
            value = Some(v.to_string());
        } else if flag == "-test.timeout" {
            value = Some(flags.get(i + 1).cloned().ok_or(SetupError::Timeout(None))?);
        }
    }
    match value {
        Some(v) => parse_duration(&v).map_err(|e| SetupError::Timeout(Some(e))),
        None => Ok(DEFAULT_TIMEOUT),
    }
}

/// The arguments that run exactly `test` (and its subtests).
pub fn for_test(test: &str, flags: &[String]) -> Vec<String> {
    let mut args = vec![format!("-test.run=^{}$", regex_quote(test))];
    if !flags.iter().any(|f| f.starts_with("-test.timeout")) {
        args.push(format!("-test.timeout={}s", DEFAULT_TIMEOUT.as_secs()));
    }
    args.extend(flags.iter().cloned());
    args
}

/// The arguments that list the tests `run` matches.
pub fn for_listing(run: Option<&str>) -> Vec<String> {
    vec!["-test.list".to_string(), run.unwrap_or(".").to_string()]
}

/// Test names are identifiers, but a regexp must not read anything in them as syntax.
fn regex_quote(name: &str) -> String {
    name.chars().fold(String::new(), |mut out, c| {
        if !c.is_alphanumeric() && c != '_' {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// The names `-test.list` printed that `seedfall test` runs: tests,
/// examples and fuzz targets (their seed corpus), not benchmarks.
pub fn listed(output: &str) -> Vec<String> {
    output
        .lines()
        .map(str::trim)
        .filter(|l| ["Test", "Example", "Fuzz"].iter().any(|p| l.starts_with(p)) && !l.contains(' '))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_test_spellings_become_the_binarys() {
        let flags = translate(&strings(&["-v", "-timeout", "30s", "--short", "-count=2", "-myflag", "x"]));
        assert_eq!(
            flags,
            strings(&["-test.v", "-test.timeout", "30s", "-test.short", "-test.count=2", "-myflag", "x"])
        );
        assert_eq!(timeout(&flags).unwrap(), Duration::from_secs(30));
        assert_eq!(timeout(&[]).unwrap(), DEFAULT_TIMEOUT);
        assert!(timeout(&strings(&["-test.timeout=soon"])).unwrap_err().to_string().starts_with("-timeout:"));
    }

    #[test]
    fn a_run_names_exactly_one_test() {
        assert_eq!(for_test("TestA", &[]), strings(&["-test.run=^TestA$", "-test.timeout=60s"]));
        assert_eq!(
            for_test("TestA", &strings(&["-test.timeout=5s"])),
            strings(&["-test.run=^TestA$", "-test.timeout=5s"])
        );
        assert_eq!(
            listed("TestA\nBenchmarkB\nExampleC\nFuzzD\nok  \tx\t0.1s\n"),
            strings(&["TestA", "ExampleC", "FuzzD"])
        );
    }
}
