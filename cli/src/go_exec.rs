//! Plain `go test` under seedfall. `seedfall go-exec install DIR` writes
//! `DIR/go_wasip1_wasm_exec`, the program `GOOS=wasip1 GOARCH=wasm go test`
//! runs each test binary through when it is on PATH: it runs `seedfall exec
//! --test-attrs` with the seed `SEEDFALL_SEED` (default 1) and the strategy
//! `SEEDFALL_PREEMPT` (default random). `--test-attrs` watches the binary's
//! stdout for the tests it runs and, after it exits, prints for each
//! top-level test an `=== ATTR` line (Go 1.25's test2json attr event) with
//! the seed, the trace hash and the command that replays it, so `go test
//! -json` carries them. The binary is the user's own build: one built
//! without `-trimpath` holds the absolute paths of its sources, so its runs
//! move with the checkout; `untrimmed_warning` says so. It does not run tests
//! itself.

use crate::write_error::WriteError;
use std::path::{Path, PathBuf};

/// The name `go test` looks for on PATH for GOOS=wasip1 GOARCH=wasm.
pub const WRAPPER: &str = "go_wasip1_wasm_exec";

/// test2json's framing byte: with `-test.v=test2json` every framing line starts with it.
const MARKER: u8 = 0x16;

/// The wrapper script for the seedfall binary at `seedfall`.
pub fn wrapper_script(seedfall: &Path) -> String {
    let quoted = seedfall.display().to_string().replace('\'', r"'\''");
    format!(
        "#!/bin/sh\n\
         # Written by `seedfall go-exec install`: GOOS=wasip1 GOARCH=wasm go test runs each test\n\
         # binary through seedfall's deterministic world. SEEDFALL_SEED picks the seed (default 1),\n\
         # SEEDFALL_PREEMPT the preemption strategy (default random). Build with GOFLAGS=-trimpath:\n\
         # a binary holding its checkout's path runs differently from another checkout.\n\
         exec '{quoted}' exec --seed \"${{SEEDFALL_SEED:-1}}\" --preempt \"${{SEEDFALL_PREEMPT:-random}}\" --test-attrs \"$@\"\n"
    )
}

/// Writes the wrapper into `dir` (made if missing), executable; its path.
pub fn install(dir: &Path, seedfall: &Path) -> Result<PathBuf, WriteError> {
    let file = dir.join(WRAPPER);
    crate::safe_write::replace_or_say(&file, wrapper_script(seedfall).as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
            .map_err(|error| WriteError::Executable { file: file.clone(), error })?;
    }
    Ok(file)
}

/// A file every Go binary is built from: without `-trimpath` it is named by
/// its absolute path (`/usr/local/go/src/runtime/proc.go`), with it as
/// `runtime/proc.go`.
const RUNTIME_FILE: &[u8] = b"/src/runtime/proc.go";

/// The absolute source path a Go binary holds when it was built without
/// `-trimpath`: the whole string around `RUNTIME_FILE` in its file table.
pub fn absolute_source_path(wasm: &[u8]) -> Option<String> {
    let at = wasm.windows(RUNTIME_FILE.len()).position(|w| w == RUNTIME_FILE)?;
    let printable = |b: &u8| (b' '..=b'~').contains(b);
    let start = wasm[..at].iter().rposition(|b| !printable(b)).map_or(0, |i| i + 1);
    let end = at + RUNTIME_FILE.len();
    Some(String::from_utf8_lossy(&wasm[start..end]).into_owned())
}

/// The warning for the binary `name` (its bytes `wasm`) if it was built
/// without `-trimpath`.
pub fn untrimmed_warning(name: &str, wasm: &[u8]) -> Option<String> {
    let path = absolute_source_path(wasm)?;
    Some(format!(
        "seedfall: warning: {name} was built without -trimpath: it holds absolute source paths ({path}), so \
         a seed's run changes with where the checkout and Go live; build with `export GOFLAGS=-trimpath` \
         (docs/go-test.md)"
    ))
}

/// The top-level tests a test binary said it ran (`=== RUN   TestX`), read
/// from its stdout as it comes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TestsRun {
    partial: Vec<u8>,
    pub tests: Vec<String>,
    /// Its framing lines carry test2json's marker (`go test -json`).
    pub framed: bool,
}

