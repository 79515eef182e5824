//! The schedule layer's error: everything that reads, edits or runs one
//! seed's fault schedule (`schedule`, `schedule_edit`, `replay`'s files,
//! `shrink`, `verify`, `cause`, the shared prefix of `cause` and `explore`,
//! `crashstates`, `seedfall test`'s saved schedules). Display is the line
//! users see (exit 2). It sits below every module that returns it, so none
//! of them imports another for its error; it runs nothing.

use crate::duration::DurationError;
use crate::write_error::WriteError;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum ScheduleError {
    /// A schedule file could not be read.
    Read { file: PathBuf, error: std::io::Error },
    /// Not a schedule: what is wrong with it, and the file when it came from one.
    Invalid { file: Option<PathBuf>, message: String },
    /// A `faults --shift` or `--remove` the schedule cannot take.
    Edit(String),
    /// A schedule, result or saved future could not be written.
    Write(WriteError),
    /// A stale file could not be removed before writing anew.
    Remove { file: PathBuf, error: std::io::Error },
    /// The world could not run (instantiation failed, an engine error).
    World(seedfall_engine::Error),
    /// A forked child's run failed; its engine error as the child wrote it.
    ForkedRun(String),
    /// A child could not be forked or did not answer.
    Fork(std::io::Error),
    /// A forked child's answer did not parse.
    ForkedAnswer(serde_json::Error),
    /// A future of a shared prefix was not run.
    NotRun,
    /// A lane of forked futures panicked.
    LanePanicked,
    /// Stepping a run to a branch point, the run ended first.
    NotRepeated { steps: u64, step: u64 },
    /// The seed passes: there is nothing to `what` (shrink, explain).
    Passes { seed: u64, what: &'static str },
    /// The seed's schedule, replayed, does not fail as the seed did.
    NotReproduced { seed: u64 },
    /// What the schedule or the command names is not in the run (a node, a
    /// crash point); the message says what and what there is.
    NotInRun(String),
    /// An option out of its range (`--futures 0`).
    Usage(&'static str),
    /// `--budget` is neither a number of runs nor a duration.
    Budget(DurationError),
    /// The stop flag was set before the work could finish; what was cut short.
    Interrupted(&'static str),
    /// Replaying a saved schedule file failed so.
    InFile { file: PathBuf, error: Box<ScheduleError> },
    /// The trace file `replay --against` names could not be read; why.
    Against { file: PathBuf, message: String },
    /// Seed `seed` could not run so.
    Seed { seed: u64, error: Box<ScheduleError> },
    /// State `state` (from 1) of `crashstates` could not run.
    State { state: usize, error: Box<ScheduleError> },
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ScheduleError::Read { file, error } => write!(f, "{}: cannot read: {error}", file.display()),
            ScheduleError::Invalid { file: Some(file), message } => write!(f, "{}: {message}", file.display()),
            ScheduleError::Invalid { file: None, message } => f.write_str(message),
            ScheduleError::Edit(message) | ScheduleError::NotInRun(message) | ScheduleError::ForkedRun(message) => {
                f.write_str(message)
            }
            ScheduleError::Write(error) => write!(f, "{error}"),
            ScheduleError::Remove { file, error } => write!(f, "cannot remove {}: {error}", file.display()),
            ScheduleError::World(error) => write!(f, "{error}"),
            ScheduleError::Fork(error) => write!(f, "a forked future: {error}"),
            ScheduleError::ForkedAnswer(error) => write!(f, "a forked future's answer: {error}"),
            ScheduleError::NotRun => f.write_str("a future did not run"),
            ScheduleError::LanePanicked => f.write_str("a lane panicked"),
            ScheduleError::NotRepeated { steps, step } => {
                write!(f, "the run ended after {steps} steps, before the branch at step {step}: it did not repeat")
            }
            ScheduleError::Passes { seed, what } => write!(f, "seed {seed} passes: nothing to {what}"),
            ScheduleError::NotReproduced { seed } => {
                write!(f, "seed {seed} does not fail the same way when its schedule is replayed")
            }
            ScheduleError::Usage(message) | ScheduleError::Interrupted(message) => f.write_str(message),
            ScheduleError::Budget(error) => write!(f, "--budget: {error} (or a number of runs)"),
            ScheduleError::InFile { file, error } => write!(f, "{}: {error}", file.display()),
            ScheduleError::Against { file, message } => write!(f, "{}: {message}", file.display()),
            ScheduleError::Seed { seed, error } => write!(f, "seed {seed}: {error}"),
            ScheduleError::State { state, error } => write!(f, "state {state}: {error}"),
        }
    }
}

impl std::error::Error for ScheduleError {}

impl From<WriteError> for ScheduleError {
    fn from(error: WriteError) -> Self {
        ScheduleError::Write(error)
    }
}

impl From<seedfall_engine::Error> for ScheduleError {
    fn from(error: seedfall_engine::Error) -> Self {
        ScheduleError::World(error)
    }
}
