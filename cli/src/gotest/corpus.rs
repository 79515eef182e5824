//! A package's saved schedules, like Go's fuzz corpus:
//! `testdata/seedfall/<Test>/seed-N.faults.json`. `-minimize` reruns a
//! failing seed with every preemption point recorded (random's and calls'
//! too, `PreemptConfig::record`), shrinks the points and faults to a
//! 1-minimal set that still fails the same way, and saves it there; every
//! later `seedfall test` of the package replays each saved schedule first
//! and fails while one still fails. It does not print.

use super::Prepared;
use crate::schedule::Schedule;
use crate::schedule_error::ScheduleError;
use crate::shrink::{self, Budget, ShrinkOptions, Shrunk};
use seedfall_host::world::{RunResult, RunSpec};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A saved schedule: its test, seed and file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub test: String,
    pub seed: u64,
    pub file: PathBuf,
}

/// Where `test`'s schedule for `seed` is saved.
pub fn path(package_dir: &Path, test: &str, seed: u64) -> PathBuf {
    super::corpus_dir(package_dir).join(test).join(format!("seed-{seed}.faults.json"))
}

/// Every saved schedule of the package, by test then seed; a file whose
/// name is not `seed-N.faults.json` is not one.
pub fn saved(package_dir: &Path) -> Vec<Saved> {
    let mut found = Vec::new();
    let Ok(tests) = std::fs::read_dir(super::corpus_dir(package_dir)) else { return found };
    for test in tests.flatten().filter(|e| e.path().is_dir()) {
        let Ok(files) = std::fs::read_dir(test.path()) else { continue };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let seed = name.strip_prefix("seed-").and_then(|n| n.strip_suffix(".faults.json"));
            if let Some(seed) = seed.and_then(|n| n.parse().ok()) {
                let test = test.file_name().to_string_lossy().into_owned();
                found.push(Saved { test, seed, file: file.path() });
            }
        }
    }
    found.sort_by(|a, b| (&a.test, a.seed).cmp(&(&b.test, b.seed)));
    found
}

/// The run of `saved`'s seed that replays its schedule: its points and
/// faults exactly, for the test `prepared` has selected.
pub fn spec(prepared: &Prepared, saved: &Saved) -> Result<RunSpec, ScheduleError> {
    let schedule = Schedule::load(&saved.file)?;
    let mut spec = prepared.cluster.spec(saved.seed);
    spec.preempt.record = true;
    spec.schedule = Some(schedule.faults);
    spec.branches = schedule.branches;
    spec.duration = schedule.duration.unwrap_or(spec.duration);
    spec.budget_cap = schedule.ops;
    Ok(spec)
}

/// Replays `saved` (its test selected first).
pub fn replay(prepared: &mut Prepared, saved: &Saved, test_flags: &[String]) -> Result<RunResult, ScheduleError> {
    prepared.select(&saved.test, test_flags);
    prepared
        .cluster
        .run(&spec(prepared, saved)?)
        .map_err(|e| ScheduleError::InFile { file: saved.file.clone(), error: Box::new(ScheduleError::World(e)) })
}

/// Shrinks `test`'s failure at `seed` (selected already) to its 1-minimal
/// schedule and saves it in the corpus.
pub fn minimize(
    prepared: &mut Prepared,
    test: &str,
    seed: u64,
    workers: usize,
) -> Result<(Shrunk, PathBuf), ScheduleError> {
    prepared.cluster.config.preempt.record = true;
    let shrunk = shrink::failing(&prepared.cluster, seed).and_then(|failing| {
        let options = ShrinkOptions { workers, budget: Budget::Unlimited };
        shrink::shrink(&prepared.cluster, &failing, &options, Arc::new(AtomicBool::new(false)), |_| {})
    });
    prepared.cluster.config.preempt.record = false;
    let shrunk = shrunk?;
    let file = path(&prepared.package.dir, test, seed);
    shrunk.schedule().save(&file)?;
    Ok((shrunk, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_schedules_are_found_by_test_and_seed() {
        let dir = std::env::temp_dir().join(format!("seedfall-corpus-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (test, file) in [
            ("TestB", "seed-3.faults.json"),
            ("TestA", "seed-12.faults.json"),
            ("TestA", "seed-2.faults.json"),
            ("TestA", "notes.txt"),
        ] {
            let at = super::super::corpus_dir(&dir).join(test);
            std::fs::create_dir_all(&at).unwrap();
            std::fs::write(at.join(file), "{}").unwrap();
        }
        let found: Vec<(String, u64)> = saved(&dir).into_iter().map(|s| (s.test, s.seed)).collect();
        assert_eq!(found, [("TestA".into(), 2), ("TestA".into(), 12), ("TestB".into(), 3)]);
        assert_eq!(path(&dir, "TestA", 2), super::super::corpus_dir(&dir).join("TestA/seed-2.faults.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