impl TestsRun {
    pub fn observe(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.line(&line);
        }
    }

    fn line(&mut self, line: &[u8]) {
        let (line, framed) = match line.split_first() {
            Some((&MARKER, rest)) => (rest, true),
            _ => (line, false),
        };
        let Some(name) = line.strip_prefix(b"=== RUN   ") else { return };
        let name = String::from_utf8_lossy(name).trim().to_string();
        if !name.is_empty() && !name.contains('/') && !self.tests.contains(&name) {
            self.framed |= framed;
            self.tests.push(name);
        }
    }

    /// The `=== ATTR` lines for every test run, one per key and value.
    pub fn attr_lines(&self, attrs: &[(&str, String)]) -> String {
        let marker = if self.framed { "\u{16}" } else { "" };
        let mut out = String::new();
        for test in &self.tests {
            for (key, value) in attrs {
                out.push_str(&format!("{marker}=== ATTR  {test} {key} {value}\n"));
            }
        }
        out
    }
}

/// The `go test` command that reruns this test binary's run: the same seed
/// and strategy, and the `go test` flags its arguments came from
/// (`-test.run=X` is `-run=X`; `-test.v=test2json` is `-json`), since which
/// tests run and what they print move the preemption points.
pub fn replay_command(seed: u64, preempt: &str, guest_args: &[String]) -> String {
    let mut flags = Vec::new();
    for arg in guest_args {
        let Some(flag) = arg.strip_prefix("-test.") else { continue };
        match flag {
            "v=test2json" => flags.push("-json".to_string()),
            _ if flag.starts_with("paniconexit0") || flag.starts_with("timeout") || flag.starts_with("gocoverdir") => {}
            _ => flags.push(format!("'-{}'", flag.replace('\'', r"'\''"))),
        }
    }
    let flags = flags.iter().map(|f| format!("{f} ")).collect::<String>();
    format!("SEEDFALL_SEED={seed} SEEDFALL_PREEMPT={preempt} GOOS=wasip1 GOARCH=wasm go test {flags}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_tests_are_read_from_split_writes() {
        let mut seen = TestsRun::default();
        seen.observe(b"\x16=== RUN   TestA\nsome output\n\x16=== RUN   TestA/sub\n=== RU");
        seen.observe(b"N   TestB\n--- PASS: TestB (0.00s)\n=== RUN   TestA\n");
        assert_eq!(seen.tests, ["TestA", "TestB"]);
        assert!(seen.framed);
        let lines = seen.attr_lines(&[("seedfall.seed", "7".into())]);
        assert_eq!(lines, "\u{16}=== ATTR  TestA seedfall.seed 7\n\u{16}=== ATTR  TestB seedfall.seed 7\n");
    }

    #[test]
    fn the_wrapper_runs_seedfall_exec_with_the_seed_from_the_environment() {
        let script = wrapper_script(Path::new("/opt/it's/seedfall"));
        assert!(script.starts_with("#!/bin/sh\n"));
        assert!(script.contains(r#"exec '/opt/it'\''s/seedfall' exec --seed "${SEEDFALL_SEED:-1}""#), "{script}");
        assert!(script.trim_end().ends_with(r#"--test-attrs "$@""#));
    }

    #[test]
    fn a_binary_with_absolute_source_paths_is_told_from_a_trimmed_one() {
        let untrimmed = b"\0\0/home/u/bank/bank.go\0/usr/local/go/src/runtime/proc.go\0runtime/mgc.go\0";
        assert_eq!(absolute_source_path(untrimmed).as_deref(), Some("/usr/local/go/src/runtime/proc.go"));
        let warning = untrimmed_warning("bank.test", untrimmed).unwrap();
        assert!(warning.starts_with("seedfall: warning: bank.test was built without -trimpath"), "{warning}");
        assert!(warning.contains("export GOFLAGS=-trimpath"), "{warning}");
        let trimmed = b"\0example.com/bank/bank.go\0runtime/proc.go\0runtime/mgc.go\0";
        assert_eq!(absolute_source_path(trimmed), None);
        assert_eq!(untrimmed_warning("bank.test", trimmed), None);
    }

    #[test]
    fn the_replay_command_gives_go_test_the_flags_the_binary_got() {
        let args: Vec<String> =
            ["-test.paniconexit0", "-test.timeout=10m0s", "-test.v=test2json", "-test.run=^TestA$", "-test.short"]
                .map(String::from)
                .to_vec();
        assert_eq!(
            replay_command(7, "random", &args),
            "SEEDFALL_SEED=7 SEEDFALL_PREEMPT=random GOOS=wasip1 GOARCH=wasm go test -json '-run=^TestA$' '-short' ."
        );
    }
}
