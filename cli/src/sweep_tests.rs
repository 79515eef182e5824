//! The sweep's guarantees without a cluster: `each` runs closures that
//! stand in for the world, made-up runs (`test_runs.rs`) for the tally.

use super::*;
use crate::report::Tally;
use crate::shard::Shard;
use crate::test_runs::{failure, run};
use seedfall_host::world::Verdict;

/// Seed `seed`'s made-up outcome: seeds divisible by 7 fail.
fn outcome(seed: u64) -> SeedOutcome {
    let verdict = match seed % 7 {
        0 => Verdict::Fail(vec![failure(&format!("seed {seed}: a write was lost"))]),
        _ => Verdict::Pass,
    };
    SeedOutcome { seed, result: Ok(run(seed, seed, verdict)), divergence: None }
}

#[test]
fn every_seed_runs_exactly_once_whatever_the_worker_count() {
    let seeds: Vec<u64> = (1..=40).collect();
    for workers in [1, 2, 4, 8, 64] {
        let mut seen = Vec::new();
        let swept = each(&seeds, workers, &AtomicBool::new(false), |&seed| seed, |seed| seen.push(seed));
        seen.sort_unstable();
        assert_eq!(seen, seeds, "{workers} workers");
        assert_eq!(swept, Swept { finished: 40, interrupted: false });
    }
    let none = each(&[] as &[u64], 4, &AtomicBool::new(false), |&seed| seed, |_| panic!("no seeds, no outcome"));
    assert_eq!(none, Swept { finished: 0, interrupted: false });
}

#[test]
fn the_tally_is_in_seed_order_whatever_order_the_seeds_finish_in() {
    let seeds: Vec<u64> = (1..=30).collect();
    let mut documents = Vec::new();
    for workers in [1, 4] {
        // With several workers seed 1 waits until seed 2 has been reported,
        // so the outcomes surely arrive out of seed order.
        let second_seen = AtomicBool::new(workers == 1);
        let (mut tally, mut order) = (Tally::default(), Vec::new());
        let work = |&seed: &u64| {
            while seed == 1 && !second_seen.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            outcome(seed)
        };
        each(&seeds, workers, &AtomicBool::new(false), work, |outcome| {
            second_seen.fetch_or(outcome.seed == 2, Ordering::Relaxed);
            order.push(outcome.seed);
            tally.add(&outcome);
        });
        assert_eq!(order.len(), 30);
        assert_eq!(order.iter().position(|&s| s == 1) > order.iter().position(|&s| s == 2), workers > 1);
        assert_eq!(tally.failed.keys().copied().collect::<Vec<_>>(), [7, 14, 21, 28]);
        assert_eq!((tally.seeds, tally.passed, tally.lowest_failing()), (30, 26, Some(7)));
        documents.push(tally.json("c.json", 1));
    }
    assert_eq!(documents[0], documents[1], "the report does not depend on the order seeds finished in");
    assert_eq!(documents[0]["lowest_failing_seed"], 7);
}

#[test]
fn a_stop_lets_the_seeds_in_hand_finish_and_starts_no_more() {
    const K: usize = 5;
    let seeds: Vec<u64> = (1..=100).collect();
    for workers in [1, 3] {
        let stop = AtomicBool::new(false);
        let started = AtomicUsize::new(0);
        let mut finished = Vec::new();
        let work = |&seed: &u64| {
            started.fetch_add(1, Ordering::SeqCst);
            // Seeds past the K-th wait for the stop: each worker has one in hand when it comes.
            while seed > K as u64 && !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            seed
        };
        let swept = each(&seeds, workers, &stop, work, |seed| {
            finished.push(seed);
            if finished.len() == K {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let started = started.load(Ordering::SeqCst);
        assert!((K..=K + workers).contains(&started), "{workers} workers: {started} seeds started");
        assert_eq!(swept, Swept { finished: started, interrupted: true }, "every seed started was reported");
        finished.sort_unstable();
        assert_eq!(finished, seeds[..started], "seeds are taken in list order");
    }
}

#[test]
fn the_shards_of_a_sweep_run_every_seed_once() {
    let seeds: Vec<u64> = (1..=23).collect();
    for count in 1..=5 {
        let mut all = Vec::new();
        for index in 0..count {
            let shard = Shard { index, count }.select(&seeds);
            let swept = each(&shard, 2, &AtomicBool::new(false), |&seed| seed, |seed| all.push(seed));
            assert_eq!(swept.finished, shard.len());
        }
        all.sort_unstable();
        assert_eq!(all, seeds, "{count} shards");
    }
}
