//! The shared prefix: runs that leave one run (its seed and the branches it
//! already took) at given scheduler steps, each with new randomness
//! (`World::branch_before`), without replaying the prefix for each. Where
//! `fork()` exists each of `jobs` lanes steps its own copy of the run
//! through the steps in order and forks a child per future
//! (`World::fork_branch`), which sends back what `answer` makes of its
//! result; elsewhere, or when asked, each future replays the run from its
//! start with its branches. Both give the same runs (`cli/tests/cause.rs`
//! compares trace hashes). `seedfall cause` and `seedfall explore` use it;
//! it does not choose the steps or the reseeds. A `Watch` counts the futures
//! done and stops the rest from starting once its flag is set.

use crate::schedule_error::ScheduleError;
use crate::watch::Watch;
use seedfall_host::branch::Branch;
use seedfall_host::world::{Probes, RunResult, RunSpec, World};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A run that futures leave: `spec`'s seed with `branches` taken, watched
/// by `probes` (each future has the copy its fork or replay made).
pub struct Prefix<'a> {
    pub spec: &'a RunSpec,
    pub branches: &'a [Branch],
    pub probes: fn() -> Probes,
}

type Slots<T> = Mutex<Vec<Option<Result<T, ScheduleError>>>>;

/// A forked future's result as its child sends it back: an engine error
/// crosses the process boundary as its text.
#[derive(Serialize, Deserialize)]
enum Answer<T> {
    Ran(T),
    Failed(String),
}

impl Prefix<'_> {
    /// The run from its start, with its branches (each drawing anew).
    pub fn world(&self) -> World<'_> {
        let mut world = World::probed(self.spec, None, (self.probes)());
        for b in self.branches {
            world.branch_before(*b);
        }
        world
    }

    /// Runs every future (steps in increasing order) and returns `answer`
    /// of each run, in the futures' order; the first error if one could
    /// not run.
    pub fn futures<T, F>(
        &self,
        futures: &[Branch],
        jobs: usize,
        share: bool,
        answer: F,
    ) -> Result<Vec<T>, ScheduleError>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(&RunResult) -> T + Sync,
    {
        let results = self.futures_watched(futures, jobs, share, answer, &Watch::default())?;
        results.into_iter().map(|r| r.ok_or(ScheduleError::NotRun)).collect()
    }

    /// `futures`, counted in `watch`; once its flag is set no lane starts
    /// another future (those running finish): the ones not run are None.
    pub fn futures_watched<T, F>(
        &self,
        futures: &[Branch],
        jobs: usize,
        share: bool,
        answer: F,
        watch: &Watch,
    ) -> Result<Vec<Option<T>>, ScheduleError>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(&RunResult) -> T + Sync,
    {
        watch.set_total(futures.len() as u64);
        let results: Slots<T> = Mutex::new(futures.iter().map(|_| None).collect());
        if share && seedfall_host::fork::AVAILABLE {
            self.forked(futures, jobs, &answer, &results, watch)?;
        } else {
            self.replayed(futures, jobs, &answer, &results, watch);
        }
        let results = results.into_inner().expect("no lane panics");
        results.into_iter().map(Option::transpose).collect()
    }

    /// Jobs take the futures in turn, each replaying the prefix.
    fn replayed<T>(
        &self,
        futures: &[Branch],
        jobs: usize,
        answer: &(dyn Fn(&RunResult) -> T + Sync),
        results: &Slots<T>,
        watch: &Watch,
    ) where
        T: Send,
    {
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..jobs.clamp(1, futures.len().max(1)) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(future) = futures.get(i).filter(|_| !watch.stopped()) else { break };
                        let mut world = self.world();
                        world.branch_before(*future);
                        let result = world.run().map(|run| answer(&run)).map_err(ScheduleError::World);
                        if result.is_err() {
                            next.store(futures.len(), Ordering::Relaxed);
                        }
                        results.lock().expect("no lane panics")[i] = Some(result);
                        watch.add_done();
                    }
                });
            }
        });
    }

    /// Lane `l` of `jobs` steps its own copy of the run and forks futures
    /// `l`, `l + jobs`, … from it.
    fn forked<T>(
        &self,
        futures: &[Branch],
        jobs: usize,
        answer: &(dyn Fn(&RunResult) -> T + Sync),
        results: &Slots<T>,
        watch: &Watch,
    ) -> Result<(), ScheduleError>
    where
        T: Serialize + DeserializeOwned + Send,
    {
        let jobs = jobs.clamp(1, futures.len().max(1));
        let lanes: Vec<Result<(), ScheduleError>> = std::thread::scope(|scope| {
            let lanes: Vec<_> = (0..jobs)
                .map(|lane| scope.spawn(move || self.lane(lane, jobs, futures, answer, results, watch)))
                .collect();
            lanes.into_iter().map(|h| h.join().unwrap_or(Err(ScheduleError::LanePanicked))).collect()
        });
        lanes.into_iter().collect()
    }

    fn lane<T>(
        &self,
        lane: usize,
        jobs: usize,
        futures: &[Branch],
        answer: &(dyn Fn(&RunResult) -> T + Sync),
        results: &Slots<T>,
        watch: &Watch,
    ) -> Result<(), ScheduleError>
    where
        T: Serialize + DeserializeOwned + Send,
    {
        let mut world = self.world();
        for i in (lane..futures.len()).step_by(jobs) {
            if watch.stopped() {
                break;
            }
            let future = futures[i];
            advance(&mut world, future.step)?;
            let bytes = world
                .fork_branch(future, |run| {
                    let answered = match run {
                        Ok(run) => Answer::Ran(answer(&run)),
                        Err(e) => Answer::Failed(e.to_string()),
                    };
                    serde_json::to_vec(&answered).expect("answers serialize")
                })
                .map_err(ScheduleError::Fork)?;
            let result = match serde_json::from_slice(&bytes).map_err(ScheduleError::ForkedAnswer)? {
                Answer::Ran(answer) => Ok(answer),
                Answer::Failed(error) => Err(ScheduleError::ForkedRun(error)),
            };
            results.lock().expect("no lane panics")[i] = Some(result);
            watch.add_done();
        }
        Ok(())
    }
}

/// Steps `world` until `step` scheduler steps are done; an error if it
/// ends first (it is then not the run the steps were taken from).
fn advance(world: &mut World, step: u64) -> Result<(), ScheduleError> {
    while world.steps() < step {
        if world.step()?.is_some() {
            return Err(ScheduleError::NotRepeated { steps: world.steps(), step });
        }
    }
    Ok(())
}
